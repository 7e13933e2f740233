//! `baregpu devices [--json]`.

use super::out;
use baregpu::registry::{self, DeviceEntry};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// One JSON object: {"devices": [...], "nvidia_driver": ...}.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> baregpu::Result<()> {
    let listing = registry::list(&super::host_os())?;
    if args.json {
        return out::json(&listing);
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
