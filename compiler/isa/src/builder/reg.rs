//! Registers as values: SGPRs, VGPRs, AGPRs, trap temporaries and the named special registers.
//!
//! Ranges follow Rust's range syntax: `s(2..4)` is `s[2:3]` (two registers, end exclusive) and
//! `s(2..=3)` is the same pair written inclusively; `v_range(first, count)` names `count` VGPRs
//! from `first`. Indices are checked against the architecture's register files when an
//! instruction is emitted (an out-of-file register is an error, never a panic).

use std::fmt;
use std::ops::{Range, RangeInclusive};

use crate::Arch;

/// The register file a [`Reg`] lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegFile {
    Sgpr,
    Vgpr,
    /// Accumulation VGPRs (gfx942, gfx950).
    Agpr,
    /// Trap temporaries `ttmp0..ttmp15`.
    Ttmp,
}

impl RegFile {
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            RegFile::Sgpr => "s",
            RegFile::Vgpr => "v",
            RegFile::Agpr => "a",
            RegFile::Ttmp => "ttmp",
        }
    }

    /// Number of registers of this file the architecture addresses (0: none).
    pub fn size(self, arch: Arch) -> u32 {
        let cdna = matches!(arch, Arch::Gfx942 | Arch::Gfx950);
        match self {
            // gfx9: s0..s101 (s102/s103 are FLAT_SCRATCH, then XNACK_MASK, VCC); gfx10+: s0..s105.
            RegFile::Sgpr => {
                if cdna {
                    102
                } else {
                    106
                }
            }
            RegFile::Vgpr => 256,
            RegFile::Agpr => {
                if cdna {
                    256
                } else {
                    0
                }
            }
            RegFile::Ttmp => 16,
        }
    }
}

/// 16-bit half of a VGPR (true16 syntax `v1.l` / `v1.h`, gfx11+).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Half {
    Lo,
    Hi,
}

/// A register or an aligned run of registers of one file: 8 bytes, since every operand of
/// every built instruction carries one.
///
/// `first` and `count` are kept as given (even when invalid, e.g. negative or empty) so that the
/// builder can report them as errors instead of panicking at construction; values beyond their
/// type's range (no register file comes near) are saturated, which keeps them invalid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reg {
    pub file: RegFile,
    pub half: Option<Half>,
    pub count: i16,
    pub first: i32,
}

impl Reg {
    pub fn new(file: RegFile, first: i64, count: i64) -> Reg {
        let first = first.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
        let count = count.clamp(i16::MIN as i64, i16::MAX as i64) as i16;
        Reg { file, first, count, half: None }
    }

    /// The last register of the run.
    pub fn last(&self) -> i64 {
        self.end() - 1
    }

    /// One past the last register of the run.
    #[inline]
    pub fn end(&self) -> i64 {
        self.first as i64 + self.count as i64
    }

    /// The low 16-bit half (`v1.l`).
    pub fn l(mut self) -> Reg {
        self.half = Some(Half::Lo);
        self
    }

    /// The high 16-bit half (`v1.h`).
    pub fn h(mut self) -> Reg {
        self.half = Some(Half::Hi);
        self
    }

    /// The `i`-th register of a run as a single register (`v(4..8).at(1)` is `v5`).
    pub fn at(&self, i: i64) -> Reg {
        Reg::new(self.file, (self.first as i64).saturating_add(i), 1)
    }

    /// A sub-range of a run (`s(4..12).sub(2, 2)` is `s[6:7]`).
    pub fn sub(&self, start: i64, count: i64) -> Reg {
        Reg::new(self.file, (self.first as i64).saturating_add(start), count)
    }

    /// Checks the register against the architecture's register file.
    #[inline]
    pub fn check(&self, arch: Arch) -> Result<(), String> {
        if self.fits(arch) {
            Ok(())
        } else {
            self.check_why(arch)
        }
    }

    /// Tuple alignment as llvm-mc checks it: SGPR/TTMP pairs even, longer tuples on 4; on gfx90a+
    /// (CDNA) VGPR/AGPR tuples even.
    #[inline]
    pub(crate) fn align(&self, arch: Arch) -> i32 {
        match self.file {
            RegFile::Sgpr | RegFile::Ttmp if self.count == 2 => 2,
            RegFile::Sgpr | RegFile::Ttmp if self.count > 2 => 4,
            RegFile::Vgpr | RegFile::Agpr if self.count > 1 && matches!(arch, Arch::Gfx942 | Arch::Gfx950) => 2,
            _ => 1,
        }
    }

    /// [`Reg::check`]'s verdict without its message (the common, successful path).
    #[inline]
    pub(crate) fn fits(&self, arch: Arch) -> bool {
        let size = self.file.size(arch) as i64;
        size != 0
            && self.count >= 1
            && self.first >= 0
            && self.end() <= size
            && self.first & (self.align(arch) - 1) == 0
            && (self.half.is_none() || self.count == 1 && self.file == RegFile::Vgpr)
    }

    /// Why [`Reg::fits`] said no.
    #[cold]
    #[inline(never)]
    fn check_why(&self, arch: Arch) -> Result<(), String> {
        let size = self.file.size(arch) as i64;
        if size == 0 {
            return Err(format!("{} has no {} registers", arch.name(), self.file.prefix()));
        }
        if self.count < 1 {
            return Err(format!("empty register range {}[{}:{}]", self.file.prefix(), self.first, self.last()));
        }
        if self.first < 0 || self.end() > size {
            return Err(format!(
                "register {} is beyond the {} file of {} ({} registers)",
                self,
                self.file.prefix(),
                arch.name(),
                size
            ));
        }
        let align = self.align(arch);
        if self.first % align != 0 {
            return Err(format!("register tuple {self} is not aligned to {align} on {}", arch.name()));
        }
        if self.half.is_some() && (self.count != 1 || self.file != RegFile::Vgpr) {
            return Err(format!("only single VGPRs have 16-bit halves ({self})"));
        }
        Ok(())
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.file.prefix();
        if self.count == 1 {
            write!(f, "{p}{}", self.first)?;
        } else {
            write!(f, "{p}[{}:{}]", self.first, self.last())?;
        }
        match self.half {
            Some(Half::Lo) => write!(f, ".l"),
            Some(Half::Hi) => write!(f, ".h"),
            None => Ok(()),
        }
    }
}

/// What `s(..)`, `v(..)`, `a(..)` and `ttmp(..)` accept: one index or a range of indices.
pub trait RegIndex: Sized {
    /// `(first, count)`.
    fn span(self) -> (i64, i64);

    /// The register or run of `file` it names.
    #[inline]
    fn reg(self, file: RegFile) -> Reg {
        let (first, count) = self.span();
        Reg::new(file, first, count)
    }
}

/// One index of a type that fits `Reg::first` as it is: no saturation to compute (the common
/// `v(3)` of a code generator).
macro_rules! reg_index_small {
    ($($t:ty),*) => {$(
        impl RegIndex for $t {
            fn span(self) -> (i64, i64) {
                (self as i64, 1)
            }

            #[inline]
            fn reg(self, file: RegFile) -> Reg {
                Reg { file, half: None, count: 1, first: self as i32 }
            }
        }
    )*};
}
reg_index_small!(i32, u8, u16);

macro_rules! reg_index {
    ($($t:ty),*) => {$(
        impl RegIndex for $t {
            fn span(self) -> (i64, i64) {
                (self as i64, 1)
            }
        }
)*};
}
reg_index!(u32, usize, i64);

macro_rules! reg_ranges {
    ($($t:ty),*) => {$(
        impl RegIndex for Range<$t> {
            fn span(self) -> (i64, i64) {
                (self.start as i64, self.end as i64 - self.start as i64)
            }
        }
        impl RegIndex for RangeInclusive<$t> {
            fn span(self) -> (i64, i64) {
                (*self.start() as i64, *self.end() as i64 - *self.start() as i64 + 1)
            }
        }
    )*};
}
reg_ranges!(i32, u32, usize, u8, u16, i64);

/// An SGPR or SGPR range: `s(3)`, `s(4..8)` (= `s[4:7]`), `s(4..=7)`.
pub fn s(i: impl RegIndex) -> Reg {
    i.reg(RegFile::Sgpr)
}

/// A VGPR or VGPR range: `v(3)`, `v(4..8)` (= `v[4:7]`), `v(4..=7)`.
pub fn v(i: impl RegIndex) -> Reg {
    i.reg(RegFile::Vgpr)
}

/// An AccVGPR or AccVGPR range (gfx942, gfx950): `a(0)`, `a(0..4)`.
pub fn a(i: impl RegIndex) -> Reg {
    i.reg(RegFile::Agpr)
}

/// A trap temporary SGPR or range: `ttmp(7)`, `ttmp(4..8)`.
pub fn ttmp(i: impl RegIndex) -> Reg {
    i.reg(RegFile::Ttmp)
}

/// `count` SGPRs from `first`.
pub fn s_range(first: u32, count: u32) -> Reg {
    Reg::new(RegFile::Sgpr, first as i64, count as i64)
}

/// `count` VGPRs from `first`.
pub fn v_range(first: u32, count: u32) -> Reg {
    Reg::new(RegFile::Vgpr, first as i64, count as i64)
}

/// `count` AccVGPRs from `first`.
pub fn a_range(first: u32, count: u32) -> Reg {
    Reg::new(RegFile::Agpr, first as i64, count as i64)
}

/// Named special registers (scalar operand space).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Special {
    /// The 64-bit VCC pair (`vcc`); in wave32 code use [`Special::VccLo`].
    Vcc,
    VccLo,
    VccHi,
    /// The 64-bit EXEC pair; in wave32 code use [`Special::ExecLo`].
    Exec,
    ExecLo,
    ExecHi,
    M0,
    /// `null` (gfx10+): reads 0, writes are dropped.
    Null,
    Scc,
    Vccz,
    Execz,
    FlatScratch,
}

impl Special {
    /// Every named register, in declaration order (`ALL[r as usize] == r`).
    pub const ALL: [Special; 12] = [
        Special::Vcc,
        Special::VccLo,
        Special::VccHi,
        Special::Exec,
        Special::ExecLo,
        Special::ExecHi,
        Special::M0,
        Special::Null,
        Special::Scc,
        Special::Vccz,
        Special::Execz,
        Special::FlatScratch,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Special::Vcc => "vcc",
            Special::VccLo => "vcc_lo",
            Special::VccHi => "vcc_hi",
            Special::Exec => "exec",
            Special::ExecLo => "exec_lo",
            Special::ExecHi => "exec_hi",
            Special::M0 => "m0",
            Special::Null => "null",
            Special::Scc => "scc",
            Special::Vccz => "vccz",
            Special::Execz => "execz",
            Special::FlatScratch => "flat_scratch",
        }
    }

    /// Whether the architecture has this register.
    pub fn check(self, arch: Arch) -> Result<(), String> {
        let cdna = matches!(arch, Arch::Gfx942 | Arch::Gfx950);
        match self {
            Special::Null if cdna => Err(format!("{} has no null register", arch.name())),
            Special::FlatScratch if !cdna => Err(format!("{} has no flat_scratch register operand", arch.name())),
            _ => Ok(()),
        }
    }

    /// Whether it is (part of) VCC, which the SGPR count accounts for separately.
    pub fn is_vcc(self) -> bool {
        matches!(self, Special::Vcc | Special::VccLo | Special::VccHi)
    }
}

impl fmt::Display for Special {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `vcc` (64-bit).
pub fn vcc() -> Special {
    Special::Vcc
}
/// `vcc_lo` (the wave32 lane mask).
pub fn vcc_lo() -> Special {
    Special::VccLo
}
/// `vcc_hi`.
pub fn vcc_hi() -> Special {
    Special::VccHi
}
/// `exec` (64-bit).
pub fn exec() -> Special {
    Special::Exec
}
/// `exec_lo` (the wave32 lane mask).
pub fn exec_lo() -> Special {
    Special::ExecLo
}
/// `exec_hi`.
pub fn exec_hi() -> Special {
    Special::ExecHi
}
/// `m0`.
pub fn m0() -> Special {
    Special::M0
}
/// `null` (gfx10+).
pub fn null() -> Special {
    Special::Null
}
/// `scc`.
pub fn scc() -> Special {
    Special::Scc
}
