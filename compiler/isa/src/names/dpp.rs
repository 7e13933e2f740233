//! DPP16 controls (`quad_perm:[..]`, `row_shl:N`, ...) and SDWA selectors, both directions.

use crate::operand::is_gfx9;
use crate::Arch;

/// The argument of a DPP16 control as llvm-mc prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CtrlArg {
    /// `row_mirror`, `row_half_mirror`.
    None,
    /// `row_shl:N`...
    Int(u32),
    /// `quad_perm:[a,b,c,d]`.
    Lanes([u32; 4]),
}

/// A `dpp_ctrl` value as its control name and argument (llvm-mc 22's spelling); `None` for a
/// reserved value. One definition for the printer and the assembler's decoded verification.
pub fn ctrl_parts(arch: Arch, c: u32) -> Option<(&'static str, CtrlArg)> {
    let n = CtrlArg::Int(c & 0xf);
    Some(match c {
        0..=0xff => ("quad_perm", CtrlArg::Lanes([c & 3, c >> 2 & 3, c >> 4 & 3, c >> 6 & 3])),
        0x101..=0x10f => ("row_shl", n),
        0x111..=0x11f => ("row_shr", n),
        0x121..=0x12f => ("row_ror", n),
        0x130 => ("wave_shl", CtrlArg::Int(1)),
        0x134 => ("wave_rol", CtrlArg::Int(1)),
        0x138 => ("wave_shr", CtrlArg::Int(1)),
        0x13c => ("wave_ror", CtrlArg::Int(1)),
        0x140 => ("row_mirror", CtrlArg::None),
        0x141 => ("row_half_mirror", CtrlArg::None),
        0x142 => ("row_bcast", CtrlArg::Int(15)),
        0x143 => ("row_bcast", CtrlArg::Int(31)),
        // gfx90a+ broadcast within rows; gfx10+ reuses the codes as row_share.
        0x150..=0x15f if is_gfx9(arch) => ("row_newbcast", n),
        0x150..=0x15f => ("row_share", n),
        0x160..=0x16f => ("row_xmask", n),
        _ => return None,
    })
}

/// gfx90a+ (gfx942, gfx950): DPP16 of an instruction with a 64-bit VGPR operand (llvm-mc's
/// "DP ALU" DPP) takes only the `row_newbcast` controls. One rule for the assembler, which
/// refuses the others as llvm-mc does, and the disassembler, which prints such words as data.
pub fn dp_alu_refuses(i: &crate::inst::Instruction, c: u32) -> bool {
    use baregpu_autogen::isa::OperandKind;
    is_gfx9(i.arch)
        && !(0x150..=0x15f).contains(&c)
        && i.operands().iter().any(|o| o.dwords == 2 && matches!(o.kind, OperandKind::Vgpr | OperandKind::Vsrc))
}

/// The text of a `dpp_ctrl` value as llvm-mc 22 prints it; `None` for a reserved value.
pub fn ctrl_text(arch: Arch, c: u32) -> Option<String> {
    let (name, arg) = ctrl_parts(arch, c)?;
    Some(match arg {
        CtrlArg::None => name.to_string(),
        CtrlArg::Int(v) => format!("{name}:{v}"),
        CtrlArg::Lanes([a, b, c, d]) => format!("{name}:[{a},{b},{c},{d}]"),
    })
}

/// An SDWA selector's name as printed (an out-of-range code prints as `DWORD`, as llvm-mc does).
pub fn sdwa_sel_name(v: u32) -> &'static str {
    SDWA_SEL.get(v as usize).copied().unwrap_or("DWORD")
}

/// An SDWA `dst_unused` value's name as printed (out of range: `UNUSED_PAD`, as llvm-mc).
pub fn sdwa_dst_unused_name(v: u32) -> &'static str {
    SDWA_DST_UNUSED.get(v as usize).copied().unwrap_or("UNUSED_PAD")
}

/// The `dpp_ctrl` value of a control `name` with argument `arg` (`None` for the controls that take
/// none: `row_mirror`, `row_half_mirror`); `None` if the name is not a control.
pub fn ctrl(arch: Arch, name: &str, arg: Option<u32>) -> Option<u32> {
    let g9 = is_gfx9(arch);
    let a = arg.unwrap_or(u32::MAX);
    Some(match name {
        "row_mirror" if arg.is_none() => 0x140,
        "row_half_mirror" if arg.is_none() => 0x141,
        "row_shl" if (1..=15).contains(&a) => 0x100 + a,
        "row_shr" if (1..=15).contains(&a) => 0x110 + a,
        "row_ror" if (1..=15).contains(&a) => 0x120 + a,
        "row_share" if !g9 && a <= 15 => 0x150 + a,
        "row_newbcast" if g9 && a <= 15 => 0x150 + a,
        "row_xmask" if !g9 && a <= 15 => 0x160 + a,
        "wave_shl" if g9 && a == 1 => 0x130,
        "wave_rol" if g9 && a == 1 => 0x134,
        "wave_shr" if g9 && a == 1 => 0x138,
        "wave_ror" if g9 && a == 1 => 0x13c,
        "row_bcast" if g9 && a == 15 => 0x142,
        "row_bcast" if g9 && a == 31 => 0x143,
        _ => return None,
    })
}

/// The `dpp_ctrl` value of `quad_perm:[a,b,c,d]` (each lane select 0..=3).
pub fn quad_perm(lanes: &[u32]) -> Option<u32> {
    if lanes.len() != 4 || lanes.iter().any(|&l| l > 3) {
        return None;
    }
    Some(lanes.iter().enumerate().map(|(k, l)| l << (2 * k)).sum())
}

/// SDWA operand selectors (`dst_sel`, `src0_sel`, `src1_sel`), by code.
pub const SDWA_SEL: [&str; 7] = ["BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"];

/// SDWA `dst_unused` values, by code.
pub const SDWA_DST_UNUSED: [&str; 3] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"];

pub fn sdwa_sel(name: &str) -> Option<u32> {
    SDWA_SEL.iter().position(|x| *x == name).map(|k| k as u32)
}

pub fn sdwa_dst_unused(name: &str) -> Option<u32> {
    SDWA_DST_UNUSED.iter().position(|x| *x == name).map(|k| k as u32)
}
