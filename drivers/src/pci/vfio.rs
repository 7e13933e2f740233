//! A PCI function driven through VFIO (the function bound to vfio-pci): the group of its IOMMU
//! group in a container, the device file, BARs mapped from its regions, config space read and
//! written at the config region's offset, DMA memory mapped into the IOMMU at addresses we
//! choose (VFIO_IOMMU_MAP_DMA), and MSI delivered to an eventfd (VFIO_DEVICE_SET_IRQS) that
//! `wait_interrupt` polls. In no-IOMMU mode (`/dev/vfio/noiommu-N`, vfio loaded with
//! `enable_unsafe_noiommu_mode=1`) there is no translation: bus addresses are physical, from
//! /proc/self/pagemap, as in sysfs mode.

use super::bar_map::{out_of_range, BarMapping};
use super::pagemap::{DmaBuffer, Pinned, HUGE_PAGE};
use super::scan::{device_dir, parse_resources};
use super::vfio_abi::*;
use super::{BarInfo, DmaMemory, PciDevice, DMA_PAGE};
use crate::amd::kfd::ioctl::{bytes_of_mut, IoctlArg};
use crate::os::{Fd, OpenFlags, Os};
use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const VFIO_DIR: &str = "/dev/vfio";
/// Where IOVAs of our DMA memory start: above the 32-bit space, where x86 keeps the MSI window
/// and other reserved ranges.
pub const IOVA_BASE: u64 = 1 << 32;

/// The container and group files, closed when the device and every DMA buffer are gone.
struct Container {
    os: Arc<dyn Os>,
    container: Fd,
    group: Fd,
}

impl Drop for Container {
    fn drop(&mut self) {
        for fd in [self.group, self.container] {
            if let Err(e) = self.os.close(fd) {
                log::warn!("VFIO: {e}");
            }
        }
    }
}

pub struct VfioPci {
    os: Arc<dyn Os>,
    bdf: String,
    container: Arc<Container>,
    device: Fd,
    noiommu: bool,
    config_offset: u64,
    bars: [Option<BarInfo>; 6],
    maps: [Option<BarMapping>; 6],
    /// The eventfd MSI is delivered to; `None` when the device offers no MSI (then polled).
    msi: Option<Fd>,
    next_iova: Mutex<u64>,
}

impl std::fmt::Debug for VfioPci {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VFIO PCI {}{}", self.bdf, if self.noiommu { " (no IOMMU)" } else { "" })
    }
}

fn call<T: IoctlArg>(os: &dyn Os, fd: Fd, request: u32, name: &'static str, arg: &mut T) -> Result<i32> {
    os.ioctl(fd, request, bytes_of_mut(arg)).map_err(|e| e.with_ioctl_name(name))
}

/// The IOMMU group of `bdf` and the group file to open: `/dev/vfio/N`, or
/// `/dev/vfio/noiommu-N` in no-IOMMU mode. Errors say what is missing.
pub fn group_file(os: &dyn Os, bdf: &str) -> Result<(u32, PathBuf, bool)> {
    let link = device_dir(bdf).join("iommu_group");
    let group = match os.read_link(&link) {
        Ok(t) => t.file_name().and_then(|n| n.to_str()).and_then(|n| n.parse::<u32>().ok()),
        Err(e) if e.is_not_found() => None,
        Err(e) => return Err(e),
    };
    let Some(group) = group else {
        return Err(Error::Unsupported(format!(
            "{bdf}: no IOMMU group: turn the IOMMU on (intel_iommu=on or amd_iommu=on), or load vfio with \
             enable_unsafe_noiommu_mode=1 for no-IOMMU mode"
        )));
    };
    if !os.exists(&Path::new(VFIO_DIR).join("vfio")) {
        return Err(Error::Unsupported(format!(
            "{bdf}: no {VFIO_DIR}/vfio: vfio-pci is not loaded (modprobe vfio-pci)"
        )));
    }
    let noiommu = Path::new(VFIO_DIR).join(format!("noiommu-{group}"));
    if os.exists(&noiommu) {
        return Ok((group, noiommu, true));
    }
    let path = Path::new(VFIO_DIR).join(group.to_string());
    if !os.exists(&path) {
        return Err(Error::Unsupported(format!(
            "{bdf}: no {}: the function is not bound to vfio-pci (echo vfio-pci > {}/driver_override; echo {bdf} > \
             /sys/bus/pci/drivers_probe)",
            path.display(),
            device_dir(bdf).display()
        )));
    }
    Ok((group, path, false))
}

impl VfioPci {
    /// Open `bdf`, bound to vfio-pci: container, group, device, BARs, config, MSI.
    pub fn open(os: Arc<dyn Os>, bdf: &str) -> Result<Self> {
        let (group_no, group_path, noiommu) = group_file(&*os, bdf)?;
        let rw = OpenFlags::READ | OpenFlags::WRITE | OpenFlags::CLOEXEC;
        let container_fd = os.open(&Path::new(VFIO_DIR).join("vfio"), rw).map_err(|e| super::explain(bdf, e))?;
        let group_fd = match os.open(&group_path, rw) {
            Ok(fd) => fd,
            Err(e) => {
                let _ = os.close(container_fd);
                return Err(super::explain(bdf, e));
            }
        };
        let container = Arc::new(Container { os: os.clone(), container: container_fd, group: group_fd });
        let version = os.ioctl_int(container_fd, VFIO_GET_API_VERSION, 0)?;
        if version != VFIO_API_VERSION {
            return Err(Error::Unsupported(format!("{bdf}: VFIO API version {version}, expected {VFIO_API_VERSION}")));
        }
        let mut status = with_argsz(|s: &mut vfio_group_status, n| s.argsz = n);
        call(&*os, group_fd, VFIO_GROUP_GET_STATUS, "VFIO_GROUP_GET_STATUS", &mut status)?;
        if status.flags & VFIO_GROUP_FLAGS_VIABLE == 0 {
            return Err(Error::Unsupported(format!(
                "{bdf}: IOMMU group {group_no} is not viable: bind every function in /sys/kernel/iommu_groups/{group_no}/devices to vfio-pci"
            )));
        }
        let mut cfd = container_fd.0;
        os.ioctl(group_fd, VFIO_GROUP_SET_CONTAINER, bytes_of_i32(&mut cfd))
            .map_err(|e| e.with_ioctl_name("VFIO_GROUP_SET_CONTAINER"))?;
        set_iommu(&*os, container_fd, noiommu).map_err(|e| Error::Unsupported(format!("{bdf}: {e}")))?;
        let mut name = bdf.as_bytes().to_vec();
        name.push(0);
        let what = PathBuf::from(format!("{} (VFIO device)", group_path.display()));
        let device = os.ioctl_new_fd(group_fd, VFIO_GROUP_GET_DEVICE_FD, &mut name, &what)?;
        let mut dev = VfioPci {
            os,
            bdf: bdf.to_string(),
            container,
            device,
            noiommu,
            config_offset: 0,
            bars: [None; 6],
            maps: Default::default(),
            msi: None,
            next_iova: Mutex::new(IOVA_BASE),
        };
        dev.map_regions()?;
        dev.msi = dev.enable_msi().unwrap_or_else(|e| {
            log::info!("{bdf}: no MSI through VFIO ({e}); interrupts are polled");
            None
        });
        dev.set_command(super::config::PCI_COMMAND_MEMORY | super::config::PCI_COMMAND_MASTER, true)?;
        Ok(dev)
    }

    fn region(&self, index: u32) -> Result<vfio_region_info> {
        let mut info = with_argsz(|r: &mut vfio_region_info, n| {
            r.argsz = n;
            r.index = index;
        });
        call(&*self.os, self.device, VFIO_DEVICE_GET_REGION_INFO, "VFIO_DEVICE_GET_REGION_INFO", &mut info)?;
        Ok(info)
    }

    /// Config space's offset in the device file, and every mappable BAR mapped whole.
    fn map_regions(&mut self) -> Result<()> {
        let mut info = with_argsz(|d: &mut vfio_device_info, n| d.argsz = n);
        call(&*self.os, self.device, VFIO_DEVICE_GET_INFO, "VFIO_DEVICE_GET_INFO", &mut info)?;
        if info.flags & VFIO_DEVICE_FLAGS_PCI == 0 || info.num_regions <= VFIO_PCI_CONFIG_REGION_INDEX {
            return Err(Error::Protocol(format!("{}: VFIO device is not a PCI function", self.bdf)));
        }
        self.config_offset = self.region(VFIO_PCI_CONFIG_REGION_INDEX)?.offset;
        // Bus addresses and prefetchability come from sysfs; VFIO reports sizes and offsets.
        let resource = device_dir(&self.bdf).join("resource");
        let sysfs = parse_resources(&self.os.read_to_string(&resource)?, &resource)?;
        for i in 0..6u8 {
            let r = self.region(i as u32)?;
            let Some(mut bar) = sysfs[i as usize] else { continue };
            if r.size == 0 || r.flags & VFIO_REGION_INFO_FLAG_MMAP == 0 {
                continue;
            }
            bar.size = r.size;
            let label = format!("{} BAR{i}", self.bdf);
            self.maps[i as usize] = Some(BarMapping::map(self.os.clone(), label, self.device, r.offset, r.size)?);
            self.bars[i as usize] = Some(bar);
        }
        Ok(())
    }

    /// MSI vector 0 to a new eventfd.
    fn enable_msi(&self) -> Result<Option<Fd>> {
        let mut irq = with_argsz(|i: &mut vfio_irq_info, n| {
            i.argsz = n;
            i.index = VFIO_PCI_MSI_IRQ_INDEX;
        });
        call(&*self.os, self.device, VFIO_DEVICE_GET_IRQ_INFO, "VFIO_DEVICE_GET_IRQ_INFO", &mut irq)?;
        if irq.count == 0 || irq.flags & VFIO_IRQ_INFO_EVENTFD == 0 {
            return Ok(None);
        }
        let efd = self.os.eventfd(0)?;
        let mut set = with_argsz(|s: &mut vfio_irq_set_eventfd, n| {
            s.argsz = n;
            s.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
            s.index = VFIO_PCI_MSI_IRQ_INDEX;
            s.count = 1;
            s.eventfd = efd.0;
        });
        if let Err(e) = call(&*self.os, self.device, VFIO_DEVICE_SET_IRQS, "VFIO_DEVICE_SET_IRQS", &mut set) {
            let _ = self.os.close(efd);
            return Err(e);
        }
        Ok(Some(efd))
    }

    pub fn is_noiommu(&self) -> bool {
        self.noiommu
    }

    /// Set or clear bits of the command register.
    pub fn set_command(&self, bits: u16, on: bool) -> Result<()> {
        let mut cmd = [0u8; 2];
        self.config_read(super::config::PCI_COMMAND, &mut cmd)?;
        let old = u16::from_le_bytes(cmd);
        let new = if on { old | bits } else { old & !bits };
        if new != old {
            self.config_write(super::config::PCI_COMMAND, &new.to_le_bytes())?;
        }
        Ok(())
    }

    fn mapping(&self, bar: u8) -> Result<&BarMapping> {
        self.maps
            .get(bar as usize)
            .and_then(|m| m.as_ref())
            .ok_or_else(|| Error::Unsupported(format!("{}: no mappable BAR{bar}", self.bdf)))
    }

    /// Pinned memory mapped into the IOMMU at the next free IOVA (aligned to its size's page).
    fn alloc_iommu(&self, size: u64, contiguous: bool) -> Result<DmaBuffer> {
        let pinned = Pinned::alloc(self.os.clone(), size, contiguous)?;
        let align = if pinned.len() >= HUGE_PAGE { HUGE_PAGE } else { DMA_PAGE };
        let iova = {
            let mut next = self.next_iova.lock().unwrap_or_else(|e| e.into_inner());
            let iova = next.next_multiple_of(align);
            *next = iova + pinned.len();
            iova
        };
        let mut map = with_argsz(|m: &mut vfio_iommu_type1_dma_map, n| {
            m.argsz = n;
            m.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
            m.vaddr = pinned.addr() as u64;
            m.iova = iova;
            m.size = pinned.len();
        });
        let c = &self.container;
        call(&*c.os, c.container, VFIO_IOMMU_MAP_DMA, "VFIO_IOMMU_MAP_DMA", &mut map)?;
        let bus = (0..size / DMA_PAGE).map(|i| iova + i * DMA_PAGE).collect();
        let (container, len) = (self.container.clone(), pinned.len());
        let release = Box::new(move || {
            let mut unmap = with_argsz(|u: &mut vfio_iommu_type1_dma_unmap, n| {
                u.argsz = n;
                u.iova = iova;
                u.size = len;
            });
            if let Err(e) =
                call(&*container.os, container.container, VFIO_IOMMU_UNMAP_DMA, "VFIO_IOMMU_UNMAP_DMA", &mut unmap)
            {
                log::warn!("{e}");
            }
        });
        Ok(DmaBuffer::mapped(pinned, bus, release))
    }
}

/// Choose the container's IOMMU model: type 1 v2 (else v1) with an IOMMU, the no-IOMMU model
/// without.
fn set_iommu(os: &dyn Os, container: Fd, noiommu: bool) -> Result<()> {
    let candidates: &[u64] = if noiommu { &[VFIO_NOIOMMU_IOMMU] } else { &[VFIO_TYPE1v2_IOMMU, VFIO_TYPE1_IOMMU] };
    for &model in candidates {
        if os.ioctl_int(container, VFIO_CHECK_EXTENSION, model)? > 0 {
            os.ioctl_int(container, VFIO_SET_IOMMU, model).map_err(|e| e.with_ioctl_name("VFIO_SET_IOMMU"))?;
            return Ok(());
        }
    }
    Err(Error::Unsupported(format!("the VFIO container supports none of the IOMMU models {candidates:?}")))
}

fn bytes_of_i32(v: &mut i32) -> &mut [u8] {
    // SAFETY: an i32 is 4 initialised bytes, borrowed mutably for the slice's lifetime.
    unsafe { std::slice::from_raw_parts_mut(v as *mut i32 as *mut u8, 4) }
}

impl Drop for VfioPci {
    fn drop(&mut self) {
        // BARs unmap first (their fields drop after this), then the device file closes, which
        // also tears down its interrupts; the container outlives any DMA buffer still mapped.
        self.maps = Default::default();
        for fd in [Some(self.device), self.msi].into_iter().flatten() {
            if let Err(e) = self.os.close(fd) {
                log::warn!("{}: {e}", self.bdf);
            }
        }
    }
}

impl PciDevice for VfioPci {
    fn name(&self) -> &str {
        &self.bdf
    }

    fn config_read(&self, offset: u16, buf: &mut [u8]) -> Result<()> {
        if offset as u64 + buf.len() as u64 > super::sysfs::CONFIG_SIZE {
            return Err(out_of_range(&format!("{} config space", self.bdf), offset as u64, buf.len(), 4096));
        }
        let n = self.os.pread(self.device, buf, self.config_offset + offset as u64)?;
        match n == buf.len() {
            true => Ok(()),
            false => Err(Error::Protocol(format!(
                "{}: config space: read {n} of {} bytes at {offset:#x}",
                self.bdf,
                buf.len()
            ))),
        }
    }

    fn config_write(&self, offset: u16, data: &[u8]) -> Result<()> {
        if offset as u64 + data.len() as u64 > super::sysfs::CONFIG_SIZE {
            return Err(out_of_range(&format!("{} config space", self.bdf), offset as u64, data.len(), 4096));
        }
        let n = self.os.pwrite(self.device, data, self.config_offset + offset as u64)?;
        match n == data.len() {
            true => Ok(()),
            false => Err(Error::Protocol(format!(
                "{}: config space: wrote {n} of {} bytes at {offset:#x}",
                self.bdf,
                data.len()
            ))),
        }
    }

    fn bar(&self, index: u8) -> Option<BarInfo> {
        self.bars.get(index as usize).copied().flatten()
    }

    fn read32(&self, bar: u8, offset: u64) -> Result<u32> {
        self.mapping(bar)?.read32(offset)
    }

    fn write32(&self, bar: u8, offset: u64, value: u32) -> Result<()> {
        self.mapping(bar)?.write32(offset, value)
    }

    fn read64(&self, bar: u8, offset: u64) -> Result<u64> {
        self.mapping(bar)?.read64(offset)
    }

    fn write64(&self, bar: u8, offset: u64, value: u64) -> Result<()> {
        self.mapping(bar)?.write64(offset, value)
    }

    fn copy_from_bar(&self, bar: u8, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.mapping(bar)?.copy_from(offset, buf)
    }

    fn copy_to_bar(&self, bar: u8, offset: u64, data: &[u8]) -> Result<()> {
        self.mapping(bar)?.copy_to(offset, data)
    }

    fn bar_ptr(&self, bar: u8) -> Option<*mut u8> {
        self.mapping(bar).ok().map(BarMapping::ptr)
    }

    fn alloc_dma(&self, size: u64, contiguous: bool) -> Result<Box<dyn DmaMemory>> {
        let dma = match self.noiommu {
            true => DmaBuffer::physical(self.os.clone(), size, contiguous),
            false => self.alloc_iommu(size, contiguous),
        };
        Ok(Box::new(dma.map_err(|e| Error::Unsupported(format!("{}: {e}", self.bdf)))?))
    }

    fn wait_interrupt(&self, timeout: Duration) -> Result<bool> {
        let Some(efd) = self.msi else {
            std::thread::sleep(timeout.min(Duration::from_micros(200)));
            return Ok(false);
        };
        if !self.os.poll_in(efd, timeout)? {
            return Ok(false);
        }
        self.os.read_eventfd(efd)?;
        Ok(true)
    }

    fn reset(&self) -> Result<()> {
        self.os
            .ioctl_int(self.device, VFIO_DEVICE_RESET, 0)
            .map(drop)
            .map_err(|e| e.with_ioctl_name("VFIO_DEVICE_RESET"))
    }
}

#[cfg(test)]
#[path = "vfio_fake.rs"]
mod fake;

#[cfg(test)]
mod tests {
    use super::fake::{region_offset, FakeVfio};
    use super::*;
    use crate::os::HostOs;
    use crate::pci::scan::tests::FakeFn;

    /// A GPU bound to vfio-pci in IOMMU group 17, with a device file whose regions lie where
    /// [`FakeVfio`] says.
    fn vfio_tree(r: &Path) -> FakeFn {
        let f = FakeFn::amd_gpu(r, "0000:03:00.0", 0x40_0000);
        f.bind("vfio-pci");
        std::os::unix::fs::symlink("../../../../kernel/iommu_groups/17", f.dir().join("iommu_group")).unwrap();
        std::fs::create_dir_all(r.join("dev/vfio")).unwrap();
        std::fs::write(r.join("dev/vfio/vfio"), "").unwrap();
        std::fs::write(r.join("dev/vfio/17"), "").unwrap();
        let dev = std::fs::File::create(r.join("vfio-device")).unwrap();
        dev.set_len(region_offset(VFIO_PCI_CONFIG_REGION_INDEX) + 4096).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&dev, &0x744c_1002u32.to_le_bytes(), region_offset(7)).unwrap();
        f
    }

    #[test]
    fn opens_maps_bars_and_config_and_routes_msi_and_dma_through_the_container() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        vfio_tree(r);
        let os = Arc::new(FakeVfio::new(r, vec![(0, 0x40_0000), (2, 0x20_0000), (5, 0x10_0000)]));
        let dev = VfioPci::open(os.clone(), "0000:03:00.0").unwrap();
        let seen = os.seen.lock().unwrap().clone();
        assert!(seen.container_set && seen.msi_eventfd.is_some(), "{seen:?}");
        assert_eq!(seen.iommu_model, Some(VFIO_TYPE1v2_IOMMU));
        assert!(!dev.is_noiommu());
        // Config space is the config region; bus mastering was turned on there.
        let mut id = [0u8; 4];
        dev.config_read(0, &mut id).unwrap();
        assert_eq!(u32::from_le_bytes(id), 0x744c_1002);
        let mut cmd = [0u8; 2];
        dev.config_read(super::super::config::PCI_COMMAND, &mut cmd).unwrap();
        assert_eq!(u16::from_le_bytes(cmd), 0x6);
        // BARs: sizes from VFIO, bus addresses from sysfs; accesses land in the regions.
        assert_eq!(dev.bar(5).map(|b| (b.size, b.bus_addr)), Some((0x10_0000, 0xfcc0_0000)));
        assert_eq!(dev.bar(1), None);
        dev.write32(5, 0x40, 0x1234_5678).unwrap();
        assert!(dev.read32(5, 0x10_0000).is_err());
        // DMA memory is mapped at IOVAs from IOVA_BASE up, and unmapped when dropped.
        let dma = dev.alloc_dma(0x2000, false).unwrap();
        assert_eq!(dma.bus_pages(), [IOVA_BASE, IOVA_BASE + 0x1000]);
        let dma2 = dev.alloc_dma(0x1000, false).unwrap();
        assert_eq!(dma2.bus_pages(), [IOVA_BASE + 0x2000]);
        let vaddr = dma.cpu_ptr().unwrap() as u64;
        assert_eq!(os.seen.lock().unwrap().maps[0], (vaddr, IOVA_BASE, 0x2000));
        drop((dma, dma2));
        assert_eq!(os.seen.lock().unwrap().unmaps, [(IOVA_BASE, 0x2000), (IOVA_BASE + 0x2000, 0x1000)]);
        // MSI: nothing pending times out; a signalled eventfd is one interrupt, then quiet again.
        assert!(!dev.wait_interrupt(Duration::from_millis(1)).unwrap());
        signal(seen.msi_eventfd.unwrap());
        assert!(dev.wait_interrupt(Duration::from_secs(5)).unwrap());
        assert!(!dev.wait_interrupt(Duration::from_millis(1)).unwrap());
        drop(dev);
        let file = std::fs::read(r.join("vfio-device")).unwrap();
        assert_eq!(file[region_offset(5) as usize + 0x40..][..4], 0x1234_5678u32.to_le_bytes());
    }

    #[test]
    fn no_iommu_mode_uses_the_no_iommu_model_and_maps_no_dma() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        vfio_tree(r);
        std::fs::write(r.join("dev/vfio/noiommu-17"), "").unwrap();
        let os = Arc::new(FakeVfio::new(r, vec![(0, 0x40_0000), (5, 0x10_0000)]));
        let dev = VfioPci::open(os.clone(), "0000:03:00.0").unwrap();
        assert!(dev.is_noiommu());
        assert_eq!(os.seen.lock().unwrap().iommu_model, Some(VFIO_NOIOMMU_IOMMU));
        // Bus addresses are physical, from pagemap (absent from this fake tree: the error names it).
        let e = dev.alloc_dma(0x1000, false).unwrap_err().to_string();
        assert!(e.contains("/proc/self/pagemap"), "{e}");
        assert_eq!(os.seen.lock().unwrap().maps, []);
    }

    /// What the device does to raise MSI: add one to the eventfd's count.
    fn signal(eventfd: i32) {
        use std::io::Write;
        use std::os::fd::FromRawFd;
        // SAFETY: the eventfd is open (the device holds it) for the whole call, and ManuallyDrop
        // keeps this File from closing it.
        let mut f = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(eventfd) });
        f.write_all(&1u64.to_ne_bytes()).unwrap();
    }

    fn group_err(root: &Path) -> String {
        group_file(&HostOs::with_root(root), "0000:03:00.0").unwrap_err().to_string()
    }

    #[test]
    fn the_group_file_is_found_or_its_absence_explained() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let f = FakeFn::amd_gpu(r, "0000:03:00.0", 0x40_0000);
        f.bind("vfio-pci");
        assert!(group_err(r).contains("no IOMMU group: turn the IOMMU on"), "{}", group_err(r));
        std::fs::create_dir_all(r.join("sys/kernel/iommu_groups/17")).unwrap();
        std::os::unix::fs::symlink("../../../../kernel/iommu_groups/17", f.dir().join("iommu_group")).unwrap();
        assert!(group_err(r).contains("vfio-pci is not loaded (modprobe vfio-pci)"), "{}", group_err(r));
        std::fs::create_dir_all(r.join("dev/vfio")).unwrap();
        std::fs::write(r.join("dev/vfio/vfio"), "").unwrap();
        assert!(group_err(r).contains("no /dev/vfio/17: the function is not bound to vfio-pci"), "{}", group_err(r));
        std::fs::write(r.join("dev/vfio/17"), "").unwrap();
        let os = HostOs::with_root(r);
        assert_eq!(group_file(&os, "0000:03:00.0").unwrap(), (17, PathBuf::from("/dev/vfio/17"), false));
        std::fs::write(r.join("dev/vfio/noiommu-17"), "").unwrap();
        assert_eq!(group_file(&os, "0000:03:00.0").unwrap(), (17, PathBuf::from("/dev/vfio/noiommu-17"), true));
    }

    #[test]
    fn a_container_that_is_not_vfio_fails_on_its_first_ioctl() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let f = FakeFn::amd_gpu(r, "0000:03:00.0", 0x40_0000);
        f.bind("vfio-pci");
        std::os::unix::fs::symlink("../../../../kernel/iommu_groups/17", f.dir().join("iommu_group")).unwrap();
        std::fs::create_dir_all(r.join("dev/vfio")).unwrap();
        std::fs::write(r.join("dev/vfio/vfio"), "").unwrap();
        std::fs::write(r.join("dev/vfio/17"), "").unwrap();
        let e = VfioPci::open(Arc::new(HostOs::with_root(r)), "0000:03:00.0").unwrap_err();
        assert_eq!(e.errno(), Some(libc::ENOTTY), "{e}");
        assert!(e.to_string().contains("/dev/vfio/vfio"), "{e}");
    }
}
