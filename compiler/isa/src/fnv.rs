//! FNV-1a for the crate's maps keyed by mnemonics: the keys are short and come from the tables
//! or the source being assembled, so a keyed hash buys nothing, and SipHash cost a few percent
//! of assembly time (and several times the source-type lookup it serves).

/// The FNV-1a hasher.
#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// A `HashMap` builder hashing with [`Fnv`].
pub(crate) type FnvBuild = std::hash::BuildHasherDefault<Fnv>;
