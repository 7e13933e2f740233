//! PM4 for a queue that several XCCs execute (MI300-class partitions): PRED_EXEC around the
//! per-XCC packets, the dispatch split across XCCs, the barrier that joins them after a
//! dispatch; and nothing of it on a single-XCC stream. Expected words come from the autogen
//! encoders and the register tables, not from the builder.

use baregpu_autogen::amd::regs::gc_9_4_3 as gc9;
use baregpu_autogen::amd::{pm4_nv as nv, pm4_soc15 as soc15};
use baregpu_drivers::amd::decode::{parse_pm4, pm4_packet_len, Pm4Packet};
use baregpu_drivers::amd::pm4::{Compare, Dispatch, Family, Pm4, ReleaseData, GFX11, GFX9, XCC_BARRIER_STRIDE};

const BARRIER: u64 = 0x7f00_0010_0000;

fn dispatch(scratch: Option<u64>) -> Dispatch {
    Dispatch {
        entry: 0x7f00_0000_1200,
        rsrc1: 0x11,
        rsrc2: 0x22,
        rsrc3: 0x33,
        tmpring_size: 0x44,
        scratch_base: scratch,
        scratch_per_xcc: 0x10_0000,
        user_data: vec![0xaaaa, 0xbbbb],
        grid: [4, 2, 1],
        block: [64, 1, 1],
        wave32: false,
    }
}

/// The opcodes of a stream, packet by packet.
fn opcodes(words: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        out.push(nv::CP_PACKET3_GET_OPCODE(words[i]));
        i += pm4_packet_len(words[i]).unwrap();
    }
    out
}

#[test]
fn pred_exec_counts_the_dwords_it_covers() {
    let mut q = Pm4::for_xccs(&GFX9, 8, BARRIER);
    let at = q.pred_exec(0b100, |q| q.release_mem(0x1000, ReleaseData::U32(5), false, None));
    let w = q.words();
    // One payload dword: the XCC mask in bits 24..31, the count of dwords after it below.
    assert_eq!(&w[..2], [soc15::PACKET3(soc15::PACKET3_PRED_EXEC, 0), 0b100 << 24 | 8]);
    assert_eq!(w[2], soc15::PACKET3(soc15::PACKET3_RELEASE_MEM, 6));
    assert_eq!((w.len(), at), (10, 2 + 5), "the patch index points into the body");
    assert_eq!(parse_pm4(&w[..2], Family::Gfx9), Ok(Pm4Packet::PredExec { xcc_mask: 0b100, count: 8 }));
}

#[test]
fn once_is_xcc0_on_several_xccs_and_plain_on_one() {
    let mut multi = Pm4::for_xccs(&GFX9, 8, BARRIER);
    multi.once(|q| q.release_mem(0x1000, ReleaseData::U32(5), true, None));
    let mut single = Pm4::new(&GFX9);
    single.once(|q| q.release_mem(0x1000, ReleaseData::U32(5), true, None));
    assert_eq!(&multi.words()[..2], [soc15::PACKET3(soc15::PACKET3_PRED_EXEC, 0), 1 << 24 | 8]);
    assert_eq!(&multi.words()[2..], single.words());
}

#[test]
fn what_reports_completion_waits_for_every_xcc_first() {
    let mut q = Pm4::for_xccs(&GFX9, 8, BARRIER);
    q.once_after_all(|q| q.release_mem(0x1000, ReleaseData::U32(5), true, None));
    let mut parts = Pm4::for_xccs(&GFX9, 8, BARRIER);
    parts.xcc_barrier();
    parts.once(|q| q.release_mem(0x1000, ReleaseData::U32(5), true, None));
    assert_eq!(q.words(), parts.words());
    assert_eq!(opcodes(q.words())[..2], [nv::PACKET3_ATOMIC_MEM, nv::PACKET3_WAIT_REG_MEM]);
}

#[test]
fn atomic_add_and_the_barrier() {
    let mut q = Pm4::for_xccs(&GFX9, 8, BARRIER);
    q.xcc_barrier();
    let (lo, hi) = (BARRIER as u32, (BARRIER >> 32) as u32);
    let second = BARRIER + XCC_BARRIER_STRIDE;
    // ATOMIC_MEM: TC_OP_ATOMIC_ADD_RTN_32 (0xf), address, source 1, compare 0, loop interval.
    let atomic = |lo: u32| vec![soc15::PACKET3(soc15::PACKET3_ATOMIC_MEM, 7), 0xf, lo, hi, 1, 0, 0, 0, 0x10];
    // WAIT_REG_MEM memory ==: (counter & 7) == 0.
    let wait =
        |lo: u32| vec![soc15::PACKET3(soc15::PACKET3_WAIT_REG_MEM, 5), Compare::Equal as u32 | 1 << 4, lo, hi, 0, 7, 4];
    let expect = [atomic(lo), wait(lo), atomic(second as u32), wait(second as u32)].concat();
    assert_eq!(q.words(), expect.as_slice());
    let mut single = Pm4::new(&GFX9);
    single.xcc_barrier();
    assert!(single.is_empty());
}

#[test]
fn a_multi_xcc_dispatch_sets_each_xccs_scratch_and_share_then_joins_them() {
    let base = 0x7e00_0000_0000u64;
    let mut q = Pm4::for_xccs(&GFX9, 8, BARRIER);
    q.dispatch(&dispatch(Some(base)));
    let w = q.words();
    let sh = |n: u32| soc15::PACKET3(soc15::PACKET3_SET_SH_REG, n);
    let pred = |xcc: u32, n: u32| [soc15::PACKET3(soc15::PACKET3_PRED_EXEC, 0), 1 << (24 + xcc) | n];
    let scratch_lo = GFX9.regs.dispatch_scratch_base_lo - 0x2c00;
    // 0x2000 is the gfx9 GC segment base: COMPUTE_TG_CHUNK_SIZE is dword 0xe27 of gc 9.4.3,
    // COMPUTE_CURRENT_LOGIC_XCC_ID dword 0xe25.
    let chunk = 0x2000 + gc9::regCOMPUTE_TG_CHUNK_SIZE.offset - 0x2c00;
    let logic_id = 0x2000 + 0xe25 - 0x2c00;
    let mut expect = Vec::new();
    for xcc in 0..8u32 {
        let b = (base + xcc as u64 * 0x10_0000) >> 8;
        expect.extend(pred(xcc, 4));
        expect.extend([sh(2), scratch_lo, b as u32, (b >> 32) as u32]);
    }
    expect.extend([sh(1), chunk, 1]);
    for xcc in 0..8u32 {
        expect.extend(pred(xcc, 3));
        expect.extend([sh(1), logic_id, xcc]);
    }
    let at = w.windows(expect.len()).position(|x| x == expect.as_slice()).expect("per-XCC scratch and split");
    // Before it, nothing per XCC; after the DISPATCH_DIRECT and the partial flush: a write-back,
    // the full cache action, and the barrier.
    assert!(!opcodes(&w[..at]).contains(&nv::PACKET3_PRED_EXEC));
    let ops = opcodes(w);
    let dd = ops.iter().position(|&o| o == nv::PACKET3_DISPATCH_DIRECT).unwrap();
    assert_eq!(
        &ops[dd..],
        [
            nv::PACKET3_DISPATCH_DIRECT,
            nv::PACKET3_EVENT_WRITE,
            nv::PACKET3_RELEASE_MEM,
            nv::PACKET3_ACQUIRE_MEM,
            nv::PACKET3_ATOMIC_MEM,
            nv::PACKET3_WAIT_REG_MEM,
            nv::PACKET3_ATOMIC_MEM,
            nv::PACKET3_WAIT_REG_MEM,
        ]
    );
}

#[test]
fn single_xcc_streams_have_no_pred_exec_nor_barrier() {
    for (mut q, what) in [(Pm4::new(&GFX11), "gfx1100"), (Pm4::new(&GFX9), "gfx9 with one XCC")] {
        q.dispatch(&dispatch(Some(0x7e00_0000_0000)));
        q.once(|q| q.release_mem(0x1000, ReleaseData::U32(1), true, None));
        q.once(|q| q.release_mem(0x1008, ReleaseData::Timestamp, false, None));
        q.xcc_barrier();
        let ops = opcodes(q.words());
        assert!(!ops.contains(&nv::PACKET3_PRED_EXEC) && !ops.contains(&nv::PACKET3_ATOMIC_MEM), "{what}: {ops:x?}");
        let scratch_writes = q
            .words()
            .windows(2)
            .filter(|p| {
                p[0] == nv::PACKET3(nv::PACKET3_SET_SH_REG, 2) && p[1] == GFX11.regs.dispatch_scratch_base_lo - 0x2c00
            })
            .count();
        assert_eq!(scratch_writes, 1, "{what}");
    }
}

#[test]
#[should_panic(expected = "no multi-XCC partitions")]
fn rdna_has_no_multi_xcc_streams() {
    Pm4::for_xccs(&GFX11, 2, BARRIER);
}
