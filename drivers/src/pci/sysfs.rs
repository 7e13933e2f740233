//! A PCI function driven through sysfs: config space from `config`, BARs mapped whole from
//! `resourceN` (`resource0_wc` for VRAM), BAR0 resized through `resource0_resize`, the device
//! enabled through `enable`, bus mastering set in the command register. DMA memory has physical
//! bus addresses (no IOMMU translation: sysfs mode needs the IOMMU off or in passthrough).

use super::bar_map::{out_of_range, BarMapping};
use super::pagemap::DmaBuffer;
use super::scan::{self, device_dir, human, parse_resources, rebar_bytes, resize_sizes};
use super::{BarInfo, DmaMemory, PciDevice};
use crate::os::{Fd, OpenFlags, Os};
use crate::{Error, Result};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// PCIe extended config space.
pub const CONFIG_SIZE: u64 = 4096;
use super::config::{PCI_COMMAND, PCI_COMMAND_MASTER, PCI_COMMAND_MEMORY};

/// What the open did to BAR0's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bar0Resize {
    pub before: u64,
    pub after: u64,
    /// The largest size the Resizable BAR capability offers.
    pub largest_offered: u64,
}

pub struct SysfsPci {
    os: Arc<dyn Os>,
    bdf: String,
    config: Fd,
    bars: [Option<BarInfo>; 6],
    maps: [Option<BarMapping>; 6],
    resize: Option<Bar0Resize>,
    /// The lock that keeps a second driver (another process, or a second open here) off the
    /// device; `None` where no lock file could be made.
    lock: Option<Fd>,
}

/// The lock file of a device: one driver at a time (VFIO's group file is exclusive by itself).
pub fn lock_path(bdf: &str) -> std::path::PathBuf {
    Path::new("/tmp").join(format!("baregpu-am-{bdf}.lock"))
}

/// Take the device's lock: an error when another driver holds it; a warning (and no lock) when
/// no lock file can be made.
fn lock(os: &dyn Os, bdf: &str) -> Result<Option<Fd>> {
    let path = lock_path(bdf);
    match os.try_lock(&path) {
        Ok(Some(fd)) => Ok(Some(fd)),
        Ok(None) => Err(Error::Unsupported(format!(
            "{bdf}: in use by another baregpu process (it holds {}); wait for it to finish",
            path.display()
        ))),
        Err(e) => {
            log::warn!("{bdf}: no device lock ({e}); nothing keeps a second driver off the device");
            Ok(None)
        }
    }
}

impl std::fmt::Debug for SysfsPci {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sysfs PCI {}", self.bdf)
    }
}

impl SysfsPci {
    /// Open the function at `bdf` (no kernel driver may be bound: [`super::open_host`] checks
    /// that first and says how to unbind): resize BAR0 to the largest size offered, enable the
    /// device, map every memory BAR, and turn on memory decoding and bus mastering.
    pub fn open(os: Arc<dyn Os>, bdf: &str) -> Result<Self> {
        if !scan::is_bdf(bdf) {
            return Err(Error::Unsupported(format!("`{bdf}` is not a PCI address like 0000:03:00.0")));
        }
        let dir = device_dir(bdf);
        let lock = lock(&*os, bdf)?;
        match Self::open_locked(os.clone(), bdf, &dir) {
            Ok(mut dev) => {
                dev.lock = lock;
                Ok(dev)
            }
            Err(e) => {
                if let Some(fd) = lock {
                    let _ = os.close(fd);
                }
                Err(e)
            }
        }
    }

    /// The open proper, under the lock the caller holds.
    fn open_locked(os: Arc<dyn Os>, bdf: &str, dir: &Path) -> Result<Self> {
        let resource = dir.join("resource");
        let bar0 = parse_resources(&os.read_to_string(&resource)?, &resource)?[0].map_or(0, |b| b.size);
        let resize = resize_bar0(&*os, bdf, bar0)?;
        enable(&*os, bdf)?;
        let bars = parse_resources(&os.read_to_string(&resource)?, &resource)?;
        let config = os.open(&dir.join("config"), OpenFlags::READ | OpenFlags::WRITE | OpenFlags::CLOEXEC);
        let config = config.map_err(|e| super::explain(bdf, e))?;
        let mut dev = SysfsPci { os, bdf: bdf.to_string(), config, bars, maps: Default::default(), resize, lock: None };
        for (i, bar) in bars.iter().enumerate() {
            if let Some(bar) = bar {
                dev.maps[i] = Some(dev.map_bar(dir, i as u8, bar)?);
            }
        }
        dev.set_command(PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER, true)?;
        Ok(dev)
    }

    /// Map BAR `i` whole: VRAM write-combined where the kernel offers `resourceN_wc`.
    fn map_bar(&self, dir: &Path, i: u8, bar: &BarInfo) -> Result<BarMapping> {
        let wc = dir.join(format!("resource{i}_wc"));
        let path = match i == super::AMD_BAR_VRAM && bar.prefetchable && self.os.exists(&wc) {
            true => wc,
            false => dir.join(format!("resource{i}")),
        };
        let fd = self.os.open(&path, OpenFlags::READ | OpenFlags::WRITE | OpenFlags::CLOEXEC);
        let fd = fd.map_err(|e| super::explain(&self.bdf, e))?;
        let mapped = BarMapping::map(self.os.clone(), format!("{} BAR{i}", self.bdf), fd, 0, bar.size);
        let closed = self.os.close(fd);
        let mapped = mapped.map_err(|e| explain_mmap(&self.bdf, &path, e))?;
        closed?;
        Ok(mapped)
    }

    /// What the open did to BAR0 (`None` when the BAR is not resizable).
    pub fn bar0_resize(&self) -> Option<Bar0Resize> {
        self.resize
    }

    /// Set or clear bits of the command register (bus mastering off around a mode-1 reset).
    pub fn set_command(&self, bits: u16, on: bool) -> Result<()> {
        let mut cmd = [0u8; 2];
        self.config_read(PCI_COMMAND, &mut cmd)?;
        let old = u16::from_le_bytes(cmd);
        let new = if on { old | bits } else { old & !bits };
        if new != old {
            self.config_write(PCI_COMMAND, &new.to_le_bytes())?;
        }
        Ok(())
    }

    fn mapping(&self, bar: u8) -> Result<&BarMapping> {
        self.maps
            .get(bar as usize)
            .and_then(|m| m.as_ref())
            .ok_or_else(|| Error::Unsupported(format!("{}: no memory BAR{bar}", self.bdf)))
    }

    fn config_range(&self, offset: u16, len: usize) -> Result<()> {
        match offset as u64 + len as u64 <= CONFIG_SIZE {
            true => Ok(()),
            false => Err(out_of_range(&format!("{} config space", self.bdf), offset as u64, len, CONFIG_SIZE)),
        }
    }
}

/// Resize BAR0 to the largest size `resource0_resize` offers, else the largest that fits the
/// bridge window, trying smaller ones as the kernel refuses; no change when it is already there.
fn resize_bar0(os: &dyn Os, bdf: &str, current: u64) -> Result<Option<Bar0Resize>> {
    let path = device_dir(bdf).join("resource0_resize");
    if !os.exists(&path) {
        return Ok(None);
    }
    let sizes = resize_sizes(&os.read_to_string(&path)?, &path)?;
    let Some(&largest) = sizes.last() else { return Ok(None) };
    for bit in resize_order(&sizes, current) {
        match os.write_file(&path, &bit.to_string()) {
            Ok(()) => break,
            Err(e) if matches!(e.errno(), Some(libc::EPERM | libc::EACCES | libc::EBUSY)) => {
                return Err(super::explain(bdf, e));
            }
            // ENOSPC and friends: the bridge window cannot hold it; a smaller size may fit.
            Err(e) => log::info!("{bdf}: BAR0 resize to {} refused: {e}", human(rebar_bytes(bit))),
        }
    }
    let resource = device_dir(bdf).join("resource");
    let after = parse_resources(&os.read_to_string(&resource)?, &resource)?[0].map_or(0, |b| b.size);
    let resize = Bar0Resize { before: current, after, largest_offered: rebar_bytes(largest) };
    log::info!(
        "{bdf}: BAR0 {} -> {} (largest offered {})",
        human(current),
        human(after),
        human(resize.largest_offered)
    );
    Ok(Some(resize))
}

/// Resizable BAR size numbers worth trying, largest first, all larger than `current`.
pub fn resize_order(sizes: &[u32], current: u64) -> Vec<u32> {
    sizes.iter().rev().copied().filter(|&b| rebar_bytes(b) > current).collect()
}

/// Whether BAR0 reaches all of VRAM, else the error that says what it would take. The AM driver
/// decides whether it can run with a small BAR; this is the message when it cannot.
pub fn check_vram_bar(bdf: &str, bar0: u64, largest_offered: Option<u64>, vram: u64) -> Result<()> {
    if bar0 >= vram {
        return Ok(());
    }
    let resizable = match largest_offered {
        Some(max) => format!("resizable to at most {}", human(max)),
        None => "not resizable".into(),
    };
    Err(Error::Unsupported(format!(
        "{bdf}: BAR0 is {} ({resizable}) but VRAM is {}: enable Resizable BAR and Above 4G Decoding in the firmware setup",
        human(bar0),
        human(vram)
    )))
}

/// Write `enable` (the kernel's pci_enable_device) unless it already reads 1.
fn enable(os: &dyn Os, bdf: &str) -> Result<()> {
    let path = device_dir(bdf).join("enable");
    if os.read_to_string(&path)?.trim() == "0" {
        os.write_file(&path, "1").map_err(|e| super::explain(bdf, e))?;
    }
    Ok(())
}

/// Say why a BAR could not be mapped.
fn explain_mmap(bdf: &str, path: &Path, e: Error) -> Error {
    let why = match e.errno() {
        Some(libc::EPERM) => "the kernel is locked down (Secure Boot forbids mapping PCI BARs from userspace)",
        Some(libc::EINVAL) => "a kernel driver still claims the BAR (unbind it), or the BAR is not mappable",
        _ => return super::explain(bdf, e),
    };
    Error::Unsupported(format!("{bdf}: cannot map {}: {e}: {why}", path.display()))
}

impl Drop for SysfsPci {
    fn drop(&mut self) {
        // The maps unmap themselves; bus mastering stays as the driver left it (a later run
        // detects the state the last one left).
        // Unmapped before the lock goes: the next driver must find no mapping of ours.
        self.maps = Default::default();
        for fd in [Some(self.config), self.lock].into_iter().flatten() {
            if let Err(e) = self.os.close(fd) {
                log::warn!("{}: {e}", self.bdf);
            }
        }
    }
}

impl PciDevice for SysfsPci {
    fn name(&self) -> &str {
        &self.bdf
    }

    fn config_read(&self, offset: u16, buf: &mut [u8]) -> Result<()> {
        self.config_range(offset, buf.len())?;
        let n = self.os.pread(self.config, buf, offset as u64)?;
        if n != buf.len() {
            // The kernel serves only the first 64 bytes to a process without CAP_SYS_ADMIN.
            return Err(Error::Unsupported(format!(
                "{}: config space: read {n} of {} bytes at {offset:#x} (all of it needs CAP_SYS_ADMIN; {})",
                self.bdf,
                buf.len(),
                scan::PRIVILEGES
            )));
        }
        Ok(())
    }

    fn config_write(&self, offset: u16, data: &[u8]) -> Result<()> {
        self.config_range(offset, data.len())?;
        let n = self.os.pwrite(self.config, data, offset as u64)?;
        if n != data.len() {
            return Err(Error::Protocol(format!(
                "{}: config space: wrote {n} of {} bytes at {offset:#x}",
                self.bdf,
                data.len()
            )));
        }
        Ok(())
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
        let dma = DmaBuffer::physical(self.os.clone(), size, contiguous);
        Ok(Box::new(dma.map_err(|e| Error::Unsupported(format!("{}: {e}", self.bdf)))?))
    }

    /// sysfs gives no interrupts: the caller polls the IH ring. Sleeps a little of `timeout` so
    /// that a wait loop does not spin a core.
    fn wait_interrupt(&self, timeout: Duration) -> Result<bool> {
        std::thread::sleep(timeout.min(Duration::from_micros(200)));
        Ok(false)
    }

    /// A function-level reset through sysfs `reset`.
    fn reset(&self) -> Result<()> {
        let path = device_dir(&self.bdf).join("reset");
        if !self.os.exists(&path) {
            return Err(Error::Unsupported(format!("{}: no function-level reset (no sysfs `reset`)", self.bdf)));
        }
        self.os.write_file(&path, "1").map_err(|e| super::explain(&self.bdf, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::HostOs;
    use crate::pci::scan::tests::FakeFn;

    fn open(root: &Path, bdf: &str) -> Result<SysfsPci> {
        SysfsPci::open(Arc::new(HostOs::with_root(root)), bdf)
    }

    #[test]
    fn opens_enables_maps_and_sets_bus_master_through_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let f = FakeFn::amd_gpu(dir.path(), "0000:03:00.0", 0x40_0000);
        let dev = open(dir.path(), "0000:03:00.0").unwrap();
        assert_eq!(std::fs::read_to_string(f.dir().join("enable")).unwrap(), "1\n");
        let cfg = std::fs::read(f.dir().join("config")).unwrap();
        assert_eq!(u16::from_le_bytes([cfg[4], cfg[5]]), PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
        let mut id = [0u8; 4];
        dev.config_read(0, &mut id).unwrap();
        assert_eq!(u32::from_le_bytes(id), 0x744c_1002);
        assert_eq!(dev.bar(0).map(|b| b.size), Some(0x40_0000));
        assert_eq!((dev.bar(1), dev.bar(4)), (None, None));
        assert_eq!(dev.bar0_resize(), None, "no resource0_resize");
        // Registers land in resource5, VRAM in resource0.
        dev.write32(5, 0x3390 * 4, 0xa000_0008).unwrap();
        dev.copy_to_bar(0, 0x3f_fff0, b"discovery").unwrap();
        assert!(dev.bar_ptr(0).is_some() && dev.bar_ptr(3).is_none());
        dev.set_command(PCI_COMMAND_MASTER, false).unwrap();
        drop(dev);
        let regs = std::fs::read(f.dir().join("resource5")).unwrap();
        assert_eq!(regs[0x3390 * 4..][..4], 0xa000_0008u32.to_le_bytes());
        assert_eq!(&std::fs::read(f.dir().join("resource0")).unwrap()[0x3f_fff0..][..9], b"discovery");
        assert_eq!(std::fs::read(f.dir().join("config")).unwrap()[4], PCI_COMMAND_MEMORY as u8);
    }

    #[test]
    fn a_second_open_of_one_device_is_refused_until_the_first_is_closed() {
        let dir = tempfile::tempdir().unwrap();
        FakeFn::amd_gpu(dir.path(), "0000:03:00.0", 0x40_0000);
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        let first = open(dir.path(), "0000:03:00.0").unwrap();
        let e = open(dir.path(), "0000:03:00.0").unwrap_err().to_string();
        assert_eq!(e, "0000:03:00.0: in use by another baregpu process (it holds /tmp/baregpu-am-0000:03:00.0.lock); wait for it to finish");
        drop(first);
        open(dir.path(), "0000:03:00.0").unwrap();
    }

    #[test]
    fn offsets_past_a_bar_or_config_space_are_errors_not_accesses() {
        let dir = tempfile::tempdir().unwrap();
        FakeFn::amd_gpu(dir.path(), "0000:03:00.0", 0x40_0000);
        let dev = open(dir.path(), "0000:03:00.0").unwrap();
        let e = dev.read32(5, 0x10_0000).unwrap_err().to_string();
        assert!(e.contains("0000:03:00.0 BAR5: 4 bytes at offset 0x100000 reach past its 0x100000 bytes"), "{e}");
        assert!(dev.write64(2, 0x20_0000 - 4, 0).is_err());
        assert!(dev.copy_to_bar(0, 0x40_0000 - 8, &[0; 9]).is_err());
        assert!(dev.read32(3, 0).unwrap_err().to_string().contains("no memory BAR3"));
        assert!(dev.read32(9, 0).is_err());
        let mut b = [0u8; 8];
        let e = dev.config_read(0xffc, &mut b).unwrap_err().to_string();
        assert!(e.contains("config space: 8 bytes at offset 0xffc reach past its 0x1000 bytes"), "{e}");
        assert!(dev.config_write(0x1000, &[0]).is_err());
    }

    #[test]
    fn a_short_config_read_says_it_needs_cap_sys_admin() {
        let dir = tempfile::tempdir().unwrap();
        let f = FakeFn::amd_gpu(dir.path(), "0000:03:00.0", 0x40_0000);
        let dev = open(dir.path(), "0000:03:00.0").unwrap();
        // What an unprivileged reader sees: the file ends after 64 bytes.
        std::fs::OpenOptions::new().write(true).open(f.dir().join("config")).unwrap().set_len(64).unwrap();
        let mut b = [0u8; 4];
        let e = dev.config_read(0x100, &mut b).unwrap_err().to_string();
        assert!(e.contains("read 0 of 4 bytes at 0x100") && e.contains("CAP_SYS_ADMIN"), "{e}");
    }

    #[test]
    fn bar0_is_resized_to_the_largest_size_offered() {
        let dir = tempfile::tempdir().unwrap();
        let f = FakeFn::amd_gpu(dir.path(), "0000:03:00.0", 256 << 20);
        f.write("resource0_resize", "000000000000ff00\n");
        let dev = open(dir.path(), "0000:03:00.0").unwrap();
        // Bit 15 (32 GiB) was written; the fake kernel did not move the BAR, which is reported.
        // One write of "15" over the mask (a regular file keeps the rest of what it held).
        assert_eq!(std::fs::read_to_string(f.dir().join("resource0_resize")).unwrap(), "150000000000ff00\n");
        assert_eq!(
            dev.bar0_resize(),
            Some(Bar0Resize { before: 256 << 20, after: 256 << 20, largest_offered: 32 << 30 })
        );
    }

    #[test]
    fn resize_tries_larger_sizes_largest_first_and_never_shrinks() {
        let sizes = [8, 9, 10, 11, 12, 13, 14, 15];
        assert_eq!(resize_order(&sizes, 256 << 20), vec![15, 14, 13, 12, 11, 10, 9]);
        assert_eq!(resize_order(&sizes, 32 << 30), Vec::<u32>::new());
        assert_eq!(resize_order(&[], 0), Vec::<u32>::new());
        assert!(check_vram_bar("0000:03:00.0", 32 << 30, Some(32 << 30), 24 << 30).is_ok());
        let e = check_vram_bar("0000:03:00.0", 256 << 20, Some(256 << 20), 24 << 30).unwrap_err().to_string();
        assert_eq!(
            e,
            "0000:03:00.0: BAR0 is 256 MiB (resizable to at most 256 MiB) but VRAM is 24 GiB: enable Resizable BAR and Above 4G Decoding in the firmware setup"
        );
        assert!(check_vram_bar("x", 256 << 20, None, 1 << 30).unwrap_err().to_string().contains("not resizable"));
    }
}
