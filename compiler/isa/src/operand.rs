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

/// gfx9's 64-bit VALU layouts take no literal (llvm-mc: "literal operands are not supported"):
/// a source field of 255 there is read as 8 bytes with no dword after them.
pub fn takes_no_literal(arch: Arch, layout: &str) -> bool {
    is_gfx9(arch) && matches!(layout, "VOP3" | "VOP3SD" | "MFMA" | "VOP3P")
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
    /// bfloat16: inline constants are the high halves of their f32 patterns.
    Bf16,
    /// Two f16 halves (VOP2 v_pk_fmac_f16): an inline constant stands for both.
    PkF16,
    B32,
    F32,
    B64,
    F64,
}

pub use crate::src_type::src_val_type;

/// Whether a source of type `ty` reads a 16-bit literal: a 16-bit integer source outside packed
/// (VOP3P/WMMA) encodings, whose sources take 32-bit literals; an f16 or bf16 one unless
/// `halves` (`src_type::halves_read_32bit`: packed halves, which take any 32-bit literal); or
/// `lit16` (a gfx9 32-bit encoding whose literal llvm-mc reads as 16 bits).
pub(crate) fn reads_16bit_literal(ty: ValType, lit16: bool, packed: bool, halves: bool) -> bool {
    ty == ValType::B16 && !packed
        || matches!(ty, ValType::F16 | ValType::Bf16) && !halves
        || lit16 && ty == ValType::F32
}

/// Whether the 32-bit literal `lit` is no 16-bit value, signed or unsigned (-32768..=65535):
/// llvm-mc 22 refuses such a literal for a source that [`reads_16bit_literal`] rather than write
/// bits the source drops.
pub(crate) fn literal_too_wide(lit: u32) -> bool {
    (0x1_0000..0xffff_8000).contains(&lit)
}

/// The inline-constant code a 32-bit literal's bits stand for in an operand of type `ty`, as
/// llvm-mc folds an integer or float spelling of them (`0x3f800000` is `1.0`, `0x40` is `64`,
/// `0.0` is `0`): the integers -16..=64, the float constants' f16/f32 patterns, and for f64 the
/// high half of their patterns (1/(2*pi) excepted: its low half is not zero). A literal with
/// such bits must be written `lit(...)`.
pub fn literal_inline_code(lit: u32, ty: ValType) -> Option<u32> {
    match lit as i32 {
        n @ 0..=64 => return Some(128 + n as u32),
        n @ -16..=-1 => return Some((192 - n) as u32),
        _ => {}
    }
    let hit = |f: &&InlineFloat| match ty {
        ValType::F16 => u32::from(f.f16) == lit,
        ValType::Bf16 => u32::from(f.bf16) == lit,
        ValType::PkF16 => u32::from(f.f16) * 0x1_0001 == lit,
        ValType::F32 | ValType::B32 => f.f32 == lit,
        ValType::F64 => f.code != 248 && (f.f64 >> 32) as u32 == lit,
        ValType::B16 | ValType::B64 => false,
    };
    INLINE_FLOATS.iter().find(hit).map(|f| u32::from(f.code))
}

/// One float inline constant: its source code, value, llvm-mc text and bit pattern per width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InlineFloat {
    pub code: u16,
    pub value: f64,
    /// As llvm-mc prints it (1/(2*pi): for the 16- and 32-bit types; see [`float_text`]).
    pub text: &'static str,
    pub f16: u16,
    /// The high half of the f32 pattern (1/(2*pi) truncated, as the hardware holds it).
    pub bf16: u16,
    pub f32: u32,
    pub f64: u64,
}

const fn k(code: u16, value: f64, text: &'static str, f16: u16, f32: u32, f64: u64) -> InlineFloat {
    InlineFloat { code, value, text, f16, bf16: (f32 >> 16) as u16, f32, f64 }
}

/// 1/(2*pi), the one inline constant that is not a small power of two, as the hardware's f64
/// pattern (one ulp below the nearest f64 to 1/(2*pi)).
pub const INV_2PI: f64 = f64::from_bits(0x3fc4_5f30_6dc9_c882);

/// The float inline constants, source codes 240..=248: the one table of them.
pub const INLINE_FLOATS: [InlineFloat; 9] = [
    k(240, 0.5, "0.5", 0x3800, 0x3f00_0000, 0x3fe0_0000_0000_0000),
    k(241, -0.5, "-0.5", 0xb800, 0xbf00_0000, 0xbfe0_0000_0000_0000),
    k(242, 1.0, "1.0", 0x3c00, 0x3f80_0000, 0x3ff0_0000_0000_0000),
    k(243, -1.0, "-1.0", 0xbc00, 0xbf80_0000, 0xbff0_0000_0000_0000),
    k(244, 2.0, "2.0", 0x4000, 0x4000_0000, 0x4000_0000_0000_0000),
    k(245, -2.0, "-2.0", 0xc000, 0xc000_0000, 0xc000_0000_0000_0000),
    k(246, 4.0, "4.0", 0x4400, 0x4080_0000, 0x4010_0000_0000_0000),
    k(247, -4.0, "-4.0", 0xc400, 0xc080_0000, 0xc010_0000_0000_0000),
    k(248, INV_2PI, "0.15915494", 0x3118, 0x3e22_f983, INV_2PI.to_bits()),
];

/// The inline float of a source code (240..=248).
pub fn inline_float(code: u16) -> Option<&'static InlineFloat> {
    INLINE_FLOATS.get(usize::from(code.checked_sub(240)?))
}

/// Text of an inline float constant (240..=248) for a value type: llvm-mc prints 1/(2*pi) with
/// all the digits of an f64 for 64-bit operands.
pub fn float_text(v: u16, ty: ValType) -> &'static str {
    match inline_float(v) {
        Some(f) if f.code == 248 && matches!(ty, ValType::F64 | ValType::B64) => "0.15915494309189532",
        Some(f) => f.text,
        None => "0.15915494",
    }
}

/// A register range's text: `v1`, `v[2:3]`, `s[4:5]`, `a0`, `ttmp[0:1]`.
pub fn reg_range(prefix: &str, first: u32, count: u32) -> String {
    // Written digit by digit: the formatting machinery cost more than the rest of printing an
    // operand (the assembler's verification prints candidates).
    let mut s = String::with_capacity(prefix.len() + 12);
    s.push_str(prefix);
    if count <= 1 {
        push_decimal(&mut s, first);
    } else {
        s.push('[');
        push_decimal(&mut s, first);
        s.push(':');
        push_decimal(&mut s, first + count - 1);
        s.push(']');
    }
    s
}

/// Appends `v` in decimal.
fn push_decimal(s: &mut String, v: u32) {
    let mut buf = [0u8; 10];
    let mut k = buf.len();
    let mut v = v;
    loop {
        k -= 1;
        buf[k] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &b in &buf[k..] {
        s.push(b as char);
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

/// Source index of an operand field, for source modifiers and op_sel: 0, 1, 2 for the sources
/// src0..src2 by any of their names (`isa::sources`, the one definition); 3 for the
/// destination (op_sel's last bit); None otherwise (the gfx950 scale sources included).
#[inline]
pub(crate) fn src_index(name: &str) -> Option<usize> {
    match name {
        "vdst" => Some(3),
        _ => baregpu_autogen::isa::sources::source_index(name).filter(|&k| k < 3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each width's pattern is the value's (1/(2*pi) rounded to nearest in f16/f32/f64, its
    /// bf16 the truncated f32, as llvm-mc encodes it: `v_dot2_bf16_bf16 ..., 0x3e22` is inline).
    #[test]
    fn inline_float_patterns() {
        for (k, f) in INLINE_FLOATS.iter().enumerate() {
            assert_eq!(f.code as usize, 240 + k);
            assert_eq!(f.f64, f.value.to_bits(), "{}", f.text);
            assert_eq!(f.f32, (f.value as f32).to_bits(), "{}", f.text);
            assert_eq!(Some(f.f16), crate::asm::value::f16_bits(f.value), "{}", f.text);
            assert_eq!(f.bf16, (f.f32 >> 16) as u16, "{}", f.text);
            assert_eq!(f.text.parse::<f64>().ok().map(|x| x as f32), Some(f.value as f32), "{}", f.text);
        }
        assert_eq!(INLINE_FLOATS[8].bf16, 0x3e22);
        assert_eq!(inline_float(239), None);
        assert_eq!(inline_float(249), None);
    }
}
