//! SDMA: the copy engines' packet language, SDMA 4.x (gfx9/CDNA), 5.x (gfx10), 6.x (gfx11) and
//! 7.x (gfx12). The packets the driver uses share one layout across these versions (the tests
//! check every field position against each version's generated header); what differs is data in
//! [`SdmaGeneration`].

use baregpu_autogen::amd::{sdma_4_0_0 as v4, sdma_5_0_0 as v5, sdma_6_0_0 as v6};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SdmaGeneration {
    /// Major version of the engine.
    pub major: u32,
    /// COPY_LINEAR's COUNT field (bytes - 1): copies longer than `count_mask + 1` are split.
    pub count_mask: u32,
    /// FENCE header bits: MTYPE uncached (3) from SDMA 5 on, as the kernel's fences.
    pub fence_header: u32,
    /// COPY_LINEAR header bits: SDMA 7 sets CPV (cache policy valid), as the kernel does.
    pub copy_header: u32,
}

pub const SDMA4: SdmaGeneration = SdmaGeneration {
    major: 4,
    count_mask: v4::SDMA_PKT_COPY_LINEAR::COUNT::count_mask,
    fence_header: 0,
    copy_header: 0,
};
pub const SDMA5: SdmaGeneration = SdmaGeneration {
    major: 5,
    count_mask: v5::SDMA_PKT_COPY_LINEAR::COUNT::count_mask,
    fence_header: v5::SDMA_PKT_FENCE::HEADER::MTYPE(3),
    copy_header: 0,
};
pub const SDMA6: SdmaGeneration = SdmaGeneration {
    major: 6,
    count_mask: v6::SDMA_PKT_COPY_LINEAR::COUNT::count_mask,
    fence_header: v6::SDMA_PKT_FENCE::HEADER::MTYPE(3),
    copy_header: 0,
};
/// SDMA 7 uses the 6.0 packet header (sdma_v7_0.c includes sdma_v6_0_0_pkt_open.h).
pub const SDMA7: SdmaGeneration = SdmaGeneration {
    major: 7,
    count_mask: v6::SDMA_PKT_COPY_LINEAR::COUNT::count_mask,
    fence_header: v6::SDMA_PKT_FENCE::HEADER::MTYPE(3),
    copy_header: v6::SDMA_PKT_COPY_LINEAR::HEADER::CPV(1),
};

impl SdmaGeneration {
    /// The SDMA generation of an LLVM processor name.
    pub fn for_arch(arch: &str) -> Option<&'static SdmaGeneration> {
        match arch {
            "gfx942" | "gfx950" => Some(&SDMA4),
            a if a.starts_with("gfx10") => Some(&SDMA5),
            a if a.starts_with("gfx11") => Some(&SDMA6),
            a if a.starts_with("gfx12") => Some(&SDMA7),
            _ => None,
        }
    }

    /// Largest copy one COPY_LINEAR packet moves.
    pub fn max_copy(&self) -> u64 {
        self.count_mask as u64 + 1
    }
}

// Packet layout shared by SDMA 4-7 (checked against every version in tests/sdma_golden.rs).
const OP_NOP: u32 = v6::SDMA_OP_NOP;
const OP_COPY: u32 = v6::SDMA_OP_COPY;
const OP_WRITE: u32 = v6::SDMA_OP_WRITE;
const OP_INDIRECT: u32 = v6::SDMA_OP_INDIRECT;
const OP_FENCE: u32 = v6::SDMA_OP_FENCE;
const OP_TRAP: u32 = v6::SDMA_OP_TRAP;
const OP_POLL_REGMEM: u32 = v6::SDMA_OP_POLL_REGMEM;
const OP_TIMESTAMP: u32 = v6::SDMA_OP_TIMESTAMP;
const SUBOP_COPY_LINEAR: u32 = v6::SDMA_SUBOP_COPY_LINEAR;
const SUBOP_TIMESTAMP_GET_GLOBAL: u32 = v6::SDMA_SUBOP_TIMESTAMP_GET_GLOBAL;

fn header(op: u32, sub_op: u32) -> u32 {
    v6::SDMA_PKT_COPY_LINEAR::HEADER::OP(op) | v6::SDMA_PKT_COPY_LINEAR::HEADER::SUB_OP(sub_op)
}

/// An SDMA command stream under construction. Packets are kept whole (see [`Sdma::packets`]) so
/// that a ring writer never splits one across the ring's end.
#[derive(Debug, Clone)]
pub struct Sdma {
    pub gen: &'static SdmaGeneration,
    words: Vec<u32>,
    /// Dword length of each packet, in order.
    sizes: Vec<usize>,
}

impl Sdma {
    pub fn new(gen: &'static SdmaGeneration) -> Self {
        Sdma { gen, words: Vec::new(), sizes: Vec::new() }
    }

    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// Dword length of each packet, in order.
    pub fn packets(&self) -> &[usize] {
        &self.sizes
    }

    fn push(&mut self, packet: &[u32]) -> usize {
        let at = self.words.len();
        self.words.extend_from_slice(packet);
        self.sizes.push(packet.len());
        at
    }

    pub fn nop(&mut self) {
        self.push(&[header(OP_NOP, 0)]);
    }

    /// Copy `bytes` from `src` to `dst`, in as many COPY_LINEAR packets as the count field needs.
    pub fn copy(&mut self, dst: u64, src: u64, bytes: u64) {
        let mut done = 0;
        while done < bytes {
            let n = (bytes - done).min(self.gen.max_copy());
            let (s, d) = (src + done, dst + done);
            self.push(&[
                header(OP_COPY, SUBOP_COPY_LINEAR) | self.gen.copy_header,
                (n - 1) as u32,
                0,
                s as u32,
                (s >> 32) as u32,
                d as u32,
                (d >> 32) as u32,
            ]);
            done += n;
        }
    }

    /// Write the 32-bit `value` to `addr` after prior packets. Returns the value's dword index.
    pub fn fence(&mut self, addr: u64, value: u32) -> usize {
        assert!(addr.is_multiple_of(4), "fence address {addr:#x} is not 4-byte aligned");
        self.push(&[header(OP_FENCE, 0) | self.gen.fence_header, addr as u32, (addr >> 32) as u32, value]) + 3
    }

    /// Raise an interrupt with `context` (how KFD signals an event from SDMA).
    pub fn trap(&mut self, context: u32) {
        self.push(&[header(OP_TRAP, 0), v6::SDMA_PKT_TRAP::INT_CONTEXT::INT_CONTEXT(context)]);
    }

    /// Stall until `(*addr & mask) >= reference` (32-bit). Returns the reference's dword index.
    pub fn poll_ge(&mut self, addr: u64, reference: u32, mask: u32) -> usize {
        use v6::SDMA_PKT_POLL_REGMEM::{DW5, HEADER};
        self.push(&[
            header(OP_POLL_REGMEM, 0) | HEADER::FUNC(5) | HEADER::MEM_POLL(1),
            addr as u32,
            (addr >> 32) as u32,
            reference,
            mask,
            DW5::INTERVAL(4) | DW5::RETRY_COUNT(0xfff),
        ]) + 3
    }

    /// Stall until `(*addr & mask) == reference` (32-bit): a value that must appear exactly (a
    /// sentinel), where an older or newer one must not pass.
    pub fn poll_eq(&mut self, addr: u64, reference: u32, mask: u32) {
        use v6::SDMA_PKT_POLL_REGMEM::{DW5, HEADER};
        self.push(&[
            header(OP_POLL_REGMEM, 0) | HEADER::FUNC(3) | HEADER::MEM_POLL(1),
            addr as u32,
            (addr >> 32) as u32,
            reference,
            mask,
            DW5::INTERVAL(4) | DW5::RETRY_COUNT(0xfff),
        ]);
    }

    /// Write the 64-bit global timestamp (100 MHz) to `addr` (8-byte aligned).
    pub fn timestamp(&mut self, addr: u64) {
        assert!(addr.is_multiple_of(8), "timestamp address {addr:#x} is not 8-byte aligned");
        self.push(&[header(OP_TIMESTAMP, SUBOP_TIMESTAMP_GET_GLOBAL), addr as u32, (addr >> 32) as u32]);
    }

    /// Write `data` (1 or more dwords) to `addr`.
    pub fn write(&mut self, addr: u64, data: &[u32]) {
        assert!(!data.is_empty() && addr.is_multiple_of(4), "write of {} dwords at {addr:#x}", data.len());
        let mut p = vec![header(OP_WRITE, 0), addr as u32, (addr >> 32) as u32, data.len() as u32 - 1];
        p.extend_from_slice(data);
        self.push(&p);
    }

    /// Run `dwords` dwords of SDMA commands at `addr` (32-byte aligned).
    pub fn indirect(&mut self, addr: u64, dwords: u32) {
        assert!(addr.is_multiple_of(32), "SDMA indirect buffer at {addr:#x} is not 32-byte aligned");
        self.push(&[header(OP_INDIRECT, 0), addr as u32, (addr >> 32) as u32, dwords, 0, 0]);
    }
}
