//! The counts hang detection reads move while a dispatch runs: retired workgroups not only in
//! batches of 16 per worker (long workgroups each count as they end), and the instructions of a
//! workgroup that has not ended.

use super::common::wave::Buf;
use baregpu_emu::amd::dispatch::{Cancel, DispatchFault, DispatchState, GpuMemory, WaveEngine};
use baregpu_emu::rdna::Interpreter;
use baregpu_isa::Arch;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Workgroups that end (each some 6,000 instructions); every later one spins until cancelled.
const FINITE: u64 = 8;

/// Workgroup ids below FINITE loop 2,048 times and end; the rest spin. s0 is the workgroup id.
const SRC: &str = "  s_cmp_ge_u32 s0, 8\n  s_cbranch_scc1 spin\n  s_mov_b32 s1, 0x800\ntop:\n  s_sub_u32 s1, s1, 1\n  s_cmp_lg_u32 s1, 0\n  s_cbranch_scc1 top\n  s_endpgm\nspin:\n  s_branch spin\n";

/// Every worker ends up in a spinning workgroup with fewer than 16 finished ones behind it:
/// the finished ones must count before the dispatch ends (the old batches kept them back).
#[test]
fn long_workgroups_count_as_retired_while_the_dispatch_still_runs() {
    let code = Buf::from(&baregpu_isa::assemble(Arch::Gfx1100, SRC).unwrap());
    let mem = GpuMemory::from_ranges(&[(code.va(), code.len as u64, code.va() as usize)]);
    let stop = Arc::new(AtomicBool::new(false));
    // More spinning workgroups than any host has workers.
    let d = state(&code, FINITE as u32 + 4096, &stop);
    let engine = Interpreter::new("gfx1100");
    let (seen, result) = std::thread::scope(|s| {
        let run = s.spawn(|| engine.dispatch(&d, &mem));
        let deadline = Instant::now() + Duration::from_secs(60);
        while engine.workgroups_retired() < FINITE && Instant::now() < deadline && !run.is_finished() {
            std::thread::sleep(Duration::from_millis(1));
        }
        let seen = engine.workgroups_retired();
        stop.store(true, Ordering::Relaxed);
        (seen, run.join().unwrap())
    });
    assert_eq!(result, Err(DispatchFault::Cancelled), "the spinning workgroups end only when cancelled");
    assert_eq!(seen, FINITE, "workgroups retired before the dispatch ended");
    assert_eq!(engine.workgroups_retired(), FINITE);
}

/// One workgroup that never ends retires nothing, but its instructions count as it runs: what
/// tells hang detection that the emulator runs, and how much (`baregpu_emu::work`).
#[test]
fn a_workgroup_that_never_ends_publishes_its_instructions_as_it_runs() {
    let code = Buf::from(&baregpu_isa::assemble(Arch::Gfx1100, "spin:\n  s_branch spin\n").unwrap());
    let mem = GpuMemory::from_ranges(&[(code.va(), code.len as u64, code.va() as usize)]);
    let stop = Arc::new(AtomicBool::new(false));
    let d = state(&code, 1, &stop);
    let engine = Interpreter::new("gfx1100");
    let want = 8 * baregpu_emu::work::BATCH;
    let (seen, result) = std::thread::scope(|s| {
        let run = s.spawn(|| engine.dispatch(&d, &mem));
        let deadline = Instant::now() + Duration::from_secs(60);
        while engine.instructions() < want && Instant::now() < deadline && !run.is_finished() {
            std::thread::sleep(Duration::from_millis(1));
        }
        let seen = engine.instructions();
        stop.store(true, Ordering::Relaxed);
        (seen, run.join().unwrap())
    });
    assert_eq!(result, Err(DispatchFault::Cancelled));
    assert!(seen >= want, "{seen} instructions published while the workgroup ran");
    assert_eq!(engine.workgroups_retired(), 0);
}

/// A wave32 dispatch of `groups` workgroups of `code`, the workgroup id in s0.
fn state(code: &Buf, groups: u32, stop: &Arc<AtomicBool>) -> DispatchState {
    DispatchState {
        arch: "gfx1100",
        pgm: code.va(),
        rsrc1: 0,
        rsrc2: 1 << 7, // the workgroup id x in s0
        rsrc3: 0,
        user_data: [0; 16],
        grid: [groups, 1, 1],
        block: [32, 1, 1],
        start: [0; 3],
        wave32: true,
        tmpring_size: 0,
        scratch_base: 0,
        lds_bytes: 0,
        xcc: Default::default(),
        cancel: Cancel::new(stop.clone()),
    }
}
