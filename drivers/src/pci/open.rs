//! Opening a real PCI GPU: which mechanism (VFIO when the function is bound to vfio-pci or
//! BAREGPU_VFIO=1, else sysfs), and the one clear error for each way it can fail before any
//! register is touched.

use super::scan::{self, device_dir, hex_attr, PRIVILEGES};
use super::{sysfs::SysfsPci, vfio::VfioPci, PciDevice};
use crate::os::Os;
use crate::{Error, Result};
use std::sync::Arc;

/// Open the AMD GPU at `bdf` (`0000:03:00.0`) on the host `os`.
pub fn open_host(os: Arc<dyn Os>, bdf: &str) -> Result<Arc<dyn PciDevice>> {
    let want_vfio = std::env::var("BAREGPU_VFIO").is_ok_and(|v| v == "1");
    open_host_with(os, bdf, want_vfio)
}

/// [`open_host`] with the choice of VFIO made by the caller.
pub fn open_host_with(os: Arc<dyn Os>, bdf: &str, want_vfio: bool) -> Result<Arc<dyn PciDevice>> {
    let gpu = identify(&*os, bdf)?;
    if let Some(blocker) = gpu.blocker() {
        return Err(Error::Unsupported(format!("{bdf}: {blocker}")));
    }
    if gpu.is_vfio() || want_vfio {
        if !gpu.is_vfio() {
            return Err(Error::Unsupported(format!(
                "{bdf}: BAREGPU_VFIO=1 but the function is not bound to vfio-pci (modprobe vfio-pci; echo vfio-pci > \
                 {}/driver_override; echo {bdf} > /sys/bus/pci/drivers_probe)",
                device_dir(bdf).display()
            )));
        }
        return Ok(Arc::new(VfioPci::open(os, bdf)?));
    }
    check_no_dma_translation(&*os, &gpu)?;
    if !scan::can_open_resources(&*os, bdf) {
        return Err(Error::Unsupported(format!("{bdf}: no access to {}: {PRIVILEGES}", device_dir(bdf).display())));
    }
    Ok(Arc::new(SysfsPci::open(os, bdf)?))
}

/// The function at `bdf`, if it exists and is an AMD GPU.
fn identify(os: &dyn Os, bdf: &str) -> Result<scan::PciGpu> {
    if !scan::is_bdf(bdf) {
        return Err(Error::Unsupported(format!("`{bdf}` is not a PCI address like 0000:03:00.0")));
    }
    let dir = device_dir(bdf);
    if !os.exists(&dir) {
        return Err(Error::Unsupported(format!(
            "{bdf}: no such PCI device (nothing at {}); `baregpu devices` lists the AMD GPUs here",
            dir.display()
        )));
    }
    match scan::probe(os, bdf)? {
        Some(gpu) => Ok(gpu),
        None => Err(Error::Unsupported(format!(
            "{bdf}: not an AMD GPU (vendor {:#06x}, class {:#08x})",
            hex_attr(os, &dir.join("vendor"))?,
            hex_attr(os, &dir.join("class"))?
        ))),
    }
}

/// sysfs mode gives the device physical addresses: an IOMMU that translates the function's DMA
/// would fault every one of them. Its group's `type` says (identity = passthrough).
fn check_no_dma_translation(os: &dyn Os, gpu: &scan::PciGpu) -> Result<()> {
    let Some(group) = gpu.iommu_group else { return Ok(()) };
    let Ok(kind) =
        os.read_to_string(&std::path::Path::new("/sys/kernel/iommu_groups").join(group.to_string()).join("type"))
    else {
        return Ok(());
    };
    match kind.trim() {
        "identity" => Ok(()),
        other => Err(Error::Unsupported(format!(
            "{}: the IOMMU translates its DMA (IOMMU group {group}, type {other}), so the physical addresses sysfs mode \
             uses would fault: boot with iommu=pt, or bind it to vfio-pci so that DMA is mapped through the IOMMU",
            gpu.bdf
        ))),
    }
}

/// Say what a failed system call on `bdf`'s files lacked: privileges, or a driver still bound.
pub(crate) fn explain(bdf: &str, e: Error) -> Error {
    match e.errno() {
        Some(libc::EACCES | libc::EPERM) => Error::Unsupported(format!("{bdf}: {e}: {PRIVILEGES}")),
        Some(libc::EBUSY) => Error::Unsupported(format!("{bdf}: {e}: a kernel driver is bound to it; unbind it first")),
        _ => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::{Fd, HostOs, MapFlags, OpenFlags, Prot};
    use crate::pci::scan::tests::FakeFn;
    use std::path::{Path, PathBuf};

    fn open(root: &Path, bdf: &str) -> Result<Arc<dyn PciDevice>> {
        open_host_with(Arc::new(HostOs::with_root(root)), bdf, false)
    }

    fn err(root: &Path, bdf: &str) -> String {
        open(root, bdf).unwrap_err().to_string()
    }

    #[test]
    fn an_unbound_amd_gpu_opens_through_sysfs() {
        let dir = tempfile::tempdir().unwrap();
        FakeFn::amd_gpu(dir.path(), "0000:03:00.0", 0x40_0000);
        let dev = open(dir.path(), "0000:03:00.0").unwrap();
        assert_eq!(dev.name(), "0000:03:00.0");
        assert!(format!("{dev:?}").starts_with("sysfs PCI"));
    }

    #[test]
    fn each_reason_a_gpu_cannot_be_opened_is_one_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        assert_eq!(
            err(r, "0000:99:00.0"),
            "0000:99:00.0: no such PCI device (nothing at /sys/bus/pci/devices/0000:99:00.0); `baregpu devices` lists the AMD GPUs here"
        );
        assert!(err(r, "../../etc").contains("not a PCI address"));
        let nv = FakeFn::amd_gpu(r, "0000:19:00.0", 0x4000);
        nv.write("vendor", "0x10de\n");
        assert_eq!(err(r, "0000:19:00.0"), "0000:19:00.0: not an AMD GPU (vendor 0x10de, class 0x030000)");
        let bound = FakeFn::amd_gpu(r, "0000:03:00.0", 0x40_0000);
        bound.bind("amdgpu");
        assert_eq!(
            err(r, "0000:03:00.0"),
            "0000:03:00.0: bound to amdgpu; unbind it first: echo 0000:03:00.0 | sudo tee /sys/bus/pci/drivers/amdgpu/unbind"
        );
        let vfio = FakeFn::amd_gpu(r, "0000:83:00.0", 0x40_0000);
        vfio.bind("vfio-pci");
        assert!(err(r, "0000:83:00.0").contains("no IOMMU group"), "{}", err(r, "0000:83:00.0"));
        FakeFn::amd_gpu(r, "0000:84:00.0", 0x40_0000);
        let e = open_host_with(Arc::new(HostOs::with_root(r)), "0000:84:00.0", true).unwrap_err().to_string();
        assert!(e.contains("BAREGPU_VFIO=1 but the function is not bound to vfio-pci"), "{e}");
    }

    #[test]
    fn sysfs_mode_is_refused_where_the_iommu_translates_dma() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let f = FakeFn::amd_gpu(r, "0000:03:00.0", 0x40_0000);
        let group = r.join("sys/kernel/iommu_groups/17");
        std::fs::create_dir_all(&group).unwrap();
        std::os::unix::fs::symlink("../../../../kernel/iommu_groups/17", f.dir().join("iommu_group")).unwrap();
        std::fs::write(group.join("type"), "DMA-FQ\n").unwrap();
        let e = err(r, "0000:03:00.0");
        assert!(e.starts_with("0000:03:00.0: the IOMMU translates its DMA (IOMMU group 17, type DMA-FQ)"), "{e}");
        assert!(e.contains("iommu=pt") && e.contains("vfio-pci"), "{e}");
        std::fs::write(group.join("type"), "identity\n").unwrap();
        open(r, "0000:03:00.0").unwrap();
    }

    /// The host OS, but every open of `config` or `resourceN` is refused as for a user without
    /// privileges (the tests may run as root, where chmod 000 refuses nothing).
    struct Unprivileged(HostOs);

    impl Os for Unprivileged {
        fn read_to_string(&self, path: &Path) -> Result<String> {
            self.0.read_to_string(path)
        }
        fn read_dir(&self, path: &Path) -> Result<Vec<String>> {
            self.0.read_dir(path)
        }
        fn exists(&self, path: &Path) -> bool {
            self.0.exists(path)
        }
        fn open(&self, path: &Path, flags: OpenFlags) -> Result<Fd> {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if name == "config" || name.starts_with("resource") {
                return Err(Error::io(path, std::io::Error::from_raw_os_error(libc::EACCES)));
            }
            self.0.open(path, flags)
        }
        fn close(&self, fd: Fd) -> Result<()> {
            self.0.close(fd)
        }
        fn ioctl(&self, fd: Fd, request: u32, arg: &mut [u8]) -> Result<i32> {
            self.0.ioctl(fd, request, arg)
        }
        fn mmap(
            &self,
            addr: usize,
            len: usize,
            prot: Prot,
            flags: MapFlags,
            fd: Option<Fd>,
            offset: u64,
        ) -> Result<usize> {
            self.0.mmap(addr, len, prot, flags, fd, offset)
        }
        fn munmap(&self, addr: usize, len: usize) -> Result<()> {
            self.0.munmap(addr, len)
        }
        fn eventfd(&self, initial: u32) -> Result<Fd> {
            self.0.eventfd(initial)
        }
        fn read_link(&self, path: &Path) -> Result<PathBuf> {
            self.0.read_link(path)
        }
    }

    #[test]
    fn no_access_to_the_resource_files_says_root_or_which_capabilities() {
        let dir = tempfile::tempdir().unwrap();
        FakeFn::amd_gpu(dir.path(), "0000:03:00.0", 0x40_0000);
        let os = Arc::new(Unprivileged(HostOs::with_root(dir.path())));
        let e = open_host_with(os, "0000:03:00.0", false).unwrap_err().to_string();
        assert_eq!(
            e,
            "0000:03:00.0: no access to /sys/bus/pci/devices/0000:03:00.0: run as root, or give the binary the \
             capabilities (setcap cap_dac_override,cap_sys_admin,cap_ipc_lock=ep BINARY)"
        );
    }

    #[test]
    fn a_resource_file_without_permission_is_explained() {
        let dir = tempfile::tempdir().unwrap();
        let f = FakeFn::amd_gpu(dir.path(), "0000:03:00.0", 0x40_0000);
        let res = f.dir().join("resource5");
        std::fs::set_permissions(&res, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
        // Root reads a mode-000 file anyway: then there is no refusal to explain.
        if std::fs::OpenOptions::new().read(true).write(true).open(&res).is_ok() {
            eprintln!("skipped: this process may open mode-000 files (root); Unprivileged covers the refusal");
            return;
        }
        let e = err(dir.path(), "0000:03:00.0");
        assert!(e.contains("resource5") && e.contains("Permission denied") && e.contains("run as root"), "{e}");
    }
}
