//! Substring tests on mnemonics and format names. They are short (under 40 bytes), where the
//! standard `str::contains` costs a library `memcmp` call per candidate position; the assembler
//! and its read-back ask such questions several times per line.

/// Whether `needle` occurs in `hay` (the answer of `hay.contains(needle)`).
#[inline]
pub(crate) fn has(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let Some((&first, rest)) = n.split_first() else { return true };
    if h.len() < n.len() {
        return false;
    }
    (0..=h.len() - n.len()).any(|k| h[k] == first && rest.iter().zip(&h[k + 1..]).all(|(a, b)| a == b))
}

#[cfg(test)]
mod tests {
    use super::has;

    #[test]
    fn same_as_contains() {
        let hays = ["", "a", "ds_read2_b32", "global_atomic_add_f32", "v_fma_mix_f32", "::", "x::y", "ééa"];
        let needles = ["", "a", "_atomic_", "_read2", "2addr", "_mix", "::", "f32", "é", "ds_read2_b32x"];
        for h in hays {
            for n in needles {
                assert_eq!(has(h, n), h.contains(n), "{h:?} {n:?}");
            }
        }
    }
}
