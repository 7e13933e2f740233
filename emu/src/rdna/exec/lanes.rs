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
    /// Bit k: source k (a, b, c) may hold non-zero lanes (the others are all zero).
    pub(super) filled: u8,
}

impl<const W: usize> Lanes<W> {
    pub(super) fn new() -> Self {
        Lanes { a: [0; W], b: [0; W], c: [0; W], r: [0; W], mask: 0, filled: 0 }
    }

    /// `r = a × b + c` in f32, fused (one rounding): the host's FMA instruction where it has one
    /// (without it, `mul_add` is a library call per lane).
    #[inline(always)]
    pub(super) fn fma_f32(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the host has FMA (checked just above), all the function requires.
            unsafe { self.fma_f32_x86() };
            return;
        }
        self.fma_f32_lanes();
    }

    #[inline(always)]
    fn fma_f32_lanes(&mut self) {
        for l in 0..W {
            let (x, y, z) =
                (f32::from_bits(self.a[l] as u32), f32::from_bits(self.b[l] as u32), f32::from_bits(self.c[l] as u32));
            self.r[l] = x.mul_add(y, z).to_bits() as u64;
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "fma")]
    unsafe fn fma_f32_x86(&mut self) {
        self.fma_f32_lanes();
    }
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
