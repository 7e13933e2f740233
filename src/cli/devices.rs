//! `baregpu devices [--json] [--remote HOST:PORT]...`.

use super::devices_remote::{self, Unreachable};
use super::out;
use baregpu::registry::{self, DeviceEntry, Listing};
use baregpu_drivers::os::Os;
use baregpu_drivers::pci::scan::{self, human, PciGpu};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// One JSON object: {"devices": [...], "nvidia_driver": ...}.
    #[arg(long)]
    json: bool,
    /// Also list what the `baregpu serve` at HOST:PORT exports (repeat for more; more in
    /// BAREGPU_REMOTE_SERVERS=HOST:PORT,...).
    #[arg(long = "remote", value_name = "HOST:PORT")]
    remote: Vec<String>,
}

pub fn run(args: Args) -> baregpu::Result<()> {
    let os = super::host_os();
    let servers = devices_remote::servers(&args.remote)?;
    let mut listing = registry::list(&os)?;
    let (remote, remote_errors) = devices_remote::list_all(&servers);
    listing.devices.extend(remote);
    // A PCI bus that cannot be read is a line in the output, not the end of the listing.
    let (pci, pci_error) = match scan::amd_gpus(&os) {
        Ok(gpus) => (gpus.iter().map(|g| PciEntry::new(&os, g)).collect(), None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    if args.json {
        return out::json(&Json { listing: &listing, pci, pci_error, remote_errors });
    }
    let rows: Vec<[String; 6]> = listing.devices.iter().map(row).collect();
    let header = ["SPEC", "ARCH", "CUS", "MEMORY", "STATUS", "NAME"].map(String::from);
    let mut widths = [0usize; 6];
    for r in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.len());
        }
    }
    for r in std::iter::once(&header).chain(&rows) {
        let line: Vec<String> = r.iter().zip(widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out::line(line.join("  ").trim_end())?;
    }
    for d in listing.devices.iter().filter(|d| !d.note.is_empty()) {
        out::line(format_args!("  {}: {}", d.spec, d.note))?;
    }
    for u in &remote_errors {
        out::line(format_args!("remote server {}: {}", u.server, u.error))?;
    }
    if !pci.is_empty() || pci_error.is_some() {
        out::line("AMD PCI GPUs for the userspace driver (am:BDF):")?;
    }
    for p in &pci {
        out::line(format_args!(
            "  {}  {:04x}  {}  {}: {}",
            p.spec,
            p.device_id,
            p.driver_label(),
            p.bar_summary(),
            p.status
        ))?;
    }
    if let Some(e) = &pci_error {
        out::line(format_args!("  unreadable: {e}"))?;
    }
    out::line(format_args!("default device: {}", listing.default_spec()))
}

fn row(d: &DeviceEntry) -> [String; 6] {
    [
        d.spec.clone(),
        if d.arch.is_empty() { "?".into() } else { d.arch.clone() },
        d.compute_units.map_or("?".into(), |c| c.to_string()),
        d.memory_bytes.map_or("?".into(), human_bytes),
        if d.ready { "ready".into() } else { "not ready".into() },
        d.name.clone(),
    ]
}

fn human_bytes(b: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    if b as f64 >= GIB {
        format!("{:.1} GiB", b as f64 / GIB)
    } else {
        format!("{:.1} MiB", b as f64 / MIB)
    }
}

/// `devices --json`: the registry's listing and the AMD PCI GPUs `am:` can open.
#[derive(serde::Serialize)]
struct Json<'a> {
    #[serde(flatten)]
    listing: &'a Listing,
    pci: Vec<PciEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pci_error: Option<String>,
    /// Servers named by `--remote` or BAREGPU_REMOTE_SERVERS that could not be asked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    remote_errors: Vec<Unreachable>,
}

#[derive(serde::Serialize)]
struct PciBar {
    index: u8,
    size: u64,
    bus_addr: u64,
    prefetchable: bool,
}

/// One AMD PCI GPU and what it takes to open it as `am:BDF`.
#[derive(serde::Serialize)]
struct PciEntry {
    spec: String,
    bdf: String,
    device_id: u16,
    class: u32,
    driver: Option<String>,
    bars: Vec<PciBar>,
    bar0_resizable_max: Option<u64>,
    iommu_group: Option<u32>,
    /// Whether `am:BDF` can open it now (no driver in the way, the privileges it needs).
    openable: bool,
    status: String,
}

impl PciEntry {
    fn new(os: &dyn Os, g: &PciGpu) -> PciEntry {
        let (openable, status) = match g.blocker() {
            Some(b) => (false, b),
            None if g.is_vfio() => match g.iommu_group {
                Some(n) => (true, format!("opens through VFIO (IOMMU group {n})")),
                None => (false, "bound to vfio-pci but in no IOMMU group".into()),
            },
            None if scan::can_open_resources(os, &g.bdf) => (true, "opens through sysfs".into()),
            None => (false, scan::PRIVILEGES.into()),
        };
        let bars = (0..6u8)
            .filter_map(|i| {
                g.bars[i as usize].map(|b| PciBar {
                    index: i,
                    size: b.size,
                    bus_addr: b.bus_addr,
                    prefetchable: b.prefetchable,
                })
            })
            .collect();
        PciEntry {
            spec: format!("am:{}", g.bdf),
            bdf: g.bdf.clone(),
            device_id: g.device_id,
            class: g.class,
            driver: g.driver.clone(),
            bars,
            bar0_resizable_max: g.bar0_resizable_max,
            iommu_group: g.iommu_group,
            openable,
            status,
        }
    }

    fn driver_label(&self) -> String {
        self.driver.as_ref().map_or("no driver".into(), |d| format!("driver {d}"))
    }

    fn bar_summary(&self) -> String {
        let resizable = |b: &PciBar| match (b.index, self.bar0_resizable_max) {
            (0, Some(max)) => format!(" (resizable to {})", human(max)),
            _ => String::new(),
        };
        let parts: Vec<String> =
            self.bars.iter().map(|b| format!("BAR{} {}{}", b.index, human(b.size), resizable(b))).collect();
        parts.join(", ")
    }
}
