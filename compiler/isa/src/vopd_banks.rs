//! VOPD's register-bank rule, as llvm-mc 22 enforces it (both the assembler and the builder
//! refuse what it refuses). The X and Y halves read their sources through shared ports, one per
//! operand position: each half's src0 and src1 VGPRs must differ from the other half's in bank
//! (register number mod 4), their src2 VGPRs in parity. The positions are the instruction's own:
//! `v_dual_fmamk_f32`'s VGPR (the `vsrc1` field) is its src2, the constant its src1;
//! `v_dual_fmac_f32`/`v_dual_dot2acc_*` read their destination as src2. The destinations' rule
//! (one even, one odd) is the encoding's: `vdsty` holds no parity bit. gfx12 exempts a pair of
//! `v_dual_mov_b32`, whose Y half reads another port.

use crate::inst::Instruction;
use crate::Arch;

/// A half's source VGPRs by position (src0, src1, src2), `None` where the position holds no VGPR.
fn sources(i: &Instruction, y: bool) -> [Option<u32>; 3] {
    let (op, h) = if y { (i.opcode_y(), "y") } else { (Some(i.opcode()), "x") };
    let Some(op) = op else { return [None; 3] };
    let field = |n: &str| i.field(&format!("{n}{h}"));
    let has = |n: &str| op.operands.iter().any(|o| o.name.strip_suffix(h) == Some(n));
    let src0 = field("src0").and_then(|v| v.checked_sub(256));
    let vsrc1 = if has("vsrc1") { field("vsrc1") } else { None };
    let vdst = if y {
        let x = i.f("vdstx");
        Some(i.f("vdsty") << 1 | (x & 1 ^ 1))
    } else {
        field("vdst")
    };
    let m = op.mnemonic;
    if m == "v_dual_fmamk_f32" {
        [src0, None, vsrc1]
    } else if m.starts_with("v_dual_fmac") || m.starts_with("v_dual_dot2acc") {
        [src0, vsrc1, vdst]
    } else {
        [src0, vsrc1, None]
    }
}

/// `Err(message)` (llvm-mc's words) when a VOPD instruction's sources share a VGPR bank.
pub fn check(i: &Instruction) -> Result<(), &'static str> {
    let Some(y) = i.opcode_y() else { return Ok(()) };
    let movs = i.mnemonic() == "v_dual_mov_b32" && y.mnemonic == "v_dual_mov_b32";
    let (sx, sy) = (sources(i, false), sources(i, true));
    const WHY: [&str; 3] = [
        "src0 operands must use different VGPR banks",
        "src1 operands must use different VGPR banks",
        "src2 operands must use different VGPR banks",
    ];
    for k in 0..3 {
        let mask = if k == 2 { 1 } else { 3 };
        if k == 0 && movs && i.arch == Arch::Gfx1201 {
            continue;
        }
        if let (Some(a), Some(b)) = (sx[k], sy[k]) {
            if a & mask == b & mask {
                return Err(WHY[k]);
            }
        }
    }
    Ok(())
}
