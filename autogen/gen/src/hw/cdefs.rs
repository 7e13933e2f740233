//! A plain-text reader of C `#define` lines and a small C constant-expression parser: enough for
//! the register, PM4 and SDMA headers, which are long lists of object-like and one-line
//! function-like macros over integer literals, `<< >> & | ^ ~ + - *` and parentheses.
//!
//! Anything outside that grammar is an error reported with the macro's name, so a header that
//! grows a new form of macro fails generation instead of being silently dropped.

use std::collections::BTreeMap;

/// One `#define`, with continuation lines joined and comments removed.
#[derive(Clone, Debug)]
pub struct Define {
    pub name: String,
    /// `Some` for a function-like macro (`NAME(a, b)` with no space before the parenthesis).
    pub params: Option<Vec<String>>,
    pub body: String,
    /// 1-based line of the `#define` in the header.
    pub line: usize,
}

/// Removes `/* */` and `//` comments, keeping newlines so line numbers stay right.
pub fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'*' {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && i + 1 < b.len() && b[i + 1] == b'/') {
                if b[i] == b'\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
            out.push(' ');
        } else if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'/' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else {
            let c = text[i..].chars().next().expect("in bounds");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Every `#define` of a header, in order.
pub fn parse_defines(text: &str) -> Vec<Define> {
    let text = strip_comments(text);
    let lines: Vec<&str> = text.lines().collect();
    let mut defs = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let start = i;
        let mut logical = lines[i].trim_end().to_string();
        while logical.ends_with('\\') && i + 1 < lines.len() {
            logical.pop();
            i += 1;
            logical.push(' ');
            logical.push_str(lines[i].trim_end());
        }
        i += 1;
        let t = logical.trim_start();
        let Some(rest) = t.strip_prefix('#') else { continue };
        let Some(rest) = rest.trim_start().strip_prefix("define") else { continue };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let rest = rest.trim_start();
        let name_len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let name = rest[..name_len].to_string();
        let mut after = &rest[name_len..];
        let mut params = None;
        if let Some(p) = after.strip_prefix('(') {
            let close = p.find(')').unwrap_or(p.len());
            params = Some(p[..close].split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect());
            after = p.get(close + 1..).unwrap_or("");
        }
        defs.push(Define { name, params, body: after.trim().to_string(), line: start + 1 });
    }
    defs
}

/// A C integer constant expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// The value and its spelling in the header (suffixes such as `UL` removed).
    Num(u64, String),
    Ident(String),
    Not(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Mul,
    Add,
    Sub,
    Shl,
    Shr,
    And,
    Xor,
    Or,
}

impl Op {
    /// Binding strength; the same order in C and in Rust for these operators.
    fn prec(self) -> u8 {
        match self {
            Op::Mul => 6,
            Op::Add | Op::Sub => 5,
            Op::Shl | Op::Shr => 4,
            Op::And => 3,
            Op::Xor => 2,
            Op::Or => 1,
        }
    }
    fn text(self) -> &'static str {
        match self {
            Op::Mul => "*",
            Op::Add => "+",
            Op::Sub => "-",
            Op::Shl => "<<",
            Op::Shr => ">>",
            Op::And => "&",
            Op::Xor => "^",
            Op::Or => "|",
        }
    }
    fn associative(self) -> bool {
        matches!(self, Op::Mul | Op::Add | Op::And | Op::Xor | Op::Or)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(u64, String),
    Ident(String),
    Punct(&'static str),
}

fn tokenize(s: &str) -> Result<Vec<Tok>, String> {
    let b = s.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let st = i;
            while i < b.len() && (b[i] as char).is_ascii_alphanumeric() {
                i += 1;
            }
            let raw = &s[st..i];
            let digits = raw.trim_end_matches(['u', 'U', 'l', 'L']);
            let v = if let Some(h) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
                u64::from_str_radix(h, 16)
            } else {
                digits.parse::<u64>()
            }
            .map_err(|_| format!("bad number `{raw}`"))?;
            if digits.len() > 1 && digits.starts_with('0') && !digits.starts_with("0x") && !digits.starts_with("0X") {
                return Err(format!("octal literal `{raw}`"));
            }
            toks.push(Tok::Num(v, digits.to_string()));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let st = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            toks.push(Tok::Ident(s[st..i].to_string()));
        } else {
            let two = s.get(i..i + 2).unwrap_or("");
            let p: &'static str = match two {
                "<<" => "<<",
                ">>" => ">>",
                _ => match c {
                    '(' => "(",
                    ')' => ")",
                    '&' => "&",
                    '|' => "|",
                    '^' => "^",
                    '~' => "~",
                    '+' => "+",
                    '-' => "-",
                    '*' => "*",
                    ',' => ",",
                    _ => return Err(format!("unsupported character `{c}`")),
                },
            };
            i += p.len();
            toks.push(Tok::Punct(p));
        }
    }
    Ok(toks)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.peek()
            == Some(&Tok::Punct(match p {
                "(" => "(",
                ")" => ")",
                "," => ",",
                _ => return false,
            }))
        {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn binop(&self) -> Option<Op> {
        match self.peek()? {
            Tok::Punct(p) => Some(match *p {
                "*" => Op::Mul,
                "+" => Op::Add,
                "-" => Op::Sub,
                "<<" => Op::Shl,
                ">>" => Op::Shr,
                "&" => Op::And,
                "^" => Op::Xor,
                "|" => Op::Or,
                _ => return None,
            }),
            _ => None,
        }
    }
    fn expr(&mut self, min_prec: u8) -> Result<Expr, String> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.binop() {
            if op.prec() < min_prec {
                break;
            }
            self.pos += 1;
            let rhs = self.expr(op.prec() + 1)?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }
    fn unary(&mut self) -> Result<Expr, String> {
        match self.peek().cloned() {
            Some(Tok::Punct("~")) => {
                self.pos += 1;
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            Some(Tok::Punct("(")) => {
                self.pos += 1;
                let e = self.expr(0)?;
                if !self.eat(")") {
                    return Err("missing `)`".into());
                }
                Ok(e)
            }
            Some(Tok::Num(v, s)) => {
                self.pos += 1;
                Ok(Expr::Num(v, s))
            }
            Some(Tok::Ident(name)) => {
                self.pos += 1;
                if self.eat("(") {
                    let mut args = Vec::new();
                    if !self.eat(")") {
                        loop {
                            args.push(self.expr(0)?);
                            if self.eat(")") {
                                break;
                            }
                            if !self.eat(",") {
                                return Err("expected `,` or `)` in call".into());
                            }
                        }
                    }
                    Ok(Expr::Call(name, args))
                } else {
                    Ok(Expr::Ident(name))
                }
            }
            other => Err(format!("unexpected token {other:?}")),
        }
    }
}

/// Parses a whole macro body as one expression.
pub fn parse_expr(s: &str) -> Result<Expr, String> {
    let mut p = Parser { toks: tokenize(s)?, pos: 0 };
    let e = p.expr(0)?;
    if p.pos != p.toks.len() {
        return Err(format!("trailing tokens after expression in `{s}`"));
    }
    Ok(e)
}

impl Expr {
    /// Evaluates with 32-bit unsigned semantics (the width of every register and packet dword);
    /// `env` gives the values of other constants.
    pub fn eval(&self, env: &BTreeMap<String, u64>) -> Result<u64, String> {
        Ok(match self {
            Expr::Num(v, _) => *v,
            Expr::Ident(n) => *env.get(n).ok_or_else(|| format!("unknown identifier `{n}`"))?,
            Expr::Not(e) => !e.eval(env)? & 0xFFFF_FFFF,
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval(env)?, b.eval(env)?);
                let v = match op {
                    Op::Mul => a.checked_mul(b),
                    Op::Add => a.checked_add(b),
                    Op::Sub => a.checked_sub(b),
                    Op::Shl => (b < 32).then(|| a << b),
                    Op::Shr => (b < 64).then(|| a >> b),
                    Op::And => Some(a & b),
                    Op::Xor => Some(a ^ b),
                    Op::Or => Some(a | b),
                };
                v.ok_or_else(|| format!("`{}` overflows", self.to_rust()))?
            }
            Expr::Call(n, _) => return Err(format!("call of `{n}` in a constant")),
        })
    }

    /// Every identifier the expression names (calls included), so callers can check them.
    pub fn idents(&self, out: &mut Vec<String>) {
        match self {
            Expr::Num(..) => {}
            Expr::Ident(n) => out.push(n.clone()),
            Expr::Not(e) => e.idents(out),
            Expr::Bin(_, a, b) => {
                a.idents(out);
                b.idents(out);
            }
            Expr::Call(n, args) => {
                out.push(n.clone());
                args.iter().for_each(|a| a.idents(out));
            }
        }
    }

    /// The same expression in Rust syntax (`~` becomes `!`); a nested binary operation is
    /// parenthesized unless it continues a chain of the same associative operator.
    pub fn to_rust(&self) -> String {
        match self {
            Expr::Num(_, s) => s.clone(),
            Expr::Ident(n) => n.clone(),
            Expr::Not(e) => match **e {
                Expr::Bin(..) => format!("!({})", e.to_rust()),
                _ => format!("!{}", e.to_rust()),
            },
            Expr::Bin(op, a, b) => {
                let side = |e: &Expr, left: bool| match e {
                    Expr::Bin(o, ..) if left && *o == *op && op.associative() => e.to_rust(),
                    Expr::Bin(..) => format!("({})", e.to_rust()),
                    _ => e.to_rust(),
                };
                format!("{} {} {}", side(a, true), op.text(), side(b, false))
            }
            Expr::Call(n, args) => {
                format!("{n}({})", args.iter().map(Expr::to_rust).collect::<Vec<_>>().join(", "))
            }
        }
    }
}

/// Parses a C integer literal as the headers write it (`0x1bac`, `0x0000003EL`, `12`).
pub fn parse_int(s: &str) -> Option<u64> {
    match parse_expr(s).ok()? {
        Expr::Num(v, _) => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_macros_and_expressions() {
        let h = "#define A 0x10 /* c */\n#  define B(x) ((x) << 8)\n#define P3(op, n) ((3 << 30) | \\\n (((op) & 0xFF) << 8))\n";
        let d = parse_defines(h);
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].body, "0x10");
        assert_eq!(d[1].params.as_deref(), Some(&["x".to_string()][..]));
        assert_eq!(d[2].line, 3);
        let e = parse_expr(&d[2].body).unwrap();
        assert_eq!(e.to_rust(), "(3 << 30) | ((op & 0xFF) << 8)");
        let e = parse_expr("1 | 2 << 3 & 0xF0").unwrap();
        assert_eq!(e.eval(&BTreeMap::new()).unwrap(), 1 | ((2 << 3) & 0xF0));
        assert_eq!(parse_int("0x0000003EL"), Some(0x3e));
        assert!(parse_expr("a ? b : c").is_err());
    }
}
