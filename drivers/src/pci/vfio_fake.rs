//! A fake VFIO kernel for the VFIO tests: files come from a re-rooted [`HostOs`] (regular files
//! stand in for `/dev/vfio/vfio`, the group and the device file, whose regions lie at
//! `index << 24`), and the VFIO ioctls are answered as vfio-pci answers them, with the calls
//! recorded for the test to check.

use crate::amd::kfd::ioctl::{bytes_of_mut, from_bytes, IoctlArg};
use crate::os::{Fd, HostOs, MapFlags, OpenFlags, Os, Prot};
use crate::pci::vfio_abi::*;
use crate::{Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where region `index` lies in the fake device file.
pub fn region_offset(index: u32) -> u64 {
    (index as u64) << 24
}

/// What the fake saw.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Seen {
    pub iommu_model: Option<u64>,
    pub container_set: bool,
    pub msi_eventfd: Option<i32>,
    /// (vaddr, iova, size) of each VFIO_IOMMU_MAP_DMA.
    pub maps: Vec<(u64, u64, u64)>,
    /// (iova, size) of each VFIO_IOMMU_UNMAP_DMA.
    pub unmaps: Vec<(u64, u64)>,
}

pub struct FakeVfio {
    host: HostOs,
    /// BAR sizes by index (0, 2, 5 on an AMD GPU).
    bars: Vec<(u32, u64)>,
    paths: Mutex<HashMap<i32, PathBuf>>,
    pub seen: Mutex<Seen>,
}

impl FakeVfio {
    /// A fake over the tree at `root`, which must hold /dev/vfio/vfio, the group file and
    /// /vfio-device (the device file, large enough for the regions).
    pub fn new(root: &Path, bars: Vec<(u32, u64)>) -> Self {
        FakeVfio { host: HostOs::with_root(root), bars, paths: Mutex::default(), seen: Mutex::default() }
    }

    fn path(&self, fd: Fd) -> PathBuf {
        self.paths.lock().unwrap().get(&fd.0).cloned().unwrap_or_default()
    }

    fn answer<T: IoctlArg>(arg: &mut [u8], f: impl FnOnce(&mut T)) -> Result<i32> {
        let mut v: T = from_bytes(arg).expect("argument as large as its struct");
        f(&mut v);
        let n = std::mem::size_of::<T>();
        arg[..n].copy_from_slice(bytes_of_mut(&mut v));
        Ok(0)
    }
}

impl Os for FakeVfio {
    fn read_to_string(&self, path: &Path) -> Result<String> {
        self.host.read_to_string(path)
    }
    fn read_dir(&self, path: &Path) -> Result<Vec<String>> {
        self.host.read_dir(path)
    }
    fn exists(&self, path: &Path) -> bool {
        self.host.exists(path)
    }
    fn open(&self, path: &Path, flags: OpenFlags) -> Result<Fd> {
        let fd = self.host.open(path, flags)?;
        self.paths.lock().unwrap().insert(fd.0, path.to_path_buf());
        Ok(fd)
    }
    fn close(&self, fd: Fd) -> Result<()> {
        self.paths.lock().unwrap().remove(&fd.0);
        self.host.close(fd)
    }
    fn ioctl(&self, fd: Fd, request: u32, arg: &mut [u8]) -> Result<i32> {
        let path = self.path(fd);
        let mut seen = self.seen.lock().unwrap();
        match request {
            VFIO_GROUP_GET_STATUS => Self::answer(arg, |s: &mut vfio_group_status| s.flags = VFIO_GROUP_FLAGS_VIABLE),
            VFIO_GROUP_SET_CONTAINER => {
                seen.container_set = true;
                Ok(0)
            }
            VFIO_DEVICE_GET_INFO => Self::answer(arg, |d: &mut vfio_device_info| {
                d.flags = VFIO_DEVICE_FLAGS_PCI | VFIO_DEVICE_FLAGS_RESET;
                (d.num_regions, d.num_irqs) = (9, 5);
            }),
            VFIO_DEVICE_GET_REGION_INFO => Self::answer(arg, |r: &mut vfio_region_info| {
                let bar = self.bars.iter().find(|b| b.0 == r.index).map(|b| b.1);
                let size = if r.index == VFIO_PCI_CONFIG_REGION_INDEX { Some(4096) } else { bar };
                let mmap = if bar.is_some() { VFIO_REGION_INFO_FLAG_MMAP } else { 0 };
                if let Some(size) = size {
                    r.flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE | mmap;
                    (r.size, r.offset) = (size, region_offset(r.index));
                }
            }),
            VFIO_DEVICE_GET_IRQ_INFO => Self::answer(arg, |i: &mut vfio_irq_info| {
                if i.index == VFIO_PCI_MSI_IRQ_INDEX {
                    (i.flags, i.count) = (VFIO_IRQ_INFO_EVENTFD, 1);
                }
            }),
            VFIO_DEVICE_SET_IRQS => Self::answer(arg, |s: &mut vfio_irq_set_eventfd| {
                assert_eq!(
                    (s.flags, s.index, s.count),
                    (VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER, 1, 1)
                );
                seen.msi_eventfd = Some(s.eventfd);
            }),
            VFIO_IOMMU_MAP_DMA => Self::answer(arg, |m: &mut vfio_iommu_type1_dma_map| {
                seen.maps.push((m.vaddr, m.iova, m.size));
            }),
            VFIO_IOMMU_UNMAP_DMA => Self::answer(arg, |u: &mut vfio_iommu_type1_dma_unmap| {
                seen.unmaps.push((u.iova, u.size));
            }),
            _ => Err(Error::io(path, std::io::Error::from_raw_os_error(libc::ENOTTY))),
        }
    }
    fn ioctl_int(&self, fd: Fd, request: u32, value: u64) -> Result<i32> {
        assert_eq!(self.path(fd), Path::new("/dev/vfio/vfio"), "container ioctls go to the container");
        match request {
            VFIO_GET_API_VERSION => Ok(VFIO_API_VERSION),
            VFIO_CHECK_EXTENSION => Ok((value == VFIO_TYPE1v2_IOMMU || value == VFIO_NOIOMMU_IOMMU) as i32),
            VFIO_SET_IOMMU => {
                self.seen.lock().unwrap().iommu_model = Some(value);
                Ok(0)
            }
            _ => Err(Error::io("/dev/vfio/vfio", std::io::Error::from_raw_os_error(libc::ENOTTY))),
        }
    }
    fn ioctl_new_fd(&self, fd: Fd, request: u32, arg: &mut [u8], _what: &Path) -> Result<Fd> {
        assert!(self.path(fd).starts_with("/dev/vfio") && request == VFIO_GROUP_GET_DEVICE_FD);
        assert_eq!(arg, b"0000:03:00.0\0");
        self.open(Path::new("/vfio-device"), OpenFlags::READ | OpenFlags::WRITE | OpenFlags::CLOEXEC)
    }
    fn mmap(&self, addr: usize, len: usize, prot: Prot, flags: MapFlags, fd: Option<Fd>, offset: u64) -> Result<usize> {
        self.host.mmap(addr, len, prot, flags, fd, offset)
    }
    fn munmap(&self, addr: usize, len: usize) -> Result<()> {
        self.host.munmap(addr, len)
    }
    fn eventfd(&self, initial: u32) -> Result<Fd> {
        self.host.eventfd(initial)
    }
    fn poll_in(&self, fd: Fd, timeout: std::time::Duration) -> Result<bool> {
        self.host.poll_in(fd, timeout)
    }
    fn read_link(&self, path: &Path) -> Result<PathBuf> {
        self.host.read_link(path)
    }
    fn pread(&self, fd: Fd, buf: &mut [u8], offset: u64) -> Result<usize> {
        self.host.pread(fd, buf, offset)
    }
    fn pwrite(&self, fd: Fd, data: &[u8], offset: u64) -> Result<usize> {
        self.host.pwrite(fd, data, offset)
    }
    fn read_eventfd(&self, fd: Fd) -> Result<u64> {
        self.host.read_eventfd(fd)
    }
}
