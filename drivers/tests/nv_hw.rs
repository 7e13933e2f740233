//! Bring-up on a real NVIDIA GPU through the host OS: ignored by default, run with
//! `cargo test -p baregpu-drivers --test nv_hw -- --ignored` on a machine with the open kernel
//! modules loaded (nvidia and nvidia-uvm). Skips with a printed reason where there is no driver.

use baregpu_drivers::nv::device::{NvDevice, NvMemKind};
use baregpu_drivers::os::HostOs;
use std::path::Path;
use std::sync::Arc;

#[test]
#[ignore = "needs an NVIDIA GPU, its driver and /dev/nvidia-uvm"]
fn brings_up_nv0_and_round_trips_memory() {
    if !Path::new("/dev/nvidiactl").exists() || !Path::new("/dev/nvidia-uvm").exists() {
        eprintln!("skipped: no /dev/nvidiactl or /dev/nvidia-uvm on this machine");
        return;
    }
    let dev = NvDevice::open(Arc::new(HostOs::new()), 0).unwrap();
    eprintln!(
        "{}: {} {:?} {} classes {:?} tokens {:?}",
        dev.name(),
        dev.gpu.model,
        dev.branch,
        dev.gr.arch(),
        dev.classes,
        dev.channels.iter().map(|c| c.token).collect::<Vec<_>>()
    );
    for kind in [NvMemKind::Vram { cpu_visible: true }, NvMemKind::System, NvMemKind::Host] {
        let mem = dev.alloc(0x20_0000, kind).unwrap();
        let p = mem.va as *mut u64;
        // SAFETY: a live CPU mapping of 2 MiB.
        unsafe {
            std::ptr::write_volatile(p.add(7), 0x1234_5678_9abc_def0);
            assert_eq!(std::ptr::read_volatile(p.add(7)), 0x1234_5678_9abc_def0, "{kind:?}");
        }
        dev.free(mem).unwrap();
    }
    let gpu_only = dev.alloc(0x100_0000, NvMemKind::Vram { cpu_visible: false }).unwrap();
    dev.free(gpu_only).unwrap();
}
