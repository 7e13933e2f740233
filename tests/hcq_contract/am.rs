//! What the runtime does on the AM driver beyond the contract, checked on the emulated PCI GPU
//! itself: the memory barrier's HDP flush goes to NBIO's flush pair at the discovery table's
//! NBIO base, and the command processors execute it.

use baregpu::device;
use baregpu_emu::am::firmware_standin::StandinSource;
use baregpu_emu::am::layout::Layout;
use baregpu_emu::am::EmuPciGpu;
use baregpu_emu::rdna::Interpreter;
use baregpu_runtime::amd::AmdDevice;
use std::sync::Arc;

/// A fresh emulated PCI GPU of `arch`, booted by the AM driver under the runtime.
pub fn open(arch: &str) -> (AmdDevice, Arc<EmuPciGpu>) {
    let gpu = EmuPciGpu::new(arch, Arc::new(Interpreter::new(arch))).unwrap();
    let fw = StandinSource::for_layout(&Layout::for_arch(arch).unwrap());
    let dev = device::open_am_over(gpu.clone(), &fw, &format!("am:emu:{arch}")).unwrap();
    (dev, gpu)
}

#[test]
fn a_memory_barrier_flushes_hdp_on_every_xcc_that_runs_the_ring() {
    for arch in ["gfx1100", "gfx942"] {
        let (dev, gpu) = open(arch);
        assert!(dev.backend().iface().hdp().is_some(), "{arch}: the AM driver gives the HDP flush pair");
        let xccs = u64::from(dev.backend().iface().info().xccs);
        let s = dev.new_signal().unwrap();
        // Without a barrier, no flush.
        let before = gpu.hdp_flush_requests();
        let mut q = dev.compute_queue().unwrap();
        q.signal(&s, 1);
        q.submit().unwrap();
        dev.wait(&s, 1).unwrap();
        assert_eq!(gpu.hdp_flush_requests(), before, "{arch}: a flush without a barrier");
        // The barrier's WAIT_REG_MEM writes the request and polls DONE: the ring goes on only
        // once every XCC's CP has flushed.
        let mut q = dev.compute_queue().unwrap();
        q.memory_barrier().signal(&s, 2);
        q.submit().unwrap();
        dev.wait(&s, 2).unwrap();
        assert_eq!(gpu.hdp_flush_requests() - before, xccs, "{arch}: one flush per XCC");
        dev.synchronize().unwrap();
    }
}

/// `vector_add` of 1000 elements on `dev`, its result checked on the host.
pub fn checked_vector_add(dev: &AmdDevice) {
    use baregpu_runtime::program::{ArgValue, Launch};
    let prog = dev.load(super::fixture(&dev.arch)).unwrap();
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 3.0 - i as f32 * 0.25).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let bufs: Vec<_> = (0..3).map(|_| dev.alloc(4 * n as u64).unwrap()).collect();
    dev.write(&bufs[0], 0, &bytes(&a)).unwrap();
    dev.write(&bufs[1], 0, &bytes(&b)).unwrap();
    let args = [
        ArgValue::Pointer(bufs[0].va()),
        ArgValue::Pointer(bufs[1].va()),
        ArgValue::Pointer(bufs[2].va()),
        ArgValue::u32(n as u32),
    ];
    let grid = Launch::new([(n as u32).div_ceil(64), 1, 1], [64, 1, 1]);
    let s = dev.launch(&prog, "vector_add", &args, &grid, false).unwrap();
    dev.synchronize().unwrap();
    let mut out = vec![0u8; 4 * n];
    dev.read(&bufs[2], 0, &mut out).unwrap();
    for i in 0..n {
        assert_eq!(f32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap()), a[i] + b[i], "element {i}");
    }
    dev.release(s);
    for buf in bufs {
        dev.free(buf).unwrap();
    }
    dev.unload(prog).unwrap();
}

/// What a reset must leave (amd.md §6.3), once the device computed again: one CP soft reset
/// per XCC for each of `resets` recoveries, and the runtime's compute ring on every XCC's HQD
/// (an XCC whose MEC the reset left halted runs no queue, and its share of every grid is lost).
fn computes_after_resets(arch: &str, dev: &AmdDevice, gpu: &EmuPciGpu, resets: u64) {
    checked_vector_add(dev);
    let xccs = dev.backend().iface().info().xccs;
    assert_eq!(gpu.cp_soft_resets(), resets * u64::from(xccs), "{arch}: one CP soft reset per XCC and reset");
    assert_eq!(gpu.compute_queues_per_xcc(), vec![1; xccs as usize], "{arch}: compute queues per XCC");
}

/// `spin`, a kernel that never ends, on `dev`.
fn spin(dev: &AmdDevice) -> baregpu_runtime::amd::Program {
    use baregpu_compiler::codeobj::{write_code_object, Kernel};
    use baregpu_isa::Arch;
    use baregpu_runtime::program::CodeObject;
    let a = Arch::from_name(&dev.arch).unwrap();
    let code = baregpu_isa::assemble(a, "spin:\n  s_branch spin\n").unwrap();
    let co = CodeObject::parse(&write_code_object(a, &[Kernel::new(a, "spin", code)]).unwrap()).unwrap();
    dev.load(co).unwrap()
}

/// Hang recovery as the hardware needs it (amd.md §6.3): a kernel that never ends times out;
/// the reset dequeues its HQD with RESET_WAVES, soft-resets the CP (which halts the MEC until
/// the driver starts it again) and maps a fresh ring. No wave of the hung kernel may run on
/// afterwards, and a checked launch on the same device works on every XCC.
#[test]
fn a_hung_kernel_is_reset_through_the_cp_and_the_device_then_computes() {
    use baregpu_runtime::program::Launch;
    for arch in ["gfx1100", "gfx942"] {
        let (mut dev, gpu) = open(arch);
        dev.timeout = std::time::Duration::from_millis(300);
        let prog = spin(&dev);
        let s = dev.launch(&prog, "spin", &[], &Launch::new([1, 1, 1], [64, 1, 1]), false).unwrap();
        let err = dev.synchronize().unwrap_err().to_string();
        assert!(err.contains("timed out") && err.contains("kernel `spin`"), "{arch}: {err}");
        dev.release(s);
        assert_eq!(gpu.running_waves(), 0, "{arch}: a wave of the hung kernel runs on after the reset");
        computes_after_resets(arch, &dev, &gpu, 1);
        dev.unload(prog).unwrap();
    }
}

/// Issue 16: a fault and a hang are reported from the IH ring (a UTCL2 fault with its VA; the
/// SQ interrupt of a dispatch that outran the CP's budget, long before the host's timeout),
/// and the device computes after each reset, on both chips.
#[test]
fn a_fault_and_a_hang_come_from_the_ih_ring_and_the_device_computes_after_each_reset() {
    use baregpu_runtime::program::{ArgValue, Launch};
    use std::time::{Duration, Instant};
    for arch in ["gfx1100", "gfx942"] {
        let (mut dev, gpu) = open(arch);
        dev.timeout = Duration::from_secs(30);
        gpu.set_dispatch_budget(Duration::from_millis(300));
        let prog = dev.load(super::fixture(arch)).unwrap();
        let good = dev.alloc(256).unwrap();
        let bad = (good.va() + good.size()).next_multiple_of(0x1000);
        let args =
            [ArgValue::Pointer(good.va()), ArgValue::Pointer(good.va()), ArgValue::Pointer(bad), ArgValue::u32(64)];
        let s = dev.launch(&prog, "vector_add", &args, &Launch::new([1, 1, 1], [64, 1, 1]), false).unwrap();
        let err = dev.synchronize().unwrap_err().to_string();
        assert!(err.contains("memory fault") && err.contains(&format!("{bad:#x}")), "{arch}: {err}");
        dev.release(s);
        computes_after_resets(arch, &dev, &gpu, 1);
        let hung = spin(&dev);
        let t = Instant::now();
        let s = dev.launch(&hung, "spin", &[], &Launch::new([1, 1, 1], [64, 1, 1]), false).unwrap();
        let err = dev.synchronize().unwrap_err().to_string();
        assert!(err.contains("IH ring reported SqError") && err.contains("kernel `spin`"), "{arch}: {err}");
        assert!(t.elapsed() < Duration::from_secs(15), "{arch}: the hang took {:?}", t.elapsed());
        dev.release(s);
        computes_after_resets(arch, &dev, &gpu, 2);
        dev.free(good).unwrap();
        dev.unload(hung).unwrap();
        dev.unload(prog).unwrap();
    }
}

/// A session that never closed (a crash: the device neither closed nor dropped) leaves the PSP
/// sOS and the SMU running: the next open resets the chip through the SMU (mode-1, by the
/// message its MP1 version takes; the emulated SMU resets only on that one), boots it fully and
/// computes. A clean close after that lets the third open boot partly, with no reset.
#[test]
fn a_device_left_running_is_mode1_reset_then_booted_and_computes() {
    for arch in ["gfx1100", "gfx942"] {
        let (dev, gpu) = open(arch);
        checked_vector_add(&dev);
        std::mem::forget(dev);
        assert_eq!(gpu.mode1_resets(), 0, "{arch}: a reset before any reopen");
        let fw = StandinSource::for_layout(&Layout::for_arch(arch).unwrap());
        let spec = format!("am:emu:{arch}");
        let dev = device::open_am_over(gpu.clone(), &fw, &spec).unwrap();
        assert_eq!(gpu.mode1_resets(), 1, "{arch}: the device left running was not mode-1 reset");
        checked_vector_add(&dev);
        drop(dev);
        let dev = device::open_am_over(gpu.clone(), &fw, &spec).unwrap();
        assert_eq!(gpu.mode1_resets(), 1, "{arch}: a cleanly closed device was reset again");
        checked_vector_add(&dev);
    }
}
