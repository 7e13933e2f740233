//! PTX tokens. Identifiers take PTX's character set, so `ld.global.b32`, `%tid.x`, `$L__BB0_1`
//! and `.reg` are single tokens; numbers keep their spelling class (integer, `0f`/`0d` float
//! bits, decimal float).

use super::PtxError;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    Int(u64),
    /// `0fXXXXXXXX`: f32 bits.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`, or a decimal float: f64 bits.
    F64(u64),
    Str(String),
    Punct(char),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub line: u32,
}

fn ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '%' | '.')
}

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.')
}

pub fn lex(src: &str) -> Result<Vec<Token>, PtxError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1u32;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                if chars[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
            if i >= chars.len() {
                return Err(PtxError::new(line, "unterminated comment"));
            }
            i += 2;
        } else if c == '"' {
            let start = i + 1;
            i += 1;
            while i < chars.len() && chars[i] != '"' && chars[i] != '\n' {
                i += 1;
            }
            if i >= chars.len() || chars[i] != '"' {
                return Err(PtxError::new(line, "unterminated string"));
            }
            out.push(Token { tok: Tok::Str(chars[start..i].iter().collect()), line });
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                // An exponent sign: 1.5e-3.
                i += 1;
                if i < chars.len()
                    && matches!(chars[i], '+' | '-')
                    && matches!(chars[i - 1], 'e' | 'E')
                    && !chars[start..i].iter().any(|c| matches!(c, 'x' | 'X'))
                    && chars[start..i].contains(&'.')
                {
                    i += 1;
                }
            }
            let text: String = chars[start..i].iter().collect();
            out.push(Token {
                tok: number(&text).ok_or_else(|| PtxError::new(line, format!("bad number {text:?}")))?,
                line,
            });
        } else if ident_start(c) {
            let start = i;
            i += 1;
            while i < chars.len() && ident_char(chars[i]) {
                i += 1;
            }
            out.push(Token { tok: Tok::Ident(chars[start..i].iter().collect()), line });
        } else if ",;:[]{}()+-!@|<>=".contains(c) {
            out.push(Token { tok: Tok::Punct(c), line });
            i += 1;
        } else {
            return Err(PtxError::new(line, format!("unexpected character {c:?}")));
        }
    }
    Ok(out)
}

fn number(t: &str) -> Option<Tok> {
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0f") {
        return (h.len() == 8).then(|| u32::from_str_radix(h, 16).ok().map(Tok::F32)).flatten();
    }
    if let Some(h) = lower.strip_prefix("0d") {
        return (h.len() == 16).then(|| u64::from_str_radix(h, 16).ok().map(Tok::F64)).flatten();
    }
    let body = lower.strip_suffix('u').unwrap_or(&lower);
    if let Some(h) = body.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).ok().map(Tok::Int);
    }
    if let Some(b) = body.strip_prefix("0b") {
        return u64::from_str_radix(b, 2).ok().map(Tok::Int);
    }
    if body.contains('.') || body.contains('e') {
        return body.parse::<f64>().ok().map(|f| Tok::F64(f.to_bits()));
    }
    if body.len() > 1 && body.starts_with('0') {
        return u64::from_str_radix(&body[1..], 8).ok().map(Tok::Int);
    }
    body.parse::<u64>().ok().map(Tok::Int)
}
