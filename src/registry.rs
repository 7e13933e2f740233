//! The device registry: every backend's devices in one list, and the choice of the default.

use crate::Result;
use baregpu_drivers::amd::topology as kfd;
use baregpu_drivers::nv::discovery as nv;
use baregpu_drivers::os::Os;
use baregpu_emu::catalog::{self, Vendor};
use baregpu_runtime::DeviceSpec;
use serde::Serialize;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceEntry {
    /// The spec that names it (`amd:0`, `emu:gfx1100`).
    pub spec: String,
    pub vendor: &'static str,
    /// `real`, `emulated`, or `remote` (served by a `baregpu serve`; never the default device).
    pub kind: &'static str,
    /// `gfx1100`, `sm_90`; empty when unknown.
    pub arch: String,
    pub name: String,
    /// Compute units (AMD) or SMs (NVIDIA); `None` when not known without opening it.
    pub compute_units: Option<u32>,
    pub memory_bytes: Option<u64>,
    /// Whether baregpu can run work on it today.
    pub ready: bool,
    /// Why not, or other facts worth showing (driver version, PCI address).
    pub note: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Listing {
    pub devices: Vec<DeviceEntry>,
    /// The NVIDIA kernel module's version, when one is loaded.
    pub nvidia_driver: Option<String>,
}

impl Listing {
    /// DESIGN.md's rule: the first real GPU, else `emu:gfx1100`.
    pub fn default_spec(&self) -> DeviceSpec {
        self.devices
            .iter()
            .find(|d| d.kind == "real")
            .and_then(|d| DeviceSpec::parse(&d.spec).ok())
            .unwrap_or(DeviceSpec::Emu { arch: "gfx1100".into(), index: 0 })
    }
}

/// Real AMD and NVIDIA GPUs as the OS reports them, then the emulated devices.
pub fn list(os: &dyn Os) -> Result<Listing> {
    let mut listing = Listing::default();
    let has_kfd = os.exists(Path::new("/dev/kfd"));
    for node in kfd::discover_each(os)? {
        let gpu = match node.gpu {
            Ok(gpu) => gpu,
            Err(e) => {
                // Listed, not hidden: one bad node must not take the other devices with it.
                listing.devices.push(unreadable(DeviceSpec::Amd { index: node.index }, "amd", e));
                continue;
            }
        };
        // Ready when the KFD device node is there and the runtime drives the architecture.
        let supported = baregpu_drivers::amd::pm4::Pm4Generation::for_arch(&gpu.arch).is_some();
        let note = match (has_kfd, supported) {
            (true, true) => gpu.pci_bdf.clone(),
            (false, _) => format!("{}: no /dev/kfd (amdgpu loaded without KFD, or no access)", gpu.pci_bdf),
            (true, false) => format!("{}: {} is not an architecture baregpu drives yet", gpu.pci_bdf, gpu.arch),
        };
        listing.devices.push(DeviceEntry {
            spec: DeviceSpec::Amd { index: gpu.index }.to_string(),
            vendor: "amd",
            kind: "real",
            arch: gpu.arch,
            name: if gpu.name.is_empty() { format!("AMD {:04x}", gpu.device_id) } else { gpu.name },
            compute_units: Some(gpu.compute_units),
            memory_bytes: Some(gpu.vram_bytes),
            ready: has_kfd && supported,
            note,
        });
    }
    let driver = nv::driver(os).unwrap_or_else(|e| {
        listing.devices.push(unreadable(DeviceSpec::Nv { index: 0 }, "nvidia", e));
        None
    });
    let nv_gpus = nv::discover(os).unwrap_or_else(|e| {
        listing.devices.push(unreadable(DeviceSpec::Nv { index: 0 }, "nvidia", e));
        Vec::new()
    });
    for gpu in nv_gpus {
        let version = driver.as_ref().map_or("unknown".to_string(), |d| d.version.clone());
        // Ready when the device node is there and the driver speaks an RM ABI we have.
        let branch = driver.as_ref().map(|d| baregpu_drivers::nv::rm::Branch::from_version(&d.version));
        let why_not = match (&branch, gpu.device_node) {
            (Some(Ok(_)), true) => None,
            (Some(Err(e)), _) => Some(e.to_string()),
            (None, _) => Some("no driver version".to_string()),
            (_, false) => Some("no device node".to_string()),
        };
        listing.devices.push(DeviceEntry {
            spec: DeviceSpec::Nv { index: gpu.index }.to_string(),
            vendor: "nvidia",
            kind: "real",
            arch: gpu.arch.unwrap_or("").to_string(),
            name: gpu.model,
            compute_units: None,
            memory_bytes: None,
            ready: why_not.is_none(),
            note: match why_not {
                None => format!("{} driver {version}", gpu.pci_bdf),
                Some(why) => format!("{} driver {version}: {why}", gpu.pci_bdf),
            },
        });
    }
    listing.nvidia_driver = driver.map(|d| d.version);
    for m in catalog::MODELS {
        let spec = match m.vendor {
            Vendor::Amd => DeviceSpec::Emu { arch: m.arch.into(), index: 0 },
            Vendor::Nvidia => DeviceSpec::EmuNv { arch: m.arch.into(), index: 0 },
        };
        listing.devices.push(DeviceEntry {
            spec: spec.to_string(),
            vendor: match m.vendor {
                Vendor::Amd => "amd",
                Vendor::Nvidia => "nvidia",
            },
            kind: "emulated",
            arch: m.arch.into(),
            name: format!("{} (emulated)", m.board),
            compute_units: Some(m.compute_units),
            memory_bytes: Some(m.memory_bytes),
            ready: m.not_ready.is_none(),
            note: m.not_ready.unwrap_or("").into(),
        });
    }
    for arch in baregpu_emu::am::layout::Layout::ARCHS {
        listing.devices.extend(am_emulated(arch));
    }
    listing.devices.extend(crate::device_usb::entries());
    Ok(listing)
}

/// The emulated PCI GPU of `arch` behind the AM driver (`am:emu:ARCH`).
fn am_emulated(arch: &str) -> Option<DeviceEntry> {
    let layout = baregpu_emu::am::layout::Layout::for_arch(arch)?;
    let model = catalog::model(Vendor::Amd, arch)?;
    Some(DeviceEntry {
        spec: DeviceSpec::Am { bdf: format!("emu:{arch}") }.to_string(),
        vendor: "amd",
        kind: "emulated",
        arch: arch.into(),
        name: format!("{} (emulated PCI, AM driver)", model.board),
        compute_units: Some(model.compute_units),
        memory_bytes: Some(layout.vram_size),
        ready: layout.not_ready.is_none(),
        note: layout.not_ready.unwrap_or("").into(),
    })
}

/// A real device whose discovery failed: not ready, with the reason as its note.
fn unreadable(spec: DeviceSpec, vendor: &'static str, e: baregpu_drivers::Error) -> DeviceEntry {
    DeviceEntry {
        spec: spec.to_string(),
        vendor,
        kind: "real",
        arch: String::new(),
        name: String::new(),
        compute_units: None,
        memory_bytes: None,
        ready: false,
        note: format!("unreadable: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baregpu_drivers::os::HostOs;

    #[test]
    fn a_machine_without_gpus_lists_the_emulated_devices_and_defaults_to_gfx1100() {
        let dir = tempfile::tempdir().unwrap();
        let listing = list(&HostOs::with_root(dir.path())).unwrap();
        let specs: Vec<&str> = listing.devices.iter().map(|d| d.spec.as_str()).collect();
        for s in ["emu:gfx1100", "emu:gfx1201", "emu:gfx942", "emu:gfx950", "emu-nv:sm_90"] {
            assert!(specs.contains(&s), "{s} missing from {specs:?}");
        }
        assert!(listing.devices.iter().all(|d| d.kind == "emulated"));
        // Every listed spec parses back.
        for d in &listing.devices {
            assert_eq!(DeviceSpec::parse(&d.spec).unwrap().to_string(), d.spec);
        }
        assert_eq!(listing.default_spec().to_string(), "emu:gfx1100");
        assert_eq!(listing.nvidia_driver, None);
    }

    #[test]
    fn a_real_gpu_comes_first_and_becomes_the_default() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let w = |rel: &str, text: &str| {
            let p = r.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w(
            "proc/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build\n",
        );
        w(
            "proc/driver/nvidia/gpus/0000:19:00.0/information",
            "Model: NVIDIA H200\nBus Location: 0000:19:00.0\nDevice Minor: 0\n",
        );
        w("sys/bus/pci/devices/0000:19:00.0/device", "0x2335\n");
        let listing = list(&HostOs::with_root(r)).unwrap();
        let first = &listing.devices[0];
        assert_eq!((first.spec.as_str(), first.kind, first.arch.as_str()), ("nv:0", "real", "sm_90"));
        assert!(first.note.contains("580.95.05") && first.note.contains("no device node"), "{}", first.note);
        assert_eq!(listing.default_spec().to_string(), "nv:0");
        assert_eq!(listing.nvidia_driver.as_deref(), Some("580.95.05"));
    }

    #[test]
    fn a_malformed_kfd_node_is_a_not_ready_entry_beside_the_emulated_devices() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sys/devices/virtual/kfd/kfd/topology/nodes/1/gpu_id");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "not-a-number\n").unwrap();
        let listing = list(&HostOs::with_root(dir.path())).unwrap();
        let first = &listing.devices[0];
        assert_eq!((first.spec.as_str(), first.kind, first.ready), ("amd:0", "real", false));
        assert!(first.note.contains("nodes/1/gpu_id"), "{}", first.note);
        assert!(listing.devices.iter().any(|d| d.spec == "emu:gfx1100" && d.ready));
    }
}
