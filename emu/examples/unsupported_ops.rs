//! Lists the opcodes of an architecture's ISA table that the wave interpreter's lowering
//! refuses: each opcode is encoded with all other fields zero (registers v0/s0, offsets 0),
//! decoded, and lowered. Usage: `cargo run -p baregpu-emu --example unsupported_ops -- gfx950`.

use baregpu_emu::rdna::decode::lower;
use baregpu_emu::rdna::ops::{Op, Tgt};
use baregpu_isa::tables::Tables;
use baregpu_isa::Arch;

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "gfx950".into());
    let Some(arch) = Arch::from_name(&name) else {
        eprintln!("error: unknown architecture '{name}' (gfx1100, gfx1201, gfx942, gfx950)");
        std::process::exit(2);
    };
    let (refused, total) = scan(arch);
    for (m, why) in &refused {
        println!("{m}\t{why}");
    }
    eprintln!("{name}: {} of {total} opcodes refused", refused.len());
}

/// (mnemonic, reason) of every refused opcode, and the number of opcodes tried.
fn scan(arch: Arch) -> (Vec<(String, String)>, usize) {
    let t = Tables::get(arch);
    let mut out = Vec::new();
    let mut total = 0;
    for (k, op) in t.table.opcodes.iter().enumerate() {
        let fmt = t.format(t.layout[k]);
        let enc = t.table.formats.iter().find(|f| f.name == op.format).expect("format");
        let Some(&(_, value)) = enc.encoding.first() else { continue };
        let mut words = [0u32; 5];
        words[0] = value;
        for &(lo, hi, v) in fmt.select {
            set(&mut words, lo, hi, v);
        }
        if let Some((lo, hi)) = fmt.opcode {
            set(&mut words, lo, hi, op.opcode as u32);
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        total += 1;
        let res = match baregpu_isa::decode(arch, &bytes) {
            Ok(i) if i.mnemonic() == op.mnemonic => lower(arch, &i, 0, &Tgt::Pc),
            Ok(i) => Err(format!("(encoded as {})", i.mnemonic())),
            Err(e) => Err(format!("(does not decode: {e})")),
        };
        match res {
            Ok(Op::Illegal(w)) => out.push((op.mnemonic.to_string(), w)),
            Ok(_) => {}
            Err(w) => out.push((op.mnemonic.to_string(), w)),
        }
    }
    (out, total)
}

fn set(words: &mut [u32; 5], lo: u16, hi: u16, v: u32) {
    for b in lo..=hi {
        let bit = (v >> (b - lo)) & 1;
        let (w, s) = ((b / 32) as usize, b % 32);
        words[w] = (words[w] & !(1 << s)) | bit << s;
    }
}
