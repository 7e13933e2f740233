//! An NVIDIA GPU driven through RM: the vendor half of [`crate::core::Device`] — the RM device,
//! its compute and copy GPFIFO channels, local memory and the PTX check. The same code drives a
//! real GPU (host OS) and the emulated one (the emulated RM behind the same OS boundary).

use super::gpfifo::GpFifo;
use super::launch::{LOCAL_WINDOW, SHARED_WINDOW};
use super::program::{NvCode, NvKernel};
use crate::core::{self, DeviceBuffer};
use crate::{Error, Result};
use baregpu_drivers::nv::device::{NvDevice as RmDevice, NvMemKind, NvMemory};
use baregpu_drivers::nv::methods::{ComputeCmds, COMPUTE_SUBCHANNEL, COPY_SUBCHANNEL};
use baregpu_drivers::nv::qmd::QmdVersion;
use baregpu_drivers::os::Os;
use std::sync::{Arc, Mutex, MutexGuard};

/// Push-buffer ring per channel.
pub(crate) const PUSHBUF_BYTES: u64 = 2 << 20;
/// GPU timestamps (semaphore releases) count nanoseconds.
pub const TIMESTAMP_HZ: u64 = 1_000_000_000;

/// An NVIDIA device: the runtime core over [`Nv`].
pub type NvDevice = core::Device<Nv>;

/// What a program address must point at on this device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvIsa {
    /// SASS from a cubin: a real GPU.
    Sass,
    /// A `drivers::nv::ptx_image`: the emulated GPU interprets PTX.
    Ptx,
}

/// What checks a PTX module as a whole when it is loaded, where a real GPU's would be ptxas: the
/// emulated GPU's own parser, so that malformed PTX is refused at load, naming its line, rather
/// than when a kernel of it is launched.
pub type PtxCheck = Arc<dyn Fn(&str) -> std::result::Result<(), String> + Send + Sync>;

/// Device memory at one address for the CPU (when mapped) and the GPU.
#[derive(Debug)]
pub struct Buffer {
    pub(crate) mem: NvMemory,
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
    pub code: NvCode,
    pub kernels: Vec<NvKernel>,
    pub(crate) image: Buffer,
}

impl Program {
    pub fn base(&self) -> u64 {
        self.image.va()
    }

    pub fn kernel(&self, name: &str) -> Result<&NvKernel> {
        self.kernels.iter().find(|k| k.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.kernels.iter().map(|k| k.name.as_str()).collect();
            Error::Program(format!("no kernel `{name}` (the program has: {})", names.join(", ")))
        })
    }
}

/// The NVIDIA backend: encodes push-buffer methods, submits GP entries, polls RM channel errors.
pub struct Nv {
    pub(crate) rm: RmDevice,
    /// 90.
    pub sm: u32,
    pub qmd: QmdVersion,
    pub(crate) hopper_or_later: bool,
    pub isa: NvIsa,
    /// Set after open (`with_ptx_check`), when the backend may already be shared.
    pub(crate) ptx_check: Mutex<Option<PtxCheck>>,
    /// Compute and copy channels' GPFIFOs, and the push-buffer memory behind them.
    pub(crate) fifos: Mutex<[GpFifo; 2]>,
    pub(crate) pushbufs: Option<NvMemory>,
    /// Per-thread local memory the channel is set up for, and its backing.
    pub(crate) local: Mutex<Option<(u32, NvMemory)>>,
}

impl Nv {
    pub(crate) fn fifos(&self) -> MutexGuard<'_, [GpFifo; 2]> {
        self.fifos.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn local(&self) -> MutexGuard<'_, Option<(u32, NvMemory)>> {
        self.local.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl core::Device<Nv> {
    /// Open NVIDIA GPU `index` of the RM behind `os`; `label` names it in errors (`nv:0`,
    /// `emu-nv:sm_90`); `isa` says what its program addresses point at.
    pub fn open(os: Arc<dyn Os>, index: usize, label: &str, isa: NvIsa) -> Result<NvDevice> {
        let rm = RmDevice::open(os, index)?;
        let err = |m: String| core::dev_err(label, m);
        let arch = rm.gr.arch();
        let sm: u32 = arch.trim_start_matches("sm_").parse().map_err(|_| err(format!("odd arch {arch}")))?;
        let qmd = QmdVersion::for_compute_class(rm.classes.compute)
            .ok_or_else(|| err(format!("no QMD layout for compute class {:#x}", rm.classes.compute)))?;
        let pushbufs = rm.alloc_internal(2 * PUSHBUF_BYTES, NvMemKind::Vram { cpu_visible: true })?;
        let fifos =
            [GpFifo::new(0, pushbufs.va, PUSHBUF_BYTES), GpFifo::new(1, pushbufs.va + PUSHBUF_BYTES, PUSHBUF_BYTES)];
        let nv = Nv {
            sm,
            qmd,
            hopper_or_later: qmd != QmdVersion::V3,
            isa,
            ptx_check: Mutex::new(None),
            fifos: Mutex::new(fifos),
            pushbufs: Some(pushbufs),
            local: Mutex::new(None),
            rm,
        };
        let dev = core::Device::new(nv, label, &arch)?;
        dev.setup_channels()?;
        let b = dev.backend();
        log::info!("{label}: {} ({}) open, QMD {:?}", b.rm.gpu.model, dev.arch, b.qmd);
        Ok(dev)
    }

    /// Bind the engine objects to their subchannels and point the compute engine at its
    /// shared- and local-memory windows.
    fn setup_channels(&self) -> Result<()> {
        let classes = self.backend().rm.classes;
        let mut q = self.compute_queue()?;
        q.encoder().m.record(|pb| {
            pb.set_object(COMPUTE_SUBCHANNEL, classes.compute)?;
            ComputeCmds::shared_memory_window(pb, SHARED_WINDOW)?;
            ComputeCmds::local_memory_window(pb, LOCAL_WINDOW)
        });
        q.note("channel setup".into());
        q.submit()?;
        let mut c = self.copy_queue()?;
        c.encoder().m.record(|pb| pb.set_object(COPY_SUBCHANNEL, classes.copy).map(|_| ()));
        c.submit()?;
        self.synchronize()
    }

    /// Check every PTX module with `check` when it is loaded (see [`PtxCheck`]).
    pub fn with_ptx_check(self, check: PtxCheck) -> NvDevice {
        *self.backend().ptx_check.lock().unwrap_or_else(|e| e.into_inner()) = Some(check);
        self
    }

    /// The driver-level device (RM objects, channels), for tools and tests.
    pub fn rm_device(&self) -> &RmDevice {
        &self.backend().rm
    }

    /// What program addresses point at: SASS or PTX.
    pub fn isa(&self) -> NvIsa {
        self.backend().isa
    }

    /// 90 for `sm_90`.
    pub fn sm(&self) -> u32 {
        self.backend().sm
    }

    /// Size the local-memory backing for `per_thread` bytes (tinygrad's formula, [3rd-party]):
    /// per TPC, every warp slot of its SMs at 32 threads; then every TPC of the GPU.
    pub(crate) fn ensure_local_memory(&self, per_thread: u32) -> Result<()> {
        let nv = self.backend();
        if nv.local().as_ref().is_some_and(|(have, _)| *have >= per_thread) {
            return Ok(());
        }
        self.synchronize()?;
        let gr = nv.rm.gr;
        let per_warp = (per_thread as u64 * 32).div_ceil(0x200) * 0x200;
        let per_tpc =
            (per_warp * gr.max_warps_per_sm.max(1) as u64 * gr.sm_per_tpc.max(1) as u64).div_ceil(0x8000) * 0x8000;
        let total = (per_tpc * gr.tpc_per_gpc.max(1) as u64 * gr.gpcs.max(1) as u64).div_ceil(0x2_0000) * 0x2_0000;
        let mem = nv.rm.alloc_internal(total, NvMemKind::Vram { cpu_visible: false })?;
        let mut q = self.compute_queue()?;
        let (va, hopper) = (mem.va, nv.hopper_or_later);
        q.encoder().m.record(|pb| ComputeCmds::local_memory(pb, va, per_tpc, hopper));
        q.note(format!("local memory {per_thread} bytes per thread"));
        let old = nv.local().replace((per_thread, mem));
        q.submit()?;
        self.synchronize()?;
        if let Some((_, m)) = old {
            nv.rm.free(m)?;
        }
        Ok(())
    }
}
