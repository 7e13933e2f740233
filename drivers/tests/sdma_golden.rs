//! SDMA golden tests: each packet's exact dwords per engine version, with the expected words
//! built from that version's generated packet header (vega10/navi10/sdma_v6_0_0_pkt_open.h), so
//! a layout that moved in any version fails here; plus literals from the kernel's emitters.

use baregpu_autogen::amd::{sdma_4_0_0 as v4, sdma_5_0_0 as v5, sdma_6_0_0 as v6};
use baregpu_drivers::amd::sdma::{Sdma, SdmaGeneration, SDMA4, SDMA5, SDMA6, SDMA7};

const SRC: u64 = 0x0000_7f00_1000_0000;
const DST: u64 = 0x0000_7e00_2000_0040;

macro_rules! golden {
    ($v:ident, $gen:expr, $fence_mtype:expr, $copy_extra:expr) => {{
        let gen: &'static SdmaGeneration = $gen;
        let lo = |a: u64| a as u32;
        let hi = |a: u64| (a >> 32) as u32;
        let mut q = Sdma::new(gen);
        q.copy(DST, SRC, 100);
        {
            use $v::SDMA_PKT_COPY_LINEAR as P;
            let expect = [
                P::HEADER::OP($v::SDMA_OP_COPY) | P::HEADER::SUB_OP($v::SDMA_SUBOP_COPY_LINEAR) | $copy_extra,
                P::COUNT::COUNT(99),
                0,
                P::SRC_ADDR_LO::SRC_ADDR_31_0(lo(SRC)),
                P::SRC_ADDR_HI::SRC_ADDR_63_32(hi(SRC)),
                P::DST_ADDR_LO::DST_ADDR_31_0(lo(DST)),
                P::DST_ADDR_HI::DST_ADDR_63_32(hi(DST)),
            ];
            assert_eq!(q.words(), expect, "COPY_LINEAR v{}", gen.major);
        }
        let mut q = Sdma::new(gen);
        let at = q.fence(DST, 0x1234_5678);
        {
            use $v::SDMA_PKT_FENCE as P;
            let expect = [
                P::HEADER::OP($v::SDMA_OP_FENCE) | $fence_mtype,
                P::ADDR_LO::ADDR_31_0(lo(DST)),
                P::ADDR_HI::ADDR_63_32(hi(DST)),
                P::DATA::DATA(0x1234_5678),
            ];
            assert_eq!(q.words(), expect, "FENCE v{}", gen.major);
            assert_eq!(at, 3);
        }
        let mut q = Sdma::new(gen);
        q.trap(0x42);
        {
            use $v::SDMA_PKT_TRAP as P;
            assert_eq!(q.words(), [P::HEADER::OP($v::SDMA_OP_TRAP), P::INT_CONTEXT::INT_CONTEXT(0x42)]);
        }
        let mut q = Sdma::new(gen);
        let at = q.poll_ge(DST, 9, 0xffff_ffff);
        {
            use $v::SDMA_PKT_POLL_REGMEM as P;
            let expect = [
                P::HEADER::OP($v::SDMA_OP_POLL_REGMEM) | P::HEADER::FUNC(5) | P::HEADER::MEM_POLL(1),
                P::ADDR_LO::ADDR_31_0(lo(DST)),
                P::ADDR_HI::ADDR_63_32(hi(DST)),
                P::VALUE::VALUE(9),
                P::MASK::MASK(0xffff_ffff),
                P::DW5::INTERVAL(4) | P::DW5::RETRY_COUNT(0xfff),
            ];
            assert_eq!(q.words(), expect, "POLL_REGMEM v{}", gen.major);
            // sdma_v*_ring_emit_pipeline_sync uses the same packet (with FUNC equal).
            assert_eq!(q.words()[0], 0xd000_0008);
            assert_eq!(q.words()[5], 0x0fff_0004);
            assert_eq!(at, 3);
        }
        let mut q = Sdma::new(gen);
        q.timestamp(DST & !7);
        {
            use $v::SDMA_PKT_TIMESTAMP_GET_GLOBAL as P;
            let expect = [
                P::HEADER::OP($v::SDMA_OP_TIMESTAMP) | P::HEADER::SUB_OP($v::SDMA_SUBOP_TIMESTAMP_GET_GLOBAL),
                P::WRITE_ADDR_LO::WRITE_ADDR_31_3(lo(DST & !7) >> 3),
                P::WRITE_ADDR_HI::WRITE_ADDR_63_32(hi(DST)),
            ];
            assert_eq!(q.words(), expect, "TIMESTAMP v{}", gen.major);
            assert_eq!(q.words()[0], 0x20d);
        }
        let mut q = Sdma::new(gen);
        q.write(DST, &[7, 8]);
        {
            use $v::SDMA_PKT_WRITE_UNTILED as P;
            let expect = [
                P::HEADER::OP($v::SDMA_OP_WRITE) | P::HEADER::SUB_OP($v::SDMA_SUBOP_WRITE_LINEAR),
                P::DST_ADDR_LO::DST_ADDR_31_0(lo(DST)),
                P::DST_ADDR_HI::DST_ADDR_63_32(hi(DST)),
                P::DW_3::COUNT(1),
                7,
                8,
            ];
            assert_eq!(q.words(), expect, "WRITE v{}", gen.major);
        }
        let mut q = Sdma::new(gen);
        q.indirect(SRC, 40);
        {
            use $v::SDMA_PKT_INDIRECT as P;
            let expect = [
                P::HEADER::OP($v::SDMA_OP_INDIRECT),
                P::BASE_LO::IB_BASE_31_0(lo(SRC)),
                P::BASE_HI::IB_BASE_63_32(hi(SRC)),
                P::IB_SIZE::IB_SIZE(40),
                0,
                0,
            ];
            assert_eq!(q.words(), expect, "INDIRECT v{}", gen.major);
        }
    }};
}

#[test]
fn packets_match_each_versions_header() {
    golden!(v4, &SDMA4, 0, 0);
    golden!(v5, &SDMA5, v5::SDMA_PKT_FENCE::HEADER::MTYPE(3), 0);
    golden!(v6, &SDMA6, v6::SDMA_PKT_FENCE::HEADER::MTYPE(3), 0);
    golden!(v6, &SDMA7, v6::SDMA_PKT_FENCE::HEADER::MTYPE(3), v6::SDMA_PKT_COPY_LINEAR::HEADER::CPV(1));
}

#[test]
fn copies_split_at_the_count_width() {
    // SDMA 4/5 count 22 bits (4 MiB per packet), 6/7 count 30 bits (1 GiB per packet).
    assert_eq!((SDMA4.max_copy(), SDMA5.max_copy()), (4 << 20, 4 << 20));
    assert_eq!((SDMA6.max_copy(), SDMA7.max_copy()), (1 << 30, 1 << 30));
    let mut q = Sdma::new(&SDMA4);
    let bytes = (4u64 << 20) * 2 + 3;
    q.copy(DST, SRC, bytes);
    assert_eq!(q.packets(), [7, 7, 7]);
    let w = q.words();
    let counts: Vec<u32> = w.chunks(7).map(|p| p[1]).collect();
    assert_eq!(counts, [(4 << 20) - 1, (4 << 20) - 1, 2]);
    // Each piece advances source and destination.
    let src2 = w[14 + 3] as u64 | (w[14 + 4] as u64) << 32;
    let dst2 = w[14 + 5] as u64 | (w[14 + 6] as u64) << 32;
    assert_eq!((src2, dst2), (SRC + (8 << 20), DST + (8 << 20)));
    let mut q = Sdma::new(&SDMA6);
    q.copy(DST, SRC, (1 << 30) + 1);
    assert_eq!(q.packets().len(), 2);
    let mut q = Sdma::new(&SDMA6);
    q.copy(DST, SRC, 0);
    assert!(q.words().is_empty(), "a zero-byte copy emits nothing");
}

#[test]
fn generations_by_arch() {
    assert_eq!(SdmaGeneration::for_arch("gfx942"), Some(&SDMA4));
    assert_eq!(SdmaGeneration::for_arch("gfx950"), Some(&SDMA4));
    assert_eq!(SdmaGeneration::for_arch("gfx1100"), Some(&SDMA6));
    assert_eq!(SdmaGeneration::for_arch("gfx1201"), Some(&SDMA7));
    assert_eq!(SdmaGeneration::for_arch("gfx803"), None);
}
