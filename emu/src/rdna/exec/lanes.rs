//! Evaluating a VALU operation lane by lane: the state the family matches share, and the
//! loops they write their arms with.

/// A VALU operation's sources (after modifiers and DPP) and the result being built.
pub(super) struct Lanes<const W: usize> {
    pub(super) a: [u64; W],
    pub(super) b: [u64; W],
    pub(super) c: [u64; W],
    pub(super) r: [u64; W],
    /// Lane mask result (compares, carries).
    pub(super) mask: u64,
}

/// What a family's match did with an operation.
pub(super) enum Arm {
    /// The result is in `r` (and `mask`); the output modifiers still apply.
    Lanes,
    /// The result in `r` is final: no output modifiers.
    Raw,
    /// A compare: only the lane mask (already limited to EXEC) is written.
    Mask,
    /// Not in this family.
    Next,
}

/// `r[l] = e` for every lane `l`, with `x`, `y`, `z` the lane's three sources.
macro_rules! map {
    ($io:ident, |$x:ident, $y:ident, $z:ident, $l:ident| $e:expr) => {{
        for $l in 0..W {
            let $x = $io.a[$l];
            let $y = $io.b[$l];
            let $z = $io.c[$l];
            $io.r[$l] = $e;
        }
    }};
    ($io:ident, |$x:ident, $y:ident, $z:ident| $e:expr) => {{
        for l in 0..W {
            let $x = $io.a[l];
            let $y = $io.b[l];
            let $z = $io.c[l];
            $io.r[l] = $e;
        }
    }};
}

/// `(r[l], carry) = e` for every lane `l`; the carries form the lane mask result.
macro_rules! carry {
    ($io:ident, |$x:ident, $y:ident, $z:ident, $l:ident| $e:expr) => {{
        for $l in 0..W {
            let $x = $io.a[$l];
            let $y = $io.b[$l];
            let $z = $io.c[$l];
            let (res, co): (u64, bool) = $e;
            $io.r[$l] = res;
            $io.mask |= (co as u64) << $l;
        }
    }};
}
