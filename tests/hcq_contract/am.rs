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

/// Hang recovery as the hardware needs it (amd.md §6.3): a kernel that never ends times out;
/// the reset dequeues its HQD with RESET_WAVES, soft-resets the CP (which halts the MEC until
/// the driver starts it again) and maps a fresh ring. No wave of the hung kernel may run on
/// afterwards, and a checked launch on the same device works.
#[test]
fn a_hung_kernel_is_reset_through_the_cp_and_the_device_then_computes() {
    use baregpu_compiler::codeobj::{write_code_object, Kernel};
    use baregpu_isa::Arch;
    use baregpu_runtime::program::{CodeObject, Launch};
    for arch in ["gfx1100", "gfx942"] {
        let (mut dev, gpu) = open(arch);
        dev.timeout = std::time::Duration::from_millis(300);
        let a = Arch::from_name(arch).unwrap();
        let code = baregpu_isa::assemble(a, "spin:\n  s_branch spin\n").unwrap();
        let co = CodeObject::parse(&write_code_object(a, &[Kernel::new(a, "spin", code)]).unwrap()).unwrap();
        let prog = dev.load(co).unwrap();
        let s = dev.launch(&prog, "spin", &[], &Launch::new([1, 1, 1], [64, 1, 1]), false).unwrap();
        let err = dev.synchronize().unwrap_err().to_string();
        assert!(err.contains("timed out") && err.contains("kernel `spin`"), "{arch}: {err}");
        dev.release(s);
        assert_eq!(gpu.running_waves(), 0, "{arch}: a wave of the hung kernel runs on after the reset");
        let xccs = u64::from(dev.backend().iface().info().xccs);
        assert_eq!(gpu.cp_soft_resets(), xccs, "{arch}: one CP soft reset per XCC");
        checked_vector_add(&dev);
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
