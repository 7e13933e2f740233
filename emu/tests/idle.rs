//! An idle emulated device costs (almost) no CPU: queue and channel threads park until a
//! doorbell rings instead of polling. Its own test binary, so that no other test's threads run
//! in the process while its CPU time is measured.

use baregpu_drivers::amd::kfd::{Kfd, KfdDevice, QueueKind};
use baregpu_drivers::amd::topology;
use baregpu_drivers::os::Os;
use baregpu_emu::amd::dispatch::{DispatchFault, DispatchState, GpuMemory, WaveEngine};
use baregpu_emu::amd::machine;
use baregpu_emu::nv::EmuRm;
use std::sync::Arc;
use std::time::Duration;

struct NoEngine;

impl WaveEngine for NoEngine {
    fn dispatch(&self, _: &DispatchState, _: &GpuMemory) -> Result<(), DispatchFault> {
        Ok(())
    }
}

/// User plus system CPU time of this whole process.
fn process_cpu() -> Duration {
    // SAFETY: getrusage writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) }, 0);
    let tv = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    tv(u.ru_utime) + tv(u.ru_stime)
}

#[test]
fn idle_devices_do_not_burn_a_core() {
    let amd = machine(&["gfx1100"], Arc::new(NoEngine)).unwrap();
    let os: Arc<dyn Os> = amd.clone();
    let gpu = topology::discover(&*os).unwrap().remove(0);
    let dev = KfdDevice::open(Kfd::open(os).unwrap(), gpu).unwrap();
    let compute = dev.create_queue(QueueKind::Compute, 1 << 12).unwrap();
    let sdma = dev.create_queue(QueueKind::Sdma, 1 << 12).unwrap();
    let nv = EmuRm::new(&["sm_90"]).unwrap();
    let nv_dev = baregpu_drivers::nv::device::NvDevice::open(nv.clone(), 0).unwrap();
    assert!(!nv_dev.channels.is_empty());
    // Past the spin-and-yield window every engine thread has after work.
    std::thread::sleep(Duration::from_millis(50));
    let (before, wall) = (process_cpu(), Duration::from_millis(500));
    std::thread::sleep(wall);
    let used = process_cpu() - before;
    eprintln!("idle: {used:?} of CPU in {wall:?} (2 AMD queues, {} NV channels)", nv_dev.channels.len());
    // A polling thread would use most of a core; parked ones wake 100 times a second.
    assert!(used < wall / 20, "idle emulated devices used {used:?} of CPU in {wall:?}");
    dev.destroy_queue(compute).unwrap();
    dev.destroy_queue(sdma).unwrap();
}
