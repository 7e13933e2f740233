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
