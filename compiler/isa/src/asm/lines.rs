//! A source's lines, as [`str::lines`] gives them (split at `\n`, one `\r` before it dropped, no
//! empty last line after a final `\n`), found eight bytes at a time: `str::lines` searches each
//! short line through a general character searcher, which cost more than splitting the line.

/// Iterator over the lines of a source.
pub struct Lines<'a> {
    rest: &'a str,
}

pub fn lines(src: &str) -> Lines<'_> {
    Lines { rest: src }
}

/// The index of the first `\n` in `b`, or `None`.
fn newline(b: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    for w in b.chunks_exact(8) {
        let y = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]) ^ (LO * u64::from(b'\n'));
        // The zero-byte test: no false negatives; a false positive only ends the word scan.
        if y.wrapping_sub(LO) & !y & HI != 0 {
            break;
        }
        at += 8;
    }
    b[at..].iter().position(|&c| c == b'\n').map(|k| at + k)
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        // `\n` and `\r` are ASCII, so every cut is at a char boundary.
        // A `\r` goes only before a `\n`: a last line without one keeps it (as `str::lines`).
        let line = match newline(self.rest.as_bytes()) {
            Some(k) => {
                let line = &self.rest[..k];
                self.rest = &self.rest[k + 1..];
                line.strip_suffix('\r').unwrap_or(line)
            }
            None => std::mem::take(&mut self.rest),
        };
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::lines;

    /// The same lines as `str::lines` on sources with every line ending and long and short lines.
    #[test]
    fn same_as_str_lines() {
        let cases = [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "\r\n\r\n",
            "x\r",
            "v_add_f32 v1, v2, v3 // a comment that runs past eight bytes\n\ns_nop 0\r\nü\n",
            "0123456\n01234567\n012345678\n0123456789abcdef\n",
            "a\rb\n",
        ];
        for s in cases {
            assert_eq!(lines(s).collect::<Vec<_>>(), s.lines().collect::<Vec<_>>(), "{s:?}");
        }
    }
}
