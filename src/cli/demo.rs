//! `baregpu demo`: the README's main job. The workload (an ISA-builder matmul and a vector add
//! through the HCQ runtime) needs the KFD driver and the emulator, which are not built yet; until
//! then the command names the device it would use and says plainly what it will run.

use baregpu::registry;
use baregpu::DeviceSpec;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Device spec (see `baregpu devices`); default: the first real GPU, else emu:gfx1100.
    #[arg(long)]
    device: Option<DeviceSpec>,
}

pub fn run(args: Args) -> baregpu::Result<()> {
    let listing = registry::list(&super::host_os())?;
    let spec = args.device.unwrap_or_else(|| listing.default_spec());
    let spec_text = spec.to_string();
    let entry = listing.devices.iter().find(|d| d.spec == spec_text);
    println!("baregpu demo on {spec_text}");
    match entry {
        Some(d) => println!("  device: {} ({}), {}", d.name, d.arch, if d.ready { "ready" } else { "not ready" }),
        None => println!("  device: not present on this machine"),
    }
    println!("  workload: a 256x256x256 fp32 matmul built with the ISA builder and a vector add,");
    println!("            run through the HCQ runtime and checked against the host");
    println!("  status: not runnable yet: the KFD driver, the HCQ runtime and the emulated GPU are still");
    println!("          being built (see `baregpu devices`); nothing is run.");
    Ok(())
}
