//! A device spec as a PCI function: the one place that turns a spec into an
//! `Arc<dyn PciDevice>` and names the firmware its AM boot uses. `serve`, `bench link` and the
//! remote client's boot go through it; a new PCI-level transport (the USB bridge) adds its arm
//! here.

use crate::{Error, Result};
use baregpu_drivers::amd::am::firmware::source::{DirSource, FirmwareSource};
use baregpu_drivers::os::HostOs;
use baregpu_drivers::pci::remote::{timeout_from_env, Key, RemotePci};
use baregpu_drivers::pci::PciDevice;
use baregpu_emu::am::firmware_standin::StandinSource;
use baregpu_emu::am::layout::Layout;
use baregpu_emu::am::EmuPciGpu;
use baregpu_emu::rdna::Interpreter;
use baregpu_runtime::DeviceSpec;
use std::sync::Arc;

/// What a spec that is no PCI function is told.
const PCI_LEVEL: &str = "am:BDF, am:emu:ARCH, usb:PATH or remote:HOST:PORT/am:…";

/// The PCI function `spec` names: a host GPU (`am:BDF`), the emulated PCI GPU (`am:emu:ARCH`),
/// or one served by `baregpu serve` (`remote:HOST:PORT/SPEC`, keyed by the file
/// `BAREGPU_REMOTE_KEY_FILE` names).
pub fn open(spec: &DeviceSpec) -> Result<Arc<dyn PciDevice>> {
    match spec {
        DeviceSpec::Am { .. } if spec.am_emulated_arch().is_some() => {
            let arch = spec.am_emulated_arch().unwrap_or_default();
            if Layout::for_arch(arch).is_none() {
                return Err(Error::Usage(format!("{spec}: no emulated PCI GPU of that architecture")));
            }
            Ok(EmuPciGpu::new(arch, Arc::new(Interpreter::new(arch)))?)
        }
        DeviceSpec::Am { bdf } => Ok(baregpu_drivers::pci::open_host(Arc::new(HostOs::new()), bdf)?),
        DeviceSpec::Remote { host, port, device } => {
            if !matches!(**device, DeviceSpec::Am { .. }) {
                return Err(Error::Usage(format!("{spec}: a server serves PCI functions ({PCI_LEVEL}), not {device}")));
            }
            let key = Key::from_env()?;
            Ok(RemotePci::connect(host, *port, &device.to_string(), key.as_ref(), timeout_from_env()?)?)
        }
        DeviceSpec::Usb { path } => Ok(crate::device_usb::open_pci(path, crate::device_usb::engine(path))?.0),
        _ => Err(Error::Usage(format!("{spec}: not a PCI function ({PCI_LEVEL})"))),
    }
}

/// The architecture a served spec names without opening it (`am:emu:ARCH`), else empty: what
/// `baregpu serve` tells a client that lists its devices.
pub fn arch_of(spec: &str) -> String {
    let spec = spec.parse::<DeviceSpec>().ok();
    spec.and_then(|s| s.am_emulated_arch().map(str::to_string)).unwrap_or_default()
}

/// The firmware the AM driver boots `spec`'s GPU with: the emulated GPU's stand-ins (wherever it
/// runs, here or behind a server), else /lib/firmware/amdgpu of this machine.
pub fn firmware(spec: &DeviceSpec) -> Box<dyn FirmwareSource> {
    let inner = match spec {
        DeviceSpec::Remote { device, .. } => device,
        DeviceSpec::Usb { path } => return crate::device_usb::firmware(path),
        other => other,
    };
    match inner.am_emulated_arch().and_then(Layout::for_arch) {
        Some(layout) => Box::new(StandinSource::for_layout(&layout)),
        None => Box::new(DirSource::system()),
    }
}
