//! LDS operations on the CDNA wave interpreter, in kernels built with our assembler, against
//! plain-Rust expectations from the ISA guides.

#[path = "cdna/asm.rs"]
mod asm;

use asm::run;

/// The DS address is ADDR + OFFSET in 32 bits: a negative VGPR base with a positive offset
/// reaches the LDS below the offset (LLVM folds `252 - 4l` into ADDR = -4l, OFFSET = 252).
#[test]
fn ds_address_wraps_at_32_bits() {
    let src = "v_lshlrev_b32 v1, 2, v0\nv_add_u32 v2, 0x500, v0\nds_write_b32 v1, v2\ns_waitcnt lgkmcnt(0)\n\
               v_sub_u32 v3, 0, v1\nds_read_b32 v4, v3 offset:252\ns_waitcnt lgkmcnt(0)\n\
               global_store_dword v1, v4, s[0:1]\ns_endpgm\n";
    for arch in ["gfx942", "gfx950"] {
        let mut buf = vec![0u32; 64];
        run(arch, src, &mut buf, 256);
        let want: Vec<u32> = (0..64u32).map(|l| 0x500 + (252 - 4 * l) / 4).collect();
        assert_eq!(buf, want, "{arch}");
    }
}
