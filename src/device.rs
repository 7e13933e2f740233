//! Opening a device by spec: the registry's other half. Real GPUs get the host OS, emulated ones
//! an emulated KFD or RM; both go through the same runtime and driver code. [`crate::open`] wraps
//! what this opens as a `Box<dyn Gpu>`.

use crate::{Error, Result};
use baregpu_drivers::amd::am::firmware::FirmwareSource;
use baregpu_drivers::amd::am::AmDevice;
use baregpu_drivers::amd::topology;
use baregpu_drivers::os::{HostOs, Os};
use baregpu_drivers::pci::PciDevice;
use baregpu_emu::am::firmware_standin::StandinSource;
use baregpu_emu::am::layout::Layout;
use baregpu_emu::am::EmuPciGpu;
use baregpu_emu::amd::dispatch::WaveEngine;
use baregpu_emu::amd::machine;
use baregpu_emu::catalog::{self, Vendor};
use baregpu_emu::nv::EmuRm;
use baregpu_emu::rdna::Interpreter;
use baregpu_emu::work::emulated;
use baregpu_runtime::amd::am::AmIface;
use baregpu_runtime::amd::am_device::AmDeviceDriver;
use baregpu_runtime::amd::{AmdDevice, AmdIface, KfdIface};
use baregpu_runtime::nv::{NvDevice, NvIsa};
use baregpu_runtime::spec::MAX_EMULATED;
use baregpu_runtime::timeout::{Progress, ProgressProbe};
use baregpu_runtime::DeviceSpec;
use std::sync::Arc;

/// An open device as its vendor's concrete type: for tests and tools that drive a runtime device
/// directly. Commands drive [`crate::Gpu`] ([`crate::open`]), which needs no match on this.
pub enum Device {
    Amd(AmdDevice),
    Nv(NvDevice),
}

/// Open the device `spec` names; `os` is the host OS (re-rootable for tests).
pub fn open_with(spec: &DeviceSpec, os: Arc<dyn Os>) -> Result<Device> {
    let label = spec.to_string();
    match spec {
        DeviceSpec::Amd { index } => Ok(Device::Amd(AmdDevice::open(os, *index, &label)?)),
        DeviceSpec::Emu { arch, index } => {
            if let Some(why) = catalog::model(Vendor::Amd, arch).and_then(|m| m.not_ready) {
                log::warn!("{label}: {why}");
            }
            Ok(Device::Amd(open_emulated(arch, *index, Arc::new(Interpreter::new(arch)))?))
        }
        DeviceSpec::Nv { index } => Ok(Device::Nv(NvDevice::open(os, *index, &label, NvIsa::Sass)?)),
        DeviceSpec::EmuNv { arch, index } => Ok(Device::Nv(open_emulated_nv(arch, *index)?)),
        DeviceSpec::Am { .. } if spec.am_emulated_arch().is_some() => {
            let arch = spec.am_emulated_arch().unwrap_or_default();
            Ok(Device::Amd(open_am_emulated(arch, Arc::new(Interpreter::new(arch)))?))
        }
        // A host GPU, or one behind a `baregpu serve`: the AM driver boots it from here.
        DeviceSpec::Am { .. } | DeviceSpec::Remote { .. } => {
            // Opening first, so that what stands in the way (no such device, amdgpu still bound,
            // no privileges, no IOMMU group, no server, a wrong key) reaches the user first.
            let pci = crate::pci_device::open(spec)?;
            // The boot on a real card is untested (no card has been available): see scripts/hw/am.sh.
            Ok(Device::Amd(open_am_over(pci, &*crate::pci_device::firmware(spec), &label)?))
        }
        DeviceSpec::Usb { path } => {
            let engine = crate::device_usb::engine(path);
            let (pci, fw) = crate::device_usb::open_pci(path, engine.clone())?;
            let dev = open_am_over(pci, &*fw, &label)?;
            Ok(Device::Amd(dev.with_progress(emu_progress(engine))))
        }
    }
}

/// What hang detection reads of an emulated AMD GPU running dispatches on `engine`: workgroups
/// retired, and its instructions as emulated time (`runtime::timeout::Watchdog`).
pub fn emu_progress(engine: Arc<dyn WaveEngine>) -> ProgressProbe {
    Arc::new(move || Progress { retired: engine.workgroups_retired(), ran: emulated(engine.instructions_executed()) })
}

/// [`emu_progress`] of an emulated NVIDIA GPU: CTAs retired; its PTX interpreter counts no
/// instructions, so its waits keep the wall clock alone.
fn emu_nv_progress(emu: Arc<EmuRm>) -> ProgressProbe {
    Arc::new(move || Progress { retired: emu.ctas_retired(), ran: std::time::Duration::ZERO })
}

/// A spec built in code (not parsed) gets the parser's bound too: an emulated machine is built
/// with every device up to `index`.
fn check_emulated_index(label: &str, index: usize) -> Result<()> {
    match index < MAX_EMULATED {
        true => Ok(()),
        false => Err(Error::Usage(format!("{label}: at most {MAX_EMULATED} emulated devices of an architecture"))),
    }
}

/// An emulated AMD GPU (`emu:ARCH:INDEX`): the emulated KFD with command processors that run
/// dispatches on `engine` (the wave interpreter, or another engine a tool brings).
pub fn open_emulated(arch: &str, index: usize, engine: Arc<dyn WaveEngine>) -> Result<AmdDevice> {
    let label = DeviceSpec::Emu { arch: arch.to_string(), index }.to_string();
    check_emulated_index(&label, index)?;
    let archs = vec![arch; index + 1];
    let kfd: Arc<dyn Os> = machine(&archs, engine.clone())?;
    // Workgroups the interpreter retires count as progress while a wait sleeps on one long dispatch.
    Ok(AmdDevice::open(kfd, index, &label)?.with_progress(emu_progress(engine)))
}

/// The emulated PCI GPU (`am:emu:ARCH`), booted by the AM driver (firmware from
/// /lib/firmware/amdgpu where present, stand-ins for the rest) with command processors that run
/// dispatches on `engine`.
pub fn open_am_emulated(arch: &str, engine: Arc<dyn WaveEngine>) -> Result<AmdDevice> {
    let label = DeviceSpec::Am { bdf: format!("emu:{arch}") }.to_string();
    let iface = am_emulated_iface(arch, engine.clone())?;
    Ok(AmdDevice::open_on(iface, &label)?.with_progress(emu_progress(engine)))
}

fn am_emulated_iface(arch: &str, engine: Arc<dyn WaveEngine>) -> Result<Box<dyn AmdIface>> {
    let layout = Layout::for_arch(arch)
        .ok_or_else(|| Error::Usage(format!("am:emu:{arch}: no emulated PCI GPU of that architecture")))?;
    let gpu = EmuPciGpu::new(arch, engine)?;
    am_iface_over(gpu, &StandinSource::for_layout(&layout))
}

/// The AM driver booted with `firmware` over any PCI device (local, remote, behind a USB
/// bridge: the runtime reaches memory through calls where nothing is CPU-mapped, and places
/// everything in VRAM where the device cannot DMA into host memory), and the runtime over it;
/// `label` names the device in errors.
pub fn open_am_over(pci: Arc<dyn PciDevice>, firmware: &dyn FirmwareSource, label: &str) -> Result<AmdDevice> {
    Ok(AmdDevice::open_on(am_iface_over(pci, firmware)?, label)?)
}

/// [`open_am_over`]'s driver interface, on its own (the interface's contract tests).
pub fn am_iface_over(pci: Arc<dyn PciDevice>, firmware: &dyn FirmwareSource) -> Result<Box<dyn AmdIface>> {
    let dev = AmDevice::open(pci, firmware)?;
    Ok(Box::new(AmIface::new(Arc::new(AmDeviceDriver::new(dev)?))))
}

/// An emulated NVIDIA GPU (`emu-nv:ARCH:INDEX`): the emulated RM and UVM with GPFIFO channels
/// that run launches on the PTX interpreter.
pub fn open_emulated_nv(arch: &str, index: usize) -> Result<NvDevice> {
    let label = DeviceSpec::EmuNv { arch: arch.to_string(), index }.to_string();
    check_emulated_index(&label, index)?;
    let archs = vec![arch; index + 1];
    let emu = EmuRm::new(&archs)?;
    let rm: Arc<dyn Os> = emu.clone();
    // The interpreter's parser checks each module at load, as ptxas would for a real GPU.
    let check = |ptx: &str| baregpu_emu::nv::ptx::Module::parse(ptx).map(drop).map_err(|e| e.to_string());
    // CTAs the interpreter retires count as progress while a wait sleeps on one long kernel.
    let probe = emu_nv_progress(emu);
    Ok(NvDevice::open(rm, index, &label, NvIsa::Ptx)?.with_ptx_check(Arc::new(check)).with_progress(probe))
}

/// `count` devices of one machine, from the one `spec` names on (`emu:gfx1100` gives
/// emu:gfx1100 and emu:gfx1100:1): emulated ones share one emulated KFD or RM, as the GPUs of
/// one machine share its driver (what a graph spanning them needs); real ones are the host's.
pub fn open_group(spec: &DeviceSpec, count: usize) -> Result<Vec<Device>> {
    let at = |i: usize| match spec {
        DeviceSpec::Emu { arch, index } => DeviceSpec::Emu { arch: arch.clone(), index: index + i },
        DeviceSpec::EmuNv { arch, index } => DeviceSpec::EmuNv { arch: arch.clone(), index: index + i },
        DeviceSpec::Amd { index } => DeviceSpec::Amd { index: index + i },
        DeviceSpec::Nv { index } => DeviceSpec::Nv { index: index + i },
        other => other.clone(),
    };
    let last = at(count.saturating_sub(1));
    match spec {
        DeviceSpec::Emu { arch, index } => {
            check_emulated_index(&last.to_string(), index + count - 1)?;
            let engine = Arc::new(Interpreter::new(arch));
            let kfd: Arc<dyn Os> = machine(&vec![arch.as_str(); index + count], engine.clone())?;
            (0..count)
                .map(|i| {
                    let e = engine.clone();
                    let dev = AmdDevice::open(kfd.clone(), index + i, &at(i).to_string())?;
                    Ok(Device::Amd(dev.with_progress(emu_progress(e))))
                })
                .collect()
        }
        DeviceSpec::EmuNv { arch, index } => {
            check_emulated_index(&last.to_string(), index + count - 1)?;
            let emu = EmuRm::new(&vec![arch.as_str(); index + count])?;
            let rm: Arc<dyn Os> = emu.clone();
            let check = |ptx: &str| baregpu_emu::nv::ptx::Module::parse(ptx).map(drop).map_err(|e| e.to_string());
            (0..count)
                .map(|i| {
                    let emu = emu.clone();
                    let dev = NvDevice::open(rm.clone(), index + i, &at(i).to_string(), NvIsa::Ptx)?;
                    let dev = dev.with_ptx_check(Arc::new(check)).with_progress(emu_nv_progress(emu));
                    Ok(Device::Nv(dev))
                })
                .collect()
        }
        _ => (0..count).map(|i| open(&at(i))).collect(),
    }
}

/// The driver interface beneath an AMD device, opened on its own (the interface's contract
/// tests, bring-up tools): KFD for `amd:N` (host OS) and `emu:ARCH[:N]` (an emulated KFD), AM
/// for `am:emu:ARCH` (the emulated PCI GPU).
pub fn open_amd_iface(spec: &DeviceSpec) -> Result<Box<dyn AmdIface>> {
    let label = spec.to_string();
    let (os, index): (Arc<dyn Os>, usize) = match spec {
        DeviceSpec::Amd { index } => (Arc::new(HostOs::new()), *index),
        DeviceSpec::Emu { arch, index } => {
            check_emulated_index(&label, *index)?;
            (machine(&vec![arch.as_str(); index + 1], Arc::new(Interpreter::new(arch)))?, *index)
        }
        DeviceSpec::Am { .. } if spec.am_emulated_arch().is_some() => {
            let arch = spec.am_emulated_arch().unwrap_or_default();
            return am_emulated_iface(arch, Arc::new(Interpreter::new(arch)));
        }
        DeviceSpec::Usb { path } => {
            let (pci, fw) = crate::device_usb::open_pci(path, crate::device_usb::engine(path))?;
            return am_iface_over(pci, &*fw);
        }
        _ => return Err(Error::Usage(format!("{label}: not an AMD device with a driver interface"))),
    };
    let gpu = topology::discover(&*os)?.into_iter().nth(index);
    let gpu = gpu.ok_or_else(|| Error::Usage(format!("{label}: no AMD GPU {index}")))?;
    Ok(Box::new(KfdIface::open(os, gpu, &label)?))
}

pub fn open(spec: &DeviceSpec) -> Result<Device> {
    open_with(spec, Arc::new(HostOs::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulated_indexes_past_the_cap_fail_at_once() {
        let t = std::time::Instant::now();
        let nv = open_emulated_nv("sm_90", 1_000_000).err().expect("refused").to_string();
        assert!(nv.contains("emu-nv:sm_90:1000000: at most 16"), "{nv}");
        let amd = open_emulated("gfx1100", 100_000, Arc::new(Interpreter::new("gfx1100"))).err().expect("refused");
        assert!(amd.to_string().contains("at most 16"), "{amd}");
        assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
    }
}
