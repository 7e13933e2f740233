//! Discovery of NVIDIA GPUs from what the kernel module publishes in /proc and /dev, before any
//! RM call: enough to list devices and pick the RM ABI branch.

use crate::os::Os;
use crate::{Error, Result};
use std::path::Path;

pub const PROC_NVIDIA: &str = "/proc/driver/nvidia";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvGpu {
    /// Position in PCI order: the `N` of the `nv:N` device spec.
    pub index: usize,
    pub model: String,
    pub pci_bdf: String,
    /// `/dev/nvidia<minor>`.
    pub minor: u32,
    /// Whether `/dev/nvidia<minor>` exists (the module may be loaded without device nodes).
    pub device_node: bool,
    pub pci_device_id: Option<u16>,
    /// Compute capability (`sm_90`), from the PCI device id; `None` for an id we do not know.
    pub arch: Option<&'static str>,
}

/// What the loaded kernel module says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvDriver {
    /// Such as `580.65.06`.
    pub version: String,
    /// True for the open kernel modules, which Hopper and later require.
    pub open: bool,
}

/// Chip families by PCI device-id range. NVIDIA assigns ids to chips in blocks; the RM call
/// NV2080_CTRL_CMD_MC_GET_ARCH_INFO is the authority once a device is open.
const FAMILIES: &[(u16, u16, &str)] = &[
    (0x20b0, 0x20ff, "sm_80"),  // GA100 (A100, A30)
    (0x2200, 0x22ff, "sm_86"),  // GA102
    (0x2300, 0x23ff, "sm_90"),  // GH100 (H100, H200, GH200)
    (0x2400, 0x25ff, "sm_86"),  // GA103..GA107
    (0x2680, 0x28ff, "sm_89"),  // AD102..AD107
    (0x2900, 0x29ff, "sm_100"), // GB100 (B200)
    (0x2b00, 0x2fff, "sm_120"), // GB202..GB207
];

pub fn arch_from_device_id(id: u16) -> Option<&'static str> {
    FAMILIES.iter().find(|(lo, hi, _)| (*lo..=*hi).contains(&id)).map(|f| f.2)
}

/// The loaded driver, or `None` when no NVIDIA kernel module is loaded.
pub fn driver(os: &dyn Os) -> Result<Option<NvDriver>> {
    let path = Path::new(PROC_NVIDIA).join("version");
    let text = match os.read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(e),
    };
    let first = text.lines().next().unwrap_or("");
    let version = first
        .split_whitespace()
        .find(|w| w.contains('.') && w.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
        .ok_or_else(|| Error::malformed(&path, format!("no version number in {first:?}")))?;
    Ok(Some(NvDriver { version: version.to_string(), open: first.contains("Open Kernel Module") }))
}

/// The GPUs the kernel module drives, in PCI order. No module is an empty list.
pub fn discover(os: &dyn Os) -> Result<Vec<NvGpu>> {
    let gpus_dir = Path::new(PROC_NVIDIA).join("gpus");
    let bdfs = match os.read_dir(&gpus_dir) {
        Ok(b) => b,
        Err(e) if e.is_not_found() => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut gpus = Vec::new();
    for bdf in bdfs {
        let path = gpus_dir.join(&bdf).join("information");
        let info = os.read_to_string(&path)?;
        let field = |key: &str| {
            info.lines()
                .find_map(|l| l.split_once(':').filter(|(k, _)| k.trim() == key).map(|(_, v)| v.trim().to_string()))
        };
        let model = field("Model").ok_or_else(|| Error::malformed(&path, "no `Model:` line"))?;
        let minor_text = field("Device Minor").ok_or_else(|| Error::malformed(&path, "no `Device Minor:` line"))?;
        let minor = minor_text
            .parse()
            .map_err(|_| Error::malformed(&path, format!("Device Minor: not a number: {minor_text:?}")))?;
        let pci_bdf = field("Bus Location").unwrap_or_else(|| bdf.clone()).to_lowercase();
        let pci_device_id = os
            .read_to_string(&Path::new("/sys/bus/pci/devices").join(&pci_bdf).join("device"))
            .ok()
            .and_then(|s| u16::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok());
        gpus.push(NvGpu {
            index: gpus.len(),
            model,
            device_node: os.exists(&Path::new("/dev").join(format!("nvidia{minor}"))),
            arch: pci_device_id.and_then(arch_from_device_id),
            pci_device_id,
            pci_bdf,
            minor,
        });
    }
    Ok(gpus)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::HostOs;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel.trim_start_matches('/'));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn device_ids_map_to_families() {
        assert_eq!(arch_from_device_id(0x2335), Some("sm_90")); // H200
        assert_eq!(arch_from_device_id(0x2330), Some("sm_90")); // H100 SXM
        assert_eq!(arch_from_device_id(0x20b0), Some("sm_80")); // A100
        assert_eq!(arch_from_device_id(0x2684), Some("sm_89")); // RTX 4090
        assert_eq!(arch_from_device_id(0x2b85), Some("sm_120")); // RTX 5090
        assert_eq!(arch_from_device_id(0x2504), Some("sm_86")); // RTX 3060
        assert_eq!(arch_from_device_id(0x1db4), None); // V100: not a supported generation
    }

    #[test]
    fn family_ranges_are_sorted_and_disjoint() {
        for w in FAMILIES.windows(2) {
            assert!(w[0].0 <= w[0].1 && w[0].1 < w[1].0, "{:x?} overlaps {:x?}", w[0], w[1]);
        }
    }

    #[test]
    fn reads_driver_version_and_gpus() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(
            r,
            "/proc/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  (dvs-builder@U16)\n\
             GCC version:  gcc version 12.2.0\n",
        );
        write(
            r,
            "/proc/driver/nvidia/gpus/0000:19:00.0/information",
            "Model: \t\t NVIDIA H200\nIRQ:   \t\t 35\nGPU UUID: \t GPU-1\nBus Location: \t 0000:19:00.0\nDevice Minor: \t 0\n",
        );
        write(r, "/sys/bus/pci/devices/0000:19:00.0/device", "0x2335\n");
        write(r, "/dev/nvidia0", "");
        let os = HostOs::with_root(r);
        assert_eq!(driver(&os).unwrap(), Some(NvDriver { version: "580.65.06".into(), open: true }));
        let gpus = discover(&os).unwrap();
        assert_eq!(gpus.len(), 1);
        assert_eq!(gpus[0].model, "NVIDIA H200");
        assert_eq!(gpus[0].minor, 0);
        assert!(gpus[0].device_node);
        assert_eq!(gpus[0].pci_device_id, Some(0x2335));
        assert_eq!(gpus[0].arch, Some("sm_90"));
    }

    #[test]
    fn no_module_means_no_gpus() {
        let dir = tempfile::tempdir().unwrap();
        let os = HostOs::with_root(dir.path());
        assert_eq!(driver(&os).unwrap(), None);
        assert!(discover(&os).unwrap().is_empty());
    }
}
