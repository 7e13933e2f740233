//! Splitting an instruction line into mnemonic, operands and trailing modifiers.

/// One piece of text with its 1-based column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tok<'a> {
    pub text: &'a str,
    pub col: usize,
}

/// Strips `//` and `;` comments (one pass over the bytes: this runs on every line).
pub fn strip_comment(line: &str) -> &str {
    let b = line.as_bytes();
    let end = (0..b.len()).find(|&k| b[k] == b';' || b[k] == b'/' && b.get(k + 1) == Some(&b'/')).unwrap_or(b.len());
    &line[..end]
}

/// Removes `/* ... */` comments (llvm-mc prints some, e.g. right after an invalid register, where
/// blanks would split the operand); `None` when there is none. An unclosed comment runs to the
/// end. Columns after a comment shift by its length.
pub fn blank_block_comments(s: &str) -> Option<String> {
    if !s.contains("/*") {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(a) = rest.find("/*") {
        out.push_str(&rest[..a]);
        let tail = &rest[a..];
        let end = tail.find("*/").map(|e| e + 2).unwrap_or(tail.len());
        rest = &tail[end..];
    }
    out.push_str(rest);
    Some(out)
}

/// Splits `s` (starting at column `col0`) on `sep` outside parentheses, brackets and quotes.
/// The separators are ASCII, so the scan is over bytes (every cut is at a char boundary).
pub fn split_top<'a>(s: &'a str, col0: usize, sep: fn(u8) -> bool) -> Vec<Tok<'a>> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, false, 0usize);
    for (i, &c) in s.as_bytes().iter().enumerate() {
        match c {
            b'"' => quote = !quote,
            b'(' | b'[' if !quote => depth += 1,
            b')' | b']' if !quote => depth -= 1,
            _ if !quote && depth == 0 && sep(c) => {
                push(&mut out, s, start, i, col0);
                start = i + 1;
            }
            _ => {}
        }
    }
    push(&mut out, s, start, s.len(), col0);
    out
}

fn push<'a>(out: &mut Vec<Tok<'a>>, s: &'a str, a: usize, b: usize, col0: usize) {
    let raw = &s[a..b];
    let lead = raw.len() - raw.trim_start().len();
    let t = raw.trim();
    if !t.is_empty() {
        out.push(Tok { text: t, col: col0 + a + lead });
    }
}

/// A parsed line: mnemonic, comma-separated operands, space-separated trailing modifiers.
#[derive(Debug)]
pub struct Line<'a> {
    pub mnemonic: Tok<'a>,
    pub operands: Vec<Tok<'a>>,
    pub mods: Vec<Tok<'a>>,
    /// Everything after the mnemonic.
    pub rest: Tok<'a>,
}

pub fn split_line(s: &str, col0: usize) -> Option<Line<'_>> {
    let lead = s.len() - s.trim_start().len();
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    let (m, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    let mcol = col0 + lead;
    let rest_off = t.len() - rest.len();
    let rcol = mcol + rest_off;
    let mut operands = split_top(rest, rcol, |c| c == b',');
    let mut mods = Vec::new();
    if let Some(last) = operands.pop() {
        let mut parts = split_top(last.text, last.col, |c| c.is_ascii_whitespace());
        if !parts.is_empty() {
            let first = parts.remove(0);
            operands.push(first);
            mods = parts;
        }
    }
    let rest_trim = rest.trim();
    Some(Line {
        mnemonic: Tok { text: m, col: mcol },
        operands,
        mods,
        rest: Tok { text: rest_trim, col: rcol + (rest.len() - rest.trim_start().len()) },
    })
}
