//! An AMD GPU driven through KFD: the vendor half of [`crate::core::Device`] — the KFD device,
//! its PM4 compute and SDMA copy rings, the events a host sleeps on, the HDP flush and scratch.
//! The same code drives a real GPU (host OS) and the emulated one (the emulated KFD behind the
//! same OS boundary).

use super::encode::{Wake, Xccs};
use super::hdp::{self, HdpFlush};
use super::ring::HwRing;
use crate::core::{self, DeviceBuffer};
use crate::program::CodeObject;
use crate::Result;
use baregpu_drivers::amd::kfd::{EventKind, Kfd, KfdDevice, KfdEvent, KfdMemory, MemKind, QueueKind};
use baregpu_drivers::amd::pm4::Pm4Generation;
use baregpu_drivers::amd::sdma::SdmaGeneration;
use baregpu_drivers::amd::topology;
use baregpu_drivers::os::Os;
use std::sync::{Arc, Mutex, MutexGuard};

pub(crate) const COMPUTE_RING: u64 = 1 << 18;
pub(crate) const SDMA_RING: u64 = 1 << 18;
const EVENT_PAGE: u64 = 0x8000;
/// GPU timestamps count at 100 MHz.
pub const TIMESTAMP_HZ: u64 = 100_000_000;

/// An AMD device: the runtime core over [`Amd`].
pub type AmdDevice = core::Device<Amd>;

/// Device memory with a GPU virtual address (equal to its CPU address where it is CPU-mapped).
#[derive(Debug)]
pub struct Buffer {
    pub(crate) mem: KfdMemory,
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
    pub(crate) scratch: Option<KfdMemory>,
    /// Scratch buffers a larger one replaced: compiled graphs encode the scratch address, so a
    /// replaced buffer stays mapped until the device closes rather than being freed under them.
    pub(crate) retired_scratch: Vec<KfdMemory>,
    pub(crate) dispatches: u64,
}

/// The AMD backend: encodes PM4 and SDMA, submits to KFD rings, sleeps on KFD events.
pub struct Amd {
    pub(crate) dev: KfdDevice,
    /// The device's label (`emu:gfx1100`), for errors raised below the core.
    pub(crate) label: String,
    pub(crate) pm4: &'static Pm4Generation,
    pub(crate) sdma: &'static SdmaGeneration,
    pub(crate) hdp: Option<HdpFlush>,
    pub(crate) lds_limit: u32,
    pub(crate) wake: Wake,
    /// The XCCs that execute the compute ring, and their barrier counters.
    pub(crate) xccs: Xccs,
    /// The memory of the barrier counters (multi-XCC devices).
    pub(crate) xcc_barrier: Option<KfdMemory>,
    /// Queue event, memory fault, hardware exception.
    pub(crate) events: [KfdEvent; 3],
    pub(crate) rings: Mutex<Rings>,
}

impl Amd {
    pub(crate) fn rings(&self) -> MutexGuard<'_, Rings> {
        self.rings.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn kfd_device(&self) -> &KfdDevice {
        &self.dev
    }
}

/// Zero the XCC barrier's counters (no XCC may be inside a barrier: at open, or after the
/// queues were rebuilt).
pub(crate) fn reset_barrier(x: &Xccs) {
    if x.count == 1 {
        return;
    }
    for c in [x.barrier, x.barrier + baregpu_drivers::amd::pm4::XCC_BARRIER_STRIDE] {
        // SAFETY: the counters lie in the barrier's CPU-visible page, mapped while the device
        // lives; no CP touches them now. Atomic, as the GPU writes them too.
        unsafe { std::sync::atomic::AtomicU32::from_ptr(c as *mut u32) }.store(0, std::sync::atomic::Ordering::Release);
    }
}

impl core::Device<Amd> {
    /// Open AMD GPU `index` of the KFD behind `os`; `label` names it in errors (`amd:0`, `emu:gfx1100`).
    pub fn open(os: Arc<dyn Os>, index: usize, label: &str) -> Result<AmdDevice> {
        let err = |m: String| core::dev_err(label, m);
        let gpus = topology::discover(&*os)?;
        let gpu = gpus.into_iter().nth(index).ok_or_else(|| err(format!("no AMD GPU {index}")))?;
        let arch = gpu.arch.clone();
        let pm4 = Pm4Generation::for_arch(&arch).ok_or_else(|| err(format!("{arch} is not supported")))?;
        let sdma = SdmaGeneration::for_arch(&arch).ok_or_else(|| err(format!("{arch} has no SDMA support")))?;
        let hdp = hdp::discover(&*os, gpu.render_minor);
        let kfd = Kfd::open(os)?;
        let dev = KfdDevice::open(kfd, gpu)?.named(label);
        let lds_limit = dev.props.get("lds_size_in_kb").unwrap_or(64) as u32 * 1024;

        // In the process's one event page, shared by the devices of one KFD.
        let (queue_event, mailbox) = dev.create_mailbox_event(EVENT_PAGE)?;
        // Auto-reset: a fault is reported to one wait, not to every wait after recovery.
        let fault_event = dev.create_event(EventKind::MemoryFault, true, None)?;
        let hw_event = dev.create_event(EventKind::HwException, true, None)?;
        let xcc_barrier = match dev.gpu.num_xcc {
            1 => None,
            n if n.is_power_of_two() => Some(dev.alloc_internal(0x1000, MemKind::Vram { cpu_visible: true })?),
            n => return Err(err(format!("{n} XCCs: only partitions of 1, 2, 4 or 8 XCCs are supported"))),
        };
        let xccs = Xccs { count: dev.gpu.num_xcc, barrier: xcc_barrier.as_ref().map_or(0, |m| m.va) };
        reset_barrier(&xccs);
        let compute = HwRing::new(dev.create_queue(QueueKind::Compute, COMPUTE_RING)?);
        let copy = match dev.create_queue(QueueKind::Sdma, SDMA_RING) {
            Ok(q) => Some(HwRing::new(q)),
            Err(e) => {
                log::warn!("{label}: no SDMA queue ({e}); copies go through the CPU");
                None
            }
        };
        let wake = Wake { mailbox, event: queue_event.id };
        log::info!("{label}: {arch} open (hdp flush {hdp:?})");
        let amd = Amd {
            dev,
            label: label.to_string(),
            pm4,
            sdma,
            hdp,
            lds_limit,
            wake,
            xccs,
            xcc_barrier,
            events: [queue_event, fault_event, hw_event],
            rings: Mutex::new(Rings {
                compute: Some(compute),
                copy,
                scratch: None,
                retired_scratch: Vec::new(),
                dispatches: 0,
            }),
        };
        core::Device::new(amd, label, &arch)
    }

    pub fn kfd_device(&self) -> &KfdDevice {
        &self.backend().dev
    }

    pub(crate) fn alloc_kind(&self, size: u64, kind: MemKind) -> Result<Buffer> {
        Ok(Buffer { mem: self.backend().dev.alloc(size, kind)? })
    }
}
