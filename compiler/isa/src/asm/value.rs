//! Typed operand values: what one operand or modifier token of a line means, independent of how
//! it is spelled (a number in any base, a register range, a named value, a list...).

use super::lexer::{Line, Tok};
use super::operand::{parse_int, parse_reg, Reg};

/// The value of one operand token.
#[derive(Clone, Debug, PartialEq)]
pub enum Val<'a> {
    Reg(Reg),
    /// A named value: a special register (`vcc`, `exec_lo`, `m0`, `null`), `off`, a selector
    /// name (`DWORD`, `SCOPE_SYS`), an export target.
    Name(&'a str),
    Int(i64),
    Float(f64),
    /// `name(args)`: hwreg(...), sendmsg(...), swizzle(...), vmcnt(0)...
    Call(&'a str, &'a str),
    /// `[a,b,...]` of integers (op_sel, quad_perm, dpp8).
    List(Vec<i64>),
    /// `[NAME,...]` of names (format:[BUF_FMT_...]).
    Names(Vec<&'a str>),
    /// Anything else (a label, an expression with symbols).
    Other(&'a str),
}

/// A source operand with its modifiers.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand<'a> {
    pub val: Val<'a>,
    pub neg: bool,
    pub abs: bool,
    pub sext: bool,
    pub col: usize,
    /// The operand as written.
    pub text: &'a str,
    /// `text` without its source modifiers (what `val` was read from).
    pub inner: &'a str,
}

impl Operand<'_> {
    /// No source modifiers.
    pub fn plain(&self) -> bool {
        !(self.neg || self.abs || self.sext)
    }
}

/// A trailing modifier: `name` or `name:value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Modifier<'a> {
    pub name: &'a str,
    pub val: Option<Val<'a>>,
    pub col: usize,
}

/// A line in typed form.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Typed<'a> {
    pub ops: Vec<Operand<'a>>,
    pub mods: Vec<Modifier<'a>>,
}

/// Whether the text reads as a floating-point number (`1.0`, `-0.5`, `1e3`), not an integer.
fn float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let digits = s.trim_start_matches('-');
    if digits.starts_with("0x") || digits.starts_with("0X") || !b.iter().any(|&c| c == b'.' || c == b'e' || c == b'E') {
        return None;
    }
    if !digits.bytes().next().is_some_and(|c| c.is_ascii_digit() || c == b'.') {
        return None;
    }
    s.parse::<f64>().ok()
}

/// The value of one token (no source modifiers).
pub fn value(s: &str) -> Val<'_> {
    // Numbers start with a digit, a sign, `(` or `~`; registers and names with a letter.
    let numeric =
        s.as_bytes().first().is_some_and(|&c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'(' | b'~' | b'.'));
    if !numeric {
        if let Some(r) = parse_reg(s) {
            return Val::Reg(r);
        }
    }
    if let Some(v) = parse_int(s) {
        return Val::Int(v);
    }
    if numeric {
        if let Some(f) = float(s) {
            return Val::Float(f);
        }
    }
    if let Some(inner) = s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        // Integers (`op_sel:[0,1]`), the common list, read without first collecting the parts.
        if let Some(v) = inner.split(',').map(|p| parse_int(p.trim())).collect::<Option<Vec<i64>>>() {
            return Val::List(v);
        }
        let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
        if parts.iter().all(|p| p.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')) {
            return Val::Names(parts);
        }
        return Val::Other(s);
    }
    // A call ends with `)`: the search for `(` only then.
    if let Some((name, args)) = s.strip_suffix(')').and_then(|x| x.split_once('(')) {
        if !name.is_empty() && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
            return Val::Call(name, args.trim());
        }
    }
    if !s.is_empty() && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
        return Val::Name(s);
    }
    Val::Other(s)
}

/// An operand token with its source modifiers (`-x`, `|x|`, `-|x|`, `neg(x)`, `abs(x)`,
/// `sext(x)`) taken off.
pub fn operand<'a>(t: &Tok<'a>) -> Operand<'a> {
    let (s, neg, abs, sext) = src_mods(t.text);
    Operand { val: value(s), neg, abs, sext, col: t.col, text: t.text, inner: s }
}

/// Takes the source modifiers off an operand's text: (rest, neg, abs, sext).
pub fn src_mods(text: &str) -> (&str, bool, bool, bool) {
    // Every form starts with `-` or `|` or ends with `)`: most operands are neither.
    let b = text.as_bytes();
    if !matches!(b.first(), Some(b'-' | b'|')) && b.last() != Some(&b')') {
        return (text, false, false, false);
    }
    let mut s = text;
    let (mut neg, mut abs, mut sext) = (false, false, false);
    if let Some(x) = s.strip_prefix("sext(").and_then(|x| x.strip_suffix(')')) {
        sext = true;
        s = x.trim();
    }
    if let Some(x) = s.strip_prefix("neg(").and_then(|x| x.strip_suffix(')')) {
        neg = true;
        s = x.trim();
    } else if let Some(x) = s.strip_prefix('-').filter(|x| {
        // A register, a named one (`-vcc_hi`, `-m0`, `-src_scc`) or an abs form; `-1` and
        // `-0.5` are numbers.
        x.starts_with('|')
            || x.starts_with("abs(")
            || parse_reg(x).is_some()
            || x.starts_with(|c: char| c.is_ascii_alphabetic())
    }) {
        neg = true;
        s = x;
    }
    if let Some(x) = s.strip_prefix('|').and_then(|x| x.strip_suffix('|')) {
        abs = true;
        s = x.trim();
    } else if let Some(x) = s.strip_prefix("abs(").and_then(|x| x.strip_suffix(')')) {
        abs = true;
        s = x.trim();
    }
    (s, neg, abs, sext)
}

pub fn modifier<'a>(t: &Tok<'a>) -> Modifier<'a> {
    match split_colon(t.text) {
        Some((n, v)) => Modifier { name: n, val: Some(value(v.trim())), col: t.col },
        None => Modifier { name: t.text, val: None, col: t.col },
    }
}

/// `s` split at its first `:` (a byte search: this runs on every modifier of every line).
pub fn split_colon(s: &str) -> Option<(&str, &str)> {
    // `:` is ASCII, so both cuts are at char boundaries.
    let k = s.bytes().position(|c| c == b':')?;
    Some((&s[..k], &s[k + 1..]))
}

/// The typed form of a split line.
pub fn typed<'a>(l: &Line<'a>) -> Typed<'a> {
    typed_into(l, Typed::default())
}

/// [`typed`] written into `spare`'s lists, emptied first.
pub fn typed_into<'a>(l: &Line<'a>, spare: Typed<'a>) -> Typed<'a> {
    let Typed { mut ops, mut mods } = spare;
    ops.clear();
    mods.clear();
    ops.extend(l.operands.iter().map(operand));
    mods.extend(l.mods.iter().map(modifier));
    Typed { ops, mods }
}

/// IEEE half-precision bits of `f` (one rule with the other float literals).
pub use super::float_lit::f16_bits;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        assert_eq!(value("0x05040100"), Val::Int(0x5040100));
        assert_eq!(value("1.0"), Val::Float(1.0));
        assert_eq!(value("-0.5"), Val::Float(-0.5));
        assert_eq!(value("[0,1,2,3]"), Val::List(vec![0, 1, 2, 3]));
        assert_eq!(value("[BUF_FMT_32_FLOAT]"), Val::Names(vec!["BUF_FMT_32_FLOAT"]));
        assert_eq!(value("hwreg(HW_REG_MODE, 0, 32)"), Val::Call("hwreg", "HW_REG_MODE, 0, 32"));
        assert_eq!(value("vcc_lo"), Val::Name("vcc_lo"));
        assert!(matches!(value("v[2:3]"), Val::Reg(Reg { file: 'v', first: 2, count: 2, hi: None })));
        let t = Tok { text: "-|v1|", col: 3 };
        let o = operand(&t);
        assert!(o.neg && o.abs && matches!(o.val, Val::Reg(_)));
        assert_eq!(operand(&Tok { text: "-1", col: 1 }).val, Val::Int(-1));
    }

    #[test]
    fn half_bits() {
        assert_eq!(f16_bits(100.0), Some(0x5640));
        assert_eq!(f16_bits(1.0), Some(0x3c00));
        assert_eq!(f16_bits(-2.0), Some(0xc000));
        assert_eq!(f16_bits(1e9), None);
    }
}
