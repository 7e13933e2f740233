//! The patch table of a compiled graph: every word of its command buffers and argument memory
//! that is not a plain command, with where its value comes from. Fixed sites are written once at
//! compile time; per-run sites are rewritten (only when their value changed) by each run, after
//! the epoch fence. A 64-bit value is two u32 volatile stores, low then high, at any 4-byte
//! offset (tinygrad's HCQ2 mis-addressed 64-bit patches at 4-byte offsets: we never form a
//! 64-bit access).

use crate::core::{Patch, PatchWidth};
use crate::graph::SlotId;
use crate::port::Port;
use crate::Result;

/// A patchable word (or pair) in CPU-mapped GPU memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Word {
    /// CPU (= GPU) address of the first word.
    pub addr: u64,
    pub width: PatchWidth,
}

impl Word {
    /// The site `p` of a stream placed at `base`.
    pub fn at(base: u64, p: Patch) -> Word {
        Word { addr: base + 4 * p.at as u64, width: p.width }
    }

    /// The 64-bit address the value at `p` is written to or compared with: every encoder puts
    /// it in the two words before the value, low then high (PM4 WAIT_REG_MEM and RELEASE_MEM,
    /// SDMA POLL_REGMEM and FENCE, NVIDIA SEM_ADDR_LO/HI before SEM_PAYLOAD_LO; checked by
    /// tests/graph_exec.rs::signal_addresses_precede_their_values).
    pub fn address_of(base: u64, p: Patch) -> Word {
        Word { addr: base + 4 * (p.at as u64 - 2), width: PatchWidth::Bits64 }
    }

    /// Write `value` as u32 words, low then high, through the memory's `port` (volatile
    /// stores locally; one write of both words over a link).
    ///
    /// # Safety
    /// `addr` (and `addr + 4` for 64 bits) must be 4-byte aligned, reached through `port` and
    /// not read by the GPU while this runs.
    pub unsafe fn store(self, port: &Port, value: u64) -> Result<()> {
        let words = [value as u32, (value >> 32) as u32];
        let n = if self.width == PatchWidth::Bits64 { 2 } else { 1 };
        // SAFETY: the caller's contract.
        unsafe { port.write_words(self.addr, &words[..n]) }
    }
}

/// Where a per-run value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// Device `d`'s timeline value before this run (every queue's first wait).
    TimelineWait(usize),
    /// Device `d`'s timeline value of this run (the last release).
    TimelineSignal(usize),
    /// The address of device `d`'s timeline signal (it moves on a wrap or a recovery).
    TimelineAddr(usize),
    /// The exec's run count (its epoch and copy-end signals).
    Epoch,
    /// Graph signal `signal` at `base + value`.
    Sync { signal: usize, value: u64 },
    /// A buffer slot's address plus `offset`, or a scalar slot's bytes (in argument memory).
    Input { slot: SlotId, offset: u64 },
}

/// How a site gets its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// Written at compile time.
    Fixed,
    /// Written by every run that changes it.
    PerRun(Source),
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Site {
    pub word: Word,
    pub class: Class,
    /// The value last written (per-run sites skip unchanged values).
    pub last: Option<u64>,
    /// The graph's device whose memory holds the site (whose port reaches it).
    pub device: usize,
}

/// Every site of a compiled graph.
#[derive(Debug, Default)]
pub(crate) struct PatchTable {
    pub sites: Vec<Site>,
}

impl PatchTable {
    pub fn fixed(&mut self, word: Word, device: usize) {
        self.sites.push(Site { word, class: Class::Fixed, last: None, device });
    }

    pub fn per_run(&mut self, word: Word, source: Source, device: usize) {
        self.sites.push(Site { word, class: Class::PerRun(source), last: None, device });
    }

    pub fn count(&self, f: impl Fn(&Class) -> bool) -> usize {
        self.sites.iter().filter(|s| f(&s.class)).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::port::LOCAL;

    #[test]
    fn a_64_bit_patch_at_an_odd_word_offset_is_two_word_stores() {
        let mut mem = [0xffff_ffffu32; 6];
        let base = mem.as_mut_ptr() as u64;
        // Word 3: 12 bytes in, not 8-byte aligned.
        let w = Word::at(base, Patch::new(3, PatchWidth::Bits64));
        assert_eq!(w.addr % 8, (base + 12) % 8);
        // SAFETY: inside `mem`, which nothing else reads.
        unsafe { w.store(&LOCAL, 0x1122_3344_5566_7788).unwrap() };
        assert_eq!(mem, [!0, !0, !0, 0x5566_7788, 0x1122_3344, !0]);
        let w = Word::at(base, Patch::new(5, PatchWidth::Bits32));
        // SAFETY: as above.
        unsafe { w.store(&LOCAL, 0xdead_beef_0000_0007).unwrap() };
        assert_eq!(mem[5], 7, "a 32-bit site takes the low word only");
        assert_eq!(mem[4], 0x1122_3344);
    }

    #[test]
    fn the_address_of_a_value_is_the_pair_before_it() {
        let w = Word::address_of(0x1000, Patch::new(5, PatchWidth::Bits32));
        assert_eq!(w, Word { addr: 0x1000 + 12, width: PatchWidth::Bits64 });
    }
}
