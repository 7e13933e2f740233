//! Issue 16: hang detection on an emulated GPU measures the emulator's work, not the wall
//! clock alone. The emulator is paced (slowed, as a host loaded by other work slows it) so that
//! a valid single-workgroup kernel runs many times the no-progress timeout and the CP's
//! dispatch budget in wall clock while staying inside both in emulated time: it must finish.
//! A kernel that never ends must still be reported, from the IH ring by the CP's budget and by
//! the runtime's timeout, within a bounded time.

use baregpu::device;
use baregpu_compiler::codeobj::{write_code_object, Kernel};
use baregpu_emu::am::firmware_standin::StandinSource;
use baregpu_emu::am::layout::Layout;
use baregpu_emu::am::EmuPciGpu;
use baregpu_emu::rdna::Interpreter;
use baregpu_emu::work::{emulated, NOMINAL_RATE};
use baregpu_isa::Arch;
use baregpu_runtime::amd::{AmdDevice, Program};
use baregpu_runtime::program::{CodeObject, Launch};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ARCH: &str = "gfx1100";
/// The no-progress timeout and the CP's dispatch budget of the test.
const BUDGET: Duration = Duration::from_millis(200);
/// Sleep per batch of 4,096 instructions: the paced emulator runs under 0.5 M instructions a
/// second, a tenth of its nominal rate.
const PACE: Duration = Duration::from_millis(8);
/// How soon a paced hang must be reported.
const BOUND: Duration = Duration::from_secs(15);
/// Iterations of the valid kernel's loop (3 instructions each): 60% of BUDGET in emulated time.
const ITERATIONS: u64 = NOMINAL_RATE * BUDGET.as_millis() as u64 / 1000 * 6 / 10 / 3;

/// am:emu:gfx1100 with its engine at hand, every dispatch given `BUDGET` by its CP.
fn open() -> (AmdDevice, Arc<EmuPciGpu>, Arc<Interpreter>) {
    let engine = Arc::new(Interpreter::new(ARCH));
    let gpu = EmuPciGpu::new(ARCH, engine.clone()).unwrap();
    gpu.set_dispatch_budget(BUDGET);
    let fw = StandinSource::for_layout(&Layout::for_arch(ARCH).unwrap());
    let dev = device::open_am_over(gpu.clone(), &fw, &format!("am:emu:{ARCH}")).unwrap();
    (dev.with_progress(device::emu_progress(engine.clone())), gpu, engine)
}

fn load(dev: &AmdDevice, name: &str, src: &str) -> Program {
    let a = Arch::from_name(ARCH).unwrap();
    let code = baregpu_isa::assemble(a, src).unwrap();
    dev.load(CodeObject::parse(&write_code_object(a, &[Kernel::new(a, name, code)]).unwrap()).unwrap()).unwrap()
}

/// Runs `name` as one wave32 workgroup: its error, and how long it took.
fn run(dev: &AmdDevice, prog: &Program, name: &str) -> (Result<(), String>, Duration) {
    let t = Instant::now();
    let s = dev.launch(prog, name, &[], &Launch::new([1, 1, 1], [32, 1, 1]), false).unwrap();
    let r = dev.synchronize().map_err(|e| e.to_string());
    dev.release(s);
    (r, t.elapsed())
}

#[test]
fn a_long_workgroup_on_a_slowed_emulator_finishes_and_a_spinning_one_is_still_a_hang() {
    let (mut dev, gpu, engine) = open();
    dev.timeout = BUDGET;
    let count = load(
        &dev,
        "count",
        &format!("  s_mov_b32 s0, {ITERATIONS}\ntop:\n  s_sub_u32 s0, s0, 1\n  s_cmp_lg_u32 s0, 0\n  s_cbranch_scc1 top\n  s_endpgm\n"),
    );
    let spin = load(&dev, "spin", "spin:\n  s_branch spin\n");
    engine.work().set_pace(PACE);
    // Nothing retires and no signal moves until the one workgroup ends, far past BUDGET of
    // wall clock: the old wall-clock timeout and dispatch budget both called this a hang.
    let before = engine.instructions();
    let (r, long) = run(&dev, &count, "count");
    r.unwrap_or_else(|e| panic!("a valid kernel was taken for a hang after {long:?}: {e}"));
    let ran = emulated(engine.instructions() - before);
    assert!(long > 4 * BUDGET, "the kernel took only {long:?}: slow the emulator more");
    assert!(ran < BUDGET, "the kernel ran {ran:?} of emulated time, past the budget it must stay inside");
    // A kernel that never ends, at the same pace: the CP's budget reports it from the IH ring
    // (queues started after this launch, those of the reset, get a budget too long to matter).
    let t = Instant::now();
    let s = dev.launch(&spin, "spin", &[], &Launch::new([1, 1, 1], [32, 1, 1]), false).unwrap();
    gpu.set_dispatch_budget(Duration::from_secs(120));
    dev.timeout = Duration::from_secs(60);
    let err = dev.synchronize().unwrap_err().to_string();
    dev.release(s);
    assert!(err.contains("IH ring reported SqError") && err.contains("kernel `spin`"), "{err}");
    // BUDGET in emulated time is 1 M instructions, 2 s at the pace; then the reset.
    let cp = t.elapsed();
    assert!(cp < BOUND, "the CP reported the hang after {cp:?}");
    // And the runtime's own timeout, the CP's budget out of the way.
    dev.timeout = BUDGET;
    let (r, took) = run(&dev, &spin, "spin");
    let err = r.unwrap_err();
    assert!(err.contains("timed out") && err.contains("kernel `spin`"), "{err}");
    assert!(took < BOUND, "the runtime reported the hang after {took:?}");
    println!(
        "valid kernel: {long:?} ({ran:?} emulated); hang from the IH ring after {cp:?}, by the timeout after {took:?}"
    );
    engine.work().set_pace(Duration::ZERO);
    super::am::checked_vector_add(&dev);
    dev.unload(spin).unwrap();
    dev.unload(count).unwrap();
}
