//! Commands for a PM4 ring that several XCCs execute. PRED_EXEC, which keeps a packet to the
//! XCCs that must run it (a signal written once, each XCC's scratch base), works only inside an
//! indirect buffer, not in the ring itself (tinygrad's ops_amd.py works around the same). So the
//! commands go into the ring behind a NOP, which the ring's CP skips, and an INDIRECT_BUFFER
//! ahead of the NOP points at them: a self-referencing IB.
//!
//! Why in the ring rather than in a buffer of its own: the ring's read pointer already says
//! when the CPs are done with the words (the IB is consumed before the NOP that holds it), so
//! the ring's back-pressure covers the IB too, and no second allocator with its own reuse rule
//! is needed. The cost is 5 dwords per IB and, when the commands would cross the ring's end
//! (an IB is read linearly), padding to the ring's start.

use baregpu_autogen::amd::pm4_nv as nv;
use baregpu_drivers::amd::decode::pm4_packet_len;
use baregpu_drivers::amd::pm4::builder::header;

/// Dwords of commands per IB: padding plus commands must fit a NOP's payload (at most 0x3fff
/// dwords: a count of 0x3fff means a one-dword NOP), and the padding is shorter than the commands.
const MAX_IB_DWORDS: usize = 0x1fff;
/// INDIRECT_BUFFER (4 dwords) and the NOP's header.
const OVERHEAD: u64 = 5;

/// The ring words that run `words` from self-referencing IBs, for a ring of `ring_dwords` dwords
/// at `ring_va` whose first word lands at monotonic dword index `at`.
pub fn wrap(words: &[u32], ring_va: u64, ring_dwords: u64, at: u64) -> Vec<u32> {
    let mut out = Vec::with_capacity(words.len() + 16);
    let mut p = at;
    for chunk in chunks(words) {
        let len = chunk.len() as u64;
        let off = (p + OVERHEAD) % ring_dwords;
        let pad = if off + len > ring_dwords { ring_dwords - off } else { 0 };
        let body = (off + pad) % ring_dwords;
        let ib = ring_va + body * 4;
        out.extend_from_slice(&[
            header(nv::PACKET3_INDIRECT_BUFFER, 3),
            ib as u32,
            (ib >> 32) as u32,
            len as u32 | nv::INDIRECT_BUFFER_VALID,
        ]);
        out.push(header(nv::PACKET3_NOP, (pad + len) as usize));
        out.extend(std::iter::repeat_n(0, pad as usize));
        out.extend_from_slice(chunk);
        p += OVERHEAD + pad + len;
    }
    out
}

/// `words` cut into IB-sized runs, never inside a packet nor between a PRED_EXEC and the
/// packets it covers.
fn chunks(words: &[u32]) -> Vec<&[u32]> {
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < words.len() {
        let h = words[i];
        let mut unit = pm4_packet_len(h).unwrap_or(1);
        if unit == 2 && nv::CP_PACKET3_GET_OPCODE(h) == nv::PACKET3_PRED_EXEC {
            unit += (words.get(i + 1).copied().unwrap_or(0) & 0x3fff) as usize;
        }
        let unit = unit.min(words.len() - i);
        if i + unit - start > MAX_IB_DWORDS && i > start {
            out.push(&words[start..i]);
            start = i;
        }
        assert!(unit <= MAX_IB_DWORDS, "a PM4 unit of {unit} dwords does not fit an IB");
        i += unit;
    }
    if start < words.len() {
        out.push(&words[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use baregpu_drivers::amd::decode::{parse_pm4, Pm4Packet};
    use baregpu_drivers::amd::pm4::{Family, Pm4, ReleaseData, GFX9};

    /// Run `ring` as the ring CP would (skipping NOP bodies, following IBs into `mem`) and
    /// return the command words the IBs executed, in order.
    fn executed(ring: &[u32], mem: &[u32], ring_va: u64) -> Vec<u32> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < ring.len() {
            let len = pm4_packet_len(ring[i]).unwrap();
            match parse_pm4(&ring[i..i + len], Family::Gfx9).unwrap() {
                Pm4Packet::IndirectBuffer { va, dwords, valid: true } => {
                    let at = ((va - ring_va) / 4) as usize;
                    out.extend_from_slice(&mem[at..at + dwords as usize]);
                }
                Pm4Packet::Nop { .. } => {}
                p => panic!("unexpected packet on the ring: {p:?}"),
            }
            i += len;
        }
        out
    }

    fn commands(n: usize) -> Vec<u32> {
        let mut q = Pm4::for_xccs(&GFX9, 8, 0x1000);
        for i in 0..n {
            q.once(|q| q.release_mem(0x2000 + 8 * i as u64, ReleaseData::U32(i as u32), true, None));
        }
        q.into_words()
    }

    /// Place `words` in a ring of `ring_dwords` at monotonic index `at` and return the ring memory.
    fn place(words: &[u32], ring_dwords: u64, at: u64) -> Vec<u32> {
        let mut mem = vec![0xdead_beef; ring_dwords as usize];
        for (k, &w) in words.iter().enumerate() {
            mem[((at + k as u64) % ring_dwords) as usize] = w;
        }
        mem
    }

    #[test]
    fn the_ib_runs_exactly_the_commands_even_across_the_ring_end() {
        let cmds = commands(3);
        let ring_va = 0x7000_0000;
        for at in [0u64, 10, 1000, 1024 - 5 - 3, 1024 - 1, 1024 + 17] {
            let wrapped = wrap(&cmds, ring_va, 1024, at);
            let mem = place(&wrapped, 1024, at);
            // The ring CP reads the wrapped words in order (they may wrap; the IB never does).
            assert_eq!(executed(&wrapped, &mem, ring_va), cmds, "at {at}");
        }
    }

    #[test]
    fn long_streams_are_cut_between_pred_exec_units() {
        let cmds = commands(1200); // 1200 * (2 + 8) dwords: more than one IB holds
        let wrapped = wrap(&cmds, 0x1000, 1 << 16, 0);
        let mem = place(&wrapped, 1 << 16, 0);
        let ibs = wrapped.iter().filter(|&&w| w == header(nv::PACKET3_INDIRECT_BUFFER, 3)).count();
        assert!(ibs > 1, "{ibs} IBs");
        assert_eq!(executed(&wrapped, &mem, 0x1000), cmds);
        for c in chunks(&cmds) {
            assert_eq!(c.len() % 10, 0, "a PRED_EXEC and its RELEASE_MEM stay together");
        }
    }
}
