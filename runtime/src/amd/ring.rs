//! Writing commands into a hardware queue's ring and ringing its doorbell. PM4 rings count
//! in dwords and packets may wrap; SDMA rings count in bytes and a packet may not straddle the
//! end, so the tail is filled with NOPs (zero dwords). Space is checked against the read pointer
//! the engine writes back: never overwrite what it has not consumed. The last read pointers read
//! are kept, and read again only when they leave too little room (over a link a read is a round
//! trip; a submission into a ring with room costs none). The ring and its pointers
//! are reached through the device's [`Port`] (word stores locally, at most two bulk writes per
//! submission over a link).

use super::iface::{HwQueue, QueueKind};
use crate::port::Port;
use std::sync::atomic::{fence, Ordering};
use std::time::{Duration, Instant};

pub struct HwRing {
    pub queue: HwQueue,
    /// Monotonic write position, in the queue's units (PM4: dwords, SDMA: bytes).
    put: u64,
    ring_dwords: u64,
    port: Port,
    /// Each XCC's read pointer as last read: the engine has consumed at least this much, and
    /// `put` never runs a ring's length past it, so distances from it are exact.
    seen: Vec<u64>,
}

/// Why a submission could not be placed.
#[derive(Debug)]
pub enum RingError {
    /// More than the ring holds at once.
    TooLarge { dwords: usize, ring_dwords: u64 },
    /// The engine did not consume enough for the whole timeout.
    Stalled { in_flight: u64 },
    /// The link to the device failed (latched by the port).
    Link(crate::Error),
}

impl HwRing {
    pub fn new(queue: HwQueue, port: Port) -> Self {
        // The engine wraps at the size the queue was created with, not the page-rounded allocation.
        let ring_dwords = queue.ring_bytes / 4;
        // A new queue's engine starts at the ring's start.
        let seen = vec![0; queue.read_ptrs.len()];
        HwRing { queue, put: 0, ring_dwords, port, seen }
    }

    fn unit(&self) -> u64 {
        match self.queue.kind {
            QueueKind::Compute => 1,
            QueueKind::Sdma => 4,
        }
    }

    fn read_ptr(&self, at: u64) -> u64 {
        // SAFETY: a read pointer stays mapped for the queue's life (the interface's contract);
        // the engine writes it (the port reads atomically).
        unsafe { self.port.load_u64(at) }
    }

    /// Dwords written and not known to be consumed by every XCC that reads the ring (`fresh`:
    /// read the read pointers again first, else as last read). An engine may report its read
    /// pointer wrapped to the ring or monotonic: both agree modulo the ring size, which is a
    /// power of two.
    fn in_flight(&mut self, fresh: bool) -> u64 {
        if fresh {
            for i in 0..self.seen.len() {
                self.seen[i] = self.read_ptr(self.queue.read_ptrs[i]);
            }
        }
        let put = self.put / self.unit();
        let behind = |r: &u64| put.wrapping_sub(r / self.unit()) & (self.ring_dwords - 1);
        self.seen.iter().map(behind).max().unwrap_or(0)
    }

    /// Wait until `need` dwords are free (one is always kept free so that full and empty differ).
    fn wait_space(&mut self, need: u64, timeout: Duration) -> Result<(), RingError> {
        if self.in_flight(false) + need < self.ring_dwords {
            return Ok(());
        }
        let start = Instant::now();
        let mut spins = 0u32;
        loop {
            let busy = self.in_flight(true);
            if busy + need < self.ring_dwords {
                return Ok(());
            }
            self.check_link()?;
            if start.elapsed() > timeout {
                return Err(RingError::Stalled { in_flight: busy });
            }
            spins += 1;
            if spins < 1000 {
                std::hint::spin_loop();
            } else {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }

    /// The link's failure, where the ring is reached over a link that failed.
    fn check_link(&self) -> Result<(), RingError> {
        match &self.port {
            Port::Link(l) => l.error().map_or(Ok(()), |e| Err(RingError::Link(e))),
            Port::Local => Ok(()),
        }
    }

    /// Write `words` at ring index `index` on, wrapping at the ring's end.
    fn store(&self, index: u64, words: &[u32]) -> Result<(), RingError> {
        let at = index & (self.ring_dwords - 1);
        let first = words.len().min((self.ring_dwords - at) as usize);
        for (i, part) in [(at, &words[..first]), (0, &words[first..])] {
            if part.is_empty() {
                continue;
            }
            // SAFETY: `part` lies inside the ring allocation (it ends at the ring's end or fits
            // before `at`), which stays mapped while the queue lives; the engine only reads what
            // lies between its read pointer and our write pointer.
            unsafe { self.port.write_words(self.queue.ring_va + i * 4, part) }.map_err(RingError::Link)?;
        }
        Ok(())
    }

    /// Copy `words` in and publish them. `packets` gives packet lengths for SDMA (so no packet
    /// straddles the ring end); PM4 packets may wrap. Where several XCCs execute a PM4 ring,
    /// `words` run from indirect buffers inside the ring (see [`super::xcc_ib`]): their PRED_EXEC
    /// packets work only there; `head` (packets without PRED_EXEC, such as the INDIRECT_BUFFER
    /// of a compiled graph) goes on the ring as it is.
    pub fn submit(
        &mut self,
        head: &[u32],
        words: &[u32],
        packets: &[usize],
        timeout: Duration,
    ) -> Result<(), RingError> {
        if self.queue.kind == QueueKind::Compute && self.queue.xccs() > 1 {
            let at = self.put / self.unit() + head.len() as u64;
            let wrapped = super::xcc_ib::wrap(words, self.queue.ring_va, self.ring_dwords, at);
            return self.place(&[head, &wrapped].concat(), packets, timeout);
        }
        self.place(&[head, words].concat(), packets, timeout)
    }

    fn place(&mut self, words: &[u32], packets: &[usize], timeout: Duration) -> Result<(), RingError> {
        if words.is_empty() {
            return Ok(());
        }
        let mut total = words.len() as u64;
        let mut put_dw = self.put / self.unit();
        let tail = self.ring_dwords - (put_dw & (self.ring_dwords - 1));
        let wrap_fill = match self.queue.kind {
            QueueKind::Sdma if (packets.iter().copied().max().unwrap_or(0) as u64) > tail || total > tail => {
                // Simplest rule that keeps every packet whole: start the batch at offset 0.
                tail
            }
            _ => 0,
        };
        total += wrap_fill;
        if total >= self.ring_dwords {
            return Err(RingError::TooLarge { dwords: words.len(), ring_dwords: self.ring_dwords });
        }
        self.wait_space(total, timeout)?;
        if wrap_fill > 0 {
            // SDMA NOPs to the ring's end: zero dwords.
            self.store(put_dw, &vec![0; wrap_fill as usize])?;
            put_dw += wrap_fill;
        }
        self.store(put_dw, words)?;
        put_dw += words.len() as u64;
        self.put = put_dw * self.unit();
        // The ring contents must be visible before the write pointer, and the write pointer
        // before the doorbell (over a link, calls keep their order).
        fence(Ordering::Release);
        // SAFETY: the write pointer stays mapped for the queue's life (the interface's contract).
        unsafe { self.port.store_u64(self.queue.write_ptr, self.put) };
        fence(Ordering::SeqCst);
        self.queue.ring_doorbell(self.put);
        self.check_link()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amd::iface::QueueBacking;
    use crate::port::{Link, LinkMem};
    use std::collections::BTreeMap;
    use std::sync::atomic::AtomicUsize;
    use std::sync::{Arc, Mutex};

    const RING: u64 = 0x10_0000;
    const RPTR: u64 = 0x20_0000;

    /// Memory over calls that counts the reads of the read pointer.
    #[derive(Default)]
    struct Mem {
        words: Mutex<BTreeMap<u64, u8>>,
        rptr_reads: AtomicUsize,
    }

    impl LinkMem for Mem {
        fn name(&self) -> String {
            "ring-test".into()
        }
        fn read(&self, va: u64, buf: &mut [u8]) -> crate::Result<()> {
            if va == RPTR {
                self.rptr_reads.fetch_add(1, Ordering::SeqCst);
            }
            let m = self.words.lock().unwrap();
            buf.iter_mut().enumerate().for_each(|(i, b)| *b = m.get(&(va + i as u64)).copied().unwrap_or(0));
            Ok(())
        }
        fn write(&self, va: u64, data: &[u8]) -> crate::Result<()> {
            let mut m = self.words.lock().unwrap();
            for (i, &b) in data.iter().enumerate() {
                m.insert(va + i as u64, b);
            }
            Ok(())
        }
    }

    struct NoDoorbell;
    impl QueueBacking for NoDoorbell {
        fn ring_doorbell(&self, _: u64) {}
    }

    #[test]
    fn the_read_pointer_is_read_only_when_the_ring_runs_full() {
        let mem = Arc::new(Mem::default());
        let q = HwQueue::new(1, QueueKind::Compute, RING, 1024 * 4, 0, vec![RPTR], RPTR + 8, NoDoorbell);
        let mut ring = HwRing::new(q, Port::Link(Link::new(mem.clone())));
        let packet = [0u32; 100];
        let reads = || mem.rptr_reads.load(Ordering::SeqCst);
        // Ten packets fit in 1023 dwords: no read.
        for _ in 0..10 {
            ring.submit(&[], &packet, &[], Duration::from_secs(1)).unwrap();
        }
        assert_eq!(reads(), 0);
        // The engine consumed 500 dwords: the eleventh packet reads the pointer once, and the
        // next four fit in what that read freed.
        mem.write(RPTR, &500u64.to_le_bytes()).unwrap();
        for _ in 0..5 {
            ring.submit(&[], &packet, &[], Duration::from_secs(1)).unwrap();
        }
        assert_eq!(reads(), 1);
        // With nothing more consumed, a full ring stalls instead of overwriting (it re-reads).
        let e = ring.submit(&[], &packet, &[], Duration::from_millis(20)).unwrap_err();
        assert!(matches!(e, RingError::Stalled { in_flight: 1000 }), "{e:?}");
        assert!(reads() > 1);
    }
}
