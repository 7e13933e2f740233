//! Runs a gfx9 assembly kernel (built with our assembler) as one wave64 on the interpreter:
//! s[0:1] = the buffer's address, `lds` bytes of LDS, AGPRs from ACCUM_OFFSET `accum` on.

#![allow(dead_code)]

use baregpu_emu::amd::dispatch::{DispatchFault, DispatchState, GpuMemory, WaveEngine};
use baregpu_emu::rdna::Interpreter;
use baregpu_isa::Arch;

/// Scratch bytes each lane owns.
pub const SCRATCH_LANE: usize = 64;

/// The unified register file's split when a test does not care: AGPRs from v4 on.
const DEFAULT_ACCUM: u32 = 4;

pub fn run(arch: &'static str, src: &str, buf: &mut [u32], lds: u32) {
    dispatch(arch, src, buf, lds).unwrap_or_else(|f| panic!("{arch}: {f:?}\n{src}"));
}

/// As [`run`]; returns the dispatch's result and the code's address.
pub fn dispatch(arch: &'static str, src: &str, buf: &mut [u32], lds: u32) -> Result<(), (DispatchFault, u64)> {
    dispatch_words(arch, &assemble(arch, src), buf, lds, DEFAULT_ACCUM)
}

/// `src` assembled for `arch`, as dwords.
pub fn assemble(arch: &'static str, src: &str) -> Vec<u32> {
    let a = Arch::from_name(arch).unwrap();
    let code = baregpu_isa::assemble(a, src).unwrap_or_else(|e| panic!("{arch}: {e}\n{src}"));
    code.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// As [`dispatch`], for code given as dwords, with AGPRs from v`accum` on (a multiple of 4).
pub fn dispatch_words(
    arch: &'static str,
    code: &[u32],
    buf: &mut [u32],
    lds: u32,
    accum: u32,
) -> Result<(), (DispatchFault, u64)> {
    let mut words = code.to_vec();
    words.resize(code.len() + 64, 0);
    // One wave's scratch: 64 lanes of SCRATCH_LANE bytes.
    let scratch = vec![0u8; 64 * SCRATCH_LANE];
    let (va, bva, sva) = (words.as_ptr() as u64, buf.as_ptr() as u64, scratch.as_ptr() as u64);
    let mem = GpuMemory::from_ranges(&[
        (va, words.len() as u64 * 4, va as usize),
        (bva, buf.len() as u64 * 4, bva as usize),
        (sva, scratch.len() as u64, sva as usize),
    ]);
    let mut user_data = [0u32; 16];
    (user_data[0], user_data[1]) = (bva as u32, (bva >> 32) as u32);
    let d = DispatchState {
        arch,
        pgm: va,
        rsrc1: 0,
        rsrc2: 2 << 1,
        rsrc3: accum / 4 - 1,
        user_data,
        grid: [1, 1, 1],
        block: [64, 1, 1],
        start: [0; 3],
        wave32: false,
        // One wave slot of 64 × SCRATCH_LANE bytes (in 256-byte units).
        tmpring_size: 1 | ((64 * SCRATCH_LANE as u32 / 256) << 12),
        scratch_base: sva,
        lds_bytes: lds,
        cancel: Default::default(),
        xcc: Default::default(),
    };
    Interpreter::new(arch).dispatch(&d, &mem).map_err(|f| (f, va))
}
