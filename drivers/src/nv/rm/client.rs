//! An RM client over the OS boundary: /dev/nvidiactl, a root client, and allocation, control,
//! free and mapping calls whose failures name the call, the class or command, the object and the
//! status; and the UVM file (/dev/nvidia-uvm).
//!
//! RM reports failure in the `status` field of the argument while the ioctl itself succeeds, so
//! every call checks both.

use super::common::*;
use super::ioctl::{self, call, call_bytes, nv_iowr, RmArg};
use super::status::{status_name, NV_OK};
use super::uvm::{self, Uuid};
use super::{classes, ctrl, v580, Branch};
use crate::os::{Fd, OpenFlags, Os};
use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const NVIDIACTL: &str = "/dev/nvidiactl";

/// `NV_MAX_DEVICES`: how many card-info entries NV_ESC_CARD_INFO is asked for.
pub const MAX_CARDS: usize = 32;

pub(crate) fn rm_error(call: String, status: u32) -> Error {
    Error::Rm { call, status, name: status_name(status) }
}

fn check(call: impl FnOnce() -> String, status: u32) -> Result<()> {
    if status == NV_OK {
        Ok(())
    } else {
        Err(rm_error(call(), status))
    }
}

/// Keep an ioctl-level failure's errno but say which RM call it was.
fn in_call(e: Error, what: String) -> Error {
    match e {
        Error::Ioctl { path, request, name, source } => Error::Sys {
            op: format!("{what}: {} ({request:#010x}) on {}", name.unwrap_or("ioctl"), path.display()),
            source,
        },
        e => e,
    }
}

fn describe_cmd(cmd: u32) -> String {
    match ctrl::command_name(cmd) {
        Some(n) => format!("{n} ({cmd:#x})"),
        None => format!("control {cmd:#x}"),
    }
}

/// A file this process opened through the OS boundary, closed on drop.
pub struct OwnedFd {
    os: Arc<dyn Os>,
    fd: Fd,
    path: PathBuf,
}

impl std::fmt::Debug for OwnedFd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (fd {})", self.path.display(), self.fd.0)
    }
}

impl OwnedFd {
    pub fn open(os: &Arc<dyn Os>, path: impl Into<PathBuf>) -> Result<OwnedFd> {
        let path = path.into();
        let fd = os.open(&path, OpenFlags::READ | OpenFlags::WRITE | OpenFlags::CLOEXEC)?;
        Ok(OwnedFd { os: os.clone(), fd, path })
    }

    pub fn fd(&self) -> Fd {
        self.fd
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for OwnedFd {
    fn drop(&mut self) {
        if let Err(e) = self.os.close(self.fd) {
            log::warn!("closing {}: {e}", self.path.display());
        }
    }
}

/// Tie a /dev/nvidiaN fd to the control fd (NV_ESC_REGISTER_FD), which RM needs before it
/// accepts the device fd in mappings.
pub fn register_fd(os: &dyn Os, dev: &OwnedFd, ctl: Fd) -> Result<()> {
    let mut arg = nv_ioctl_register_fd_t { ctl_fd: ctl.0 };
    call(os, dev.fd, nv_iowr(ioctl::NV_ESC_REGISTER_FD, 4), "NV_ESC_REGISTER_FD", &mut arg)?;
    Ok(())
}

/// A root client (NV01_ROOT_CLIENT) on its own /dev/nvidiactl fd. Dropping it frees the client,
/// which frees every object under it, and closes the fd.
pub struct RmClient {
    ctl: OwnedFd,
    handle: Handle,
    branch: Branch,
}

/// The last handle a client of this process chose itself (see [`RmClient::alloc_os_descriptor`]):
/// far below the range RM hands out (0xcaf00000 up), as tinygrad's counter from 0x1000 is. One
/// counter for every client, as tinygrad's: RM scopes handles by client, but the emulated RM
/// keeps one namespace for all the clients of its machine.
static CHOSEN_HANDLE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0x1000);

impl std::fmt::Debug for RmClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RmClient({:#x} on {:?}, {} ABI)", self.handle, self.ctl, self.branch.name())
    }
}

impl RmClient {
    /// Open /dev/nvidiactl and allocate a root client.
    pub fn open(os: Arc<dyn Os>, branch: Branch) -> Result<RmClient> {
        let ctl = OwnedFd::open(&os, NVIDIACTL)?;
        let mut args = NVOS21_PARAMETERS { h_class: classes::NV01_ROOT_CLIENT, ..Default::default() };
        call(&*os, ctl.fd, nv_iowr(ioctl::NV_ESC_RM_ALLOC, 32), "NV_ESC_RM_ALLOC", &mut args)?;
        check(|| format!("NV_ESC_RM_ALLOC of {}", classes::describe(classes::NV01_ROOT_CLIENT)), args.status)?;
        if args.h_object_new == 0 {
            return Err(Error::Protocol(format!("{NVIDIACTL}: RM allocated a root client with handle 0")));
        }
        log::debug!("{NVIDIACTL}: root client {:#x} ({} ABI)", args.h_object_new, branch.name());
        Ok(RmClient { ctl, handle: args.h_object_new, branch })
    }

    pub fn os(&self) -> &dyn Os {
        &*self.ctl.os
    }

    pub fn os_arc(&self) -> &Arc<dyn Os> {
        &self.ctl.os
    }

    /// The /dev/nvidiactl fd (UVM wants it as `rmCtrlFd`).
    pub fn ctl_fd(&self) -> Fd {
        self.ctl.fd
    }

    /// The root client's handle.
    pub fn handle(&self) -> Handle {
        self.handle
    }

    pub fn branch(&self) -> Branch {
        self.branch
    }

    /// NV_ESC_RM_ALLOC of `class` under `parent`: `handle` None lets RM choose it; `params` are
    /// the class's allocation parameters (their bytes, read by RM through a pointer).
    pub fn alloc(
        &self,
        parent: Handle,
        handle: Option<Handle>,
        class: u32,
        params: Option<&mut [u8]>,
    ) -> Result<Handle> {
        let (ptr, size) = match params {
            Some(p) => (p.as_mut_ptr() as u64, p.len() as u32),
            None => (0, 0),
        };
        let mut args = NVOS21_PARAMETERS {
            h_root: self.handle,
            h_object_parent: parent,
            h_object_new: handle.unwrap_or(0),
            h_class: class,
            p_alloc_parms: ptr,
            params_size: size,
            status: 0,
        };
        let what = || format!("NV_ESC_RM_ALLOC of {} under {parent:#x}", classes::describe(class));
        call(self.os(), self.ctl.fd, nv_iowr(ioctl::NV_ESC_RM_ALLOC, 32), "NV_ESC_RM_ALLOC", &mut args)
            .map_err(|e| in_call(e, what()))?;
        check(what, args.status)?;
        if handle.is_some_and(|h| h != args.h_object_new) || args.h_object_new == 0 {
            return Err(Error::Protocol(format!("{}: RM returned handle {:#x}", what(), args.h_object_new)));
        }
        log::trace!("{} -> {:#x}", what(), args.h_object_new);
        Ok(args.h_object_new)
    }

    /// [`RmClient::alloc`] with a typed parameter struct.
    pub fn alloc_with<T: RmArg>(&self, parent: Handle, class: u32, params: &mut T) -> Result<Handle> {
        self.alloc(parent, None, class, Some(ioctl::bytes_of_mut(params)))
    }

    /// NV_ESC_RM_CONTROL `cmd` on `object` with the command's parameter bytes.
    pub fn control(&self, object: Handle, cmd: u32, params: &mut [u8]) -> Result<()> {
        let mut args = NVOS54_PARAMETERS {
            h_client: self.handle,
            h_object: object,
            cmd,
            flags: 0,
            params: if params.is_empty() { 0 } else { params.as_mut_ptr() as u64 },
            params_size: params.len() as u32,
            status: 0,
        };
        let what = || format!("NV_ESC_RM_CONTROL {} on {object:#x}", describe_cmd(cmd));
        call(self.os(), self.ctl.fd, nv_iowr(ioctl::NV_ESC_RM_CONTROL, 32), "NV_ESC_RM_CONTROL", &mut args)
            .map_err(|e| in_call(e, what()))?;
        check(what, args.status)
    }

    /// [`RmClient::control`] with a typed parameter struct.
    pub fn control_with<T: RmArg>(&self, object: Handle, cmd: u32, params: &mut T) -> Result<()> {
        self.control(object, cmd, ioctl::bytes_of_mut(params))
    }

    /// NV_ESC_RM_FREE of `handle` (and everything under it).
    pub fn free(&self, parent: Handle, handle: Handle) -> Result<()> {
        let mut args =
            NVOS00_PARAMETERS { h_root: self.handle, h_object_parent: parent, h_object_old: handle, status: 0 };
        let what = || format!("NV_ESC_RM_FREE of {handle:#x} under {parent:#x}");
        call(self.os(), self.ctl.fd, nv_iowr(ioctl::NV_ESC_RM_FREE, 16), "NV_ESC_RM_FREE", &mut args)
            .map_err(|e| in_call(e, what()))?;
        check(what, args.status)
    }

    /// NV_ESC_CARD_INFO: the GPUs the module drives (the valid entries).
    pub fn card_info(&self) -> Result<Vec<nv_ioctl_card_info_t>> {
        let mut cards = [nv_ioctl_card_info_t::default(); MAX_CARDS];
        // SAFETY: an array of plain-data structs is itself plain data.
        let bytes =
            unsafe { std::slice::from_raw_parts_mut(cards.as_mut_ptr() as *mut u8, std::mem::size_of_val(&cards)) };
        let request = nv_iowr(ioctl::NV_ESC_CARD_INFO, bytes.len());
        call_bytes(self.os(), self.ctl.fd, request, "NV_ESC_CARD_INFO", bytes)?;
        Ok(cards.into_iter().filter(|c| c.valid != 0).collect())
    }

    /// NV_ESC_RM_MAP_MEMORY: prepare a CPU mapping of `memory` that `map_fd` (a registered
    /// /dev/nvidiaN fd, or a fresh /dev/nvidiactl fd for system memory) then mmaps at offset 0.
    /// Returns the address token for [`RmClient::unmap_memory`].
    pub fn map_memory(&self, device: Handle, memory: Handle, length: u64, flags: u32, map_fd: Fd) -> Result<u64> {
        let mut args = nv_ioctl_nvos33_parameters_with_fd {
            params: NVOS33_PARAMETERS {
                h_client: self.handle,
                h_device: device,
                h_memory: memory,
                length,
                flags,
                ..Default::default()
            },
            fd: map_fd.0,
            _pad0: 0,
        };
        let what = || format!("NV_ESC_RM_MAP_MEMORY of {memory:#x} ({length:#x} bytes)");
        call(self.os(), self.ctl.fd, nv_iowr(ioctl::NV_ESC_RM_MAP_MEMORY, 56), "NV_ESC_RM_MAP_MEMORY", &mut args)
            .map_err(|e| in_call(e, what()))?;
        check(what, args.params.status)?;
        Ok(args.params.p_linear_address)
    }

    /// NV_ESC_RM_UNMAP_MEMORY.
    pub fn unmap_memory(&self, device: Handle, memory: Handle, linear: u64) -> Result<()> {
        let mut args = NVOS34_PARAMETERS {
            h_client: self.handle,
            h_device: device,
            h_memory: memory,
            p_linear_address: linear,
            ..Default::default()
        };
        let what = || format!("NV_ESC_RM_UNMAP_MEMORY of {memory:#x}");
        call(self.os(), self.ctl.fd, nv_iowr(ioctl::NV_ESC_RM_UNMAP_MEMORY, 32), "NV_ESC_RM_UNMAP_MEMORY", &mut args)
            .map_err(|e| in_call(e, what()))?;
        check(what, args.status)
    }

    /// NV_ESC_RM_MAP_MEMORY_DMA in this branch's layout; `args` is described in the 580 layout.
    /// Returns the GPU VA (`dmaOffset`).
    pub fn map_memory_dma(&self, args: &v580::NVOS46_PARAMETERS) -> Result<u64> {
        let mut args = v580::NVOS46_PARAMETERS { h_client: self.handle, ..*args };
        args.status = 0;
        let mut buf = self.branch.map_dma_args(&args);
        let what = || format!("NV_ESC_RM_MAP_MEMORY_DMA of {:#x} into {:#x}", args.h_memory, args.h_dma);
        let request = nv_iowr(ioctl::NV_ESC_RM_MAP_MEMORY_DMA, buf.len());
        call_bytes(self.os(), self.ctl.fd, request, "NV_ESC_RM_MAP_MEMORY_DMA", buf.bytes_mut())
            .map_err(|e| in_call(e, what()))?;
        let (dma_offset, status) = self.branch.map_dma_result(&buf);
        check(what, status)?;
        Ok(dma_offset)
    }

    /// NV_ESC_RM_UNMAP_MEMORY_DMA of the whole mapping at `dma_offset`.
    pub fn unmap_memory_dma(&self, device: Handle, dma: Handle, memory: Handle, dma_offset: u64) -> Result<()> {
        let mut args = NVOS47_PARAMETERS {
            h_client: self.handle,
            h_device: device,
            h_dma: dma,
            h_memory: memory,
            dma_offset,
            ..Default::default()
        };
        let what = || format!("NV_ESC_RM_UNMAP_MEMORY_DMA of {memory:#x} at {dma_offset:#x}");
        let request = nv_iowr(ioctl::NV_ESC_RM_UNMAP_MEMORY_DMA, 48);
        call(self.os(), self.ctl.fd, request, "NV_ESC_RM_UNMAP_MEMORY_DMA", &mut args)
            .map_err(|e| in_call(e, what()))?;
        check(what, args.status)
    }

    /// NV_ESC_RM_ALLOC_MEMORY on a device fd (it is refused on the control fd): wrap `size`
    /// bytes of process memory at `addr` as an OS-descriptor memory object under `parent`.
    pub fn alloc_os_descriptor(
        &self,
        dev: &OwnedFd,
        parent: Handle,
        flags: u32,
        addr: u64,
        size: u64,
    ) -> Result<Handle> {
        let class = classes::NV01_MEMORY_SYSTEM_OS_DESCRIPTOR;
        // RM does not choose this handle: the 580 driver on an H200 answered NV_OK and handle 0
        // to hObjectNew 0, and the memory could not be named afterwards (NV_ERR_OBJECT_NOT_FOUND).
        let handle = CHOSEN_HANDLE.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let mut args = nv_ioctl_nvos02_parameters_with_fd {
            params: NVOS02_PARAMETERS {
                h_root: self.handle,
                h_object_parent: parent,
                h_object_new: handle,
                h_class: class,
                flags,
                p_memory: addr,
                limit: size - 1,
                ..Default::default()
            },
            fd: -1,
            _pad0: 0,
        };
        let what = || format!("NV_ESC_RM_ALLOC_MEMORY of {} at {addr:#x} ({size:#x} bytes)", classes::describe(class));
        call(self.os(), dev.fd, nv_iowr(ioctl::NV_ESC_RM_ALLOC_MEMORY, 56), "NV_ESC_RM_ALLOC_MEMORY", &mut args)
            .map_err(|e| in_call(e, what()))?;
        check(what, args.params.status)?;
        if args.params.h_object_new != handle {
            return Err(Error::Protocol(format!("{}: RM returned handle {:#x}", what(), args.params.h_object_new)));
        }
        Ok(handle)
    }
}

impl Drop for RmClient {
    fn drop(&mut self) {
        // Freeing the client frees everything allocated under it.
        if let Err(e) = self.free(0, self.handle) {
            log::warn!("freeing RM client {:#x}: {e}", self.handle);
        }
    }
}

/// The UVM file of a process: /dev/nvidia-uvm initialised, plus the second fd whose
/// UVM_MM_INITIALIZE ties the process's mm to it. Closing them tears UVM state down.
pub struct Uvm {
    fd: OwnedFd,
    _mm_fd: Option<OwnedFd>,
    branch: Branch,
}

impl std::fmt::Debug for Uvm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Uvm({:?})", self.fd)
    }
}

impl Uvm {
    /// Open and initialise /dev/nvidia-uvm (UVM_INITIALIZE, then UVM_MM_INITIALIZE on a second
    /// fd — a failure of the latter is logged, not fatal, as CUDA also meets it).
    pub fn open(os: &Arc<dyn Os>, branch: Branch) -> Result<Uvm> {
        let fd = OwnedFd::open(os, uvm::UVM_PATH)?;
        let uvm = Uvm { fd, _mm_fd: None, branch };
        let mut init = uvm::UVM_INITIALIZE_PARAMS::default();
        uvm.call(uvm::UVM_INITIALIZE, &mut init, |p| p.rm_status)?;
        let mm_fd = OwnedFd::open(os, uvm::UVM_PATH)?;
        let mut mm = uvm::UVM_MM_INITIALIZE_PARAMS { uvm_fd: uvm.fd.fd.0, rm_status: 0 };
        let mm_result = call(&**os, mm_fd.fd, uvm::UVM_MM_INITIALIZE, "UVM_MM_INITIALIZE", &mut mm)
            .and_then(|_| check(|| "UVM_MM_INITIALIZE".into(), mm.rm_status));
        if let Err(e) = mm_result {
            log::debug!("{}: UVM_MM_INITIALIZE: {e} (continuing, as CUDA does)", uvm::UVM_PATH);
        }
        Ok(Uvm { _mm_fd: Some(mm_fd), ..uvm })
    }

    pub fn fd(&self) -> Fd {
        self.fd.fd
    }

    /// Issue a UVM request; `status` reads `rmStatus` from the returned parameters.
    pub fn call<T: RmArg>(&self, request: u32, params: &mut T, status: impl FnOnce(&T) -> u32) -> Result<()> {
        let name = uvm::request_name(request).unwrap_or("UVM request");
        let what = || format!("{name} ({request}) on {}", uvm::UVM_PATH);
        call(&*self.fd.os, self.fd.fd, request, name, params)?;
        check(what, status(params))
    }

    pub fn register_gpu(&self, uuid: &Uuid) -> Result<()> {
        let mut p = uvm::UVM_REGISTER_GPU_PARAMS { gpu_uuid: *uuid, rm_ctrl_fd: -1, ..Default::default() };
        self.call(uvm::UVM_REGISTER_GPU, &mut p, |p| p.rm_status)
    }

    pub fn register_gpu_vaspace(&self, uuid: &Uuid, rm: &RmClient, vaspace: Handle) -> Result<()> {
        let mut p = uvm::UVM_REGISTER_GPU_VASPACE_PARAMS {
            gpu_uuid: *uuid,
            rm_ctrl_fd: rm.ctl_fd().0,
            h_client: rm.handle(),
            h_va_space: vaspace,
            rm_status: 0,
        };
        self.call(uvm::UVM_REGISTER_GPU_VASPACE, &mut p, |p| p.rm_status)
    }

    pub fn register_channel(&self, uuid: &Uuid, rm: &RmClient, channel: Handle, base: u64, length: u64) -> Result<()> {
        let mut p = uvm::UVM_REGISTER_CHANNEL_PARAMS {
            gpu_uuid: *uuid,
            rm_ctrl_fd: rm.ctl_fd().0,
            h_client: rm.handle(),
            h_channel: channel,
            base,
            length,
            ..Default::default()
        };
        self.call(uvm::UVM_REGISTER_CHANNEL, &mut p, |p| p.rm_status)
    }

    pub fn create_external_range(&self, base: u64, length: u64) -> Result<()> {
        let mut p = uvm::UVM_CREATE_EXTERNAL_RANGE_PARAMS { base, length, ..Default::default() };
        self.call(uvm::UVM_CREATE_EXTERNAL_RANGE, &mut p, |p| p.rm_status)
    }

    /// Map RM memory `memory` at `base` (inside an external range) on each GPU of `uuids`
    /// (registered in this UVM VA space; at most UVM_MAX_GPUS).
    pub fn map_external_allocation(
        &self,
        base: u64,
        length: u64,
        uuids: &[Uuid],
        rm: &RmClient,
        memory: Handle,
    ) -> Result<()> {
        let mut p = uvm::UVM_MAP_EXTERNAL_ALLOCATION_PARAMS::boxed();
        if uuids.is_empty() || uuids.len() > p.per_gpu_attributes.len() {
            return Err(Error::Protocol(format!("UVM_MAP_EXTERNAL_ALLOCATION for {} GPUs", uuids.len())));
        }
        p.base = base;
        p.length = length;
        for (a, uuid) in p.per_gpu_attributes.iter_mut().zip(uuids) {
            a.gpu_uuid = *uuid;
            a.gpu_mapping_type = uvm::UVM_GPU_MAPPING_TYPE_READ_WRITE_ATOMIC;
        }
        p.gpu_attributes_count = uuids.len() as u64;
        p.rm_ctrl_fd = rm.ctl_fd().0;
        p.h_client = rm.handle();
        p.h_memory = memory;
        self.call(uvm::UVM_MAP_EXTERNAL_ALLOCATION, &mut *p, |p| p.rm_status)
    }

    /// UVM_FREE of the range at `base` (this branch's layout).
    pub fn free(&self, base: u64, length: u64) -> Result<()> {
        let (mut p, status_at) = self.branch.uvm_free_params(base, length);
        let what = || format!("UVM_FREE ({}) of {base:#x} on {}", uvm::UVM_FREE, uvm::UVM_PATH);
        call_bytes(&*self.fd.os, self.fd.fd, uvm::UVM_FREE, "UVM_FREE", p.bytes_mut())?;
        check(what, p.u32_at(status_at))
    }
}
