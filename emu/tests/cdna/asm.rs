//! Runs a gfx9 assembly kernel (built with our assembler) as one wave64 on the interpreter:
//! s[0:1] = the buffer's address, `lds` bytes of LDS.

#![allow(dead_code)]

use baregpu_emu::amd::dispatch::{DispatchFault, DispatchState, GpuMemory, WaveEngine};
use baregpu_emu::rdna::Interpreter;
use baregpu_isa::Arch;

pub fn run(arch: &'static str, src: &str, buf: &mut [u32], lds: u32) {
    dispatch(arch, src, buf, lds).unwrap_or_else(|f| panic!("{arch}: {f:?}\n{src}"));
}

/// As [`run`]; returns the dispatch's result and the code's address.
pub fn dispatch(arch: &'static str, src: &str, buf: &mut [u32], lds: u32) -> Result<(), (DispatchFault, u64)> {
    let a = Arch::from_name(arch).unwrap();
    let code = baregpu_isa::assemble(a, src).unwrap_or_else(|e| panic!("{arch}: {e}\n{src}"));
    let mut words: Vec<u32> = code.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    words.resize(words.len() + 64, 0);
    let (va, bva) = (words.as_ptr() as u64, buf.as_ptr() as u64);
    let mem =
        GpuMemory::from_ranges(&[(va, words.len() as u64 * 4, va as usize), (bva, buf.len() as u64 * 4, bva as usize)]);
    let mut user_data = [0u32; 16];
    (user_data[0], user_data[1]) = (bva as u32, (bva >> 32) as u32);
    let d = DispatchState {
        arch,
        pgm: va,
        rsrc1: 0,
        rsrc2: 2 << 1,
        rsrc3: 0,
        user_data,
        grid: [1, 1, 1],
        block: [64, 1, 1],
        start: [0; 3],
        wave32: false,
        tmpring_size: 0,
        scratch_base: 0,
        lds_bytes: lds,
        cancel: Default::default(),
    };
    Interpreter::new(arch).dispatch(&d, &mem).map_err(|f| (f, va))
}
