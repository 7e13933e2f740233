//! Export targets (`exp`/`export` on gfx11+), both directions: `mrt0`..`mrt7`, `mrtz`, `null`,
//! `pos0`..`pos4`, `prim`, `dual_src_blend0`/`1`, `param0`..`param31`.

/// Ranges of numbered targets: (first value, count, name prefix).
const NUMBERED: [(u32, u32, &str); 4] = [(0, 8, "mrt"), (12, 5, "pos"), (21, 2, "dual_src_blend"), (32, 32, "param")];

/// Targets with one name: (value, name).
const SINGLE: [(u32, &str); 3] = [(8, "mrtz"), (9, "null"), (20, "prim")];

/// The name of target `t`; `None` for a value no target has.
pub fn name(t: u32) -> Option<String> {
    if let Some(n) = super::name_of(&SINGLE, t) {
        return Some(n.to_string());
    }
    NUMBERED
        .iter()
        .find(|&&(first, n, _)| (first..first + n).contains(&t))
        .map(|&(first, _, p)| format!("{p}{}", t - first))
}

/// The value of a target name.
pub fn value(s: &str) -> Option<u32> {
    if let Some(v) = super::value_of(&SINGLE, s) {
        return Some(v);
    }
    NUMBERED.iter().find_map(|&(first, n, p)| {
        let k: u32 = s.strip_prefix(p)?.parse().ok()?;
        // `mrt01` is not a name: the number is written without leading zeros.
        (k < n && s[p.len()..] == k.to_string()).then_some(first + k)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_and_values_are_inverse() {
        for t in 0..64 {
            if let Some(n) = super::name(t) {
                assert_eq!(super::value(&n), Some(t), "{n}");
            }
        }
        assert_eq!(super::value("pos4"), Some(16));
        assert_eq!(super::value("pos5"), None);
        assert_eq!(super::value("dual_src_blend1"), Some(22));
        assert_eq!(super::name(10), None);
    }
}
