//! Errors of the ISA model: decoding (byte offsets) and assembling (line:column).

use thiserror::Error;

/// Every error the ISA model reports. Decoding errors name the byte offset; assembler errors name
/// the line and column (both 1-based).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IsaError {
    #[error("offset {offset}: truncated instruction: need {need} bytes, {have} left")]
    Truncated { offset: usize, need: usize, have: usize },
    #[error("offset {offset}: unknown instruction encoding 0x{dword:08x}")]
    UnknownEncoding { offset: usize, dword: u32 },
    #[error("offset {offset}: unknown opcode {opcode} in format {format} (0x{dword:08x})")]
    UnknownOpcode { offset: usize, format: &'static str, opcode: u32, dword: u32 },
    #[error("{line}:{col}: {msg}")]
    Asm { line: usize, col: usize, msg: String },
    #[error("encode: {0}")]
    Encode(String),
    /// Several assembler errors (each an [`IsaError::Asm`]), one a line, in source order.
    #[error("{}", many(.0))]
    AsmMany(Vec<IsaError>),
}

fn many(errors: &[IsaError]) -> String {
    errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
}

impl IsaError {
    pub(crate) fn asm(line: usize, col: usize, msg: impl Into<String>) -> IsaError {
        IsaError::Asm { line, col, msg: bound_quotes(&msg.into()) }
    }
}

/// The longest quoted text or word an error message repeats from its input.
pub const QUOTE_MAX: usize = 60;

/// `msg` with every quoted text (`'...'` or `` `...` ``) and every word longer than
/// [`QUOTE_MAX`] characters cut there and marked with `…`: a message echoes its input, and the
/// input can be a megabyte token.
pub fn bound_quotes(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len().min(4096));
    let mut quote: Option<char> = None;
    let (mut run, mut prev) = (0usize, ' ');
    for c in msg.chars() {
        let opens = quote.is_none() && matches!(c, '\'' | '`') && (prev.is_whitespace() || "([".contains(prev));
        let ends = match quote {
            Some(q) => c == q,
            None => c.is_whitespace() || opens,
        };
        if ends {
            quote = if opens { Some(c) } else { None };
            run = 0;
            out.push(c);
        } else if run < QUOTE_MAX {
            run += 1;
            out.push(c);
        } else if run == QUOTE_MAX {
            run += 1;
            out.push('…');
        }
        prev = c;
    }
    out
}

pub type Result<T> = std::result::Result<T, IsaError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_quotes_and_words_are_cut() {
        let long = "v".repeat(5_000_000);
        let m = bound_quotes(&format!("unknown mnemonic '{long}' for gfx1100"));
        assert_eq!(m, format!("unknown mnemonic '{}…' for gfx1100", "v".repeat(QUOTE_MAX)));
        let m = bound_quotes(&format!("register {long} is beyond `{long} x`"));
        assert_eq!(m, format!("register {0}… is beyond `{0}…`", "v".repeat(QUOTE_MAX)));
        // Short ones, apostrophes inside words and multi-byte text stay as they are.
        let short = "cannot encode 'v_add_f32 v1, v2' (the kernel's `k` é)";
        assert_eq!(bound_quotes(short), short);
        let e = IsaError::asm(1, 1, format!("bad '{long}'"));
        assert!(e.to_string().len() < 100, "{e}");
    }
}
