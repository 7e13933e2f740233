//! The narrow-format conversions of gfx942/gfx950 → [`Op::Cvt8`]: `v_cvt_{pk,sr}_{fp8,bf8}_f32`,
//! `v_cvt_{pk_,}f32_{fp8,bf8}` and gfx950's `v_cvt_scalef32_*`.
//!
//! Operands and selects, from llvm-mc's encodings and clang-22's lowering of the builtins
//! (`__builtin_amdgcn_cvt_pk_fp8_f32`, `__builtin_amdgcn_cvt_sr_fp8_f32`,
//! `__builtin_amdgcn_cvt_scalef32_*`; LLVM test llvm.amdgcn.cvt.fp8.ll):
//! - to a narrow format: the elements come from src0 (and src1 when two f32 are packed, or
//!   `2xpk16`'s two sets of 16), then the random dword (`sr`), then the scale. A 16-bit
//!   result goes to the word OPSEL[3] selects, an 8-bit one to the byte OPSEL[3:2] selects;
//!   the rest of VDST is kept.
//! - from a narrow format: src0 holds the elements, then the scale. A 16-bit packed source
//!   is the word OPSEL[0] selects, an 8-bit one the byte OPSEL[1:0] selects (the SDWA forms
//!   select with SRC0_SEL instead, decode/sdwa.rs); a single f16 result goes to the half
//!   OPSEL[3] selects.
//!
//! gfx942 reads and writes FP8/BF8 as FNUZ, gfx950 as OCP (CDNA3 and CDNA4 ISA guides).

use super::*;
use crate::rdna::mfma::Fmt;

/// `m` as a narrow-format conversion, or `None` if it is none.
pub(super) fn lower(arch: Arch, m: &str, i: &Instruction, lit: Option<u32>) -> Option<Result<Op, String>> {
    let rest = base(m).strip_prefix("v_cvt_")?;
    let (scaled, rest) = match rest.strip_prefix("scalef32_") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let (sr, rest) = match rest.strip_prefix("sr_") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let (n, pk16, rest) = if let Some(r) = rest.strip_prefix("2xpk16_") {
        (32, true, r)
    } else if let Some(r) = rest.strip_prefix("pk32_") {
        (32, false, r)
    } else if let Some(r) = rest.strip_prefix("pk_") {
        (2, false, r)
    } else {
        (1, false, rest)
    };
    let (to, from) = rest.split_once('_')?;
    let fnuz = arch == Arch::Gfx942;
    let (to, from) = (fmt(to, fnuz)?, fmt(from, fnuz)?);
    // gfx950's stochastic f32 → f16/bf16 (`v_cvt_sr_{f16,bf16}_f32`) round as the narrow ones.
    let sr16 = sr && !scaled && n == 1 && from == Fmt::F32 && matches!(to, Fmt::F16 | Fmt::Bf16);
    // Otherwise exactly one side is narrow; the plain forms are the FP8/BF8 ones.
    let narrow = |f: Fmt| f.bits() < 16;
    let wide16 = |f: Fmt| matches!(f, Fmt::F16 | Fmt::Bf16);
    if !sr16 && narrow(to) == narrow(from) {
        return None;
    }
    if !sr16 && !scaled && (to.bits() < 8 || from.bits() < 8 || n > 2 || wide16(to) || wide16(from)) {
        return None;
    }
    Some(build(m, i, lit, Shape { to, from, n, pk16, sr, scaled }))
}

struct Shape {
    to: Fmt,
    from: Fmt,
    n: u8,
    pk16: bool,
    sr: bool,
    scaled: bool,
}

fn fmt(name: &str, fnuz: bool) -> Option<Fmt> {
    Some(match name {
        "f32" => Fmt::F32,
        "f16" => Fmt::F16,
        "bf16" => Fmt::Bf16,
        "fp8" if fnuz => Fmt::Fp8Fnuz,
        "bf8" if fnuz => Fmt::Bf8Fnuz,
        "fp8" => Fmt::Fp8,
        "bf8" => Fmt::Bf8,
        "fp6" => Fmt::Fp6,
        "bf6" => Fmt::Bf6,
        "fp4" => Fmt::Fp4,
        _ => return None,
    })
}

fn build(m: &str, i: &Instruction, lit: Option<u32>, s: Shape) -> Result<Op, String> {
    let opsel = i.f("opsel");
    let (win, wout) = (s.from.bits(), s.to.bits());
    // Two f32 (or 2 × 16 f32) packed from two sources; everything else from src0 alone.
    let srcs = if s.from == Fmt::F32 && !s.sr && (s.n == 2 || s.pk16) { 2 } else { 1 };
    let regs = (s.n as u32 * win).div_ceil(32 * srcs) as u8;
    let in_bits = s.n as u32 * win;
    let src_bit = match in_bits {
        16 => 16 * (opsel & 1),
        8 | 4 => 8 * (opsel & 3),
        _ => 0,
    } as u8;
    let out_bits = s.n as u32 * wout;
    let dst_bit = match out_bits {
        16 => 16 * (opsel >> 3 & 1),
        8 => 8 * (opsel >> 2 & 3),
        _ => 0,
    } as u8;
    let field = |k: usize| i.f(["src0", "src1", "src2"][k]);
    let one = |k: usize| vsrc(field(k), Ty::B32, lit);
    let wide = |k: usize, n: u8| -> Result<Vs, String> {
        let v = vsrc(field(k), Ty::B32, lit)?;
        match v {
            Vs::V(_) | Vs::S(Ss::R(_)) => Ok(v),
            _ if n == 1 => Ok(v),
            _ => Err(format!("{m}: a source of {n} registers must be registers")),
        }
    };
    let mut next = srcs as usize;
    let src = [wide(0, regs)?, if srcs == 2 { wide(1, regs)? } else { Vs::S(Ss::K(0)) }];
    let rand = if s.sr {
        next += 1;
        Some(one(next - 1)?)
    } else {
        None
    };
    let scale = if s.scaled { Some(one(next)?) } else { None };
    let (neg, abs) = (i.f("neg") as u8, i.f("abs") as u8);
    if (neg | abs) != 0 && s.from != Fmt::F32 {
        return Err(format!("{m}: source modifiers on packed sources are not supported"));
    }
    Ok(Op::Cvt8(Box::new(Cvt8 {
        from: s.from,
        to: s.to,
        n: s.n,
        srcs: srcs as u8,
        regs,
        src_bit,
        src,
        rand,
        scale,
        dst: i.f("vdst") as u16,
        dst_regs: out_bits.div_ceil(32) as u8,
        dst_bit,
        neg,
        abs,
    })))
}
