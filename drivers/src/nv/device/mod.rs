//! Bringing up one NVIDIA GPU through RM and UVM, and its memory.
//!
//! The sequence (each step's failure is an error naming the call, and everything done before it
//! is undone by dropping what was built — the RM client's free takes every RM object with it):
//!
//! 1. root client on /dev/nvidiactl; NV_ESC_CARD_INFO; /dev/nvidiaN opened and registered;
//! 2. NV0000 GPU_GET_ID_INFO_V2 → device (NV01_DEVICE_0) and subdevice (NV20_SUBDEVICE_0);
//! 3. MC_GET_ARCH_INFO (the generation), GET_CLASSLIST_V2 (the classes), GET_GID_INFO (the
//!    UUID UVM wants), GR_GET_INFO (SM version and counts), PERF_BOOST (best effort);
//! 4. the usermode object (doorbell page) allocated and mapped;
//! 5. FERMI_VASPACE_A (externally owned, page faulting) and an NV01_MEMORY_VIRTUAL for DMA maps;
//! 6. UVM: INITIALIZE, MM_INITIALIZE, REGISTER_GPU, REGISTER_GPU_VASPACE;
//! 7. a channel group (KEPLER_CHANNEL_GROUP_A) with one context share, the GPFIFO rings and
//!    USERD in one CPU-visible VRAM allocation, and two GPFIFO channels — compute and copy —
//!    each with its engine object, work-submit token and UVM channel registration;
//! 8. NVA06C GPFIFO_SCHEDULE enables the group.
//!
//! After a channel error, [`NvDevice::fault_report`] asks RM's SM debugger (GT200_DEBUGGER,
//! allocated on first use) where the kernel faulted.
//!
//! Memory gets the same address on the CPU and the GPU: every device reserves a window of
//! process address space below 2^40 (push buffers and QMDs must sit below 2^40, see
//! [`crate::nv::pushbuf`]), and allocations are carved from it, mapped for the CPU with
//! MAP_FIXED where they are CPU-visible, and for the GPU through UVM_CREATE_EXTERNAL_RANGE,
//! NV_ESC_RM_MAP_MEMORY_DMA (at that fixed offset) and UVM_MAP_EXTERNAL_ALLOCATION. The
//! window ([`crate::va_window`]) keeps the channel rings, notifiers and the runtime's own memory
//! apart from user buffers, with a guard gap after every allocation.

mod bring_up;

use crate::nv::discovery::{self, NvGpu};
use crate::nv::fault::{FaultReport, MmuFault, SmError};
use crate::nv::nonstall::NonstallEvent;
use crate::nv::pushbuf;
use crate::nv::rm::classes::{self, ClassSet, Generation};
use crate::nv::rm::client::{register_fd, OwnedFd, RmClient, Uvm, NVIDIACTL};
use crate::nv::rm::common::{flags::*, *};
use crate::nv::rm::ctrl::*;
use crate::nv::rm::debugger::*;
use crate::nv::rm::ioctl::RmArg;
use crate::nv::rm::status::NV_ERR_INVALID_ARGUMENT;
use crate::nv::rm::uvm::Uuid;
use crate::nv::rm::{v580, Branch};
use crate::os::{MapFlags, Os, Prot};
use crate::va_window::{Placement, VaWindow, VA_ALIGN};
use crate::{Error, Result};
use bring_up::{gpu_uuid, gr_info, map_doorbell_page};
use std::sync::{Arc, Mutex};

pub use crate::va_window::{VA_WINDOW_BASE, VA_WINDOW_SIZE};
/// Windows stay below 2^40: GP_ENTRY1_GET_HI is 8 bits and SEND_PCAS_A takes `addr >> 8` in 32.
pub const VA_LIMIT: u64 = 1 << 40;
/// Size of the usermode object's mapping (`NVC361_NV_USERMODE__SIZE`, `clc361.h`).
pub const USERMODE_SIZE: usize = 0x10000;
/// The doorbell: `NVC361_NOTIFY_CHANNEL_PENDING` (`clc361.h`), written with a work-submit token.
pub const DOORBELL_OFFSET: usize = 0x90;
/// GPFIFO entries per channel.
pub const GPFIFO_ENTRIES: u32 = 0x8000;
/// USERD (`Nvc56fControl`/`Nvc86fControl`): 0x200 bytes after each ring.
pub const USERD_SIZE: u64 = 0x200;
/// VA UVM may use for each channel's internal buffers (UVM_REGISTER_CHANNEL).
pub const CHANNEL_UVM_RANGE: u64 = 0x400_0000;
const PAGE: u64 = 0x1000;
/// The error notifier of a channel (NvNotification array; RM only bounds-checks its size).
const NOTIFIER_SIZE: u64 = 0x1000;

/// What GR reports about the GPU's shape (NV2080_CTRL_CMD_GR_GET_INFO).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GrInfo {
    /// Such as 0x900 (sm_90) or 0xa04 (GB20x, sm_120).
    pub sm_version: u32,
    pub max_warps_per_sm: u32,
    pub gpcs: u32,
    pub tpc_per_gpc: u32,
    pub sm_per_tpc: u32,
}

impl GrInfo {
    /// The compute capability name, `sm_90`. GB20x reports 0xa04 and is sm_120.
    pub fn arch(&self) -> String {
        if self.sm_version == 0xa04 {
            return "sm_120".into();
        }
        format!("sm_{}{}", (self.sm_version >> 8) & 0xff, self.sm_version & 0xf)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvMemKind {
    /// Video memory (NV01_MEMORY_LOCAL_USER); `cpu_visible` maps it through BAR1.
    Vram { cpu_visible: bool },
    /// Uncached system memory from RM (NV01_MEMORY_SYSTEM), mapped for the CPU.
    System,
    /// Ordinary anonymous process memory the GPU maps (NV01_MEMORY_SYSTEM_OS_DESCRIPTOR).
    Host,
}

/// One allocation, at the same address for the CPU (if mapped) and the GPU. Free it with
/// [`NvDevice::free`]; dropping it only closes its mapping fd (RM frees the object with the
/// client).
#[derive(Debug)]
pub struct NvMemory {
    pub va: u64,
    pub size: u64,
    pub kind: NvMemKind,
    pub handle: Handle,
    pub cpu_mapped: bool,
    /// NV_ESC_RM_MAP_MEMORY's address token, for the unmap.
    linear: Option<u64>,
    /// The fd the CPU mapping was made through; it must outlive the mapping.
    map_fd: Option<OwnedFd>,
}

/// A GPFIFO channel with its engine object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    pub handle: Handle,
    /// The GPFIFO class (HOPPER_CHANNEL_GPFIFO_A ...).
    pub class: u32,
    /// The compute or copy class bound to it.
    pub engine_class: u32,
    pub engine: Handle,
    pub error_notifier: Handle,
    /// CPU (and GPU) address of the error notifier: RM fills its NvNotification[0]
    /// (`NVC86F_NOTIFIERS_RC`) when the channel faults.
    pub error_notifier_va: u64,
    /// What the doorbell is written with.
    pub token: u32,
    /// GPU (and CPU) address of the ring of `entries` 8-byte GP entries.
    pub ring_va: u64,
    pub entries: u32,
    /// GPU (and CPU) address of USERD, right after the ring.
    pub userd_va: u64,
    /// The VA range registered with UVM_REGISTER_CHANNEL.
    pub uvm_range: (u64, u64),
}

/// What RM wrote to a channel's error notifier (`NvNotification`: time, info32, info16, status).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelError {
    /// The `ROBUST_CHANNEL_*` error code (what the kernel log calls an Xid).
    pub xid: u32,
    pub info16: u16,
    pub status: u16,
    pub time_ns: u64,
}

impl ChannelError {
    /// What the Xid means (`nverror.h`; NVIDIA's Xid catalog), for the common ones.
    pub fn describe(&self) -> String {
        let what = match self.xid {
            8 => "GPU stopped processing (timeout)",
            13 => "graphics engine exception (a kernel's illegal address or instruction)",
            31 => "GPU memory page fault (MMU)",
            32 => "invalid or corrupted push-buffer stream",
            43 => "GPU stopped processing (reset channel)",
            45 => "preemptive cleanup after an earlier error",
            68 => "video processor exception",
            69 => "graphics engine class error",
            _ => "channel error",
        };
        format!("Xid {}: {what}", self.xid)
    }
}

/// A mapping made through the OS boundary, unmapped on drop.
struct CpuMapping {
    os: Arc<dyn Os>,
    addr: usize,
    len: usize,
}

impl Drop for CpuMapping {
    fn drop(&mut self) {
        if let Err(e) = self.os.munmap(self.addr, self.len) {
            log::warn!("unmapping {:#x}: {e}", self.addr);
        }
    }
}

/// One GPU, brought up through RM. Dropping it undoes everything: CPU mappings and the address
/// window go, UVM's files close, and the RM client (and so every RM object) is freed.
pub struct NvDevice {
    pub gpu: NvGpu,
    pub branch: Branch,
    pub generation: Generation,
    pub classes: ClassSet,
    pub uuid: Uuid,
    pub gr: GrInfo,
    /// The `gpu_id` of NV_ESC_CARD_INFO.
    pub gpu_id: u32,
    pub device: Handle,
    pub subdevice: Handle,
    pub usermode: Handle,
    pub vaspace: Handle,
    pub virtmem: Handle,
    pub channel_group: Handle,
    pub ctxshare: Handle,
    /// Compute (index 0) and copy (index 1).
    pub channels: Vec<Channel>,
    /// The GT200_DEBUGGER session of each channel that had a fault report (channel → session),
    /// made on the first report: a session costs RM state, and a healthy device never needs one.
    debuggers: Mutex<Vec<(Handle, Handle)>>,
    /// The non-stall interrupt event file, made on the first [`NvDevice::wait_nonstall`]
    /// (the error, if RM refused it).
    nonstall: std::sync::OnceLock<std::result::Result<NonstallEvent, String>>,
    // Drop order is field order: mappings, then UVM, then the client, then the device fd.
    gpfifo_area: Option<NvMemory>,
    notifiers: Vec<NvMemory>,
    usermode_map: CpuMapping,
    _usermode_fd: OwnedFd,
    window: VaWindow,
    uvm: Uvm,
    client: RmClient,
    dev_fd: OwnedFd,
}

impl std::fmt::Debug for NvDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NvDevice")
            .field("gpu", &self.gpu)
            .field("branch", &self.branch)
            .field("generation", &self.generation)
            .field("classes", &self.classes)
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

fn dev_path(minor: u32) -> String {
    format!("/dev/nvidia{minor}")
}

impl NvDevice {
    /// Open `nv:index`: find the driver and the GPU, pick the RM ABI from the driver version,
    /// and bring the GPU up.
    pub fn open(os: Arc<dyn Os>, index: usize) -> Result<NvDevice> {
        let driver = discovery::driver(&*os)?.ok_or_else(|| {
            Error::Unsupported(format!(
                "nv:{index}: no NVIDIA kernel module is loaded ({} is missing)",
                discovery::PROC_NVIDIA
            ))
        })?;
        let branch = Branch::from_version(&driver.version)?;
        let gpus = discovery::discover(&*os)?;
        let count = gpus.len();
        let gpu = gpus
            .into_iter()
            .nth(index)
            .ok_or_else(|| Error::Unsupported(format!("nv:{index}: no such NVIDIA GPU ({count} found)")))?;
        Self::open_gpu(os, gpu, branch)
    }

    /// Bring up `gpu` with the RM ABI of `branch`.
    pub fn open_gpu(os: Arc<dyn Os>, gpu: NvGpu, branch: Branch) -> Result<NvDevice> {
        let name = format!("nv:{}", gpu.index);
        let client = RmClient::open(os.clone(), branch)?;
        let cards = client.card_info()?;
        let card = cards.iter().find(|c| c.minor_number == gpu.minor).copied().ok_or_else(|| {
            Error::Protocol(format!("{name}: NV_ESC_CARD_INFO lists no GPU with minor number {}", gpu.minor))
        })?;
        let dev_fd = OwnedFd::open(&os, dev_path(gpu.minor))?;
        register_fd(&*os, &dev_fd, client.ctl_fd())?;

        let mut id = NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS { gpu_id: card.gpu_id, ..Default::default() };
        client.control_with(client.handle(), NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, &mut id)?;
        let mut dev_params = NV0080_ALLOC_PARAMETERS {
            device_id: id.device_instance,
            h_client_share: client.handle(),
            va_mode: NV_DEVICE_ALLOCATION_VAMODE_OPTIONAL_MULTIPLE_VASPACES,
            ..Default::default()
        };
        let device = client.alloc_with(client.handle(), classes::NV01_DEVICE_0, &mut dev_params)?;
        let subdevice =
            client.alloc_with(device, classes::NV20_SUBDEVICE_0, &mut NV2080_ALLOC_PARAMETERS::default())?;

        let mut arch = NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS::default();
        client.control_with(subdevice, NV2080_CTRL_CMD_MC_GET_ARCH_INFO, &mut arch)?;
        let generation = Generation::from_arch_info(arch.architecture, arch.implementation)?;
        let mut list = branch.classlist_v2_params();
        client.control(device, NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, list.bytes_mut())?;
        let classes = ClassSet::select(generation, &branch.classlist_v2_result(&list)?)?;
        let uuid = gpu_uuid(&client, subdevice)?;
        let gr = gr_info(&client, subdevice)?;
        let mut boost = NV2080_CTRL_PERF_BOOST_PARAMS {
            flags: NV2080_CTRL_PERF_BOOST_FLAGS_CUDA_BOOST_TO_MAX,
            duration: NV2080_CTRL_PERF_BOOST_DURATION_INFINITE,
        };
        if let Err(e) = client.control_with(subdevice, NV2080_CTRL_CMD_PERF_BOOST, &mut boost) {
            log::debug!("{name}: no clock boost: {e}");
        }

        let (usermode, usermode_map, usermode_fd) =
            map_doorbell_page(&os, &client, gpu.minor, device, subdevice, classes.usermode)?;

        // The VA space UVM manages, and the virtual-memory object DMA mappings go through.
        let mut vas = branch.vaspace_params(&v580::NV_VASPACE_ALLOCATION_PARAMETERS {
            va_base: 0x1000,
            va_size: 0x1_ffff_fb00_0000,
            flags: NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED | NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING,
            ..Default::default()
        });
        let vaspace = client.alloc(device, None, classes::FERMI_VASPACE_A, Some(vas.bytes_mut()))?;
        let mut virt = NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS { limit: 0x1_ffff_ffff_ffff, ..Default::default() };
        let virtmem = client.alloc_with(device, classes::NV01_MEMORY_VIRTUAL, &mut virt)?;

        let uvm = Uvm::open(&os, branch)?;
        uvm.register_gpu(&uuid)?;
        uvm.register_gpu_vaspace(&uuid, &client, vaspace)?;
        let window = VaWindow::reserve(&os, VA_LIMIT)?;

        let mut tsg_params =
            NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS { engine_type: NV2080_ENGINE_TYPE_GRAPHICS, ..Default::default() };
        let channel_group = client.alloc_with(device, classes::KEPLER_CHANNEL_GROUP_A, &mut tsg_params)?;
        let mut ctx_params = NV_CTXSHARE_ALLOCATION_PARAMETERS {
            h_va_space: vaspace,
            flags: NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC,
            subctx_id: 0,
        };
        let ctxshare = client.alloc_with(channel_group, classes::FERMI_CONTEXT_SHARE_A, &mut ctx_params)?;

        let mut dev = NvDevice {
            gpu,
            branch,
            generation,
            classes,
            uuid,
            gr,
            gpu_id: card.gpu_id,
            device,
            subdevice,
            usermode,
            vaspace,
            virtmem,
            channel_group,
            ctxshare,
            channels: Vec::new(),
            debuggers: Mutex::new(Vec::new()),
            nonstall: Default::default(),
            gpfifo_area: None,
            notifiers: Vec::new(),
            usermode_map,
            _usermode_fd: usermode_fd,
            window,
            uvm,
            client,
            dev_fd,
        };

        dev.start_channels()?;
        log::info!(
            "{}: {} ({}, {}) up through RM {} (driver ABI {}); compute {}, copy {}",
            dev.name(),
            dev.gpu.model,
            dev.generation.name(),
            dev.gr.arch(),
            NVIDIACTL,
            dev.branch.name(),
            classes::describe(dev.classes.compute),
            classes::describe(dev.classes.copy)
        );
        Ok(dev)
    }

    /// The compute and copy channels in the channel group, scheduled.
    fn start_channels(&mut self) -> Result<()> {
        // Both rings and their USERD in one contiguous, CPU-visible VRAM allocation.
        let stride = (GPFIFO_ENTRIES as u64 * 8 + USERD_SIZE).next_multiple_of(VA_ALIGN);
        let area = self.alloc_inner(2 * stride, NvMemKind::Vram { cpu_visible: true }, true, Placement::Internal)?;
        let area = self.gpfifo_area.insert(area);
        let (area_handle, area_va) = (area.handle, area.va);
        for (i, engine_class) in [self.classes.compute, self.classes.copy].into_iter().enumerate() {
            let notifier = self.alloc_inner(NOTIFIER_SIZE, NvMemKind::System, false, Placement::Internal)?;
            let made = self.create_channel(area_handle, area_va, i as u64 * stride, engine_class, &notifier);
            self.notifiers.push(notifier);
            self.channels.push(made?);
        }
        let mut schedule = NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS { b_enable: 1, ..Default::default() };
        self.client.control_with(self.channel_group, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &mut schedule)?;
        Ok(())
    }

    /// `nv:0`, for errors.
    pub fn name(&self) -> String {
        format!("nv:{}", self.gpu.index)
    }

    pub fn client(&self) -> &RmClient {
        &self.client
    }

    pub fn os(&self) -> &dyn Os {
        self.client.os()
    }

    /// The CPU address of the usermode page (doorbell at [`DOORBELL_OFFSET`]).
    pub fn usermode_addr(&self) -> usize {
        self.usermode_map.addr
    }

    /// The device's address window: `(base, size)`.
    pub fn va_window(&self) -> (u64, u64) {
        (self.window.base, self.window.size)
    }

    /// The channel ring memory (both rings and USERDs).
    pub fn gpfifo_area(&self) -> Option<&NvMemory> {
        self.gpfifo_area.as_ref()
    }

    fn create_channel(
        &self,
        area: Handle,
        area_va: u64,
        offset: u64,
        engine_class: u32,
        notifier: &NvMemory,
    ) -> Result<Channel> {
        let error_notifier = notifier.handle;
        let mut p: v580::NV_CHANNEL_ALLOC_PARAMS = RmArg::zeroed();
        p.h_object_error = error_notifier;
        p.h_object_buffer = area;
        p.gp_fifo_offset = area_va + offset;
        p.gp_fifo_entries = GPFIFO_ENTRIES;
        p.h_context_share = self.ctxshare;
        p.h_userd_memory[0] = area;
        p.userd_offset[0] = offset + GPFIFO_ENTRIES as u64 * 8;
        let mut params = self.branch.channel_params(&p);
        let handle = self.client.alloc(self.channel_group, None, self.classes.gpfifo, Some(params.bytes_mut()))?;
        let engine = self.client.alloc(handle, None, engine_class, None)?;
        let mut token = NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS { work_submit_token: u32::MAX };
        self.client.control_with(handle, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &mut token)?;
        let uvm_base = self.window.take(CHANNEL_UVM_RANGE, Placement::Internal)?;
        self.uvm.register_channel(&self.uuid, &self.client, handle, uvm_base, CHANNEL_UVM_RANGE)?;
        Ok(Channel {
            handle,
            class: self.classes.gpfifo,
            engine_class,
            engine,
            error_notifier,
            error_notifier_va: notifier.va,
            token: token.work_submit_token,
            ring_va: area_va + offset,
            entries: GPFIFO_ENTRIES,
            userd_va: area_va + offset + GPFIFO_ENTRIES as u64 * 8,
            uvm_range: (uvm_base, CHANNEL_UVM_RANGE),
        })
    }

    /// Class and NV_MEMORY_ALLOCATION_PARAMS of an RM allocation (the values tinygrad drives
    /// every supported generation with; 4 KiB pages).
    fn memory_params(&self, size: u64, kind: NvMemKind, contiguous: bool) -> (u32, NV_MEMORY_ALLOCATION_PARAMS) {
        let vram = matches!(kind, NvMemKind::Vram { .. });
        let mut p = NV_MEMORY_ALLOCATION_PARAMS {
            owner: self.client.handle(),
            type_: if vram { NVOS32_TYPE_IMAGE } else { NVOS32_TYPE_NOTIFIER },
            flags: NVOS32_ALLOC_FLAGS_MAP_NOT_REQUIRED
                | NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED
                | NVOS32_ALLOC_FLAGS_ALIGNMENT_FORCE
                | NVOS32_ALLOC_FLAGS_IGNORE_BANK_PLACEMENT,
            attr: if contiguous {
                NVOS32_ATTR_PHYSICALITY_CONTIGUOUS
            } else {
                NVOS32_ATTR_PHYSICALITY_ALLOW_NONCONTIGUOUS
            },
            attr2: NVOS32_ATTR2_ZBC_PREFER_NO_ZBC,
            format: 6,
            size,
            alignment: PAGE,
            limit: size - 1,
            ..Default::default()
        };
        if vram {
            p.flags |= NVOS32_ALLOC_FLAGS_PERSISTENT_VIDMEM;
            p.attr2 |= NVOS32_ATTR2_GPU_CACHEABLE_YES;
            (classes::NV01_MEMORY_LOCAL_USER, p)
        } else {
            p.attr |= NVOS32_ATTR_LOCATION_PCI;
            p.attr2 |= NVOS32_ATTR2_GPU_CACHEABLE_NO;
            (classes::NV01_MEMORY_SYSTEM, p)
        }
    }

    /// Allocate `size` bytes (rounded up to pages) of `kind`, mapped on the GPU at the address
    /// it has for the CPU.
    pub fn alloc(&self, size: u64, kind: NvMemKind) -> Result<NvMemory> {
        self.alloc_inner(size, kind, false, Placement::User)
    }

    /// As [`NvDevice::alloc`], for memory the runtime keeps for itself (push buffers, argument
    /// rings, signals, code): placed apart from every user buffer.
    pub fn alloc_internal(&self, size: u64, kind: NvMemKind) -> Result<NvMemory> {
        self.alloc_inner(size, kind, false, Placement::Internal)
    }

    fn alloc_inner(&self, size: u64, kind: NvMemKind, contiguous: bool, placement: Placement) -> Result<NvMemory> {
        if size == 0 {
            return Err(Error::Protocol(format!("{}: zero-byte allocation", self.name())));
        }
        // Rounded up with a check: a size near 2^64 is refused, not wrapped to a small one.
        let size = size.checked_next_multiple_of(PAGE).ok_or_else(|| {
            Error::Protocol(format!("{}: a {size}-byte allocation is past the address space", self.name()))
        })?;
        let va = self.window.take(size, placement)?;
        let os = self.client.os_arc().clone();
        let rw = Prot::READ | Prot::WRITE;
        let mut mem = NvMemory { va, size, kind, handle: 0, cpu_mapped: false, linear: None, map_fd: None };
        // 1. The memory object (and, where the CPU sees it, the CPU mapping at `va`).
        let made = match kind {
            NvMemKind::Host => {
                let flags = MapFlags::SHARED | MapFlags::ANONYMOUS | MapFlags::FIXED;
                os.mmap(va as usize, size as usize, rw, flags, None, 0)?;
                mem.cpu_mapped = true;
                let flags = NVOS02_FLAGS_PHYSICALITY_NONCONTIGUOUS
                    | NVOS02_FLAGS_COHERENCY_CACHED
                    | NVOS02_FLAGS_MAPPING_NO_MAP;
                self.client.alloc_os_descriptor(&self.dev_fd, self.device, flags, va, size).map(|h| mem.handle = h)
            }
            NvMemKind::Vram { .. } | NvMemKind::System => {
                let (class, mut params) = self.memory_params(size, kind, contiguous);
                self.client.alloc_with(self.device, class, &mut params).map(|h| mem.handle = h).and_then(|()| {
                    if kind == (NvMemKind::Vram { cpu_visible: false }) {
                        return Ok(());
                    }
                    self.map_to_cpu(&mut mem)
                })
            }
        };
        if let Err(e) = made {
            let _ = self.release(&mem, false, false);
            return Err(e);
        }
        // 2. The GPU mapping at the same address.
        if let Err(e) = self.uvm.create_external_range(va, size) {
            let _ = self.release(&mem, false, false);
            return Err(e);
        }
        let dma = v580::NVOS46_PARAMETERS {
            h_device: self.device,
            h_dma: self.virtmem,
            h_memory: mem.handle,
            length: size,
            flags: NVOS46_FLAGS_PAGE_SIZE_4KB | NVOS46_FLAGS_CACHE_SNOOP_ENABLE | NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE,
            dma_offset: va,
            ..Default::default()
        };
        match self.client.map_memory_dma(&dma) {
            Ok(got) if got == va => {}
            Ok(got) => {
                let _ = self.release(&mem, true, true);
                return Err(Error::Protocol(format!(
                    "{}: NV_ESC_RM_MAP_MEMORY_DMA placed {:#x} at {got:#x}, not at the fixed {va:#x}",
                    self.name(),
                    mem.handle
                )));
            }
            Err(e) => {
                let _ = self.release(&mem, true, false);
                return Err(e);
            }
        }
        if let Err(e) = self.uvm.map_external_allocation(va, size, &[self.uuid], &self.client, mem.handle) {
            let _ = self.release(&mem, true, true);
            return Err(e);
        }
        log::trace!("{}: {kind:?} {size:#x} bytes at {va:#x} (handle {:#x})", self.name(), mem.handle);
        Ok(mem)
    }

    /// Map `mem` (an allocation of this device) for `peer`'s GPU too, at the same address:
    /// UVM_MAP_EXTERNAL_ALLOCATION naming both GPUs. UVM refuses it (NV_ERR_INVALID_DEVICE)
    /// unless `peer`'s GPU is registered in this device's UVM VA space, as on one machine that
    /// serves one VA space to the whole process; the mapping goes with `mem`'s UVM range.
    pub fn map_for_peer(&self, mem: &NvMemory, peer: &NvDevice) -> Result<()> {
        if matches!(mem.kind, NvMemKind::Vram { .. }) {
            return Err(Error::Protocol(format!(
                "{}: only host memory is mapped for a peer GPU ({:#x} is video memory)",
                self.name(),
                mem.va
            )));
        }
        if !Arc::ptr_eq(self.client.os_arc(), peer.client.os_arc()) {
            return Err(Error::Protocol(format!("{} and {} are not opened on one RM", self.name(), peer.name())));
        }
        self.uvm.map_external_allocation(mem.va, mem.size, &[self.uuid, peer.uuid], &self.client, mem.handle)
    }

    /// The CPU mapping of an RM allocation: a fresh fd (a registered /dev/nvidiaN for video
    /// memory, a /dev/nvidiactl for system memory), NV_ESC_RM_MAP_MEMORY with it, and an mmap of
    /// it at offset 0 over the reserved `va`.
    fn map_to_cpu(&self, mem: &mut NvMemory) -> Result<()> {
        let os = self.client.os_arc();
        let fd = if mem.kind == NvMemKind::System {
            OwnedFd::open(os, NVIDIACTL)?
        } else {
            let fd = OwnedFd::open(os, dev_path(self.gpu.minor))?;
            register_fd(&**os, &fd, self.client.ctl_fd())?;
            fd
        };
        let flags = NVOS33_FLAGS_CACHING_TYPE_WRITECOMBINED;
        mem.linear = Some(self.client.map_memory(self.device, mem.handle, mem.size, flags, fd.fd())?);
        let map = MapFlags::SHARED | MapFlags::FIXED;
        let fd_num = fd.fd();
        mem.map_fd = Some(fd);
        let addr = os.mmap(mem.va as usize, mem.size as usize, Prot::READ | Prot::WRITE, map, Some(fd_num), 0)?;
        mem.cpu_mapped = true;
        if addr as u64 != mem.va {
            return Err(Error::Protocol(format!(
                "{}: the CPU mapping of {:#x} landed at {addr:#x}, not at {:#x}",
                self.name(),
                mem.handle,
                mem.va
            )));
        }
        Ok(())
    }

    /// Undo an allocation: the UVM range (with its GPU mapping), the DMA mapping, the CPU
    /// mapping, the memory object. Reports the first error but does every step.
    fn release(&self, mem: &NvMemory, range: bool, dma: bool) -> Result<()> {
        let mut first: Result<()> = Ok(());
        let mut keep = |r: Result<()>| {
            if let (Err(e), true) = (r, first.is_ok()) {
                first = Err(e);
            }
        };
        if range {
            keep(self.uvm.free(mem.va, mem.size));
        }
        if dma {
            keep(self.client.unmap_memory_dma(self.device, self.virtmem, mem.handle, mem.va));
        }
        if mem.cpu_mapped {
            keep(self.window.restore(mem.va, mem.size));
        }
        if let Some(linear) = mem.linear {
            keep(self.client.unmap_memory(self.device, mem.handle, linear));
        }
        if mem.handle != 0 {
            keep(self.client.free(self.device, mem.handle));
        }
        first
    }

    /// Unmap and free an allocation.
    pub fn free(&self, mem: NvMemory) -> Result<()> {
        self.release(&mem, true, true)
        // `mem.map_fd` closes here, after the mapping is gone.
    }

    /// The error RM reported on `channel` (its RC notifier), if any.
    pub fn channel_error(&self, channel: &Channel) -> Option<ChannelError> {
        let at = channel.error_notifier_va;
        // SAFETY: the notifier is CPU-mapped (system memory) for the device's life; RM writes it.
        let (time, info32, info16_status) = unsafe {
            (
                std::ptr::read_volatile(at as *const u64),
                std::ptr::read_volatile((at + 8) as *const u32),
                std::ptr::read_volatile((at + 12) as *const u32),
            )
        };
        let status = (info16_status >> 16) as u16;
        (status != 0).then_some(ChannelError { xid: info32, info16: info16_status as u16, status, time_ns: time })
    }

    /// Where the kernel on `channel` (a compute channel) faulted, as RM's SM debugger says: the
    /// MMU faults of its context (when READ_ALL_SM_ERROR_STATES says there was one) and the SMs
    /// whose error status registers are set. The debugger session is allocated on the first call
    /// (under the device, on the channel's compute object, as `ksmdbgssnConstruct` wants) and
    /// kept. Every SM the GR litter counts is read, 100 (RM's per-call maximum) at a time.
    pub fn fault_report(&self, channel: &Channel) -> Result<FaultReport> {
        if channel.engine_class != self.classes.compute {
            return Err(Error::Unsupported(format!(
                "{}: channel {:#x} runs {}, not compute: SM error states exist only for compute channels",
                self.name(),
                channel.handle,
                classes::describe(channel.engine_class)
            )));
        }
        let debugger = self.debugger(channel)?;
        // The litter counts are the floorswept maximum (144 SMs on an H200 that enables 132),
        // and RM refuses SMs past the enabled ones (NV_ERR_INVALID_ARGUMENT for SMs 100..144 on
        // that H200): a refused read is tried again shorter, and a refused single SM ends the list.
        let sms = (self.gr.gpcs * self.gr.tpc_per_gpc * self.gr.sm_per_tpc).max(1);
        let mut report = FaultReport::default();
        let mut mmu_fault = false;
        let mut start = 0;
        let mut n = sms.min(NV83DE_CTRL_DEBUG_MAX_SMS_PER_CALL as u32);
        while start < sms && n > 0 {
            let mut p: NV83DE_CTRL_DEBUG_READ_ALL_SM_ERROR_STATES_PARAMS = RmArg::zeroed();
            p.h_target_channel = channel.handle;
            p.num_sms_to_read = n;
            p.starting_sm = start;
            match self.client.control_with(debugger, NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES, &mut p) {
                Err(Error::Rm { status: NV_ERR_INVALID_ARGUMENT, .. }) if start > 0 || n > 1 => {
                    n /= 2;
                    continue;
                }
                r => r?,
            }
            mmu_fault |= p.mmu_fault.valid != 0;
            for (i, s) in p.sm_error_state_array[..n as usize].iter().enumerate() {
                if s.hww_global_esr != 0 || s.hww_warp_esr != 0 {
                    report.sm_errors.push(SmError {
                        sm: start + i as u32,
                        global_esr: s.hww_global_esr,
                        warp_esr: s.hww_warp_esr,
                        // The 32-bit field is the deprecated copy; older RM may fill only it.
                        pc: if s.hww_warp_esr_pc64 != 0 { s.hww_warp_esr_pc64 } else { s.hww_warp_esr_pc as u64 },
                        esr_addr: s.hww_esr_addr,
                    });
                }
            }
            start += n;
            n = n.min(sms.saturating_sub(start));
        }
        if mmu_fault {
            let mut q = NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_PARAMS::default();
            self.client.control_with(debugger, NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO, &mut q)?;
            let list = q.mmu_fault_info_list.get(..q.count as usize).ok_or_else(|| {
                Error::Protocol(format!(
                    "NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO reported {} faults, more than its list of {}",
                    q.count, NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_MAX_ENTRIES
                ))
            })?;
            report.mmu_faults = list
                .iter()
                .map(|e| MmuFault { address: e.fault_address, fault_type: e.fault_type, access_type: e.access_type })
                .collect();
        }
        Ok(report)
    }

    /// The debugger session on `channel`'s engine object, allocated on first use.
    fn debugger(&self, channel: &Channel) -> Result<Handle> {
        let mut sessions = self.debuggers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, h)) = sessions.iter().find(|s| s.0 == channel.handle) {
            return Ok(*h);
        }
        let mut params = NV83DE_ALLOC_PARAMETERS {
            h_debugger_client_obsolete: 0,
            h_app_client: self.client.handle(),
            h_class3d_object: channel.engine,
        };
        let h = self.client.alloc_with(self.device, classes::GT200_DEBUGGER, &mut params)?;
        sessions.push((channel.handle, h));
        Ok(h)
    }

    /// Sleep until the GPU raises a non-stall interrupt (one since the last call counts) or
    /// `timeout` passes: whether one came (see [`crate::nv::nonstall`]). Where RM refuses the
    /// event file, this sleeps `timeout` capped at 100 µs, the poll it replaces.
    pub fn wait_nonstall(&self, timeout: std::time::Duration) -> Result<bool> {
        let event = self.nonstall.get_or_init(|| {
            NonstallEvent::open(&self.client, self.device, self.subdevice).map_err(|e| {
                log::debug!("{}: no non-stall interrupt event, host waits poll: {e}", self.gpu.index);
                e.to_string()
            })
        });
        match event {
            Ok(e) => e.wait(&self.client, timeout),
            Err(_) => {
                std::thread::sleep(timeout.min(std::time::Duration::from_micros(100)));
                Ok(false)
            }
        }
    }

    /// Publish `put` (a GPFIFO index) for `channel` and ring its doorbell: GPPut in USERD, a
    /// full fence, then the work-submit token into the usermode page.
    pub fn kick(&self, channel: &Channel, put: u32) {
        let gp_put = (channel.userd_va + pushbuf::USERD_GP_PUT as u64) as *mut u32;
        let doorbell = self.usermode_map.addr + DOORBELL_OFFSET;
        // SAFETY: USERD lies in the CPU-mapped GPFIFO area and the doorbell (4-byte aligned) in
        // the usermode mapping this device's OS mapped, both alive as long as `self`; both are
        // device memory, so volatile stores.
        unsafe {
            std::ptr::write_volatile(gp_put, put % channel.entries);
            std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
            self.os().ring_doorbell(doorbell, crate::os::DoorbellValue::U32(channel.token));
        }
    }
}
