//! Labels and branch fixups.
//!
//! A [`Label`] is created unbound ([`super::Builder::label`]), bound once at the current position
//! ([`super::Builder::bind`]) and used as a branch operand any number of times, before or after it
//! is bound. Branches are encoded with offset 0 when emitted (so every size is known) and patched
//! when the builder finishes: `simm16 = (target - end of branch) / 4`, a signed 16-bit dword
//! offset from the next instruction; anything outside -32768..=32767 is an error.

/// A branch target of one builder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Label(pub(crate) u32);

impl Label {
    /// Its index in the builder that made it.
    pub fn index(self) -> u32 {
        self.0
    }
}

/// A label's name and where it is bound (byte offset, instruction index).
#[derive(Debug, Clone)]
pub(crate) struct LabelDef {
    pub name: String,
    pub at: Option<(usize, usize)>,
}

/// The dword offset a SOPP branch at `branch_at` (of `size` bytes) encodes to reach `target`.
pub fn branch_offset(branch_at: usize, size: usize, target: usize) -> Result<i16, String> {
    let next = branch_at as i64 + size as i64;
    let delta = target as i64 - next;
    if delta % 4 != 0 {
        return Err(format!("branch target {target} is not dword-aligned relative to {next}"));
    }
    let d = delta / 4;
    i16::try_from(d).map_err(|_| format!("branch offset {d} dwords is out of range (-32768..=32767)"))
}

/// FNV-1a, for the label-name sets: a code generator makes a label every few dozen
/// instructions, and SipHash's cost showed in the builder's profile. Names come from the program
/// that builds, not from an adversary.
#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        self.0 = h;
    }
}

pub(crate) type FnvBuild = std::hash::BuildHasherDefault<Fnv>;
