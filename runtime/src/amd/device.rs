//! An AMD GPU: the vendor half of [`crate::core::Device`] over the driver interface beneath it
//! ([`AmdIface`]: KFD, or the userspace PCI driver) — its PM4 compute and SDMA copy rings, the
//! HDP flush, scratch and the XCC barrier. The same code drives a real GPU and the emulated ones.

use super::encode::Xccs;
use super::hdp::HdpFlush;
use super::iface::{AmdIface, MemKind, Memory, QueueKind, Wake};
use super::kfd::KfdIface;
use super::ring::HwRing;
use crate::core::{self, DeviceBuffer};
use crate::port::Port;
use crate::program::CodeObject;
use crate::Result;
use baregpu_drivers::amd::kfd::KfdDevice;
use baregpu_drivers::amd::pm4::Pm4Generation;
use baregpu_drivers::amd::sdma::SdmaGeneration;
use baregpu_drivers::amd::topology;
use baregpu_drivers::os::Os;
use baregpu_drivers::va_window::Placement;
use std::sync::{Arc, Mutex, MutexGuard};

pub(crate) const COMPUTE_RING: u64 = 1 << 18;
pub(crate) const SDMA_RING: u64 = 1 << 18;
/// GPU timestamps count at 100 MHz.
pub const TIMESTAMP_HZ: u64 = 100_000_000;

/// An AMD device: the runtime core over [`Amd`].
pub type AmdDevice = core::Device<Amd>;

/// Device memory with a GPU virtual address (equal to its CPU address where it is CPU-mapped).
#[derive(Debug)]
pub struct Buffer {
    pub(crate) mem: Memory,
}

impl DeviceBuffer for Buffer {
    fn va(&self) -> u64 {
        self.mem.va
    }
    fn size(&self) -> u64 {
        self.mem.size
    }
    fn host_visible(&self) -> bool {
        self.mem.cpu_mapped
    }
}

impl Buffer {
    pub fn va(&self) -> u64 {
        self.mem.va
    }
    pub fn size(&self) -> u64 {
        self.mem.size
    }
    pub fn host_visible(&self) -> bool {
        self.mem.cpu_mapped
    }
}

/// A code object loaded into device memory.
#[derive(Debug)]
pub struct Program {
    pub code: CodeObject,
    pub(crate) image: Buffer,
}

impl Program {
    pub fn base(&self) -> u64 {
        self.image.va()
    }
}

/// What the hardware queues hold: rebuilt by recovery.
pub(crate) struct Rings {
    /// Always present but during recovery and close.
    pub(crate) compute: Option<HwRing>,
    pub(crate) copy: Option<HwRing>,
    pub(crate) scratch: Option<Memory>,
    /// Scratch buffers a larger one replaced: compiled graphs encode the scratch address, so a
    /// replaced buffer stays mapped until the device closes rather than being freed under them.
    pub(crate) retired_scratch: Vec<Memory>,
    pub(crate) dispatches: u64,
}

/// The AMD backend: encodes PM4 and SDMA, submits to the interface's rings, sleeps through it.
pub struct Amd {
    pub(crate) iface: Box<dyn AmdIface>,
    /// The device's label (`emu:gfx1100`), for errors raised below the core.
    pub(crate) label: String,
    pub(crate) pm4: &'static Pm4Generation,
    pub(crate) sdma: &'static SdmaGeneration,
    pub(crate) hdp: Option<HdpFlush>,
    pub(crate) lds_limit: u32,
    pub(crate) wake: Option<Wake>,
    /// The XCCs that execute the compute ring, and their barrier counters.
    pub(crate) xccs: Xccs,
    /// The memory of the barrier counters (multi-XCC devices).
    pub(crate) xcc_barrier: Option<Memory>,
    pub(crate) rings: Mutex<Rings>,
    /// How the host reaches the device's memory (the interface's [`AmdIface::port`]).
    pub(crate) port: Port,
}

impl Amd {
    pub(crate) fn rings(&self) -> MutexGuard<'_, Rings> {
        self.rings.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The driver interface beneath the backend.
    pub fn iface(&self) -> &dyn AmdIface {
        &*self.iface
    }

    /// The KFD device, where the backend runs over KFD.
    pub fn kfd_device(&self) -> Option<&KfdDevice> {
        self.iface.as_any().downcast_ref::<KfdIface>().map(KfdIface::device)
    }
}

/// Zero the XCC barrier's counters (no XCC may be inside a barrier: at open, or after the
/// queues were rebuilt).
pub(crate) fn reset_barrier(x: &Xccs, port: &Port) {
    if x.count == 1 {
        return;
    }
    for c in [x.barrier, x.barrier + baregpu_drivers::amd::pm4::XCC_BARRIER_STRIDE] {
        // SAFETY: the counters lie in the barrier's CPU-visible page, reached through the port
        // while the device lives; no CP touches them now. Atomic, as the GPU writes them too.
        unsafe { port.store_u32(c, 0) };
    }
}

/// The PM4 and SDMA generations of `arch`, or why the runtime cannot drive it.
fn generations(label: &str, arch: &str) -> Result<(&'static Pm4Generation, &'static SdmaGeneration)> {
    let err = |m: String| core::dev_err(label, m);
    let pm4 = Pm4Generation::for_arch(arch).ok_or_else(|| err(format!("{arch} is not supported")))?;
    let sdma = SdmaGeneration::for_arch(arch).ok_or_else(|| err(format!("{arch} has no SDMA support")))?;
    Ok((pm4, sdma))
}

impl core::Device<Amd> {
    /// Open AMD GPU `index` of the KFD behind `os`; `label` names it in errors (`amd:0`, `emu:gfx1100`).
    pub fn open(os: Arc<dyn Os>, index: usize, label: &str) -> Result<AmdDevice> {
        let gpus = topology::discover(&*os)?;
        let gpu = gpus.into_iter().nth(index).ok_or_else(|| core::dev_err(label, format!("no AMD GPU {index}")))?;
        // Before KFD is opened: an architecture the runtime cannot drive is the error to give.
        generations(label, &gpu.arch)?;
        Self::open_on(Box::new(KfdIface::open(os, gpu, label)?), label)
    }

    /// The device over an opened driver interface: its XCC barrier and its compute and SDMA
    /// queues (a device without an SDMA queue copies through the CPU).
    pub fn open_on(iface: Box<dyn AmdIface>, label: &str) -> Result<AmdDevice> {
        let err = |m: String| core::dev_err(label, m);
        let info = iface.info().clone();
        let (pm4, sdma) = generations(label, &info.arch)?;
        let xcc_barrier = match info.xccs {
            1 => None,
            n if n.is_power_of_two() => {
                Some(iface.alloc(0x1000, MemKind::Vram { cpu_visible: true }, Placement::Internal)?)
            }
            n => return Err(err(format!("{n} XCCs: only partitions of 1, 2, 4 or 8 XCCs are supported"))),
        };
        let xccs = Xccs { count: info.xccs, barrier: xcc_barrier.as_ref().map_or(0, |m| m.va) };
        let port = iface.port();
        reset_barrier(&xccs, &port);
        let compute = HwRing::new(iface.create_queue(QueueKind::Compute, COMPUTE_RING)?, port.clone());
        let copy = match iface.create_queue(QueueKind::Sdma, SDMA_RING) {
            Ok(q) => Some(HwRing::new(q, port.clone())),
            Err(e) => {
                log::warn!("{label}: no SDMA queue ({e}); copies go through the CPU");
                None
            }
        };
        let hdp = iface.hdp();
        log::info!("{label}: {} open through {} (hdp flush {hdp:?})", info.arch, iface.kind());
        let amd = Amd {
            label: label.to_string(),
            pm4,
            sdma,
            hdp,
            lds_limit: info.lds_bytes,
            wake: iface.wake(),
            xccs,
            xcc_barrier,
            iface,
            rings: Mutex::new(Rings {
                compute: Some(compute),
                copy,
                scratch: None,
                retired_scratch: Vec::new(),
                dispatches: 0,
            }),
            port,
        };
        let dev = core::Device::new(amd, label, &info.arch)?;
        // Stores of the open (signals zeroed) latch a link's failure rather than return it.
        match &dev.backend().port {
            Port::Link(l) => l.error().map_or(Ok(dev), Err),
            Port::Local => Ok(dev),
        }
    }

    /// The KFD device, where the device runs over KFD.
    pub fn kfd_device(&self) -> Option<&KfdDevice> {
        self.backend().kfd_device()
    }

    pub(crate) fn alloc_kind(&self, size: u64, kind: MemKind) -> Result<Buffer> {
        Ok(Buffer { mem: self.backend().iface.alloc(size, kind, Placement::User)? })
    }
}
