//! Operand values: register files, special registers, inline constants, literals.

use crate::Arch;

/// What a 9-bit (vector) or 8-bit (scalar) source field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    Sgpr(u16),
    Vgpr(u16),
    Ttmp(u16),
    VccLo,
    VccHi,
    ExecLo,
    ExecHi,
    M0,
    Null,
    /// gfx9 flat_scratch / xnack_mask halves: (name of the pair, hi half).
    Named(&'static str, bool),
    /// Inline integer -16..=64.
    Int(i32),
    /// Inline float, by encoding 240..=248.
    Float(u16),
    /// Other named values (src_scc, src_vccz, shared_base...).
    Const(&'static str),
    Literal,
    Dpp16,
    Dpp8,
    Dpp8Fi,
    Sdwa,
    Invalid(u16),
}

pub fn is_gfx9(arch: Arch) -> bool {
    matches!(arch, Arch::Gfx942 | Arch::Gfx950)
}

/// Decodes a source field value (0..=511).
pub fn src(arch: Arch, v: u16) -> Src {
    let g9 = is_gfx9(arch);
    match v {
        0..=101 => Src::Sgpr(v),
        102..=105 if !g9 => Src::Sgpr(v),
        102 => Src::Named("flat_scratch", false),
        103 => Src::Named("flat_scratch", true),
        104 => Src::Named("xnack_mask", false),
        105 => Src::Named("xnack_mask", true),
        106 => Src::VccLo,
        107 => Src::VccHi,
        108..=123 => Src::Ttmp(v - 108),
        124 if g9 => Src::M0,
        124 => Src::Null,
        125 if !g9 => Src::M0,
        // gfx9 has no null operand, but llvm-mc prints the gfx10+ name for its code.
        125 => Src::Null,
        126 => Src::ExecLo,
        127 => Src::ExecHi,
        128..=192 => Src::Int(v as i32 - 128),
        193..=208 => Src::Int(192 - v as i32),
        233 if !g9 => Src::Dpp8,
        234 if !g9 => Src::Dpp8Fi,
        240..=248 => Src::Float(v),
        249 if g9 => Src::Sdwa,
        250 => Src::Dpp16,
        255 => Src::Literal,
        256..=511 => Src::Vgpr(v - 256),
        _ => match crate::names::sreg::const_name(arch, v as u32) {
            Some(n) => Src::Const(n),
            None => Src::Invalid(v),
        },
    }
}

/// How an operand's value is typed, for printing inline constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValType {
    B16,
    F16,
    B32,
    F32,
    B64,
    F64,
}

/// Text of an inline float constant (240..=248) for a value type.
pub fn float_text(v: u16, ty: ValType) -> &'static str {
    match v {
        240 => "0.5",
        241 => "-0.5",
        242 => "1.0",
        243 => "-1.0",
        244 => "2.0",
        245 => "-2.0",
        246 => "4.0",
        247 => "-4.0",
        _ => match ty {
            ValType::F64 | ValType::B64 => "0.15915494309189532",
            ValType::F16 | ValType::B16 => "0.15915494",
            _ => "0.15915494",
        },
    }
}

/// A register range's text: `v1`, `v[2:3]`, `s[4:5]`, `a0`, `ttmp[0:1]`.
pub fn reg_range(prefix: &str, first: u32, count: u32) -> String {
    if count <= 1 {
        format!("{prefix}{first}")
    } else {
        format!("{prefix}[{first}:{}]", first + count - 1)
    }
}

/// The text of a scalar register operand (SGPR field, or the scalar part of a source) of `count`
/// dwords; `None` when the value is not a register.
pub fn sreg_text(arch: Arch, v: u16, count: u32) -> Option<String> {
    let wide = count >= 2;
    Some(match src(arch, v) {
        Src::Sgpr(n) => reg_range("s", n as u32, count),
        Src::Ttmp(n) => reg_range("ttmp", n as u32, count),
        Src::VccLo if wide => "vcc".into(),
        Src::VccLo => "vcc_lo".into(),
        Src::VccHi => "vcc_hi".into(),
        Src::ExecLo if wide => "exec".into(),
        Src::ExecLo => "exec_lo".into(),
        Src::ExecHi => "exec_hi".into(),
        Src::M0 => "m0".into(),
        Src::Null => "null".into(),
        Src::Named(n, false) if wide => n.into(),
        Src::Named(n, hi) => format!("{n}_{}", if hi { "hi" } else { "lo" }),
        Src::Const(c) => c.into(),
        _ => return None,
    })
}

/// Source index of an operand field, for source modifiers and op_sel: 0, 1, 2 for src0, src1
/// (vsrc1), src2; 3 for the destination; None otherwise.
pub(crate) fn src_index(name: &str) -> Option<usize> {
    match name {
        "src0" => Some(0),
        "src1" | "vsrc1" => Some(1),
        "src2" => Some(2),
        "vdst" => Some(3),
        _ => None,
    }
}
