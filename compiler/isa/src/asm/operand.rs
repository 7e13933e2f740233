//! Parsing operand text into field values (the inverse of the disassembler's printing).

use crate::operand::{is_gfx9, INLINE_FLOATS, INV_2PI};
use crate::Arch;

/// A register operand: file, first register, count, 16-bit half.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reg {
    pub file: char,
    pub first: u32,
    pub count: u32,
    pub hi: Option<bool>,
}

/// An integer in any base, sign and number of leading zeros, or a constant expression.
pub fn parse_int(s: &str) -> Option<i64> {
    super::expr::int(s)
}

/// Register numbers above this are not registers of any file (and `first + count` cannot
/// overflow); smaller ones beyond a file are reported as such by the callers.
const REG_NUMBER_MAX: u32 = 1 << 16;

/// `v1`, `v[2:3]`, `s4`, `s[4:5]`, `a0`, `ttmp2`, `ttmp[2:3]`, `v1.l`.
pub fn parse_reg(s: &str) -> Option<Reg> {
    parse_reg_any(s).filter(|r| r.first + r.count <= REG_NUMBER_MAX)
}

fn parse_reg_any(s: &str) -> Option<Reg> {
    // Most words are one register of one letter and decimal digits (`v12`, `s3`) or no register
    // at all: read those bytewise; the rest (ranges, `ttmp`, `.l`/`.h`) as below.
    let b = s.as_bytes();
    match b.first() {
        Some(b'v' | b's' | b'a') if b.len() > 1 && b[1..].iter().all(u8::is_ascii_digit) => {
            return single(b[0] as char, &b[1..], None)
        }
        // `v[2:3]` and `v1.l` written plainly, read bytewise too; anything else (blanks in the
        // brackets, a bad range) goes the general way, which has the last word.
        Some(&f @ (b'v' | b's' | b'a')) => {
            if let Some(r) = plain_range(f as char, &b[1..]).or_else(|| plain_half(f as char, &b[1..])) {
                return Some(r);
            }
        }
        Some(b't') => {}
        _ => return None,
    }
    let (s, hi) = if let Some(x) = s.strip_suffix(".l") {
        (x, Some(false))
    } else if let Some(x) = s.strip_suffix(".h") {
        (x, Some(true))
    } else {
        (s, None)
    };
    for (p, file) in [("ttmp", 't'), ("v", 'v'), ("s", 's'), ("a", 'a')] {
        // Lower case only: llvm-mc reads `S28` as a symbol.
        if let Some(r) = s.strip_prefix(p) {
            if let Some(inner) = r.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
                let (a, b) = inner.split_once(':').unwrap_or((inner, inner));
                let (a, b) = (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?);
                if b < a || b >= REG_NUMBER_MAX {
                    return None;
                }
                return Some(Reg { file, first: a, count: b - a + 1, hi });
            }
            if !r.is_empty() && r.bytes().all(|c| c.is_ascii_digit()) {
                return Some(Reg { file, first: r.parse::<u32>().ok().filter(|&n| n < REG_NUMBER_MAX)?, count: 1, hi });
            }
        }
    }
    None
}

/// `[A:B]` of decimal digits, A <= B: the register range, else `None`.
fn plain_range(file: char, b: &[u8]) -> Option<Reg> {
    let inner = b.strip_prefix(b"[")?.strip_suffix(b"]")?;
    let colon = inner.iter().position(|&c| c == b':')?;
    let (a, z) = (&inner[..colon], &inner[colon + 1..]);
    let digits = |d: &[u8]| !d.is_empty() && d.iter().all(u8::is_ascii_digit);
    if !digits(a) || !digits(z) {
        return None;
    }
    let (first, last) = (single(file, a, None)?.first, single(file, z, None)?.first);
    (last >= first).then(|| Reg { file, first, count: last - first + 1, hi: None })
}

/// `N.l` or `N.h` of decimal digits: a 16-bit half, else `None`.
fn plain_half(file: char, b: &[u8]) -> Option<Reg> {
    let (digits, hi) = match b {
        [d @ .., b'.', b'l'] => (d, false),
        [d @ .., b'.', b'h'] => (d, true),
        _ => return None,
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    single(file, digits, Some(hi))
}

/// One register numbered by the decimal `digits` (leading zeros allowed, as `str::parse` takes
/// them); `None` past [`REG_NUMBER_MAX`].
fn single(file: char, digits: &[u8], hi: Option<bool>) -> Option<Reg> {
    let mut n = 0u32;
    for &d in digits {
        n = n * 10 + u32::from(d - b'0');
        if n >= REG_NUMBER_MAX {
            return None;
        }
    }
    Some(Reg { file, first: n, count: 1, hi })
}

/// llvm-mc's register tuple alignment: a scalar (SGPR or trap temporary) pair starts at an even
/// register and a tuple of 3 or more at a multiple of 4; a vector (VGPR or AGPR) tuple starts at
/// an even register on gfx942/gfx950 and anywhere on RDNA.
pub fn check_alignment(arch: Arch, r: &Reg) -> Result<(), String> {
    let align = match (r.file, r.count) {
        (_, 0 | 1) => 1,
        ('s' | 't', 2) => 2,
        ('s' | 't', _) => 4,
        ('v' | 'a', _) if is_gfx9(arch) => 2,
        _ => 1,
    };
    if !r.first.is_multiple_of(align) {
        return Err("invalid register alignment".to_string());
    }
    Ok(())
}

/// The highest interpolation attribute llvm-mc 22 reads (`attr32`); the 6-bit field holds up to
/// 63, and llvm-mc prints those but refuses them ("out of bounds interpolation attribute number").
pub const MAX_ATTR: u32 = 32;

/// Refuses an interpolation attribute number above [`MAX_ATTR`].
pub fn check_attr(n: u32) -> Result<(), String> {
    if n > MAX_ATTR {
        return Err(format!("attr{n}: out of bounds interpolation attribute number (at most attr{MAX_ATTR})"));
    }
    Ok(())
}

pub fn float_code(s: &str) -> Option<u32> {
    if matches!(s, "0.15915494" | "0.15915494309189532" | "0.1592") {
        return Some(248);
    }
    INLINE_FLOATS.iter().find(|f| f.text == s).map(|f| u32::from(f.code))
}

/// The inline-constant code of a float value (240..=248), for comparing spellings of one constant.
pub fn float_code_f64(f: f64) -> Option<u32> {
    // 1/(2*pi) within the precision of its shortest printed form (0.15915494).
    if (f - INV_2PI).abs() < 1e-7 {
        return Some(248);
    }
    INLINE_FLOATS.iter().find(|k| k.value == f).map(|k| u32::from(k.code))
}

/// Max SGPR number of an arch (addressable as sN).
pub fn max_sgpr(arch: Arch) -> u32 {
    if is_gfx9(arch) {
        101
    } else {
        105
    }
}

/// The 9-bit source code and optional literal of a source operand; `Err` with a reason.
pub fn src_code(arch: Arch, s: &str, vgpr_ok: bool) -> Result<(u32, Option<u32>), String> {
    if let Some(r) = parse_reg(s) {
        check_alignment(arch, &r)?;
        return reg_code(arch, &r, s, vgpr_ok);
    }
    src_code_not_reg(arch, s)
}

/// [`src_code`] of a register `r` (written `s`) already read and checked for alignment: the
/// assembler's fill has it from the line's typed form.
pub fn reg_code(arch: Arch, r: &Reg, s: &str, vgpr_ok: bool) -> Result<(u32, Option<u32>), String> {
    match r.file {
        'v' if vgpr_ok => {
            if r.first + r.count > 256 {
                Err(format!("register {s} is beyond the VGPR file"))
            } else {
                Ok((256 + r.first, None))
            }
        }
        'v' | 'a' => Err(format!("{s}: a vector register is not allowed here")),
        's' => {
            if r.first + r.count - 1 > max_sgpr(arch) {
                Err(format!("register {s} is beyond the SGPR file"))
            } else {
                Ok((r.first, None))
            }
        }
        't' => {
            if r.first + r.count > 16 {
                Err(format!("register {s} is beyond the trap registers"))
            } else {
                Ok((108 + r.first, None))
            }
        }
        _ => Err(format!("bad register {s}")),
    }
}

/// [`src_code`] of a word that is no register.
fn src_code_not_reg(arch: Arch, s: &str) -> Result<(u32, Option<u32>), String> {
    if let Some(c) = crate::names::sreg::code(arch, s) {
        return Ok((c, None));
    }
    let int = parse_int(s);
    let float = || match super::value::value(s) {
        super::value::Val::Float(f) => float_code_f64(f),
        _ => None,
    };
    if let Some(c) = float_code(s).or_else(|| if int.is_none() { float() } else { None }) {
        return Ok((c, None));
    }
    if let Some(v) = int {
        if (0..=64).contains(&v) && !s.starts_with("0x") {
            return Ok((128 + v as u32, None));
        }
        if (-16..0).contains(&v) {
            return Ok((192 + (-v) as u32, None));
        }
        if v < -(1 << 31) || v > u32::MAX as i64 {
            return Err(format!("immediate {s} does not fit in 32 bits"));
        }
        if (0..=64).contains(&v) {
            return Ok((128 + v as u32, None));
        }
        return Ok((255, Some(v as u32)));
    }
    Err(format!("expected a source operand, found '{s}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(file: char, first: u32, count: u32, hi: Option<bool>) -> Option<Reg> {
        Some(Reg { file, first, count, hi })
    }

    /// The bytewise single-register path and the general one read the same words.
    #[test]
    fn registers() {
        assert_eq!(parse_reg("v0"), r('v', 0, 1, None));
        assert_eq!(parse_reg("s101"), r('s', 101, 1, None));
        assert_eq!(parse_reg("a255"), r('a', 255, 1, None));
        assert_eq!(parse_reg("v0007"), r('v', 7, 1, None));
        assert_eq!(parse_reg("v65535"), r('v', 65535, 1, None));
        assert_eq!(parse_reg("v65536"), None);
        assert_eq!(parse_reg("v99999999999"), None);
        assert_eq!(parse_reg("v1.l"), r('v', 1, 1, Some(false)));
        assert_eq!(parse_reg("v1.h"), r('v', 1, 1, Some(true)));
        assert_eq!(parse_reg("v[2:3]"), r('v', 2, 2, None));
        assert_eq!(parse_reg("s[4 : 7]"), r('s', 4, 4, None));
        assert_eq!(parse_reg("ttmp3"), r('t', 3, 1, None));
        assert_eq!(parse_reg("ttmp[2:3]"), r('t', 2, 2, None));
        assert_eq!(parse_reg("v[03:4]"), r('v', 3, 2, None));
        assert_eq!(parse_reg("a[4:4]"), r('a', 4, 1, None));
        assert_eq!(parse_reg("s[1:0]"), None);
        assert_eq!(parse_reg("v[65535:65535]"), r('v', 65535, 1, None));
        assert_eq!(parse_reg("v[0:65536]"), None);
        assert_eq!(parse_reg("v[1:]"), None);
        assert_eq!(parse_reg("v[:1]"), None);
        assert_eq!(parse_reg("v007.h"), r('v', 7, 1, Some(true)));
        assert_eq!(parse_reg("v.h"), None);
        assert_eq!(parse_reg("s[2:3].l"), r('s', 2, 2, Some(false)));
        for w in ["v", "s", "vcc", "scc", "v1a", "V1", "m0", "exec", "1", "", "v-1", "v+1", "t1", ".l"] {
            assert_eq!(parse_reg(w), None, "{w}");
        }
    }
}
