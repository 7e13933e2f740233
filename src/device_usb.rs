//! `usb:PATH` devices: the GPU behind an ASM24xx USB to PCIe bridge (`usb:/dev/bus/usb/BBB/DDD`,
//! or `usb:first` for the first bridge plugged in) or behind the emulated bridge in front of
//! the emulated PCI GPU (`usb:emu:ARCH`), as a PCI device the AM driver boots.

use crate::registry::DeviceEntry;
use crate::{Error, Result};
use baregpu_drivers::amd::am::firmware::source::{DirSource, FirmwareSource};
use baregpu_drivers::pci::asm24xx::{self, Asm24xx};
use baregpu_drivers::pci::PciDevice;
use baregpu_emu::am::firmware_standin::StandinSource;
use baregpu_emu::am::layout::Layout;
use baregpu_emu::am::EmuPciGpu;
use baregpu_emu::amd::dispatch::WaveEngine;
use baregpu_emu::catalog::{self, Vendor};
use baregpu_emu::rdna::Interpreter;
use baregpu_emu::usb_bridge::EmuAsm24xx;
use std::sync::Arc;
use std::time::Duration;

/// The path prefix of the emulated bridge.
const EMULATED: &str = "emu:";
/// The environment variable giving every transfer of the emulated bridge a latency, in
/// microseconds (none by default): what pipelining buys shows only against a round trip.
pub const LATENCY_ENV: &str = "BAREGPU_EMU_USB_LATENCY_US";

/// The emulated bridge's latency [`LATENCY_ENV`] asks for.
fn latency_from_env() -> Result<Duration> {
    match std::env::var(LATENCY_ENV) {
        Ok(s) => match s.trim().parse::<u64>() {
            Ok(us) if us <= 1_000_000 => Ok(Duration::from_micros(us)),
            _ => Err(Error::Usage(format!("{LATENCY_ENV}={s}: not a number of microseconds from 0 to 1000000"))),
        },
        Err(_) => Ok(Duration::ZERO),
    }
}

/// The wave engine an emulated GPU behind `usb:PATH` runs dispatches on (a real GPU runs its
/// own; the engine then stays idle).
pub fn engine(path: &str) -> Arc<Interpreter> {
    Arc::new(Interpreter::new(path.strip_prefix(EMULATED).unwrap_or("gfx1100")))
}

/// The emulated bridge in front of an emulated PCI GPU of `arch` running dispatches on
/// `engine`, and the bridge driver opened on it.
pub fn open_emulated(arch: &str, engine: Arc<dyn WaveEngine>) -> Result<(Arc<EmuAsm24xx>, Arc<Asm24xx>)> {
    if Layout::for_arch(arch).is_none() {
        return Err(Error::Usage(format!("usb:emu:{arch}: no emulated PCI GPU of that architecture")));
    }
    let latency = latency_from_env()?;
    let bridge = EmuAsm24xx::new(EmuPciGpu::new(arch, engine)?)?;
    bridge.set_latency(latency);
    let pci = Asm24xx::open(bridge.clone())?;
    Ok((bridge, pci))
}

/// The bridge's GPU as a PCI device, and the firmware the AM driver boots it with (the
/// system's for a real GPU, stand-ins for the emulated one).
pub fn open_pci(path: &str, engine: Arc<dyn WaveEngine>) -> Result<(Arc<dyn PciDevice>, Box<dyn FirmwareSource>)> {
    if let Some(arch) = path.strip_prefix(EMULATED) {
        let (_, pci) = open_emulated(arch, engine)?;
        return Ok((pci, firmware(path)));
    }
    let path = if path == "first" { "" } else { path };
    Ok((asm24xx::open_host(path)?, firmware(path)))
}

/// The firmware the AM driver boots the GPU behind `usb:PATH` with: stand-ins for the emulated
/// GPU, else /lib/firmware/amdgpu.
pub fn firmware(path: &str) -> Box<dyn FirmwareSource> {
    match path.strip_prefix(EMULATED).and_then(Layout::for_arch) {
        Some(layout) => Box::new(StandinSource::for_layout(&layout)),
        None => Box::new(DirSource::system()),
    }
}

/// The bridges `devices` lists: those plugged in (`usb:/dev/bus/usb/BBB/DDD`) and the emulated
/// one. A host without usbfs has none of the first.
pub fn entries() -> Vec<DeviceEntry> {
    let found = asm24xx::find_bridges().unwrap_or_else(|e| {
        log::debug!("listing USB bridges: {e}");
        Vec::new()
    });
    let mut entries: Vec<DeviceEntry> = found
        .iter()
        .map(|d| DeviceEntry {
            spec: format!("usb:{}", d.path()),
            vendor: "amd",
            kind: "real",
            arch: String::new(),
            name: format!("GPU behind {}", d.product_string.as_deref().unwrap_or("an ASM24xx USB bridge")),
            compute_units: None,
            memory_bytes: None,
            ready: true,
            note: format!("ASM24xx USB bridge {:04x}:{:04x}; the GPU is probed when opened", d.vendor, d.product),
        })
        .collect();
    let arch = "gfx1100";
    if let (Some(layout), Some(model)) = (Layout::for_arch(arch), catalog::model(Vendor::Amd, arch)) {
        entries.push(DeviceEntry {
            spec: format!("usb:{EMULATED}{arch}"),
            vendor: "amd",
            kind: "emulated",
            arch: arch.into(),
            name: format!("{} (emulated, behind an emulated ASM24xx USB bridge, AM driver)", model.board),
            compute_units: Some(model.compute_units),
            memory_bytes: Some(layout.vram_size),
            ready: layout.not_ready.is_none(),
            note: layout.not_ready.unwrap_or("").into(),
        });
    }
    entries
}
