//! The emulated command processors driven by the real driver code: PM4 and SDMA written by
//! `drivers::amd::{pm4, sdma}` into queues created by `drivers::amd::kfd`, and the runtime's
//! `AmdDevice` end to end. Every wait has a timeout so that a bug fails instead of hanging.

use baregpu_autogen::amd::pm4_nv as nv;
use baregpu_autogen::amd::regs::nbio_4_3_0;
use baregpu_drivers::amd::kfd::{Kfd, KfdDevice, MemKind, QueueKind};
use baregpu_drivers::amd::pm4::{Compare, Dispatch, Pm4, Pm4Generation, ReleaseData};
use baregpu_drivers::amd::sdma::{Sdma, SdmaGeneration};
use baregpu_drivers::amd::topology;
use baregpu_drivers::os::Os;
use baregpu_emu::amd::cp::{self, decode};
use baregpu_emu::amd::dispatch::DispatchFault;
use baregpu_emu::amd::{machine, CommandProcessors, EmuKfd};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "cp/harness.rs"]
mod harness;
use harness::*;

#[test]
fn release_mem_writes_what_the_hardware_writes_and_interrupts_wake_wait_events() {
    for arch in ["gfx1100", "gfx942"] {
        let m = open(arch);
        let ev = Events::new(&m.dev);
        let sig = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
        // The 32-bit write leaves the high half alone.
        // SAFETY: the CPU mapping of `sig`.
        unsafe { std::ptr::write_volatile(sig.va as *mut u64, 0xffff_ffff_0000_0000) };
        let mut ring = Ring::new(&m.dev, QueueKind::Compute, 1 << 12);
        let kfd = m.dev.kfd().clone();
        assert!(!kfd.wait_events(&ev.all(), 0).unwrap().fired);

        let mut q = Pm4::new(m.pm4);
        q.nop(2);
        q.release_mem(sig.va, ReleaseData::U32(5), true, None);
        q.release_mem(sig.va + 8, ReleaseData::U64(0x1234_5678_9abc_def0), false, None);
        q.release_mem(ev.mailbox(), ReleaseData::U32(ev.sig.id), false, Some(ev.sig.id));
        let mut words = q.into_words();
        words.push(0xffff_1000); // the one-dword NOP filler
        let t = Instant::now();
        ring.submit(&words);
        let out = kfd.wait_events(&ev.all(), 5000).unwrap();
        assert!(out.fired && out.memory_fault.is_none() && out.hw_exception.is_none(), "{arch}: {out:?}");
        assert!(t.elapsed() < Duration::from_secs(4), "{arch}: the interrupt did not wake the wait");
        assert_eq!(rd64(sig.va), 0xffff_ffff_0000_0005, "{arch}");
        assert_eq!(rd64(sig.va + 8), 0x1234_5678_9abc_def0, "{arch}");
        assert!(ring.idle(TIMEOUT), "{arch}: read pointer {} put {}", ring.read_dw(), ring.put_dw());
        m.dev.destroy_queue(ring.q).unwrap();
    }
}

#[test]
fn wait_reg_mem_blocks_until_the_host_writes_the_value() {
    let m = open("gfx1100");
    let mem = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
    let (gate, gate2, out) = (mem.va, mem.va + 4, mem.va + 16);
    let mut ring = Ring::new(&m.dev, QueueKind::Compute, 1 << 12);
    let mut q = Pm4::new(m.pm4);
    let wait_at = q.len() as u64;
    q.wait_mem(gate, 3, 0xffff_ffff, Compare::GreaterEqual);
    q.release_mem(out, ReleaseData::U32(1), false, None);
    q.wait_mem(gate2, 0x50, 0xf0, Compare::Equal);
    q.release_mem(out, ReleaseData::U32(2), false, None);
    ring.submit(q.words());

    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(rd32(out), 0, "ran past an unmet wait");
    assert_eq!(ring.read_dw(), wait_at, "the read pointer stays at the blocked packet");
    wr32(gate, 2);
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(rd32(out), 0, "2 >= 3");
    wr32(gate, 3);
    assert!(wait_until(TIMEOUT, || rd32(out) == 1), "the wait never saw the value");
    // Masked compare: 0x4f & 0xf0 != 0x50, 0x5a & 0xf0 == 0x50.
    wr32(gate2, 0x4f);
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(rd32(out), 1);
    wr32(gate2, 0x5a);
    assert!(wait_until(TIMEOUT, || rd32(out) == 2));
    assert!(ring.idle(TIMEOUT));
}

#[test]
fn sdma_waits_on_a_value_the_compute_queue_writes() {
    for arch in ["gfx1201", "gfx950"] {
        let m = open(arch);
        let mem = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
        let (gate, x, y) = (mem.va, mem.va + 8, mem.va + 16);
        let mut copy = Ring::new(&m.dev, QueueKind::Sdma, 1 << 12);
        let mut compute = Ring::new(&m.dev, QueueKind::Compute, 1 << 12);
        let mut s = Sdma::new(m.sdma);
        s.poll_ge(x, 1, 0xffff_ffff);
        s.fence(y, 7);
        copy.submit(s.words());
        let mut q = Pm4::new(m.pm4);
        q.wait_mem(gate, 1, 0xffff_ffff, Compare::GreaterEqual);
        q.release_mem(x, ReleaseData::U32(1), true, None);
        compute.submit(q.words());
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!((rd32(x), rd32(y)), (0, 0), "{arch}");
        wr32(gate, 1);
        assert!(wait_until(TIMEOUT, || rd32(y) == 7), "{arch}: SDMA never saw the compute queue's write");
        assert!(copy.idle(TIMEOUT) && compute.idle(TIMEOUT));
        // SDMA reports its read pointer in bytes.
        assert_eq!(rd64(copy.q.read_ptr), s.words().len() as u64 * 4);
    }
}

#[test]
fn timestamps_are_monotonic_at_100_mhz() {
    let m = open("gfx1100");
    let mem = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
    let mut compute = Ring::new(&m.dev, QueueKind::Compute, 1 << 12);
    let mut copy = Ring::new(&m.dev, QueueKind::Sdma, 1 << 12);
    let before = cp::gpu_clock();
    let mut stamps = Vec::new();
    for i in 0..4u64 {
        let at = mem.va + i * 8;
        if i % 2 == 0 {
            let mut q = Pm4::new(m.pm4);
            q.release_mem(at, ReleaseData::Timestamp, false, None);
            compute.submit(q.words());
            assert!(compute.idle(TIMEOUT));
        } else {
            let mut s = Sdma::new(m.sdma);
            s.timestamp(at);
            copy.submit(s.words());
            assert!(copy.idle(TIMEOUT));
        }
        stamps.push(rd64(at));
        std::thread::sleep(Duration::from_millis(10));
    }
    let after = cp::gpu_clock();
    assert!(before <= stamps[0], "{before} {stamps:?}");
    for w in stamps.windows(2) {
        // 10 ms at 100 MHz is 1e6 ticks.
        assert!(w[1] >= w[0] + 900_000, "{stamps:?}");
        assert!(w[1] - w[0] < 100_000_000, "{stamps:?}: not 100 MHz");
    }
    assert!(stamps[3] <= after);
}

#[test]
fn sdma_copies_above_the_packet_limit_and_of_unaligned_sizes() {
    // SDMA 4 moves at most 4 MiB per COPY_LINEAR.
    let m = open("gfx942");
    assert_eq!(m.sdma.max_copy(), 4 << 20);
    let size = (4 << 20) + 3 * 4096;
    let src = m.dev.alloc(size, MemKind::Host).unwrap();
    let dst = m.dev.alloc(size, MemKind::Vram { cpu_visible: true }).unwrap();
    let n = (4 << 20) + 4099;
    // SAFETY: CPU mappings of the two buffers; the engine is idle.
    let (s, d) = unsafe {
        (
            std::slice::from_raw_parts_mut(src.va as *mut u8, size as usize),
            std::slice::from_raw_parts_mut(dst.va as *mut u8, size as usize),
        )
    };
    for (i, b) in s.iter_mut().enumerate() {
        *b = (i * 7 + i / 251) as u8;
    }
    d.fill(0xee);
    let mut s_q = Sdma::new(m.sdma);
    s_q.copy(dst.va + 5, src.va + 3, n);
    assert_eq!(s_q.packets().len(), 2);
    // Small odd copies too.
    s_q.copy(dst.va + size - 100, src.va + 1, 1);
    s_q.copy(dst.va + size - 50, src.va + 10, 7);
    s_q.write(dst.va + size - 32, &[0xaabb_ccdd, 0x1122_3344]);
    let mut ring = Ring::new(&m.dev, QueueKind::Sdma, 1 << 12);
    ring.submit(s_q.words());
    assert!(ring.idle(TIMEOUT));
    // SAFETY: as above; the engine finished.
    let (s, d) = unsafe {
        (
            std::slice::from_raw_parts(src.va as *const u8, size as usize),
            std::slice::from_raw_parts(dst.va as *const u8, size as usize),
        )
    };
    assert_eq!(&d[..5], &[0xee; 5]);
    assert!(d[5..5 + n as usize] == s[3..3 + n as usize], "the copy differs");
    assert_eq!(d[5 + n as usize], 0xee, "copied one byte too many");
    let end = size as usize;
    assert_eq!((d[end - 101], d[end - 100], d[end - 99]), (0xee, s[1], 0xee));
    assert_eq!(&d[end - 50..end - 43], &s[10..17]);
    assert_eq!(d[end - 43], 0xee);
    assert_eq!(rd32(dst.va + size - 32), 0xaabb_ccdd);
    assert_eq!(rd32(dst.va + size - 28), 0x1122_3344);
}

#[test]
fn rings_wrap_and_the_sdma_tail_is_skipped() {
    let m = open("gfx1100");
    let mem = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
    let mut compute = Ring::new(&m.dev, QueueKind::Compute, 1 << 10);
    let mut copy = Ring::new(&m.dev, QueueKind::Sdma, 1 << 10);
    for i in 1..=200u32 {
        let mut q = Pm4::new(m.pm4);
        q.release_mem(mem.va, ReleaseData::U32(i), false, None);
        q.nop(i as usize % 5);
        compute.submit(q.words());
        let mut s = Sdma::new(m.sdma);
        s.fence(mem.va + 4, i);
        s.write(mem.va + 8, &vec![i; 1 + i as usize % 9]);
        copy.submit(s.words());
    }
    assert!(compute.idle(TIMEOUT) && copy.idle(TIMEOUT));
    assert_eq!((rd32(mem.va), rd32(mem.va + 4), rd32(mem.va + 8)), (200, 200, 200));
    assert!(compute.put_dw() > 3 * compute.ring_dw() && copy.put_dw() > 3 * copy.ring_dw(), "did not wrap");
}

#[test]
fn indirect_buffers_run_from_memory() {
    let m = open("gfx1100");
    let mem = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
    let ibs = m.dev.alloc(0x4000, MemKind::Uncached).unwrap();
    let put = |va: u64, words: &[u32]| {
        for (i, &w) in words.iter().enumerate() {
            wr32(va + i as u64 * 4, w);
        }
    };
    // PM4: ring → IB1 → IB2.
    let mut ib2 = Pm4::new(m.pm4);
    ib2.release_mem(mem.va + 4, ReleaseData::U32(22), false, None);
    put(ibs.va + 0x1000, ib2.words());
    let mut ib1 = Pm4::new(m.pm4);
    ib1.release_mem(mem.va, ReleaseData::U32(11), false, None);
    ib1.indirect_buffer(ibs.va + 0x1000, ib2.len() as u32);
    put(ibs.va, ib1.words());
    let mut ring = Ring::new(&m.dev, QueueKind::Compute, 1 << 12);
    let mut q = Pm4::new(m.pm4);
    q.indirect_buffer(ibs.va, ib1.len() as u32);
    q.release_mem(mem.va + 8, ReleaseData::U32(33), false, None);
    ring.submit(q.words());
    assert!(wait_until(TIMEOUT, || rd32(mem.va + 8) == 33));
    assert_eq!((rd32(mem.va), rd32(mem.va + 4)), (11, 22));

    // SDMA: INDIRECT.
    let mut sib = Sdma::new(m.sdma);
    sib.fence(mem.va + 12, 44);
    put(ibs.va + 0x2000, sib.words());
    let mut s = Sdma::new(m.sdma);
    s.indirect(ibs.va + 0x2000, sib.words().len() as u32);
    s.fence(mem.va + 16, 55);
    let mut copy = Ring::new(&m.dev, QueueKind::Sdma, 1 << 12);
    copy.submit(s.words());
    assert!(wait_until(TIMEOUT, || rd32(mem.va + 16) == 55));
    assert_eq!(rd32(mem.va + 12), 44);
}

#[test]
fn dispatch_reaches_the_engine_with_the_registers() {
    for arch in ["gfx1100", "gfx1201", "gfx942"] {
        let m = open(arch);
        let mem = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
        let marker = mem.va + 0x40;
        let d = Dispatch {
            entry: 0x7f00_1234_5600,
            rsrc1: 0x00af_0041,
            rsrc2: 0x8c | 5 << 15,
            rsrc3: 0x1234,
            tmpring_size: 0x0040_0200,
            scratch_base: Some(0x5_0000_0000),
            scratch_per_xcc: 0,
            user_data: vec![marker as u32, (marker >> 32) as u32, 7, 8, 9],
            grid: [3, 2, 1],
            block: [64, 2, 1],
            wave32: arch != "gfx942",
        };
        let mut q = Pm4::new(m.pm4);
        q.dispatch(&d);
        q.release_mem(mem.va, ReleaseData::U32(1), true, None);
        let mut ring = Ring::new(&m.dev, QueueKind::Compute, 1 << 12);
        ring.submit(q.words());
        assert!(wait_until(TIMEOUT, || rd32(mem.va) == 1), "{arch}");
        assert_eq!(rd32(marker), 0xc0de_0003, "{arch}: the engine's write");
        // Every XCC's CP takes the dispatch; without a split (this stream sets none) each runs
        // the whole grid, as KFD leaves a PM4 queue's chunk size at 0.
        let xccs = m.dev.gpu.num_xcc as usize;
        assert!(ring.idle(TIMEOUT), "{arch}");
        let seen = m.engine.seen.lock().unwrap().clone();
        assert_eq!(seen.len(), xccs, "{arch}");
        assert!(seen.iter().all(|s| s.groups() == 6), "{arch}");
        let s = &seen[0];
        assert_eq!(s.arch, arch);
        assert_eq!(s.pgm, d.entry);
        assert_eq!((s.rsrc1, s.rsrc2, s.rsrc3), (d.rsrc1, d.rsrc2, d.rsrc3));
        assert_eq!(&s.user_data[..5], &d.user_data[..]);
        assert_eq!(&s.user_data[5..], &[0; 11]);
        assert_eq!((s.grid, s.block, s.start), (d.grid, d.block, [0; 3]));
        assert_eq!(s.wave32, d.wave32, "{arch}");
        assert_eq!((s.tmpring_size, s.scratch_base, s.lds_bytes), (d.tmpring_size, 0x5_0000_0000, 5 * 512));
    }
}

#[test]
fn bad_packets_raise_a_hw_exception_and_stop_only_their_queue() {
    let m = open("gfx1100");
    let mut ev = Events::new(&m.dev);
    let mem = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
    let ibs = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
    // An IB that calls itself: nesting past the limit.
    let mut selfcall = Pm4::new(m.pm4);
    selfcall.indirect_buffer(ibs.va, 4);
    for (i, &w) in selfcall.words().iter().enumerate() {
        wr32(ibs.va + i as u64 * 4, w);
    }
    let bad_pm4: Vec<(&str, Vec<u32>)> = vec![
        ("unknown opcode", vec![nv::PACKET3(0xEE, 0), 0]),
        ("type-0 header", vec![0x0000_1234]),
        ("runs past the written data", vec![nv::PACKET3(nv::PACKET3_RELEASE_MEM, 6), 0, 0]),
        ("wrong length", vec![nv::PACKET3(nv::PACKET3_RELEASE_MEM, 2), 0, 0, 0]),
        ("nested too deep", selfcall.words().to_vec()),
    ];
    for (i, (what, bad)) in bad_pm4.into_iter().enumerate() {
        let mut ring = Ring::new(&m.dev, QueueKind::Compute, 1 << 12);
        let mut q = Pm4::new(m.pm4);
        q.release_mem(mem.va, ReleaseData::U32(100 + i as u32), false, None);
        let good = q.len() as u64;
        let mut words = q.into_words();
        words.extend(bad);
        ring.submit(&words);
        ev.expect_hw_exception(&m.dev, what);
        assert_eq!(rd32(mem.va), 100 + i as u32, "{what}: what came before ran");
        assert_eq!(ring.read_dw(), good, "{what}: the read pointer stops at the bad packet");
        // The queue is stopped: later work does not run.
        let mut q = Pm4::new(m.pm4);
        q.release_mem(mem.va + 4, ReleaseData::U32(0xdead), false, None);
        ring.submit(q.words());
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(rd32(mem.va + 4), 0, "{what}: the stopped queue ran more");
        m.dev.destroy_queue(ring.q).unwrap();
    }
    // SDMA: an unknown op and a truncated packet.
    for (what, bad) in [("unknown op", vec![0x0000_00ffu32]), ("truncated", vec![1, 15, 0])] {
        let mut ring = Ring::new(&m.dev, QueueKind::Sdma, 1 << 12);
        ring.submit(&bad);
        ev.expect_hw_exception(&m.dev, what);
        m.dev.destroy_queue(ring.q).unwrap();
    }
    // A new queue works.
    let mut ring = Ring::new(&m.dev, QueueKind::Compute, 1 << 12);
    let mut q = Pm4::new(m.pm4);
    q.release_mem(mem.va + 8, ReleaseData::U32(9), false, None);
    ring.submit(q.words());
    assert!(wait_until(TIMEOUT, || rd32(mem.va + 8) == 9));
}

#[test]
fn memory_faults_report_the_address() {
    let m = open("gfx1201");
    let mut ev = Events::new(&m.dev);
    let mem = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
    // PM4 RELEASE_MEM to nowhere.
    let mut ring = Ring::new(&m.dev, QueueKind::Compute, 1 << 12);
    let mut q = Pm4::new(m.pm4);
    q.release_mem(0xdead_0000_1234, ReleaseData::U32(1), false, None);
    ring.submit(q.words());
    ev.expect_fault(&m.dev, 0xdead_0000_1234, "RELEASE_MEM");
    m.dev.destroy_queue(ring.q).unwrap();
    // A wait on an address past the end of an allocation.
    let mut ring = Ring::new(&m.dev, QueueKind::Compute, 1 << 12);
    let mut q = Pm4::new(m.pm4);
    q.wait_mem(mem.va + 0x1000, 1, 1, Compare::Equal);
    ring.submit(q.words());
    ev.expect_fault(&m.dev, mem.va + 0x1000, "WAIT_REG_MEM");
    m.dev.destroy_queue(ring.q).unwrap();
    // An SDMA copy that runs out of its source: the fault is the first unmapped byte.
    let mut ring = Ring::new(&m.dev, QueueKind::Sdma, 1 << 12);
    let mut s = Sdma::new(m.sdma);
    s.copy(mem.va, mem.va + 0x800, 0x1000);
    ring.submit(s.words());
    ev.expect_fault(&m.dev, mem.va + 0x1000, "COPY_LINEAR");
    m.dev.destroy_queue(ring.q).unwrap();
    // The engine faults.
    for (fault, is_mem) in [
        (DispatchFault::Memory { va: 0xbad_5000, write: false, pc: 0x100 }, true),
        (DispatchFault::Illegal { pc: 0x104, what: "v_bogus".into() }, false),
    ] {
        *m.engine.fail.lock().unwrap() = Some(fault);
        let mut ring = Ring::new(&m.dev, QueueKind::Compute, 1 << 12);
        let mut q = Pm4::new(m.pm4);
        q.dispatch(&Dispatch {
            entry: 0x1000,
            rsrc1: 0,
            rsrc2: 0,
            rsrc3: 0,
            tmpring_size: 0,
            scratch_base: None,
            scratch_per_xcc: 0,
            user_data: vec![],
            grid: [1, 1, 1],
            block: [1, 1, 1],
            wave32: true,
        });
        ring.submit(q.words());
        if is_mem {
            ev.expect_fault(&m.dev, 0xbad_5000, "dispatch");
        } else {
            ev.expect_hw_exception(&m.dev, "illegal instruction");
        }
        m.dev.destroy_queue(ring.q).unwrap();
    }
}

#[test]
fn destroying_a_queue_blocked_in_a_wait_does_not_hang() {
    let m = open("gfx942");
    let mem = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
    let mut q = Pm4::new(m.pm4);
    q.wait_mem(mem.va, 1, 0xffff_ffff, Compare::Equal);
    let mut regwait = Pm4::new(m.pm4);
    // A register nobody writes: hangs the queue.
    regwait.write_then_wait_reg(0x3000_0000, 0x3000_0004, 1, 1, Compare::Equal);
    let mut s = Sdma::new(m.sdma);
    s.poll_ge(mem.va, 1, 0xffff_ffff);
    for (kind, words) in
        [(QueueKind::Compute, q.words()), (QueueKind::Compute, regwait.words()), (QueueKind::Sdma, s.words())]
    {
        let mut ring = Ring::new(&m.dev, kind, 1 << 12);
        ring.submit(words);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(ring.read_dw(), 0, "{kind:?}: the wait should block");
        let t = Instant::now();
        m.dev.destroy_queue(ring.q).unwrap();
        assert!(t.elapsed() < Duration::from_secs(2), "{kind:?}: destroy took {:?}", t.elapsed());
    }
    assert!(m.emu.queues().is_empty());
}

#[test]
fn the_hdp_flush_handshake_completes() {
    let m = open("gfx1100");
    let mem = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
    // The emulated IP discovery publishes base 0: the absolute address is the offset.
    let req = nbio_4_3_0::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ.offset;
    let done = nbio_4_3_0::regBIF_BX_PF0_GPU_HDP_FLUSH_DONE.offset;
    let mut q = Pm4::new(m.pm4);
    q.write_then_wait_reg(req, done, 0xffff_ffff, 0xffff_ffff, Compare::GreaterEqual);
    q.acquire_mem(true);
    q.event_write(m.pm4.cs_partial_flush, 4);
    q.release_mem(mem.va, ReleaseData::U32(1), false, None);
    let mut ring = Ring::new(&m.dev, QueueKind::Compute, 1 << 12);
    ring.submit(q.words());
    assert!(wait_until(TIMEOUT, || rd32(mem.va) == 1));
}

#[test]
fn the_runtime_copies_and_synchronizes_through_the_emulated_engines() {
    use baregpu_runtime::amd::AmdDevice;
    for arch in ["gfx1100", "gfx942"] {
        let engine = Arc::new(TestEngine::default());
        let emu = machine(&[arch], engine).unwrap();
        let mut dev = AmdDevice::open(emu.clone(), 0, &format!("emu:{arch}")).unwrap();
        dev.timeout = Duration::from_secs(10);
        let a = dev.alloc(1 << 16).unwrap();
        let b = dev.alloc(1 << 16).unwrap();
        let data: Vec<u8> = (0..(1 << 16)).map(|i| (i * 13 % 256) as u8).collect();
        dev.write(&a, 0, &data).unwrap();
        dev.copy(&b, 1, &a, 3, 60_001).unwrap();
        dev.copy(&a, 0, &b, 1, 17).unwrap();
        dev.synchronize().unwrap();
        let mut out = vec![0u8; 1 << 16];
        dev.read(&b, 0, &mut out).unwrap();
        assert_eq!(&out[1..60_002], &data[3..60_004], "{arch}");
        dev.read(&a, 0, &mut out).unwrap();
        assert_eq!(&out[..17], &data[3..20], "{arch}");
        dev.recover().unwrap();
        dev.copy(&b, 0, &a, 0, 8).unwrap();
        dev.synchronize().unwrap();
        drop(dev);
        assert!(emu.queues().is_empty(), "{arch}");
    }
}

#[test]
fn the_decoder_names_what_the_cp_rejects() {
    let p = decode::decode_pm4(&[nv::PACKET3(0xEE, 1), 1, 2], baregpu_drivers::amd::pm4::Family::Gfx11);
    assert_eq!((p[0].name.as_str(), p[0].dwords), ("OPCODE_0xEE", 3));
}

/// A doorbell rung through the OS boundary wakes the parked queue thread itself (as a doorbell
/// write wakes the hardware's command processor), not its safety-net timeout.
#[test]
fn a_doorbell_wakes_the_parked_queue_thread() {
    let engine = Arc::new(TestEngine::default());
    let emu = EmuKfd::new(&["gfx1100"]).unwrap();
    let cps = Arc::new(CommandProcessors::new(Arc::downgrade(&emu), engine));
    emu.set_queue_observer(Some(cps.clone()));
    let os: Arc<dyn Os> = emu.clone();
    let gpu = topology::discover(&*os).unwrap().remove(0);
    let dev = KfdDevice::open(Kfd::open(os).unwrap(), gpu).unwrap();
    let pm4 = Pm4Generation::for_arch("gfx1100").unwrap();
    let mut ring = Ring::new(&dev, QueueKind::Compute, 1 << 12);
    let id = ring.q.id;
    let stats = || cps.bell_stats(id).expect("the queue has a thread");
    for _ in 0..3 {
        let parked = stats().parks;
        assert!(wait_until(TIMEOUT, || stats().parks > parked), "the idle queue thread never parked");
        let mut q = Pm4::new(pm4);
        q.nop(2);
        ring.submit(&q.into_words());
        assert!(ring.idle(TIMEOUT), "read pointer {} put {}", ring.read_dw(), ring.put_dw());
    }
    let s = stats();
    assert!(s.doorbell_wakes >= 1, "no wake came from a doorbell: {s:?}");
    dev.destroy_queue(ring.q).unwrap();
}

/// A wait on memory that an engine of the same machine writes ends because of that write, not
/// by its safety-net poll: with the poll set to 30 s, every wait below can only finish through
/// a write's wake-up (and each must park first). Across the two GPUs of one emulated KFD, in
/// both directions: a compute queue's WAIT_REG_MEM woken by the other GPU's SDMA fence, and an
/// SDMA POLL_REGMEM woken by the other GPU's RELEASE_MEM.
#[test]
fn an_engine_write_wakes_a_memory_wait_on_another_gpu() {
    let _ = env_logger::builder().is_test(true).try_init();
    let engine = Arc::new(TestEngine::default());
    let emu = EmuKfd::new(&["gfx1100", "gfx1100"]).unwrap();
    let cps = Arc::new(CommandProcessors::new(Arc::downgrade(&emu), engine));
    emu.set_queue_observer(Some(cps.clone()));
    cps.memory_writes().set_poll(Duration::from_secs(30), Duration::from_secs(30));
    let os: Arc<dyn Os> = emu.clone();
    let gpus = topology::discover(&*os).unwrap();
    let kfd = Kfd::open(os).unwrap();
    let devs: Vec<KfdDevice> = gpus.into_iter().map(|g| KfdDevice::open(kfd.clone(), g).unwrap()).collect();
    let mem = devs[0].alloc(0x1000, MemKind::Uncached).unwrap();
    devs[0].map_to(&mem, &[devs[1].gpu.gpu_id]).unwrap();
    let (gate, out, gate2, out2) = (mem.va, mem.va + 8, mem.va + 16, mem.va + 24);
    let (pm4, sdma) = (Pm4Generation::for_arch("gfx1100").unwrap(), SdmaGeneration::for_arch("gfx1100").unwrap());
    let mut compute =
        [Ring::new(&devs[0], QueueKind::Compute, 1 << 12), Ring::new(&devs[1], QueueKind::Compute, 1 << 12)];
    let mut copy = [Ring::new(&devs[0], QueueKind::Sdma, 1 << 12), Ring::new(&devs[1], QueueKind::Sdma, 1 << 12)];
    let stats = |r: &Ring| cps.wait_stats(r.q.id).expect("the queue has a thread");

    // GPU 1 compute waits; GPU 0 SDMA writes.
    let mut q = Pm4::new(pm4);
    q.wait_mem(gate, 1, 0xffff_ffff, Compare::GreaterEqual);
    q.release_mem(out, ReleaseData::U32(1), false, None);
    compute[1].submit(q.words());
    assert!(wait_until(TIMEOUT, || stats(&compute[1]).parks >= 1), "the wait never parked");
    let mut s = Sdma::new(sdma);
    s.fence(gate, 1);
    copy[0].submit(s.words());
    assert!(wait_until(TIMEOUT, || rd32(out) == 1), "the compute wait never saw the SDMA fence");
    let st = stats(&compute[1]);
    assert!(st.write_wakes >= 1 && st.timeouts == 0, "{st:?}");

    // GPU 1 SDMA polls; GPU 0 compute writes.
    let mut s = Sdma::new(sdma);
    s.poll_ge(gate2, 1, 0xffff_ffff);
    s.fence(out2, 1);
    copy[1].submit(s.words());
    assert!(wait_until(TIMEOUT, || stats(&copy[1]).parks >= 1), "the poll never parked");
    let mut q = Pm4::new(pm4);
    q.release_mem(gate2, ReleaseData::U32(1), false, None);
    compute[0].submit(q.words());
    assert!(wait_until(TIMEOUT, || rd32(out2) == 1), "the SDMA poll never saw the release");
    let st = stats(&copy[1]);
    assert!(st.write_wakes >= 1 && st.timeouts == 0, "{st:?}");

    for (i, r) in compute.into_iter().chain(copy).enumerate() {
        devs[i % 2].destroy_queue(r.q).unwrap();
    }
}

/// Not a check, a measurement (`--ignored --nocapture`): a ping-pong between the compute queue
/// and the SDMA queue of one GPU, each waiting on the other's last write, with no host in the
/// loop; prints the round trip.
#[test]
#[ignore]
fn measure_a_cross_queue_ping_pong() {
    const N: u32 = 200;
    let m = open("gfx1100");
    let mem = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
    let (a, b) = (mem.va, mem.va + 8);
    let mut compute = Ring::new(&m.dev, QueueKind::Compute, 1 << 15);
    let mut copy = Ring::new(&m.dev, QueueKind::Sdma, 1 << 15);
    let mut q = Pm4::new(m.pm4);
    let mut s = Sdma::new(m.sdma);
    for i in 1..=N {
        q.wait_mem(a, i, 0xffff_ffff, Compare::GreaterEqual);
        q.release_mem(b, ReleaseData::U32(i), false, None);
        s.poll_ge(b, i, 0xffff_ffff);
        s.fence(a, i + 1);
    }
    compute.submit(q.words());
    copy.submit(s.words());
    std::thread::sleep(Duration::from_millis(50));
    let t = Instant::now();
    wr32(a, 1);
    // Yield rather than sleep between looks: the figure must not include a host sleep.
    while rd32(b) != N {
        assert!(t.elapsed() < Duration::from_secs(60), "stuck at {}", rd32(b));
        std::thread::yield_now();
    }
    let per = t.elapsed() / N;
    println!("cross-queue round trip: {per:?} ({N} round trips)");
    assert!(compute.idle(TIMEOUT) && copy.idle(TIMEOUT));
}

/// Not a check, a measurement (`--ignored --nocapture`): a compute queue waits while the SDMA
/// queue copies 16 MiB (milliseconds), then the SDMA queue stamps the GPU clock and fences
/// the gate; the compute queue stamps the clock once its wait ends. Prints the median of
/// the two stamps' distance: how long a long wait takes to see an engine's write.
#[test]
#[ignore]
fn measure_the_wake_after_a_long_wait() {
    const N: u64 = 10;
    const BIG: u64 = 16 << 20;
    let m = open("gfx1100");
    let mem = m.dev.alloc(0x1000, MemKind::Uncached).unwrap();
    let big = m.dev.alloc(2 * BIG, MemKind::Vram { cpu_visible: false }).unwrap();
    let (gate, t0, t1) = (mem.va, mem.va + 0x100, mem.va + 0x800);
    let mut compute = Ring::new(&m.dev, QueueKind::Compute, 1 << 14);
    let mut copy = Ring::new(&m.dev, QueueKind::Sdma, 1 << 14);
    let (mut q, mut s) = (Pm4::new(m.pm4), Sdma::new(m.sdma));
    for k in 0..N {
        q.wait_mem(gate, k as u32 + 1, 0xffff_ffff, Compare::GreaterEqual);
        q.release_mem(t1 + 8 * k, ReleaseData::Timestamp, false, None);
        s.copy(big.va + BIG, big.va, BIG);
        s.timestamp(t0 + 8 * k);
        s.fence(gate, k as u32 + 1);
    }
    compute.submit(q.words());
    copy.submit(s.words());
    assert!(compute.idle(Duration::from_secs(60)) && copy.idle(TIMEOUT));
    let mut d: Vec<u64> = (0..N).map(|k| (rd64(t1 + 8 * k) - rd64(t0 + 8 * k)) * 10).collect();
    d.sort();
    println!("wake after a long wait: median {} ns, max {} ns", d[N as usize / 2], d[N as usize - 1]);
}
