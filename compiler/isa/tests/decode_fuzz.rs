//! Decoding garbage, cut and corrupted streams: every call returns an instruction or one decode
//! error naming an offset inside the input, never panics, and an instruction is exactly the bytes
//! it says it spans.

use baregpu_isa::{decode_all, Arch, Decoder, IsaError};

#[path = "../../../tests/common/mutate.rs"]
mod mutate;
use mutate::xorshift;

/// All golden vectors of `arch` back to back.
fn golden_stream(arch: Arch) -> Vec<u8> {
    let p = format!("{}/../../tests/isa/golden/{}.txt", env!("CARGO_MANIFEST_DIR"), arch.name());
    let src = std::fs::read_to_string(p).expect("golden file");
    src.lines()
        .filter_map(|l| l.rsplit_once(" ; [").map(|(_, e)| e))
        .flat_map(|e| {
            let e = e.trim_end_matches(']').split(',');
            e.filter_map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).ok()).collect::<Vec<u8>>()
        })
        .collect()
}

/// One decode at `at`: an instruction made of exactly its bytes, or a decode error at `at`.
fn check(d: &Decoder, bytes: &[u8], at: usize) {
    match d.decode_at(bytes, at) {
        Ok(i) => {
            assert!(at + i.size() <= bytes.len(), "{}: {} bytes at {at} of {}", d.arch().name(), i.size(), bytes.len());
            assert_eq!(i.encode(), bytes[at..at + i.size()], "{}: at {at}", d.arch().name());
        }
        Err(IsaError::Truncated { offset, need, have }) => {
            assert_eq!((offset, have), (at, bytes.len().saturating_sub(at)));
            assert!(need > have);
        }
        Err(IsaError::UnknownEncoding { offset, .. } | IsaError::UnknownOpcode { offset, .. }) => {
            assert_eq!(offset, at)
        }
        Err(e) => panic!("{}: at {at}: not a decode error: {e}", d.arch().name()),
    }
}

#[test]
fn corrupted_golden_streams() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for arch in Arch::ALL {
        let d = Decoder::new(arch);
        let mut s = golden_stream(arch);
        // About one byte in 50 replaced, with a bias to the values that change a reading
        // (literal 255, DPP/SDWA selectors).
        for _ in 0..s.len() / 50 {
            let at = xorshift(&mut x) as usize % s.len();
            s[at] = [0xff, 0xfa, 0xe9, 0xf9, xorshift(&mut x) as u8][xorshift(&mut x) as usize % 5];
        }
        for at in 0..s.len() + 5 {
            check(&d, &s, at);
        }
    }
}

#[test]
fn cut_streams() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for arch in Arch::ALL {
        let d = Decoder::new(arch);
        let s = golden_stream(arch);
        for _ in 0..3000 {
            let a = xorshift(&mut x) as usize % s.len();
            let b = (a + xorshift(&mut x) as usize % 40).min(s.len());
            let w = &s[a..b];
            for at in 0..w.len() + 1 {
                check(&d, w, at);
            }
            // A whole-stream decode stops at the first error, which names its offset.
            match decode_all(arch, w) {
                Ok(v) => assert_eq!(v.iter().map(|(_, i)| i.size()).sum::<usize>(), w.len()),
                Err(
                    IsaError::Truncated { offset, .. }
                    | IsaError::UnknownEncoding { offset, .. }
                    | IsaError::UnknownOpcode { offset, .. },
                ) => assert!(offset < w.len()),
                Err(e) => panic!("{}: not a decode error: {e}", arch.name()),
            }
        }
    }
}

#[test]
fn random_bytes() {
    let mut x = 0x0bad_5eed_1234_5678u64;
    for arch in Arch::ALL {
        let d = Decoder::new(arch);
        for _ in 0..50_000 {
            let n = xorshift(&mut x) as usize % 33;
            let b: Vec<u8> = (0..n).map(|_| xorshift(&mut x) as u8).collect();
            check(&d, &b, 0);
            check(&d, &b, xorshift(&mut x) as usize % 40);
        }
        check(&d, &[], usize::MAX);
    }
}
