//! The emulated NVIDIA GPU: an emulated RM and UVM behind the OS boundary ([`EmuRm`]), GPFIFO
//! channel processors, and a PTX interpreter that runs the kernels.
//!
//! [`EmuRm`] serves `/proc/driver/nvidia` (a 580-branch open-module version and one
//! `gpus/<bdf>/information` per GPU), `/sys/bus/pci/devices/<bdf>/device`, and the device nodes
//! `/dev/nvidiactl`, `/dev/nvidia<N>` and `/dev/nvidia-uvm` with the RM escapes and UVM requests
//! the real driver (`drivers::nv`) issues. It decodes the very structs `drivers::nv::rm` defines
//! (in the layout of the branch its version string names) and answers bad input with the RM
//! status codes RM would use. Memory is real shared memory: every RM memory object is a range
//! of the machine's arena (`emu::os::arena`, shared with the AMD emulator), so the driver's CPU
//! mapping (an mmap of the fd that NV_ESC_RM_MAP_MEMORY prepared) and the emulator's own view
//! are the same pages; OS
//! descriptors are the caller's pages themselves. GPU mappings (NV_ESC_RM_MAP_MEMORY_DMA and
//! UVM_MAP_EXTERNAL_ALLOCATION) enter a VA → host table that the channel processors and kernels
//! translate through, so a GPU access outside every mapping is a fault naming the VA.
//!
//! The usermode page (HOPPER_USERMODE_A ...) is a shared page too; a watcher thread notices
//! doorbell writes at +0x90 and kicks the channels, whose processor threads
//! ([`channel`]) then read GPPut from USERD and execute the GP entries up to it.
//!
//! How a kernel reaches the emulated GPU: the emulated GPU runs PTX, not SASS. The program
//! address of a QMD points at an emulated code image ([`program`]): a 32-byte header (magic
//! `BGPTX\0\0\1`, the entry name and PTX text lengths) followed by the entry name and the PTX
//! text. A runtime targeting `emu-nv` uploads that image where it would upload a cubin; the
//! channel processor parses the PTX at launch (parsed modules are cached by content) and runs
//! the named `.entry` with its parameters read from constant bank 0 at the generation's
//! parameter offset (0x160 sm_8x, 0x210 sm_90, 0x380 Blackwell), exactly where a cubin's
//! kernel would find them.

mod channel;
mod events;
mod fault;
pub mod gpus;
pub use baregpu_drivers::nv::ptx_image as program;
pub mod ptx;
pub mod qmd;
mod rm;
mod teardown;
mod uvm;

pub use gpus::NvGpuSpec;
pub use ptx::mem::{GlobalMemory, GpuMemory, HostMemory, Region};

use crate::os::arena::Arena;
use crate::os::{emulated_os, FileTable, Machine, MmapRequest};
use baregpu_drivers::nv::rm::common::Handle;
use baregpu_drivers::nv::rm::Branch;
use baregpu_drivers::os::{DoorbellValue, Fd, HostOs};
use baregpu_drivers::{Error, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// The driver version the emulated kernel module reports (an open-module 580 release).
pub const DRIVER_VERSION: &str = "580.95.05";
pub const PROC_VERSION: &str = "/proc/driver/nvidia/version";
const CTL_PATH: &str = "/dev/nvidiactl";
const UVM_PATH: &str = "/dev/nvidia-uvm";
/// Virtual fd numbers start here, far from the host's own (and the emulated KFD's).
const FIRST_FD: i32 = 0x5000_0000;
/// Size of the usermode (doorbell) object.
pub const USERMODE_SIZE: u64 = 0x10000;
/// `NVC361_NOTIFY_CHANNEL_PENDING`.
pub const DOORBELL_OFFSET: usize = 0x90;
/// What the doorbell word holds while no ring is pending (the watcher swaps it back in).
const DOORBELL_IDLE: u32 = u32::MAX;

/// One emulated GPU of the machine.
#[derive(Debug, Clone)]
pub struct EmuNvGpu {
    pub spec: NvGpuSpec,
    pub index: usize,
    pub minor: u32,
    pub pci_bdf: String,
    /// NV_ESC_CARD_INFO's `gpu_id`.
    pub gpu_id: u32,
    pub uuid: [u8; 16],
}

impl EmuNvGpu {
    /// `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
    pub fn uuid_string(&self) -> String {
        let h: String = self.uuid.iter().map(|b| format!("{b:02x}")).collect();
        format!("GPU-{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
    }
}

/// A fault the emulated GPU reported (a kernel's bad access or illegal instruction, a bad
/// push buffer, a GPU access to unmapped memory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvFault {
    /// The channel's work-submit token.
    pub channel: u32,
    pub message: String,
}

/// Where an RM memory object's bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backing {
    /// A range of the arena (VRAM, RM system memory, the usermode page), with the emulator's
    /// own view of it.
    Arena { off: u64, view: usize },
    /// The caller's pages (NV01_MEMORY_SYSTEM_OS_DESCRIPTOR).
    Host { addr: usize },
}

impl Backing {
    pub(crate) fn host(&self) -> usize {
        match *self {
            Backing::Arena { view, .. } => view,
            Backing::Host { addr } => addr,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) enum ObjKind {
    Client,
    Device {
        gpu: usize,
    },
    Subdevice {
        gpu: usize,
    },
    Usermode {
        gpu: usize,
        backing: Backing,
    },
    VaSpace,
    Virtual,
    Memory {
        gpu: usize,
        class: u32,
        size: u64,
        backing: Backing,
    },
    ChannelGroup {
        enabled: bool,
    },
    CtxShare,
    Channel(Box<ChannelInfo>),
    /// A compute or copy object on a channel.
    Engine,
    /// An NV01_EVENT_OS_EVENT: notifier `index` of subdevice GPU `gpu`, posted to file `fd`.
    OsEvent {
        gpu: usize,
        index: u32,
        fd: i32,
    },
    /// A GT200_DEBUGGER session on the compute object of `channel`.
    Debugger {
        channel: Handle,
    },
}

#[derive(Debug, Clone)]
pub(crate) struct ChannelInfo {
    pub gpu: usize,
    pub token: u32,
    pub ring_va: u64,
    pub entries: u32,
    /// The emulator's address of USERD.
    pub userd: usize,
    pub group: Handle,
    /// The emulator's address of the channel's error notifier (an NvNotification array).
    pub error_notifier: usize,
    /// The memory objects of USERD and the error notifier, which the processor reaches
    /// without translation.
    pub pins: [Handle; 2],
}

#[derive(Debug, Clone)]
pub(crate) struct Obj {
    pub parent: Handle,
    pub class: u32,
    pub kind: ObjKind,
}

/// One GPU mapping: `len` bytes at a GPU VA, reached at `host` by the emulator.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GpuMap {
    pub len: u64,
    pub host: usize,
    pub memory: Handle,
}

/// A device node of the emulated RM machine.
#[derive(Debug, Clone)]
pub(crate) enum NvFile {
    Ctl,
    Dev { gpu: usize, registered: bool },
    Uvm { initialized: bool },
}

/// What NV_ESC_RM_MAP_MEMORY prepared on an fd: the next mmap of it at offset 0 maps this.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MmapContext {
    pub backing: Backing,
    pub len: u64,
}

pub(crate) struct State {
    pub files: FileTable<NvFile>,
    pub mmap_ctx: HashMap<i32, MmapContext>,
    pub objects: HashMap<Handle, Obj>,
    pub next_handle: u32,
    pub next_client: u32,
    pub next_token: u32,
    pub arena: Arena,
    pub vram_used: Vec<u64>,
    pub gpu_maps: BTreeMap<u64, GpuMap>,
    /// UVM external ranges: base → length.
    pub uvm_ranges: BTreeMap<u64, u64>,
    pub uvm_gpus: Vec<[u8; 16]>,
    /// Where DMA mappings without a fixed offset go.
    pub next_dma_va: u64,
    pub channels: HashMap<Handle, Arc<channel::ChannelCtl>>,
    /// Channel processors inside a busy window (see [`teardown`]).
    pub busy: usize,
    /// Freed arena ranges waiting for the busy windows to close.
    pub pending: Vec<teardown::Freed>,
}

pub(crate) struct Inner {
    pub gpus: Vec<EmuNvGpu>,
    pub version: String,
    pub branch: Branch,
    pub state: Mutex<State>,
    pub stop: AtomicBool,
    /// Doorbell words being watched (emulator addresses). The watcher holds the lock while it
    /// reads them.
    pub doorbells: Mutex<Vec<usize>>,
    pub nonstall: AtomicU64,
    /// Event files and the armed notifiers that post to them.
    pub events: events::Events,
    /// Every engine write of the machine (all its GPUs), which ends semaphore acquires.
    pub writes: crate::memory_wait::Writes,
    /// Doorbell rings the watcher caught (plain stores, not `Os::ring_doorbell`).
    pub watched_rings: AtomicU64,
    pub faults: Mutex<Vec<NvFault>>,
    /// What each channel's faulting kernel left for the SM debugger, by work-submit token.
    pub fault_records: Mutex<HashMap<u32, fault::Record>>,
    pub modules: Mutex<HashMap<u64, Arc<ptx::Module>>>,
    /// The doorbell watcher.
    pub threads: Mutex<Vec<JoinHandle<()>>>,
    /// CTAs retired by every launch: progress a host wait can see inside one long kernel. The
    /// PTX interpreter counts no instructions (see `crate::work`), so waits on this GPU fall
    /// back on the wall clock when nothing retires.
    pub work: crate::work::WorkCounter,
}

/// The emulated RM and UVM with their GPUs: an [`Os`](baregpu_drivers::os::Os) to hand to `drivers::nv`.
pub struct EmuRm {
    inner: Arc<Inner>,
    host: HostOs,
}

impl std::fmt::Debug for EmuRm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmuRm").field("gpus", &self.inner.gpus).field("version", &self.inner.version).finish()
    }
}

impl EmuRm {
    /// A machine with one emulated GPU per entry of `archs` (`sm_90`, `sm_89`, `sm_120`; an
    /// `emu-nv:` prefix is accepted), behind a 580-branch driver.
    pub fn new(archs: &[&str]) -> Result<Arc<EmuRm>> {
        Self::with_version(archs, DRIVER_VERSION)
    }

    /// CTAs retired by every kernel so far (see `runtime::timeout::ProgressProbe`).
    pub fn ctas_retired(&self) -> u64 {
        self.inner.work.retired()
    }

    /// As [`EmuRm::new`] with another driver version (any branch `drivers::nv` speaks): the RM
    /// then checks argument sizes against that branch's layouts.
    pub fn with_version(archs: &[&str], version: &str) -> Result<Arc<EmuRm>> {
        let branch = Branch::from_version(version)?;
        let mut gpus = Vec::new();
        for (i, arch) in archs.iter().enumerate() {
            let spec = NvGpuSpec::for_arch(arch).ok_or_else(|| {
                Error::Unsupported(format!("emulated RM: no emulated NVIDIA GPU {arch:?} (sm_90, sm_89, sm_120)"))
            })?;
            let mut uuid = [0u8; 16];
            let tag = format!("emu{:04x}{i:02x}{}", spec.pci_device_id, spec.arch);
            for (k, b) in tag.bytes().enumerate() {
                uuid[k % 16] ^= b.rotate_left(k as u32);
            }
            uuid[6] = (uuid[6] & 0x0f) | 0x40;
            gpus.push(EmuNvGpu {
                spec,
                index: i,
                minor: i as u32,
                pci_bdf: format!("0000:{:02x}:00.0", 0x19 + i * 0x10),
                gpu_id: ((0x19 + i as u32 * 0x10) << 8),
                uuid,
            });
        }
        let arena = Arena::new().map_err(|e| Error::sys("emulated RM: creating its memory", e))?;
        let state = State {
            files: FileTable::new(FIRST_FD),
            mmap_ctx: HashMap::new(),
            objects: HashMap::new(),
            next_handle: 0,
            next_client: 0,
            next_token: 0,
            arena,
            vram_used: vec![0; gpus.len()],
            gpu_maps: BTreeMap::new(),
            uvm_ranges: BTreeMap::new(),
            uvm_gpus: Vec::new(),
            next_dma_va: 0x2000_0000_0000,
            channels: HashMap::new(),
            busy: 0,
            pending: Vec::new(),
        };
        let inner = Arc::new(Inner {
            gpus,
            version: version.to_string(),
            branch,
            state: Mutex::new(state),
            stop: AtomicBool::new(false),
            doorbells: Mutex::new(Vec::new()),
            nonstall: AtomicU64::new(0),
            events: Default::default(),
            writes: Default::default(),
            watched_rings: AtomicU64::new(0),
            faults: Mutex::new(Vec::new()),
            fault_records: Mutex::new(HashMap::new()),
            modules: Mutex::new(HashMap::new()),
            threads: Mutex::new(Vec::new()),
            work: Default::default(),
        });
        let watcher = {
            let inner = inner.clone();
            std::thread::Builder::new()
                .name("emu-nv doorbells".into())
                .spawn(move || channel::watch_doorbells(&inner))
                .map_err(|e| Error::sys("emulated RM: starting the doorbell watcher", e))?
        };
        inner.threads.lock().unwrap_or_else(|e| e.into_inner()).push(watcher);
        Ok(Arc::new(EmuRm { inner, host: HostOs::new() }))
    }

    pub fn gpus(&self) -> &[EmuNvGpu] {
        &self.inner.gpus
    }

    /// What the doorbells of the live channels did so far, summed (see [`crate::doorbell`]).
    pub fn doorbell_stats(&self) -> crate::doorbell::BellStats {
        let st = self.inner.lock();
        st.channels.values().map(|c| c.bell.stats()).fold(Default::default(), |a, b| crate::doorbell::BellStats {
            parks: a.parks + b.parks,
            doorbell_wakes: a.doorbell_wakes + b.doorbell_wakes,
            timeouts: a.timeouts + b.timeouts,
        })
    }

    /// What the semaphore acquires of the live channels did so far, summed.
    pub fn wait_stats(&self) -> crate::memory_wait::MemoryWaitStats {
        let st = self.inner.lock();
        st.channels.values().map(|c| c.waits.stats()).fold(Default::default(), crate::memory_wait::WaitCounters::add)
    }

    /// The machine's engine writes (see [`crate::memory_wait`]).
    pub fn memory_writes(&self) -> &crate::memory_wait::Writes {
        &self.inner.writes
    }

    /// Doorbell rings that only the doorbell watcher noticed: plain stores to the doorbell
    /// word that bypassed `Os::ring_doorbell` (they wait for the watcher's next look).
    pub fn watched_rings(&self) -> u64 {
        self.inner.watched_rings.load(Ordering::Relaxed)
    }

    /// Non-stall interrupts the channels raised so far (NON_STALL_INTERRUPT, copy-engine and
    /// QMD interrupts).
    pub fn nonstall_interrupts(&self) -> u64 {
        self.inner.nonstall.load(Ordering::Acquire)
    }

    /// Non-stall interrupts that were posted to at least one OS event file.
    pub fn posted_events(&self) -> u64 {
        self.inner.events.posted.load(Ordering::Relaxed)
    }

    /// Faults reported so far.
    pub fn faults(&self) -> Vec<NvFault> {
        self.inner.faults.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The emulator's address of GPU VA `va` (`len` bytes inside one mapping), for tests and
    /// tools that look at GPU memory from the GPU's side.
    pub fn gpu_host_ptr(&self, va: u64, len: u64) -> Option<*mut u8> {
        self.inner.translate(va, len).map(|a| a as *mut u8)
    }
}

impl Drop for EmuRm {
    fn drop(&mut self) {
        self.inner.shut_down();
    }
}

impl Inner {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The emulator's address of `len` bytes at GPU VA `va`, inside one GPU mapping.
    pub(crate) fn translate(&self, va: u64, len: u64) -> Option<usize> {
        let st = self.lock();
        translate_in(&st.gpu_maps, va, len)
    }

    /// A snapshot of every GPU mapping, for a kernel launch.
    pub(crate) fn gpu_regions(&self) -> GpuMemory {
        let st = self.lock();
        GpuMemory::new(st.gpu_maps.iter().map(|(va, m)| Region { va: *va, len: m.len, host: m.host }).collect())
    }

    pub(crate) fn fault(&self, channel: u32, message: String) {
        // The host reports it (RM's notifier and SM debugger carry the cause): one line by
        // default, this one for BAREGPU_LOG.
        log::debug!("emulated NV GPU: channel {channel}: {message}");
        self.faults.lock().unwrap_or_else(|e| e.into_inner()).push(NvFault { channel, message });
    }

    /// Keep what the SM debugger will report about a kernel fault on channel `token` of `gpu`.
    /// Lock order: the state, then the records (as the debugger controls take them).
    pub(crate) fn record_kernel_fault(&self, token: u32, gpu: usize, e: &ptx::LaunchError) {
        let st = self.lock();
        let mut records = self.fault_records.lock().unwrap_or_else(|e| e.into_inner());
        records.entry(token).or_default().add(e, self.gpus[gpu].spec.sm_count, &st.gpu_maps);
    }

    /// Wake every channel processor to look at its GPPut.
    /// A doorbell write of `token`: wake that channel's processor (none has it: ignored, as
    /// the hardware ignores an unknown token).
    pub(crate) fn kick_token(&self, token: u32) {
        let st = self.lock();
        if let Some(ch) = st.channels.values().find(|c| c.token == token) {
            ch.kick();
        }
    }

    pub(crate) fn kick_all(&self) {
        let st = self.lock();
        for ch in st.channels.values() {
            ch.kick();
        }
    }
}

pub(crate) fn translate_in(maps: &BTreeMap<u64, GpuMap>, va: u64, len: u64) -> Option<usize> {
    let (base, m) = maps.range(..=va).next_back()?;
    let end = va.checked_add(len)?;
    (end <= base + m.len).then(|| m.host + (va - base) as usize)
}

impl EmuRm {
    fn proc_file(&self, path: &Path) -> Option<String> {
        let p = path.to_str()?;
        if p == PROC_VERSION {
            return Some(format!(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  {}  Release Build  (baregpu-emu)\n\
                 GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n",
                self.inner.version
            ));
        }
        for g in &self.inner.gpus {
            if p == format!("/proc/driver/nvidia/gpus/{}/information", g.pci_bdf) {
                return Some(format!(
                    "Model: \t\t {}\nIRQ:   \t\t 0\nGPU UUID: \t {}\nVideo BIOS: \t ??.??.??.??.??\nBus Type: \t PCIe\n\
                     DMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\nBus Location: \t {}\nDevice Minor: \t {}\n\
                     GPU Firmware: \t {}\nGPU Excluded:\t No\n",
                    g.spec.model,
                    g.uuid_string(),
                    g.pci_bdf,
                    g.minor,
                    self.inner.version
                ));
            }
            if p == format!("/sys/bus/pci/devices/{}/device", g.pci_bdf) {
                return Some(format!("{:#06x}\n", g.spec.pci_device_id));
            }
            if p == format!("/sys/bus/pci/devices/{}/vendor", g.pci_bdf) {
                return Some("0x10de\n".into());
            }
        }
        None
    }

    fn dir(&self, path: &Path) -> Option<Vec<String>> {
        let p = path.to_str()?.trim_end_matches('/');
        let mut names: Vec<String> = match p {
            "/proc/driver/nvidia" => vec!["gpus".into(), "version".into()],
            "/proc/driver/nvidia/gpus" => self.inner.gpus.iter().map(|g| g.pci_bdf.clone()).collect(),
            "/sys/bus/pci/devices" => self.inner.gpus.iter().map(|g| g.pci_bdf.clone()).collect(),
            _ => {
                let g = self.inner.gpus.iter().find(|g| {
                    p == format!("/proc/driver/nvidia/gpus/{}", g.pci_bdf)
                        || p == format!("/sys/bus/pci/devices/{}", g.pci_bdf)
                })?;
                if p.starts_with("/proc") {
                    vec!["information".into()]
                } else {
                    let _ = g;
                    vec!["device".into(), "vendor".into()]
                }
            }
        };
        names.sort();
        Some(names)
    }

    fn dev_index(&self, path: &Path) -> Option<usize> {
        let minor: u32 = path.to_str()?.strip_prefix("/dev/nvidia")?.parse().ok()?;
        self.inner.gpus.iter().position(|g| g.minor == minor)
    }

    /// An mmap of a device node: what NV_ESC_RM_MAP_MEMORY prepared on that fd.
    fn map_context(&self, fd: Fd, req: MmapRequest) -> std::result::Result<usize, i32> {
        let st = self.inner.lock();
        let ctx = st.mmap_ctx.get(&fd.0).copied().ok_or(libc::EINVAL)?;
        if req.offset != 0 || req.len == 0 || req.len as u64 > ctx.len {
            return Err(libc::EINVAL);
        }
        match ctx.backing {
            Backing::Arena { off, .. } => st.arena.map(off, req.len as u64, req.prot, req.fixed()),
            // RM maps OS descriptors back to their own pages: not needed by the driver.
            Backing::Host { .. } => Err(libc::EINVAL),
        }
    }
}

impl Machine for EmuRm {
    type Node = NvFile;

    fn host(&self) -> &HostOs {
        &self.host
    }

    fn with_files<R>(&self, f: impl FnOnce(&mut FileTable<NvFile>) -> R) -> R {
        f(&mut self.inner.lock().files)
    }

    fn text(&self, path: &Path) -> Option<String> {
        self.proc_file(path)
    }

    fn dir(&self, path: &Path) -> Option<Vec<String>> {
        EmuRm::dir(self, path)
    }

    fn node(&self, path: &Path) -> Option<NvFile> {
        if path == Path::new(CTL_PATH) {
            Some(NvFile::Ctl)
        } else if path == Path::new(UVM_PATH) {
            Some(NvFile::Uvm { initialized: false })
        } else {
            self.dev_index(path).map(|gpu| NvFile::Dev { gpu, registered: false })
        }
    }

    fn node_path(&self, node: &NvFile) -> PathBuf {
        match node {
            NvFile::Ctl => PathBuf::from(CTL_PATH),
            NvFile::Dev { gpu, .. } => PathBuf::from(format!("/dev/nvidia{}", self.inner.gpus[*gpu].minor)),
            NvFile::Uvm { .. } => PathBuf::from(UVM_PATH),
        }
    }

    fn node_ioctl(&self, fd: Fd, node: &NvFile, request: u32, arg: &mut [u8]) -> std::result::Result<i32, i32> {
        match node {
            NvFile::Ctl | NvFile::Dev { .. } => rm::escape(&self.inner, fd, node, request, arg),
            NvFile::Uvm { .. } => uvm::request(&self.inner, fd, request, arg),
        }
    }

    fn node_mmap(&self, fd: Fd, _node: &NvFile, req: MmapRequest) -> std::result::Result<usize, i32> {
        self.map_context(fd, req)
    }

    /// The usermode page's doorbell (NOTIFY_CHANNEL_PENDING) is a register, not memory: a
    /// 32-bit write of a work-submit token wakes that channel's processor. Anything else is a
    /// plain store (the doorbell watcher sees it).
    unsafe fn ring_doorbell(&self, addr: usize, value: DoorbellValue) {
        match value {
            DoorbellValue::U32(token) => self.inner.kick_token(token),
            // SAFETY: the caller's contract.
            DoorbellValue::U64(_) => unsafe { value.store(addr) },
        }
    }

    fn node_closed(&self, fd: Fd, _node: NvFile) {
        self.inner.lock().mmap_ctx.remove(&fd.0);
        self.inner.events.closed(fd.0);
    }

    /// An event file is ready when RM posted an event to it (see [`events`]).
    fn node_poll_in(&self, fd: Fd, _node: &NvFile, timeout: std::time::Duration) -> std::result::Result<bool, i32> {
        Ok(self.inner.events.poll(fd.0, timeout))
    }
}

emulated_os!(EmuRm);

/// Volatile access to memory the GPU and the CPU share.
///
/// # Safety
/// `addr` must be a live, 4-byte aligned emulator address.
pub(crate) unsafe fn read_u32(addr: usize) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { (*(addr as *const AtomicU32)).load(Ordering::Acquire) }
}

/// # Safety
/// As [`read_u32`].
pub(crate) unsafe fn write_u32(addr: usize, v: u32) {
    // SAFETY: the caller's contract.
    unsafe { (*(addr as *const AtomicU32)).store(v, Ordering::Release) }
}
