//! gfx9 operations with a lowering of their own: gfx950's (CDNA4) lane swaps, and the
//! register swap `v_swap_b32` (CDNA3 ISA guide: "swap operands", D and S0 trade values in the
//! active lanes).
//!
//! Source: LLVM's llvm.amdgcn.permlane{16,32}.swap ("swaps the odd rows of the first operand
//! with the even rows of the second operand (one row is 16 lanes)"; permlane32: the upper 32
//! lanes of the first with the lower 32 of the second) and llvm-mc's VOP3 encoding of their
//! `fi` (OPSEL bit 0) and `bound_ctrl` (OPSEL bit 1).

use super::*;

pub(super) fn lower(m: &str, i: &Instruction) -> Option<Result<Op, String>> {
    if m == "v_swap_b32" {
        let src = i.f("src0");
        if src < 256 {
            return Some(Err(format!("{m}: the source must be a VGPR")));
        }
        return Some(Ok(Op::VSwap { a: i.f("vdst") as u16, b: (src - 256) as u16 }));
    }
    let half = match base(m) {
        "v_permlane16_swap_b32" => false,
        "v_permlane32_swap_b32" => true,
        _ => return None,
    };
    let src = i.f("src0");
    if src < 256 {
        return Some(Err(format!("{m}: the source must be a VGPR")));
    }
    let opsel = i.field("opsel").unwrap_or(0);
    Some(Ok(Op::PermlaneSwap {
        vdst: i.f("vdst") as u16,
        src: (src - 256) as u16,
        half,
        fi: opsel & 1 != 0,
        bound_ctrl: opsel & 2 != 0,
    }))
}
