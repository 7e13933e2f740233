//! The emulated AMD GPU, OS half: an emulated amdkfd plus amdgpu render nodes behind the OS
//! boundary ([`baregpu_drivers::os::Os`]), behaving like Linux 6.12 so that the real driver code
//! (`drivers::amd::kfd`) runs against it unchanged.
//!
//! [`EmuKfd`] serves the KFD sysfs topology and the IP-discovery tree of each render node,
//! `/dev/kfd` and `/dev/dri/renderD<minor>`, and their ioctls and mmaps. Memory is real host
//! memory: a buffer's CPU mapping (placed at its GPU VA) and the emulator's own view are the same
//! pages, so what the driver writes the emulated GPU reads. Command processors (not here yet)
//! find queues with [`EmuKfd::queues`] and [`QueueObserver`], check accesses with
//! [`EmuKfd::mapped_allocation`], and report back with [`EmuKfd::signal_interrupt`],
//! [`EmuKfd::report_memory_fault`] and [`EmuKfd::report_hw_exception`].
//!
//! One `EmuKfd` is one machine with one process using KFD: the process's KFD state (VMs,
//! allocations, events, queues) ends when its last /dev/kfd file is closed.

pub mod cp;
pub mod dispatch;
pub mod events;
mod exceptions;
pub mod gpus;
mod kfd;
pub mod memory;
mod os;
pub mod queues;
mod sysfs;
mod user;

pub use cp::{machine, CommandProcessors};
pub use events::{HwExceptionReport, MemoryFaultReport};
pub use gpus::{EmuGpu, GpuSpec};
pub use memory::{Allocation, MemDomain};
pub use queues::{EmuQueue, QueueKind, QueueObserver};

use crate::os::FileTable;
use baregpu_autogen::amd::kfd as abi;
use baregpu_drivers::os::HostOs;
use baregpu_drivers::{Error, Result};
use events::{Event, SignalPage, Waiter};
use memory::Arena;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// A device node of the emulated KFD machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OpenFile {
    Kfd,
    /// A render node, by GPU index.
    Render(usize),
}

/// Per-GPU state of the process (kfd_process_device).
#[derive(Debug, Default)]
pub(crate) struct Pdd {
    /// The render-node file ACQUIRE_VM bound (fd number of this OS).
    pub drm_fd: Option<i32>,
    /// The process doorbell window: its range of the backing file and the emulator's view.
    pub doorbells: Option<(u64, usize)>,
    /// Where the process mapped that window (its doorbell writes land there).
    pub doorbell_maps: Vec<usize>,
    /// The HDP flush page (MMIO remap): backing range and view.
    pub mmio: Option<(u64, usize)>,
    pub vram_used: u64,
}

/// The KFD state of the (one) process using the emulated devices.
#[derive(Default)]
pub(crate) struct Process {
    pub pdds: Vec<Pdd>,
    pub runtime_enabled: bool,
    pub allocs: BTreeMap<u64, Allocation>,
    pub system_used: u64,
    pub events: BTreeMap<u32, Event>,
    pub signal_page: Option<SignalPage>,
    pub signal_event_count: u32,
    pub waiters: HashMap<u64, Waiter>,
    pub next_waiter: u64,
    pub queues: BTreeMap<u32, EmuQueue>,
    /// Per queue, the exceptions its waves raised (KFD_EC_MASK bits) not yet queried.
    pub queue_exceptions: HashMap<u32, u64>,
}

pub(crate) struct State {
    pub files: FileTable<OpenFile>,
    pub proc: Process,
    pub arena: Arena,
}

/// The emulated KFD with its GPUs: an [`Os`](baregpu_drivers::os::Os) to hand to the driver.
pub struct EmuKfd {
    gpus: Vec<EmuGpu>,
    sysfs: sysfs::Sysfs,
    state: Mutex<State>,
    /// Woken whenever an event fires or goes away.
    events_cv: Condvar,
    host: HostOs,
    observer: Mutex<Option<Arc<dyn QueueObserver>>>,
    /// Bumped whenever the allocation table or a GPU mapping changes, so views of GPU memory
    /// (the command processors') know when to rebuild.
    mem_epoch: std::sync::atomic::AtomicU64,
    /// Bytes of system memory GTT and USERPTR allocations may take.
    system_limit: u64,
}

impl std::fmt::Debug for EmuKfd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmuKfd").field("gpus", &self.gpus).finish_non_exhaustive()
    }
}

/// Virtual fd numbers start here, far from the host's own.
const FIRST_FD: i32 = 0x4000_0000;

impl EmuKfd {
    /// A machine with one emulated GPU per entry of `archs` (`gfx1100`, `gfx1201`, `gfx942`,
    /// `gfx950`; an `emu:` prefix is accepted), in that order.
    pub fn new(archs: &[&str]) -> Result<Arc<EmuKfd>> {
        let mut gpus: Vec<EmuGpu> = Vec::new();
        for (i, arch) in archs.iter().enumerate() {
            let arch = arch.strip_prefix("emu:").unwrap_or(arch);
            let spec = GpuSpec::for_arch(arch).ok_or_else(|| {
                Error::Unsupported(format!(
                    "emulated KFD: no emulated AMD GPU {arch:?} (gfx1100, gfx1201, gfx942, gfx950)"
                ))
            })?;
            let taken: Vec<u32> = gpus.iter().map(|g| g.gpu_id).collect();
            gpus.push(EmuGpu::new(spec, i, &taken));
        }
        let arena = Arena::new().map_err(|e| Error::sys("memfd_create for the emulated GPU memory", e))?;
        let proc = Process { pdds: gpus.iter().map(|_| Pdd::default()).collect(), ..Process::default() };
        Ok(Arc::new(EmuKfd {
            sysfs: sysfs::Sysfs::build(&gpus),
            gpus,
            state: Mutex::new(State { files: FileTable::new(FIRST_FD), proc, arena }),
            events_cv: Condvar::new(),
            host: HostOs::new(),
            observer: Mutex::new(None),
            mem_epoch: std::sync::atomic::AtomicU64::new(0),
            system_limit: sysfs::host_memory_bytes() / 16 * 15,
        }))
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The emulated GPUs, in topology order.
    pub fn gpus(&self) -> &[EmuGpu] {
        &self.gpus
    }

    pub fn gpu(&self, gpu_id: u32) -> Option<&EmuGpu> {
        self.gpus.iter().find(|g| g.gpu_id == gpu_id)
    }

    pub(crate) fn gpu_index(&self, gpu_id: u32) -> Option<usize> {
        self.gpus.iter().position(|g| g.gpu_id == gpu_id)
    }

    /// Start and stop command processors with the queues.
    pub fn set_queue_observer(&self, observer: Option<Arc<dyn QueueObserver>>) {
        *self.observer.lock().unwrap_or_else(|e| e.into_inner()) = observer;
    }

    pub(crate) fn observer(&self) -> Option<Arc<dyn QueueObserver>> {
        self.observer.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Every live allocation, by handle.
    /// Changes each time allocations or GPU mappings change.
    pub fn memory_epoch(&self) -> u64 {
        self.mem_epoch.load(std::sync::atomic::Ordering::Acquire)
    }

    pub(crate) fn memory_changed(&self) {
        self.mem_epoch.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    pub fn allocations(&self) -> Vec<Allocation> {
        self.lock().proc.allocs.values().cloned().collect()
    }

    /// The allocation whose VA range holds `va` (on any GPU).
    pub fn allocation_containing(&self, va: u64) -> Option<Allocation> {
        self.lock().proc.allocs.values().find(|a| a.contains(va)).cloned()
    }

    /// What GPU `gpu_id` reaches at `va` through its VM: the allocation mapped there, if any.
    /// Accesses outside every mapped allocation are page faults.
    pub fn mapped_allocation(&self, gpu_id: u32, va: u64) -> Option<Allocation> {
        self.lock().proc.allocs.values().find(|a| a.contains(va) && a.is_mapped_on(gpu_id)).cloned()
    }

    /// Every live queue, by id.
    pub fn queues(&self) -> Vec<EmuQueue> {
        self.lock().proc.queues.values().cloned().collect()
    }

    pub fn queue(&self, queue_id: u32) -> Option<EmuQueue> {
        self.lock().proc.queues.get(&queue_id).cloned()
    }

    /// The queue whose doorbell is `doorbell_id` of GPU `gpu_id`'s window.
    pub fn queue_by_doorbell(&self, gpu_id: u32, doorbell_id: u32) -> Option<EmuQueue> {
        self.lock().proc.queues.values().find(|q| q.gpu_id == gpu_id && q.doorbell_id == doorbell_id).cloned()
    }

    /// The process rang the doorbell at `addr` (an address in one of its doorbell mappings):
    /// wake the engine of the queue behind it. An address no queue's doorbell has is ignored,
    /// as the hardware ignores a write to an unused doorbell.
    pub(crate) fn doorbell_rung(&self, addr: usize) {
        let queue_id = {
            let st = self.lock();
            let slice = queues::DOORBELL_PROCESS_SLICE as usize;
            let hit = st.proc.pdds.iter().enumerate().find_map(|(gi, pdd)| {
                pdd.doorbell_maps.iter().find(|&&b| (b..b + slice).contains(&addr)).map(|&b| (gi, addr - b))
            });
            hit.and_then(|(gi, offset)| {
                let gpu_id = self.gpus[gi].gpu_id;
                st.proc.queues.values().find(|q| q.gpu_id == gpu_id && q.doorbell_id as usize * 8 == offset)
            })
            .map(|q| q.queue_id)
        };
        if let (Some(id), Some(observer)) = (queue_id, self.observer()) {
            observer.doorbell_rung(id);
        }
    }

    /// The emulator's address of GPU `gpu_id`'s doorbell window (0x2000 bytes), once it exists.
    pub fn doorbell_window(&self, gpu_id: u32) -> Option<usize> {
        let i = self.gpu_index(gpu_id)?;
        self.lock().proc.pdds[i].doorbells.map(|(_, view)| view)
    }

    /// The emulator's address of a signal event's slot in the event page.
    pub fn event_slot(&self, event_id: u32) -> Option<usize> {
        let st = self.lock();
        let page = st.proc.signal_page.as_ref()?;
        let ev = st.proc.events.get(&event_id)?;
        (ev.is_signal() && (event_id as u64) * 8 < page.mapped_size).then(|| page.slot_addr(event_id))
    }

    /// Fire a signal event directly (as SET_EVENT does). False if there is no such event.
    pub fn signal_event(&self, event_id: u32) -> bool {
        let fired = self.lock().proc.set_event(event_id);
        self.events_cv.notify_all();
        fired
    }

    /// An end-of-pipe interrupt from GPU `gpu_id` (a RELEASE_MEM with an interrupt, an SDMA
    /// trap): fire the signal event `context_id` if its slot was written, or with `None` (or
    /// when that slot is clean) every signal event whose slot the GPU wrote. Returns how many
    /// events fired.
    pub fn signal_interrupt(&self, gpu_id: u32, context_id: Option<u32>) -> usize {
        let _ = gpu_id; // one process: every GPU's interrupts reach the same events
        let mut st = self.lock();
        let p = &mut st.proc;
        let mut fired = 0;
        if let (Some(id), Some(page)) = (context_id, p.signal_page.clone()) {
            let written = p.events.get(&id).is_some_and(|e| e.is_signal())
                && (id as u64) * 8 < page.mapped_size
                // SAFETY: the slot lies inside the live event page view.
                && unsafe { memory::read_u64(page.slot_addr(id)) } != events::UNSIGNALED_EVENT_SLOT;
            if written {
                p.set_event_from_interrupt(id);
                fired = 1;
            }
        }
        if fired == 0 {
            fired = p.scan_signal_slots();
        }
        drop(st);
        self.events_cv.notify_all();
        fired
    }

    /// A GPU page fault, as the interrupt handler reports it: every memory event of the process
    /// gets the fault data and fires.
    pub fn report_memory_fault(&self, gpu_id: u32, fault: MemoryFaultReport) {
        let mut st = self.lock();
        let data = abi::kfd_hsa_memory_exception_data {
            failure: abi::kfd_memory_exception_failure {
                NotPresent: fault.not_present as u32,
                ReadOnly: fault.read_only as u32,
                NoExecute: fault.no_execute as u32,
                imprecise: fault.imprecise as u32,
            },
            va: fault.va & !(memory::PAGE - 1),
            gpu_id,
            ErrorType: fault.error_type,
        };
        let ids: Vec<u32> =
            st.proc.events.values().filter(|e| e.kind == abi::KFD_IOC_EVENT_MEMORY).map(|e| e.id).collect();
        for id in ids {
            if let Some(ev) = st.proc.events.get_mut(&id) {
                ev.memory = data;
            }
            st.proc.set_event(id);
        }
        drop(st);
        log::debug!("emulated KFD: GPU {gpu_id} memory fault at {:#x}", fault.va);
        self.events_cv.notify_all();
    }

    /// A GPU reset: hardware-exception events get the data and fire (and memory events too,
    /// after an ECC error), as kfd_signal_reset_event does.
    pub fn report_hw_exception(&self, gpu_id: u32, exc: HwExceptionReport) {
        let mut st = self.lock();
        let hw = abi::kfd_hsa_hw_exception_data {
            reset_type: if exc.whole_gpu_reset {
                abi::KFD_HW_EXCEPTION_WHOLE_GPU_RESET
            } else {
                abi::KFD_HW_EXCEPTION_PER_ENGINE_RESET
            },
            reset_cause: if exc.ecc { abi::KFD_HW_EXCEPTION_ECC } else { abi::KFD_HW_EXCEPTION_GPU_HANG },
            memory_lost: exc.memory_lost as u32,
            gpu_id,
        };
        let mem = abi::kfd_hsa_memory_exception_data {
            failure: abi::kfd_memory_exception_failure { imprecise: 1, ..Default::default() },
            gpu_id,
            ..Default::default()
        };
        let ids: Vec<(u32, u32)> = st.proc.events.values().map(|e| (e.id, e.kind)).collect();
        for (id, kind) in ids {
            let fire = match kind {
                abi::KFD_IOC_EVENT_HW_EXCEPTION => {
                    st.proc.events.get_mut(&id).expect("listed").hw = hw;
                    true
                }
                abi::KFD_IOC_EVENT_MEMORY if exc.ecc => {
                    st.proc.events.get_mut(&id).expect("listed").memory = mem;
                    true
                }
                _ => false,
            };
            if fire {
                st.proc.set_event(id);
            }
        }
        drop(st);
        self.events_cv.notify_all();
    }
}

impl Drop for EmuKfd {
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        kfd::teardown_views(st);
    }
}
