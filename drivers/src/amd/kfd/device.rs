//! Opening KFD and one of its GPUs: GET_VERSION, the render node, ACQUIRE_VM and RUNTIME_ENABLE.

use super::ioctl::{kfd_call, IoctlArg};
use crate::amd::topology::{self, KfdGpu, Properties};
use crate::os::{Fd, OpenFlags, Os};
use crate::va_window::VaWindow;
use crate::{Error, Result};
use baregpu_autogen::amd::kfd as abi;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Address windows stay below 2^46, well inside the 47-bit user address space the GPUVM covers.
const VA_LIMIT: u64 = 1 << 46;

pub const KFD_PATH: &str = "/dev/kfd";

/// The KFD interface of this process (/dev/kfd), shared by all its GPUs.
pub struct Kfd {
    pub(crate) os: Arc<dyn Os>,
    pub(crate) fd: Fd,
    /// (major, minor) of the KFD ioctl interface.
    pub version: (u32, u32),
    runtime_enabled: Mutex<bool>,
}

impl std::fmt::Debug for Kfd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kfd").field("fd", &self.fd).field("version", &self.version).finish()
    }
}

impl Kfd {
    /// Open /dev/kfd and check its interface version.
    pub fn open(os: Arc<dyn Os>) -> Result<Arc<Kfd>> {
        let fd = os.open(Path::new(KFD_PATH), OpenFlags::READ | OpenFlags::WRITE | OpenFlags::CLOEXEC)?;
        let mut v = abi::kfd_ioctl_get_version_args::zeroed();
        if let Err(e) = kfd_call!(&*os, fd, AMDKFD_IOC_GET_VERSION, &mut v) {
            let _ = os.close(fd);
            return Err(e);
        }
        if v.major_version != abi::KFD_IOCTL_MAJOR_VERSION {
            let _ = os.close(fd);
            return Err(Error::Unsupported(format!(
                "{KFD_PATH}: KFD interface {}.{} (this driver speaks {}.x)",
                v.major_version,
                v.minor_version,
                abi::KFD_IOCTL_MAJOR_VERSION
            )));
        }
        log::debug!("{KFD_PATH}: KFD interface {}.{}", v.major_version, v.minor_version);
        Ok(Arc::new(Kfd { os, fd, version: (v.major_version, v.minor_version), runtime_enabled: Mutex::new(false) }))
    }

    pub fn os(&self) -> &dyn Os {
        &*self.os
    }

    /// Whether the interface has RUNTIME_ENABLE (1.14 and later).
    pub fn has_runtime_enable(&self) -> bool {
        self.version >= (1, 14)
    }
}

impl Drop for Kfd {
    fn drop(&mut self) {
        if let Err(e) = self.os.close(self.fd) {
            log::warn!("closing {KFD_PATH}: {e}");
        }
    }
}

/// One GPU opened through KFD.
#[derive(Debug)]
pub struct KfdDevice {
    pub(crate) kfd: Arc<Kfd>,
    pub gpu: KfdGpu,
    pub props: Properties,
    pub(crate) drm_fd: Fd,
    pub(crate) render_path: PathBuf,
    /// The doorbell window, mapped with the first queue.
    pub(crate) doorbells: Mutex<Option<super::queue::DoorbellPage>>,
    /// What errors call the device: `amd:0` unless the opener names it as its user did.
    label: String,
    /// Where allocations are placed: GPU VA = CPU address, user buffers apart from internal
    /// memory, a guard gap after each.
    pub(crate) window: VaWindow,
    /// Allocations of this device mapped for peer GPUs too: (handle, peer gpu_id), unmapped
    /// from them when freed.
    pub(crate) peer_maps: Mutex<Vec<(u64, u32)>>,
}

impl KfdDevice {
    /// Open the GPU: its render node, then ACQUIRE_VM, then (once per process, where the
    /// interface has it) RUNTIME_ENABLE.
    pub fn open(kfd: Arc<Kfd>, gpu: KfdGpu) -> Result<KfdDevice> {
        let os = kfd.os.clone();
        let props_path = Path::new(topology::KFD_TOPOLOGY).join("nodes").join(gpu.node.to_string()).join("properties");
        let props = Properties::parse(&props_path, &os.read_to_string(&props_path)?)?;
        let render_path = PathBuf::from(format!("/dev/dri/renderD{}", gpu.render_minor));
        let window = VaWindow::reserve(&os, VA_LIMIT)?;
        let drm_fd = os.open(&render_path, OpenFlags::READ | OpenFlags::WRITE | OpenFlags::CLOEXEC)?;
        let label = format!("amd:{}", gpu.index);
        let doorbells = Mutex::new(None);
        let peer_maps = Mutex::new(Vec::new());
        let dev = KfdDevice { kfd, gpu, props, drm_fd, render_path, doorbells, label, window, peer_maps };
        let mut vm = abi::kfd_ioctl_acquire_vm_args { drm_fd: drm_fd.0 as u32, gpu_id: dev.gpu.gpu_id };
        kfd_call!(dev.os(), dev.kfd.fd, AMDKFD_IOC_ACQUIRE_VM, &mut vm)?;
        dev.runtime_enable()?;
        log::debug!("{}: {} opened through KFD (gpu_id {})", dev.render_path.display(), dev.gpu.arch, dev.gpu.gpu_id);
        Ok(dev)
    }

    /// ROCr enables the runtime once per process before creating queues; a second call is
    /// EBUSY, which we avoid by remembering the first.
    fn runtime_enable(&self) -> Result<()> {
        if !self.kfd.has_runtime_enable() {
            return Ok(());
        }
        let mut done = self.kfd.runtime_enabled.lock().unwrap_or_else(|e| e.into_inner());
        if *done {
            return Ok(());
        }
        let mut args = abi::kfd_ioctl_runtime_enable_args {
            r_debug: 0,
            mode_mask: abi::KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK,
            capabilities_mask: 0,
        };
        match kfd_call!(self.os(), self.kfd.fd, AMDKFD_IOC_RUNTIME_ENABLE, &mut args) {
            Ok(_) => {}
            // Another part of this process enabled it already: that is the state we want.
            Err(e) if e.errno() == Some(libc::EBUSY) => log::debug!("runtime already enabled: {e}"),
            Err(e) => return Err(e),
        }
        *done = true;
        Ok(())
    }

    pub fn os(&self) -> &dyn Os {
        &*self.kfd.os
    }

    pub fn kfd(&self) -> &Arc<Kfd> {
        &self.kfd
    }

    /// Name the device in errors as the user named it (`emu:gfx1100`, not the KFD's `amd:0`).
    pub fn named(mut self, label: &str) -> KfdDevice {
        self.label = label.to_string();
        self
    }

    /// A name for errors: `amd:0 (gfx1100)`.
    pub fn name(&self) -> String {
        format!("{} ({})", self.label, self.gpu.arch)
    }
}

impl Drop for KfdDevice {
    fn drop(&mut self) {
        if let Some(p) = *self.doorbells.lock().unwrap_or_else(|e| e.into_inner()) {
            if let Err(e) = self.os().munmap(p.addr as usize, super::queue::DOORBELL_PAGE as usize) {
                log::warn!("unmapping the doorbells of {}: {e}", self.name());
            }
        }
        if let Err(e) = self.os().close(self.drm_fd) {
            log::warn!("closing {}: {e}", self.render_path.display());
        }
    }
}
