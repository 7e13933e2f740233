//! Integer literals and simple expressions as llvm-mc reads them: `0x`/`0b` prefixes, a leading
//! `0` for octal, any number of leading zeros, unary `-`/`~`/`+`, `+ - * / % & | ^ << >>` with C
//! precedence, and parentheses. A symbol (a label) may stand in an expression; its value is
//! supplied by the caller.

/// Evaluates an integer expression; `sym` gives the value of a symbol (`None`: not a number).
pub fn eval(s: &str, sym: &mut dyn FnMut(&str) -> Option<i64>) -> Option<i64> {
    let mut p = P { s: s.as_bytes(), at: 0, sym };
    let v = p.binary(0)?;
    p.ws();
    (p.at == p.s.len()).then_some(v)
}

/// An integer expression without symbols.
pub fn int(s: &str) -> Option<i64> {
    // Fast paths: plain decimal (a lone `0` too; a longer one with a leading 0 is octal) and
    // plain hex, the common cases on every operand, read as `P::number` reads them.
    let b = s.as_bytes();
    if !b.is_empty() && b.len() < 19 && (b[0] != b'0' || b.len() == 1) && b.iter().all(u8::is_ascii_digit) {
        return s.parse().ok();
    }
    if let Some(h) = s.strip_prefix("0x").filter(|h| !h.is_empty() && h.len() <= 16) {
        if h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return u64::from_str_radix(h, 16).ok().map(|v| v as i64);
        }
    }
    // A name (`vcc`, `off`, `row_mirror`): a symbol first, which has no value here (as `eval`
    // would find after parsing it).
    if b.first().is_some_and(|&c| is_ident_start(c)) {
        return None;
    }
    eval(s, &mut |_| None)
}

/// The symbols (identifiers) an expression names, in order.
pub fn symbols(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < b.len() {
        if is_ident_start(b[k]) {
            let a = k;
            while k < b.len() && is_ident(b[k]) {
                k += 1;
            }
            out.push(&s[a..k]);
        } else if b[k].is_ascii_digit() {
            // A number, with its base prefix and hex digits.
            while k < b.len() && b[k].is_ascii_alphanumeric() {
                k += 1;
            }
        } else {
            k += 1;
        }
    }
    out
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'.' || c == b'$'
}

fn is_ident(c: u8) -> bool {
    is_ident_start(c) || c.is_ascii_digit()
}

struct P<'a, 'b> {
    s: &'a [u8],
    at: usize,
    sym: &'b mut dyn FnMut(&str) -> Option<i64>,
}

/// Binary operators by precedence (higher binds tighter), as in llvm-mc's GNU-style lexer.
fn binop(s: &[u8]) -> Option<(&'static str, u8)> {
    const OPS: [(&str, u8); 10] =
        [("<<", 5), (">>", 5), ("*", 6), ("/", 6), ("%", 6), ("+", 4), ("-", 4), ("&", 3), ("^", 2), ("|", 1)];
    OPS.iter().find(|(o, _)| s.starts_with(o.as_bytes())).copied()
}

impl P<'_, '_> {
    fn ws(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn binary(&mut self, min: u8) -> Option<i64> {
        let mut lhs = self.unary()?;
        loop {
            self.ws();
            let Some((op, prec)) = binop(&self.s[self.at..]) else { return Some(lhs) };
            if prec < min {
                return Some(lhs);
            }
            self.at += op.len();
            // Left-associative: the right side binds only tighter operators.
            let rhs = self.binary(prec + 1)?;
            lhs = match op {
                "<<" => lhs.checked_shl(u32::try_from(rhs).ok()?)?,
                ">>" => lhs.checked_shr(u32::try_from(rhs).ok()?)?,
                "*" => lhs.checked_mul(rhs)?,
                "/" => lhs.checked_div(rhs)?,
                "%" => lhs.checked_rem(rhs)?,
                "+" => lhs.checked_add(rhs)?,
                "-" => lhs.checked_sub(rhs)?,
                "&" => lhs & rhs,
                "^" => lhs ^ rhs,
                _ => lhs | rhs,
            };
        }
    }

    fn unary(&mut self) -> Option<i64> {
        self.ws();
        let c = *self.s.get(self.at)?;
        match c {
            b'-' => {
                self.at += 1;
                self.unary()?.checked_neg()
            }
            b'+' => {
                self.at += 1;
                self.unary()
            }
            b'~' => {
                self.at += 1;
                Some(!self.unary()?)
            }
            b'(' => {
                self.at += 1;
                let v = self.binary(0)?;
                self.ws();
                (self.s.get(self.at) == Some(&b')')).then(|| self.at += 1)?;
                Some(v)
            }
            b'0'..=b'9' => self.number(),
            _ if is_ident_start(c) => {
                let a = self.at;
                while self.at < self.s.len() && is_ident(self.s[self.at]) {
                    self.at += 1;
                }
                let name = std::str::from_utf8(&self.s[a..self.at]).ok()?;
                (self.sym)(name)
            }
            _ => None,
        }
    }

    fn number(&mut self) -> Option<i64> {
        let a = self.at;
        while self.at < self.s.len() && self.s[self.at].is_ascii_alphanumeric() {
            self.at += 1;
        }
        let t = std::str::from_utf8(&self.s[a..self.at]).ok()?;
        let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            (h, 16)
        } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
            (b, 2)
        } else if t.len() > 1 && t.starts_with('0') {
            (&t[1..], 8)
        } else {
            (t, 10)
        };
        // llvm-mc takes hex literals up to 64 bits (0xffffffffffffffff is -1).
        u64::from_str_radix(digits, radix).ok().map(|v| v as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases_signs_and_leading_zeros() {
        assert_eq!(int("0x05040100"), Some(0x5040100));
        assert_eq!(int("010"), Some(8));
        assert_eq!(int("0b101"), Some(5));
        assert_eq!(int("-0x10"), Some(-16));
        assert_eq!(int("0"), Some(0));
        assert_eq!(int("65524"), Some(65524));
        assert_eq!(int("1.0"), None);
        assert_eq!(int("v1"), None);
        // The fast paths' edges read as the full parser reads them.
        assert_eq!(int("0x"), None);
        assert_eq!(int("0xg"), None);
        assert_eq!(int("0xffffffffffffffff"), Some(-1));
        assert_eq!(int("0x00000000000000010"), Some(16));
        assert_eq!(int("0x1+1"), Some(2));
        assert_eq!(int("00"), Some(0));
    }

    #[test]
    fn expressions() {
        assert_eq!(int("1+2"), Some(3));
        assert_eq!(int("-(3)"), Some(-3));
        assert_eq!(int("1+2*3"), Some(7));
        assert_eq!(int("(1+2)*3"), Some(9));
        assert_eq!(int("1<<4|1"), Some(17));
        assert_eq!(int("10-2-3"), Some(5));
        assert_eq!(int("~0"), Some(-1));
        assert_eq!(int("1/0"), None);
        assert_eq!(int("(1"), None);
        let mut sym = |s: &str| (s == "loop").then_some(100);
        assert_eq!(eval("loop+4", &mut sym), Some(104));
        assert_eq!(symbols("loop+4-x"), vec!["loop", "x"]);
        assert!(symbols("0x10+1").is_empty());
    }
}
