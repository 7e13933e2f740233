//! AMD PCI GPUs as sysfs lists them, whether or not a kernel driver is bound: what `am:BDF` can
//! open and what it takes first (unbinding amdgpu, privileges). Read-only: nothing here changes a
//! device.

use super::BarInfo;
use crate::os::{OpenFlags, Os};
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// Where the kernel lists PCI functions.
pub const PCI_DEVICES: &str = "/sys/bus/pci/devices";
pub const AMD_VENDOR: u16 = 0x1002;

/// `struct resource` flags that `resource` reports (include/linux/ioport.h).
const IORESOURCE_IO: u64 = 0x100;
const IORESOURCE_MEM: u64 = 0x200;
const IORESOURCE_PREFETCH: u64 = 0x2000;

/// Base classes of a GPU (include/linux/pci_ids.h): display controller, processing accelerator
/// (MI300-class cards report 0x12).
const CLASS_DISPLAY: u32 = 0x03;
const CLASS_ACCELERATOR: u32 = 0x12;

/// What a process needs to use a device through sysfs: resource files are root's (mode 0600),
/// and `enable`, `resourceN_resize` and physical addresses in /proc/self/pagemap need
/// CAP_SYS_ADMIN; pinned DMA memory needs CAP_IPC_LOCK beyond `ulimit -l`.
pub const PRIVILEGES: &str =
    "run as root, or give the binary the capabilities (setcap cap_dac_override,cap_sys_admin,cap_ipc_lock=ep BINARY)";

/// The sysfs directory of a function.
pub fn device_dir(bdf: &str) -> PathBuf {
    Path::new(PCI_DEVICES).join(bdf)
}

/// Whether `bdf` is a full PCI address as sysfs names it (`0000:03:00.0`, lowercase): the only
/// thing that may be joined to [`PCI_DEVICES`].
pub fn is_bdf(bdf: &str) -> bool {
    let b = bdf.as_bytes();
    let hex = |r: std::ops::Range<usize>| b[r].iter().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c));
    b.len() == 12
        && hex(0..4)
        && b[4] == b':'
        && hex(5..7)
        && b[7] == b':'
        && hex(8..10)
        && b[10] == b'.'
        && (b'0'..=b'7').contains(&b[11])
}

/// One AMD GPU function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PciGpu {
    pub bdf: String,
    pub device_id: u16,
    /// The 24-bit class code (`0x030000` VGA, `0x038000` display, `0x120000` accelerator).
    pub class: u32,
    /// The kernel driver bound to it (`amdgpu`, `vfio-pci`), if any.
    pub driver: Option<String>,
    /// BARs 0-5 as `resource` reports them; `None` where there is none.
    pub bars: [Option<BarInfo>; 6],
    /// The largest size BAR0 can be resized to (from `resource0_resize`), when it is resizable.
    pub bar0_resizable_max: Option<u64>,
    /// The IOMMU group (for VFIO), when the function is in one.
    pub iommu_group: Option<u32>,
}

impl PciGpu {
    /// What it takes to open the function as `am:BDF`; `None` when nothing does.
    pub fn blocker(&self) -> Option<String> {
        match self.driver.as_deref() {
            Some("amdgpu") => Some(unbind_hint(&self.bdf, "amdgpu")),
            Some("vfio-pci") | None => None,
            Some(other) => Some(unbind_hint(&self.bdf, other)),
        }
    }

    /// Whether opening it would go through VFIO.
    pub fn is_vfio(&self) -> bool {
        self.driver.as_deref() == Some("vfio-pci")
    }
}

/// The one way we tell users to free a device from a kernel driver.
pub fn unbind_hint(bdf: &str, driver: &str) -> String {
    format!("bound to {driver}; unbind it first: echo {bdf} | sudo tee /sys/bus/pci/drivers/{driver}/unbind")
}

/// Every AMD display or accelerator function in sysfs, sorted by address. A function whose files
/// cannot be read is an error naming the file.
pub fn amd_gpus(os: &dyn Os) -> Result<Vec<PciGpu>> {
    let names = match os.read_dir(Path::new(PCI_DEVICES)) {
        Ok(n) => n,
        // No PCI bus (a container, a captured tree without one): nothing to list.
        Err(e) if e.is_not_found() => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut gpus = Vec::new();
    for bdf in names.into_iter().filter(|n| is_bdf(n)) {
        if let Some(gpu) = probe(os, &bdf)? {
            gpus.push(gpu);
        }
    }
    Ok(gpus)
}

/// The function at `bdf` if it is an AMD GPU; `Ok(None)` when it is another kind of device.
pub fn probe(os: &dyn Os, bdf: &str) -> Result<Option<PciGpu>> {
    let dir = device_dir(bdf);
    let vendor = hex_attr(os, &dir.join("vendor"))?;
    let class = hex_attr(os, &dir.join("class"))? as u32;
    if vendor != AMD_VENDOR as u64 || !matches!(class >> 16, CLASS_DISPLAY | CLASS_ACCELERATOR) {
        return Ok(None);
    }
    let resize = dir.join("resource0_resize");
    let bar0_resizable_max = match os.exists(&resize) {
        true => resize_sizes(&os.read_to_string(&resize)?, &resize)?.last().map(|&bit| rebar_bytes(bit)),
        false => None,
    };
    Ok(Some(PciGpu {
        bdf: bdf.to_string(),
        device_id: hex_attr(os, &dir.join("device"))? as u16,
        class,
        driver: link_name(os, &dir.join("driver"))?,
        bars: parse_resources(&os.read_to_string(&dir.join("resource"))?, &dir.join("resource"))?,
        bar0_resizable_max,
        iommu_group: link_name(os, &dir.join("iommu_group"))?
            .map(|g| g.parse().map_err(|_| Error::malformed(dir.join("iommu_group"), format!("group `{g}`"))))
            .transpose()?,
    }))
}

/// Whether this process may open the function's resource files read-write (root or
/// CAP_DAC_OVERRIDE): the first privilege a sysfs open needs.
pub fn can_open_resources(os: &dyn Os, bdf: &str) -> bool {
    let config = device_dir(bdf).join("config");
    match os.open(&config, OpenFlags::READ | OpenFlags::WRITE | OpenFlags::CLOEXEC) {
        Ok(fd) => os.close(fd).is_ok(),
        Err(_) => false,
    }
}

/// The last component of a symlink's target (`driver` → `amdgpu`), `None` when there is no link.
fn link_name(os: &dyn Os, path: &Path) -> Result<Option<String>> {
    match os.read_link(path) {
        Ok(target) => Ok(target.file_name().map(|n| n.to_string_lossy().into_owned())),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

/// A sysfs attribute holding one hex number (`0x1002`).
pub fn hex_attr(os: &dyn Os, path: &Path) -> Result<u64> {
    let text = os.read_to_string(path)?;
    let t = text.trim();
    u64::from_str_radix(t.trim_start_matches("0x"), 16)
        .map_err(|_| Error::malformed(path, format!("`{t}` is not a hex number")))
}

/// `resource`: one line `start end flags` (hex) per resource; the first six are the BARs.
pub fn parse_resources(text: &str, path: &Path) -> Result<[Option<BarInfo>; 6]> {
    let mut bars = [None; 6];
    for (i, line) in text.lines().take(6).enumerate() {
        let nums: Vec<u64> = line
            .split_whitespace()
            .map(|w| u64::from_str_radix(w.trim_start_matches("0x"), 16))
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| Error::malformed(path, format!("line {}: `{line}`", i + 1)))?;
        let [start, end, flags] = nums[..] else {
            return Err(Error::malformed(path, format!("line {}: expected start, end and flags", i + 1)));
        };
        // Unassigned resources read as zeros; I/O port BARs are not mappable memory.
        if end <= start || flags & IORESOURCE_IO != 0 || flags & IORESOURCE_MEM == 0 {
            continue;
        }
        bars[i] =
            Some(BarInfo { size: end - start + 1, bus_addr: start, prefetchable: flags & IORESOURCE_PREFETCH != 0 });
    }
    Ok(bars)
}

/// `resourceN_resize` holds the Resizable BAR capability's size mask (bit n: 1 MiB << n); the
/// sizes it offers as bit numbers, smallest first.
pub fn resize_sizes(text: &str, path: &Path) -> Result<Vec<u32>> {
    let t = text.trim();
    let mask = u64::from_str_radix(t, 16).map_err(|_| Error::malformed(path, format!("`{t}` is not a size mask")))?;
    Ok((0..44).filter(|b| mask & (1 << b) != 0).collect())
}

/// Bytes of a Resizable BAR size number (PCIe: 0 is 1 MiB).
pub fn rebar_bytes(bit: u32) -> u64 {
    1u64 << (20 + bit)
}

/// A size for people: `256 MiB`, `32 GiB`.
pub fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 => format!("{} MiB", b >> 20),
        b => format!("{} KiB", b >> 10),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::os::HostOs;

    /// A sysfs PCI function in a fake tree under `root`, with regular files standing in for
    /// `config` and `resourceN`.
    pub struct FakeFn {
        pub root: PathBuf,
        pub bdf: String,
    }

    impl FakeFn {
        pub fn dir(&self) -> PathBuf {
            self.root.join("sys/bus/pci/devices").join(&self.bdf)
        }
        pub fn write(&self, name: &str, text: &str) {
            std::fs::write(self.dir().join(name), text).unwrap();
        }
        /// An AMD Navi31 with BAR0 VRAM (`bar0` bytes), BAR2 doorbells and BAR5 registers.
        pub fn amd_gpu(root: &Path, bdf: &str, bar0: u64) -> FakeFn {
            let f = FakeFn { root: root.to_path_buf(), bdf: bdf.to_string() };
            std::fs::create_dir_all(f.dir()).unwrap();
            f.write("vendor", "0x1002\n");
            f.write("device", "0x744c\n");
            f.write("class", "0x030000\n");
            f.write("enable", "0\n");
            let mut config = vec![0u8; 4096];
            config[0..4].copy_from_slice(&0x744c_1002u32.to_le_bytes());
            config[8..12].copy_from_slice(&0x0300_00c8u32.to_le_bytes());
            std::fs::write(f.dir().join("config"), config).unwrap();
            f.set_bars(bar0);
            f
        }
        pub fn set_bars(&self, bar0: u64) {
            let line =
                |start: u64, size: u64, flags: u64| format!("{start:#018x} {:#018x} {flags:#018x}\n", start + size - 1);
            let zero = format!("{:#018x} {:#018x} {:#018x}\n", 0, 0, 0);
            let text = [
                line(0x38_0000_0000, bar0, 0x14_220c),
                zero.clone(),
                line(0x38_1000_0000, 0x20_0000, 0x14_220c),
                zero.clone(),
                format!("{:#018x} {:#018x} {:#018x}\n", 0xe000, 0xe0ff, 0x4_0101),
                line(0xfcc0_0000, 0x10_0000, 0x4_0200),
                zero,
            ]
            .concat();
            self.write("resource", &text);
            for (i, size) in [(0, bar0), (2, 0x20_0000), (5, 0x10_0000)] {
                let f = std::fs::File::create(self.dir().join(format!("resource{i}"))).unwrap();
                f.set_len(size).unwrap();
            }
        }
        pub fn bind(&self, driver: &str) {
            let drv = self.root.join("sys/bus/pci/drivers").join(driver);
            std::fs::create_dir_all(&drv).unwrap();
            std::fs::write(drv.join("unbind"), "").unwrap();
            std::os::unix::fs::symlink(format!("../../../bus/pci/drivers/{driver}"), self.dir().join("driver"))
                .unwrap();
        }
    }

    #[test]
    fn lists_amd_gpus_with_and_without_a_driver_and_skips_other_functions() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let bound = FakeFn::amd_gpu(r, "0000:03:00.0", 0x1000_0000);
        bound.bind("amdgpu");
        bound.write("resource0_resize", "000000000000ff00\n");
        FakeFn::amd_gpu(r, "0000:83:00.0", 0x4_0000_0000);
        // The GPU's HDMI audio function and another vendor's GPU are not listed.
        let audio = FakeFn::amd_gpu(r, "0000:03:00.1", 0x4000);
        audio.write("class", "0x040300\n");
        let other = FakeFn::amd_gpu(r, "0000:19:00.0", 0x4000);
        other.write("vendor", "0x10de\n");
        let os = HostOs::with_root(r);
        let gpus = amd_gpus(&os).unwrap();
        assert_eq!(gpus.iter().map(|g| g.bdf.as_str()).collect::<Vec<_>>(), ["0000:03:00.0", "0000:83:00.0"]);
        let (a, b) = (&gpus[0], &gpus[1]);
        assert_eq!((a.device_id, a.class, a.driver.as_deref()), (0x744c, 0x030000, Some("amdgpu")));
        assert_eq!(a.bars[0], Some(BarInfo { size: 0x1000_0000, bus_addr: 0x38_0000_0000, prefetchable: true }));
        assert_eq!(a.bars[5].map(|b| (b.size, b.prefetchable)), Some((0x10_0000, false)));
        assert_eq!((a.bars[1], a.bars[4]), (None, None), "the upper half of BAR0 and an I/O BAR");
        assert_eq!(a.bar0_resizable_max, Some(32 << 30), "bits 8-15: 256 MiB to 32 GiB");
        let hint = a.blocker().unwrap();
        assert_eq!(
            hint,
            "bound to amdgpu; unbind it first: echo 0000:03:00.0 | sudo tee /sys/bus/pci/drivers/amdgpu/unbind"
        );
        assert_eq!((b.driver.as_deref(), b.blocker(), b.bar0_resizable_max), (None, None, None));
        assert_eq!(b.bars[0].unwrap().size, 16 << 30);
    }

    #[test]
    fn no_pci_bus_lists_nothing_and_a_malformed_attribute_is_named() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(amd_gpus(&HostOs::with_root(dir.path())).unwrap(), vec![]);
        let f = FakeFn::amd_gpu(dir.path(), "0000:03:00.0", 0x1000_0000);
        f.write("resource", "0x1 zz 0x0\n");
        let err = amd_gpus(&HostOs::with_root(dir.path())).unwrap_err().to_string();
        assert!(err.contains("0000:03:00.0/resource: malformed: line 1"), "{err}");
    }

    #[test]
    fn addresses_are_full_lowercase_bdfs_only() {
        for ok in ["0000:03:00.0", "0001:c1:1f.7"] {
            assert!(is_bdf(ok), "{ok}");
        }
        for bad in ["03:00.0", "0000:03:00.8", "0000:C1:00.0", "../../../etc", "0000:03:00.0/..", ""] {
            assert!(!is_bdf(bad), "{bad}");
        }
    }

    #[test]
    fn resize_masks_become_sizes() {
        let p = Path::new("resource0_resize");
        assert_eq!(resize_sizes("0000000000003f00\n", p).unwrap(), vec![8, 9, 10, 11, 12, 13]);
        assert_eq!(resize_sizes("0000000000000000\n", p).unwrap(), Vec::<u32>::new());
        assert!(resize_sizes("banana", p).is_err());
        assert_eq!((rebar_bytes(0), rebar_bytes(8), rebar_bytes(15)), (1 << 20, 256 << 20, 32 << 30));
        assert_eq!(
            (human(256 << 20), human(32 << 30), human(0x1000)),
            ("256 MiB".into(), "32 GiB".into(), "4 KiB".into())
        );
    }
}
