//! Where the decode of a code segment stops: at a zero dword after an s_endpgm (what follows the
//! code in its allocation, or the memory next to it where allocations adjoin, as VRAM ones do
//! on AM), so data written past the code does not invalidate the decoded code; code reached past
//! that point (a branch over the s_endpgm) is decoded from its own pc.

use crate::asm::{assemble, dispatch_words};
use baregpu_emu::amd::dispatch::GpuMemory;
use baregpu_emu::rdna::Interpreter;

#[test]
fn data_after_the_code_and_its_zero_padding_does_not_invalidate_the_decode() {
    for arch in ["gfx942", "gfx950"] {
        let mut words = assemble(arch, "v_mov_b32 v1, 5\ns_endpgm\n");
        words.resize(words.len() + 64, 0);
        // Data that decodes (as an illegal instruction or not) after the padding.
        words.extend([0xdead_beefu32; 16]);
        let va = words.as_ptr() as u64;
        let mem = GpuMemory::from_ranges(&[(va, words.len() as u64 * 4, va as usize)]);
        let e = Interpreter::new(arch);
        e.unsupported(va, &mem).expect("decodes");
        let n = words.len();
        words[n - 1] = 0x1234_5678;
        e.unsupported(va, &mem).expect("decodes");
        assert_eq!(e.decodes(), 1, "{arch}: the data past the code is not part of its segment");
    }
}

#[test]
fn code_past_a_zero_dword_after_s_endpgm_runs_from_a_segment_of_its_own() {
    // s_branch 1 skips the s_endpgm to the s_nop; the zero dword after it (v_cndmask_b32 v0, s0,
    // v0 on gfx9) ends the first segment, and execution goes on into it.
    for arch in ["gfx942", "gfx950"] {
        let head = assemble(arch, "s_branch 1\ns_endpgm\ns_nop 0\n");
        let tail =
            assemble(arch, "v_mov_b32 v1, 0x1234\nv_mov_b32 v2, 0\nglobal_store_dword v2, v1, s[0:1]\ns_endpgm\n");
        let code = [head, vec![0], tail].concat();
        let mut buf = vec![0u32; 4];
        dispatch_words(arch, &code, &mut buf, 0, 4).unwrap_or_else(|(f, _)| panic!("{arch}: {f}"));
        assert_eq!(buf[0], 0x1234, "{arch}");
    }
}
