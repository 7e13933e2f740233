//! The `.long` data directive: raw dwords in the instruction stream, as llvm-mc reads them. The
//! disassembler prints a word no instruction line can produce this way (disasm::raw), so that
//! its text still assembles back to the same bytes.

use super::operand::parse_int;
use crate::error::{IsaError, Result};

/// The bytes of a `.long A, B, ...` line (little-endian dwords; each value a 32-bit integer,
/// signed or unsigned, in any base `parse_int` reads); `None` when the line is not `.long`.
/// `col0` is the column of `text`'s first character, for errors.
pub fn long(text: &str, line: usize, col0: usize) -> Option<Result<Vec<u8>>> {
    // Every line comes here first: one byte decides for all but `.long` (and non-ASCII) lines.
    let first = text.bytes().find(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c));
    if !first.is_some_and(|c| c == b'.' || c >= 0x80) {
        return None;
    }
    let lead = text.len() - text.trim_start().len();
    let rest = text.trim_start().strip_prefix(".long")?;
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let mut out = Vec::new();
    let mut col = col0 + lead + ".long".len();
    for v in rest.split(',') {
        let at = col + v.len() - v.trim_start().len();
        col += v.len() + 1;
        let n = match parse_int(v.trim()) {
            Some(n) if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&n) => n as u32,
            _ => {
                return Some(Err(IsaError::asm(
                    line,
                    at,
                    format!("'.long' takes 32-bit integers, found '{}'", v.trim()),
                )))
            }
        };
        out.extend_from_slice(&n.to_le_bytes());
    }
    Some(Ok(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dwords_in_any_base() {
        let b = long(".long 0xd1310005, 130684, -1", 1, 1).unwrap().unwrap();
        assert_eq!(b, [0x05, 0x00, 0x31, 0xd1, 0x7c, 0xfe, 0x01, 0x00, 0xff, 0xff, 0xff, 0xff]);
        assert!(long(".longer 1", 1, 1).is_none());
        assert!(long("s_nop 0", 1, 1).is_none());
        assert!(long(".long 0x100000000", 1, 1).unwrap().is_err());
        assert!(long(".long", 1, 1).unwrap().is_err());
        assert!(long(".long 1,", 1, 1).unwrap().is_err());
    }
}
