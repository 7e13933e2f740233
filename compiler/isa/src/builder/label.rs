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

/// A label's name (its byte range in the builder's one string of names: no allocation per
/// label) and where it is bound (byte offset, instruction index).
#[derive(Debug, Clone)]
pub(crate) struct LabelDef {
    pub name: (u32, u32),
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

/// A label name usable by assemblers: other characters replaced by `_`, an `L` in front of an
/// empty name or one that starts with a digit.
pub(crate) fn base_name(name: &str) -> std::borrow::Cow<'_, str> {
    let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let mut base = match name.chars().all(ok) {
        true => std::borrow::Cow::Borrowed(name),
        false => name.chars().map(|c| if ok(c) { c } else { '_' }).collect(),
    };
    if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
        base.to_mut().insert(0, 'L');
    }
    base
}

/// Appends `_n`, written without the formatting machinery (a label every few dozen
/// instructions showed it in the builder's profile).
pub(crate) fn push_suffix(s: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let (mut at, mut v) = (digits.len(), n);
    loop {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    s.push('_');
    s.extend(digits[at..].iter().map(|&d| d as char));
}

// Label-name sets hash with FNV-1a (`crate::fnv`): a code generator makes a label every few
// dozen instructions, and SipHash's cost showed in the builder's profile.
pub(crate) use crate::fnv::{Fnv, FnvBuild};

/// A label name's 64-bit FNV-1a hash.
pub(crate) fn name_hash(name: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = Fnv::default();
    h.write(name.as_bytes());
    h.finish()
}

/// For sets of [`name_hash`]es: the key is a hash already, used as it is.
#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used (u64 keys); any other input is folded in, not dropped.
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

pub(crate) type HashBuild = std::hash::BuildHasherDefault<Prehashed>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let suffixed = |base: &str, n| {
            let mut s = base.to_string();
            push_suffix(&mut s, n);
            s
        };
        assert_eq!(suffixed("loop", 0), "loop_0");
        assert_eq!(suffixed("loop", 7), "loop_7");
        assert_eq!(suffixed("top", 4_294_967_295), "top_4294967295");
        assert_eq!(base_name("top"), "top");
        assert_eq!(base_name("a b-c"), "a_b_c");
        assert_eq!(base_name("9x"), "L9x");
        assert_eq!(base_name(""), "L");
    }
}
