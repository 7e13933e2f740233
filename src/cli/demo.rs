//! `baregpu demo`: the README's main job — a matmul and a vector add (AMD: built with our own ISA
//! builder; NVIDIA: clang-built PTX), run through the HCQ runtime on the default device as one
//! graph (or launch by launch with --eager or BAREGPU_GRAPH=0), checked against the host; then a
//! transformer block through the graph compiler, as one graph and a replay.

use super::out;
use baregpu::demo::Mode;
use baregpu::{DeviceSpec, Error};
use std::time::Instant;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Device spec (see `baregpu devices`); default: the first real GPU, else emu:gfx1100.
    #[arg(long)]
    device: Option<DeviceSpec>,
    /// Matrix size (a multiple of 16 on AMD, of 8 on NVIDIA).
    #[arg(long, default_value_t = 256)]
    size: u32,
    /// One JSON object with the figures.
    #[arg(long)]
    json: bool,
    /// Launch by launch and copy by copy instead of as one graph (also BAREGPU_GRAPH=0).
    #[arg(long)]
    eager: bool,
}

/// Graph unless --eager or `BAREGPU_GRAPH=0`; any other value of the variable than 0 or 1 is
/// an error.
fn mode(eager: bool) -> baregpu::Result<Mode> {
    use std::env::VarError;
    let bad = |v: &str| Err(Error::Usage(format!("BAREGPU_GRAPH=`{v}`: expected 0 (eager) or 1 (graph)")));
    let graph = match std::env::var("BAREGPU_GRAPH") {
        Err(VarError::NotPresent) => true,
        Ok(v) if v == "1" => true,
        Ok(v) if v == "0" => false,
        Ok(v) => return bad(&v),
        Err(VarError::NotUnicode(v)) => return bad(&v.to_string_lossy()),
    };
    Ok(if graph && !eager { Mode::Graph } else { Mode::Eager })
}

pub fn run(args: Args) -> baregpu::Result<()> {
    let mode = mode(args.eager)?;
    let spec = super::device_or_default(args.device)?;
    let start = Instant::now();
    let quiet = args.json;
    let mut progress = |line: &str| match quiet {
        true => Ok(()),
        false => out::line(format_args!("[{:6.2} s] {line}", start.elapsed().as_secs_f64())),
    };
    progress(&format!("opening {spec}"))?;
    let dev = baregpu::open(&spec)?;
    let report = baregpu::demo::run(&*dev, args.size, mode, &mut progress)?;
    if args.json {
        out::json(&report)?;
    } else {
        out::line(format_args!("device: {} ({})", report.device, report.arch))?;
        for r in &report.runs {
            let gpu = r.gpu_us.map_or("?".into(), |u| format!("{u:.1} us"));
            let rate = r.gflops.map_or(String::new(), |g| {
                format!(", {g:.2} {}", if r.kernel.contains("matmul") { "GFLOP/s" } else { "G elements/s" })
            });
            out::line(format_args!(
                "{:16} GPU {gpu}{rate} (wall {:.1} us), max error {:.2e}: {}",
                r.kernel,
                r.wall_us,
                r.max_error,
                if r.ok { "verified" } else { "WRONG" }
            ))?;
        }
        match &report.graph {
            Some(g) => out::line(format_args!(
                "ran as one graph of {} nodes on {}, {} waits between them (wall {:.1} us)",
                g.nodes, g.queues, g.waits, g.wall_us
            ))?,
            None => out::line("ran eagerly: launch by launch and copy by copy (--eager or BAREGPU_GRAPH=0)")?,
        }
        if let Some(t) = &report.transformer {
            out::line(format_args!(
                "transformer block (seq {}, d_model {}, d_ff {}): {} kernels as one graph, compiled once \
                 ({:.1} ms), {} replay on new inputs, max error {:.2e} vs the f64 host reference: {}",
                t.seq,
                t.d_model,
                t.d_ff,
                t.kernels,
                t.compile_ms,
                t.replays,
                t.max_error,
                if t.ok { "verified" } else { "WRONG" }
            ))?;
        }
    }
    if report.runs.iter().all(|r| r.ok) && report.transformer.as_ref().is_none_or(|t| t.ok) {
        Ok(())
    } else {
        Err(Error::Usage(format!("{}: results differ from the host reference", report.device)))
    }
}
