//! Splitting an instruction line into mnemonic, operands and trailing modifiers.

/// One piece of text with its 1-based column.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tok<'a> {
    pub text: &'a str,
    pub col: usize,
}

/// Strips `//` and `;` comments (this runs on every line: eight bytes at a time are tested for
/// either byte, and only a word holding one is searched byte by byte).
pub fn strip_comment(line: &str) -> &str {
    let b = line.as_bytes();
    let comment = |k: usize| b[k] == b';' || b[k] == b'/' && b.get(k + 1) == Some(&b'/');
    let mut at = 0;
    for w in b.chunks_exact(8) {
        let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        if has_byte(x, b';') || has_byte(x, b'/') {
            break;
        }
        at += 8;
    }
    let end = (at..b.len()).find(|&k| comment(k)).unwrap_or(b.len());
    &line[..end]
}

/// Whether any byte of `x` is `c` (the classic zero-byte test on `x ^ c…c`; it has no false
/// negatives, and a false positive only costs a byte-by-byte search of the rest).
fn has_byte(x: u64, c: u8) -> bool {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let y = x ^ (LO * u64::from(c));
    y.wrapping_sub(LO) & !y & HI != 0
}

/// Byte classes for [`split_top`]: separators (`SEP_*`) and the bytes that nest or quote.
pub const SEP_COMMA: u8 = 1;
/// ASCII whitespace as `u8::is_ascii_whitespace` has it (not vertical tab).
pub const SEP_BLANK: u8 = 2;
const QUOTE: u8 = 4;
const OPEN: u8 = 8;
const CLOSE: u8 = 16;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b',' as usize] = SEP_COMMA;
    t[b' ' as usize] = SEP_BLANK;
    t[b'\t' as usize] = SEP_BLANK;
    t[b'\n' as usize] = SEP_BLANK;
    t[0x0c] = SEP_BLANK;
    t[b'\r' as usize] = SEP_BLANK;
    t[b'"' as usize] = QUOTE;
    t[b'(' as usize] = OPEN;
    t[b'[' as usize] = OPEN;
    t[b')' as usize] = CLOSE;
    t[b']' as usize] = CLOSE;
    t
};

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

/// Splits `s` (starting at column `col0`) on the separator classes `sep` (`SEP_COMMA`,
/// `SEP_BLANK`) outside parentheses, brackets and quotes. The separators are ASCII, so the scan
/// is over bytes (every cut is at a char boundary).
pub fn split_top(s: &str, col0: usize, sep: u8) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    split_top_into(s, col0, sep, &mut out);
    out
}

/// [`split_top`] appending to `out` (a line's operands and modifiers share no allocation with
/// a temporary list). One table load tells most bytes (letters, digits) apart from the rest.
fn split_top_into<'a>(s: &'a str, col0: usize, sep: u8, out: &mut Vec<Tok<'a>>) {
    let (mut depth, mut quote, mut start) = (0i32, false, 0usize);
    for (i, &c) in s.as_bytes().iter().enumerate() {
        let class = CLASS[c as usize];
        if class == 0 {
            continue;
        }
        match class {
            QUOTE => quote = !quote,
            _ if quote => {}
            OPEN => depth += 1,
            CLOSE => depth -= 1,
            _ if depth == 0 && class & sep != 0 => {
                push(out, s, start, i, col0);
                start = i + 1;
            }
            _ => {}
        }
    }
    push(out, s, start, s.len(), col0);
}

fn push<'a>(out: &mut Vec<Tok<'a>>, s: &'a str, a: usize, b: usize, col0: usize) {
    let raw = &s[a..b];
    let t = trim(raw);
    let lead = t.as_ptr() as usize - raw.as_ptr() as usize;
    if !t.is_empty() {
        out.push(Tok { text: t, col: col0 + a + lead });
    }
}

/// [`str::trim`], with ASCII blanks taken off byte by byte first (tokens are ASCII but for
/// rare exceptions; decoding chars costs most of splitting a line).
fn trim(s: &str) -> &str {
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let b = s.as_bytes();
    // Most tokens end in a printable ASCII byte and start in one or after one blank: those
    // are cut without the general scans (bytes 0x21..0x7f are neither blanks nor non-ASCII).
    let printable = |c: u8| (0x21..0x80).contains(&c);
    match b {
        [f, .., l] if printable(*f) && printable(*l) => return s,
        [b' ', f, .., l] if printable(*f) && printable(*l) => return &s[1..],
        _ => {}
    }
    let start = b.iter().position(|c| !blank(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !blank(c)).map_or(start, |e| e + 1);
    // Cut only after ASCII bytes, so at char boundaries.
    let t = &s[start..end.max(start)];
    match (t.as_bytes().first(), t.as_bytes().last()) {
        (Some(&f), Some(&l)) if f >= 0x80 || l >= 0x80 => t.trim(),
        _ => t,
    }
}

/// Whether a word after an operand is itself an operand, not a modifier: a register
/// (`v3`, `s[2:3]`, `v1.h`), a number, or a source with modifiers (`-v1`, `|v2|`, `abs(v1)`,
/// `lit(1.0)`). Modifiers are `name:value` or a bare keyword (`glc`, `clamp`, `row_mirror`).
fn operand_like(w: &str) -> bool {
    match w.as_bytes().first() {
        Some(b'-' | b'|' | b'0'..=b'9') => true,
        // `a16` is the image modifier, not an AGPR.
        _ if w == "a16" => false,
        _ => {
            super::operand::parse_reg(w).is_some() || ["abs(", "neg(", "sext(", "lit("].iter().any(|p| w.starts_with(p))
        }
    }
}

/// A parsed line: mnemonic, comma-separated operands, space-separated trailing modifiers.
#[derive(Debug, Default)]
pub struct Line<'a> {
    pub mnemonic: Tok<'a>,
    pub operands: Vec<Tok<'a>>,
    pub mods: Vec<Tok<'a>>,
    /// Everything after the mnemonic.
    pub rest: Tok<'a>,
}

pub fn split_line(s: &str, col0: usize) -> Option<Line<'_>> {
    split_line_reuse(s, col0, Line::default())
}

/// [`split_line`] into `spare`'s lists, emptied first (the line before's, given back: no
/// allocation per line).
pub fn split_line_reuse<'a>(s: &'a str, col0: usize, spare: Line<'a>) -> Option<Line<'a>> {
    let Line { mut operands, mut mods, .. } = spare;
    operands.clear();
    mods.clear();
    // Byte-level trims and split (as `str::trim` and a split on the first whitespace char would
    // give, non-ASCII text included): decoding chars cost a tenth of assembling a line.
    let t = trim(s);
    if t.is_empty() {
        return None;
    }
    let lead = t.as_ptr() as usize - s.as_ptr() as usize;
    let (m, rest) = first_word(t);
    let mcol = col0 + lead;
    let rest_off = t.len() - rest.len();
    let rcol = mcol + rest_off;
    // Operands and trailing modifiers: the last comma-separated piece splits on blanks, its
    // first word an operand, then any further words that read as operands (llvm-mc takes
    // operands without a comma between them: `v_max_f32 v1, v2 v3`), the rest modifiers.
    split_top_into(rest, rcol, SEP_COMMA, &mut operands);
    if let Some(last) = operands.pop() {
        let n = operands.len();
        split_top_into(last.text, last.col, SEP_BLANK, &mut operands);
        let ops_end = n + 1 + operands.iter().skip(n + 1).take_while(|t| operand_like(t.text)).count();
        if operands.len() > ops_end {
            mods.extend(operands.drain(ops_end..));
        }
    }
    let rest_trim = trim(rest);
    let rest_lead =
        if rest_trim.is_empty() { rest.len() } else { rest_trim.as_ptr() as usize - rest.as_ptr() as usize };
    Some(Line {
        mnemonic: Tok { text: m, col: mcol },
        operands,
        mods,
        rest: Tok { text: rest_trim, col: rcol + rest_lead },
    })
}

/// `t` split at its first whitespace char (dropped), or `(t, "")`; ASCII blanks found bytewise.
fn first_word(t: &str) -> (&str, &str) {
    let b = t.as_bytes();
    match b.iter().position(|&c| c.is_ascii_whitespace() || c == 0x0b || c >= 0x80) {
        Some(k) if b[k] < 0x80 => (&t[..k], &t[k + 1..]),
        Some(_) => t.split_once(char::is_whitespace).unwrap_or((t, "")),
        None => (t, ""),
    }
}
