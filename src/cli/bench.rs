//! `baregpu bench`: measurements of the stack. Each sub-bench prints one line per result, or one
//! JSON object a line with `--json`.
//!
//! - `bench asm`: our assembler and disassembler against llvm-mc 22 on the same generated file,
//!   and our decoder alone against its goal (see [`decode`]).
//! - `bench launch`: host cost of submissions and launch latency on a device.
//! - `bench graph`: compile time and per-node run cost of a compiled graph against eager launches.
//! - `bench emu`: the emulated GPU's speed in wave instructions per second.
//! - `bench compile`: the graph compiler's code generation time per kernel.
//! - `bench link`: a PCI transport's register round trip, posted-write rate and copy bandwidth.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use baregpu::{Error, Result};
use baregpu_compiler::isa::{self as isa, Arch};
use clap::Subcommand;

use super::asm::parse_arch;
use super::out;

mod builder;
mod child_cpu;
mod decode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// One JSON object a line instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    bench: Bench,
}

#[derive(Debug, Subcommand)]
enum Bench {
    /// Assembler and disassembler throughput, ours against llvm-mc 22 on the same file.
    #[command(after_long_help = ASM_HELP)]
    Asm(AsmArgs),
    /// (a) host cost of submitting a prebuilt signal-only queue, (b) of enqueuing and submitting
    /// an empty-kernel launch, (c) submit-to-complete latency of an empty kernel (medians).
    Launch(LaunchArgs),
    /// A graph of N empty kernels plus a copy per 10 kernels: compile time, host cost per node of
    /// a run, submit-to-complete per node, and the same nodes submitted eagerly (medians).
    Graph(GraphArgs),
    /// Wave instructions per second of the emulated GPU on a clang-compiled fp32 matmul (N=128)
    /// and a 1M-element vector add, launched through the whole stack; on gfx942/gfx950 also
    /// MFMAs per second on a loop of v_mfma_f32_16x16x16_f16.
    Emu(EmuArgs),
    /// The graph compiler's time per kernel (lowering and code object, median) on a fixed set
    /// of graphs: an elementwise chain, reductions, softmax, a matmul.
    Compile(CompileArgs),
    /// The gfx950 MXFP4 GEMM (`gemm mxfp4` with --runs): median GPU time, TFLOP/s and the
    /// fraction of the ~10 PFLOP/s dense FP4 peak.
    #[command(subcommand)]
    Gemm(GemmBench),
    /// A PCI transport (remote:HOST:PORT/am:…, am:emu:ARCH): register read round trip (median),
    /// posted-write rate, copy bandwidth both ways through BAR0 (VRAM) and DMA memory.
    Link(LinkArgs),
}

#[derive(Debug, clap::Args)]
struct LinkArgs {
    /// A spec that names a PCI function: remote:HOST:PORT/SPEC, am:emu:ARCH or am:BDF.
    #[arg(long)]
    device: baregpu::DeviceSpec,
    /// Register reads timed.
    #[arg(long, default_value_t = 2000)]
    reads: usize,
    /// Posted register writes timed.
    #[arg(long, default_value_t = 100_000)]
    writes: usize,
    /// Bytes of one copy (capped at BAR0's size).
    #[arg(long, default_value_t = 8 << 20)]
    copy_bytes: usize,
    /// Copies each way.
    #[arg(long, default_value_t = 8)]
    copies: u32,
    /// Also boot the GPU and time copies into and out of VRAM the CPU does not map, through the
    /// runtime's staging (the SRAM's drained windows on a USB bridge), of this many bytes.
    #[arg(long)]
    staged: Option<usize>,
    /// Also boot the GPU and time replays of a compiled graph of this many empty kernels (run
    /// and wait; `--copies` replays), with the link's round trips per replay where it counts them.
    #[arg(long)]
    replay: Option<usize>,
}

fn link(a: LinkArgs, json: bool) -> Result<()> {
    a.replay.map_or(Ok(()), baregpu::bench_link::check_replay)?;
    let pci = baregpu::pci_device::open(&a.device)?;
    let mut f = baregpu::bench_link::run(&*pci, a.reads, a.writes, a.copy_bytes, a.copies)?;
    if a.staged.is_some() || a.replay.is_some() {
        let fw = baregpu::pci_device::firmware(&a.device);
        let dev = baregpu::device::open_am_over(pci.clone(), &*fw, &a.device.to_string())?;
        if let Some(bytes) = a.staged {
            baregpu::bench_link::staged(&mut f, &dev, bytes, a.copies)?;
        }
        if let Some(nodes) = a.replay {
            let gpu = baregpu::gpu::from_device(baregpu::device::Device::Amd(dev))?;
            baregpu::bench_link::replay(&mut f, &*pci, &*gpu, nodes, a.copies)?;
        }
    }
    if json {
        return out::json(&f);
    }
    out::line(format_args!("link {}:", f.device))?;
    out::line(format_args!("  register read round trip: {:8.2} us (median of {})", f.read_rtt_us, f.reads))?;
    out::line(format_args!(
        "  posted writes:            {:8.3} M/s ({} writes)",
        f.posted_writes_per_s / 1e6,
        f.writes
    ))?;
    let mib = f.copy_bytes as f64 / (1 << 20) as f64;
    out::line(format_args!(
        "  BAR0 copies ({mib:.0} MiB):     {:8.3} GB/s to, {:8.3} GB/s from",
        f.bar_write_gb_s, f.bar_read_gb_s
    ))?;
    let dma_mib = f.dma_copy_bytes as f64 / (1 << 20) as f64;
    out::line(format_args!(
        "  DMA copies ({dma_mib:.1} MiB):    {:8.3} GB/s to, {:8.3} GB/s from",
        f.dma_write_gb_s, f.dma_read_gb_s
    ))?;
    if let (Some(to), Some(from)) = (f.staged_write_gb_s, f.staged_read_gb_s) {
        let mib = f.staged_copy_bytes as f64 / (1 << 20) as f64;
        out::line(format_args!("  staged VRAM ({mib:.1} MiB):   {to:8.3} GB/s to, {from:8.3} GB/s from"))?;
    }
    if let Some(us) = f.replay_us {
        let trips = f.replay_round_trips.map_or("round trips not counted".into(), |n| format!("round trips: {n}"));
        out::line(format_args!("  graph replay ({} nodes):   {us:8.1} us run and wait, {trips}", f.replay_nodes))?;
    }
    Ok(())
}

#[derive(Debug, Subcommand)]
enum GemmBench {
    /// The MXFP4 GEMM.
    Mxfp4(super::gemm::Shape),
}

#[derive(Debug, clap::Args)]
struct CompileArgs {
    /// Target architecture.
    #[arg(long, default_value = "gfx1100", value_parser = parse_arch)]
    arch: Arch,
}

fn compile(a: CompileArgs, json: bool) -> Result<()> {
    let r = baregpu::bench_compile::run(a.arch)?;
    if json {
        return out::json(&r);
    }
    for k in &r.kernels {
        out::line(format_args!(
            "{} {:28}: {:7.3} ms, {:5} bytes of code",
            r.arch, k.kernel, k.compile_ms, k.code_bytes
        ))?;
    }
    out::line(format_args!("{} compile_ms_per_kernel (median): {:.3}", r.arch, r.compile_ms_per_kernel))?;
    for c in &r.instructions {
        let note = match c.results_agree {
            true => String::new(),
            false => format!(" (results differ by {:.1e}: not counted)", c.max_difference),
        };
        out::line(format_args!(
            "{} {:28}: {:8} wave instructions, clang -O2 {:8}: {:.2}x{note}",
            r.arch, c.graph, c.ours, c.clang, c.ratio
        ))?;
    }
    match r.instructions_vs_clang {
        Some(g) => out::line(format_args!("{} instructions_vs_clang (geometric mean): {g:.3}", r.arch)),
        None => out::line(format_args!("{} instructions_vs_clang: no clang -O2 build for this target", r.arch)),
    }
}

#[derive(Debug, clap::Args)]
struct EmuArgs {
    /// Emulated device (emu:gfx1100, emu:gfx1201, emu:gfx942 or emu:gfx950).
    #[arg(long, default_value = "emu:gfx1100")]
    device: baregpu::DeviceSpec,
}

fn emu(a: EmuArgs, json: bool) -> Result<()> {
    let baregpu::DeviceSpec::Emu { arch, .. } = &a.device else {
        return Err(Error::Usage(format!("bench emu measures the emulator: {} is not an emu: device", a.device)));
    };
    for f in baregpu::bench_emu::run(arch)? {
        if json {
            out::json(&f)?;
        } else {
            out::line(format_args!(
                "{} {:10}: {:>12} wave instructions in {:7.3} s = {:6.2} M/s",
                f.device,
                f.kernel,
                f.wave_instructions,
                f.seconds,
                f.wave_instructions_per_s / 1e6
            ))?;
            if let (Some(n), Some(r)) = (f.mfma, f.mfma_per_s) {
                out::line(format_args!("{} {:10}: {:>12} MFMAs = {:6.0} MFMA/s", f.device, f.kernel, n, r))?;
            }
        }
    }
    Ok(())
}

#[derive(Debug, clap::Args)]
struct LaunchArgs {
    /// Device spec (see `baregpu devices`); default: the first real GPU, else emu:gfx1100.
    #[arg(long)]
    device: Option<baregpu::DeviceSpec>,
    /// Iterations of each measurement.
    #[arg(long, default_value_t = 2000)]
    iterations: usize,
}

fn launch(a: LaunchArgs, json: bool) -> Result<()> {
    let spec = super::device_or_default(a.device)?;
    let f = baregpu::bench_launch::run(&*baregpu::open(&spec)?, a.iterations)?;
    if json {
        out::json(&f)
    } else {
        out::line(format_args!("device {} ({} iterations, medians):", f.device, f.iterations))?;
        out::line(format_args!(
            "  (a) submit a {:5} signal-only queue: {:8.2} us host",
            f.signal_only, f.submit_bound_us
        ))?;
        out::line(format_args!("      ... and its completion:           {:8.2} us", f.bound_roundtrip_us))?;
        out::line(format_args!("  (b) enqueue + submit an empty launch: {:8.2} us host", f.enqueue_launch_us))?;
        out::line(format_args!("  (c) empty launch, submit to complete: {:8.2} us", f.launch_latency_us))
    }
}

#[derive(Debug, clap::Args)]
struct GraphArgs {
    /// Device spec (see `baregpu devices`); default: the first real GPU, else emu:gfx1100.
    #[arg(long)]
    device: Option<baregpu::DeviceSpec>,
    /// Empty kernels in the graph (1 to 10000).
    #[arg(long, default_value_t = 100)]
    nodes: usize,
    /// Devices of one machine the graph spans (1 or 2), from --device on.
    #[arg(long, default_value_t = 1)]
    devices: usize,
    /// Runs of each measurement (1 to 100000).
    #[arg(long, default_value_t = 200)]
    runs: usize,
}

fn graph(a: GraphArgs, json: bool) -> Result<()> {
    baregpu::bench_graph::check(a.nodes, a.runs, a.devices)?;
    let spec = super::device_or_default(a.device)?;
    let devs = baregpu::gpu::open_group(&spec, a.devices).map_err(|e| match a.devices {
        1 => e,
        n => Error::Usage(format!("--devices {n}: cannot open {n} devices of {spec}'s machine in one process: {e}")),
    })?;
    let refs: Vec<&dyn baregpu::Gpu> = devs.iter().map(|d| &**d).collect();
    let f = baregpu::bench_graph::run(&refs, a.nodes, a.runs)?;
    if json {
        return out::json(&f);
    }
    out::line(format_args!("device {} ({} nodes, {} runs, medians):", f.device, f.nodes, f.runs))?;
    out::line(format_args!("  compile:                     {:10.1} us", f.compile_us))?;
    out::line(format_args!("  run, host cost:              {:10.3} us per node", f.run_host_us_per_node))?;
    out::line(format_args!("  run, submit to complete:     {:10.3} us per node", f.run_complete_us_per_node))?;
    out::line(format_args!("  eager, host cost:            {:10.3} us per node", f.eager_host_us_per_node))?;
    out::line(format_args!("  eager / graph host cost:     {:10.1}x", f.ratio))
}

const ASM_HELP: &str = "\
The input is generated from the committed llvm-mc 22 golden vectors (tests/isa/golden): the vectors
both assemblers accept and that round-trip through ours, repeated to --count instructions. Ours is
timed in process (text -> bytes, bytes -> text); llvm-mc as a whole process (`llvm-mc -filetype=obj`
to assemble, `llvm-mc --disassemble` on the same bytes written as hex to disassemble). The best of
--runs runs of each is reported, with the ratio (>1: ours is faster). Without llvm-mc-22 only ours
is measured and the line says so. The assembly line also compares CPU times (Linux): this thread's
for ours, the child process's user and system time for llvm-mc (10 ms steps), which other
processes on a busy machine disturb less than the wall clock.

The `decode` lines time our decoder alone (bytes -> typed instructions, no text) on the same bytes
(passed over until a run holds about 5 M instructions; the time is per pass), in wall-clock time
and per CPU second of the thread (Linux), which other processes on a busy machine disturb less.
A last line says whether decoding reaches the goal of 50 M instructions/s on every architecture
measured, by each clock, with the load average.

The `builder` lines time the typed instruction builder (no text) building, encoding and finishing
a 200,000-instruction GEMM loop (baregpu_isa::builder::speed) on each architecture, the best of
--runs runs (at least 30, about 0.3 s: one run is about 10 ms), by each clock, and say whether it reaches its goal of 20 M instructions/s. Build with
--release.";

/// The most instructions `bench asm` generates (the source text is held in memory, ~40 bytes each).
const MAX_COUNT: usize = 100_000_000;

#[derive(Debug, clap::Args)]
struct AsmArgs {
    /// Architecture (default: all four).
    #[arg(long, value_parser = parse_arch)]
    arch: Option<Arch>,
    /// Instructions in the generated file.
    #[arg(long, default_value_t = 200_000)]
    count: usize,
    /// Timed runs of each tool; the best is reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// The llvm-mc to compare with.
    #[arg(long, default_value = "llvm-mc-22")]
    llvm_mc: String,
    /// Keep the generated files in this directory (default: a temporary one, removed afterwards).
    #[arg(long)]
    keep: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    match args.bench {
        Bench::Asm(a) => asm(a, args.json),
        Bench::Launch(a) => launch(a, args.json),
        Bench::Graph(a) => graph(a, args.json),
        Bench::Emu(a) => emu(a, args.json),
        Bench::Compile(a) => compile(a, args.json),
        Bench::Gemm(GemmBench::Mxfp4(a)) => super::gemm::bench(a, args.json),
        Bench::Link(a) => link(a, args.json),
    }
}

fn golden(arch: Arch) -> &'static str {
    match arch {
        Arch::Gfx1100 => include_str!("../../tests/isa/golden/gfx1100.txt"),
        Arch::Gfx1201 => include_str!("../../tests/isa/golden/gfx1201.txt"),
        Arch::Gfx942 => include_str!("../../tests/isa/golden/gfx942.txt"),
        Arch::Gfx950 => include_str!("../../tests/isa/golden/gfx950.txt"),
    }
}

/// The golden vectors of `arch` that our assembler and disassembler reproduce exactly.
fn corpus(arch: Arch) -> Vec<&'static str> {
    let mut out = Vec::new();
    for line in golden(arch).lines() {
        if line.starts_with('#') {
            continue;
        }
        let Some((text, enc)) = line.rsplit_once(" ; [") else { continue };
        let bytes: Vec<u8> = enc
            .trim_end_matches(']')
            .split(',')
            .filter_map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).ok())
            .collect();
        let ok_asm = isa::assemble_line(arch, text).is_ok_and(|b| b == bytes);
        let ok_dis = isa::decode(arch, &bytes).is_ok_and(|i| i.size() == bytes.len() && isa::disassemble(&i) == text);
        if ok_asm && ok_dis {
            out.push(text);
        }
    }
    out
}

fn mc_args(arch: Arch) -> Vec<String> {
    vec!["-triple=amdgcn-amd-amdhsa".into(), format!("-mcpu={}", arch.name())]
}

/// Whether `mc` is there to compare with: not installed is `false` (only ours is measured); one
/// that is there but fails to run is an error that says how.
fn llvm_available(mc: &str) -> Result<bool> {
    let out = match Command::new(mc).arg("--version").stdin(Stdio::null()).output() {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(Error::Usage(format!("--llvm-mc {mc}: cannot run it: {e}"))),
    };
    if out.status.success() {
        return Ok(true);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("no output on stderr");
    Err(Error::Usage(format!("--llvm-mc {mc}: `{mc} --version` failed ({}): {first}", out.status)))
}

/// Removes the lines llvm-mc rejects (it names them on stderr as `FILE:LINE:COL: error`).
fn llvm_filter(mc: &str, arch: Arch, dir: &Path, lines: Vec<&'static str>) -> Result<Vec<&'static str>> {
    let p = dir.join(format!("{}-probe.s", arch.name()));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&p, text).map_err(|source| Error::Io { path: p.clone(), source })?;
    let out = Command::new(mc)
        .args(mc_args(arch))
        .args(["-filetype=obj", "-o", "/dev/null"])
        .arg(&p)
        .output()
        .map_err(|e| Error::Usage(format!("{mc}: {e}")))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let prefix = format!("{}:", p.display());
    let mut bad = std::collections::HashSet::new();
    for l in stderr.lines() {
        if let Some(rest) = l.strip_prefix(&prefix) {
            if let Some(n) = rest.split(':').next().and_then(|n| n.parse::<usize>().ok()) {
                bad.insert(n);
            }
        }
    }
    Ok(lines.into_iter().enumerate().filter(|(k, _)| !bad.contains(&(k + 1))).map(|(_, l)| l).collect())
}

fn best<F: FnMut() -> Result<()>>(runs: usize, mut f: F) -> Result<Duration> {
    let mut best = Duration::MAX;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        f()?;
        best = best.min(t.elapsed());
    }
    Ok(best)
}

fn run_tool(cmd: &mut Command) -> Result<()> {
    let name = format!("{:?}", cmd.get_program());
    let out =
        cmd.stdout(Stdio::null()).stderr(Stdio::piped()).output().map_err(|e| Error::Usage(format!("{name}: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(Error::Usage(format!("{name} failed: {}", err.lines().next().unwrap_or(""))));
    }
    Ok(())
}

struct Measure {
    bench: &'static str,
    arch: Arch,
    instructions: usize,
    bytes: usize,
    ours: Duration,
    llvm: Option<(Duration, &'static str)>,
    distinct: usize,
    /// By CPU time (assembly only): this thread's for ours, the child's for llvm-mc.
    cpu: Cpu,
}

/// The best CPU times of ours and of llvm-mc, where measured.
#[derive(Clone, Copy, Default)]
struct Cpu {
    ours: Option<Duration>,
    llvm: Option<Duration>,
}

impl Cpu {
    /// Ours and llvm-mc's CPU seconds, when both were measured and ours is above zero.
    fn both(&self) -> Option<(f64, f64)> {
        let (o, l) = (self.ours?.as_secs_f64(), self.llvm?.as_secs_f64());
        (o > 0.0).then_some((o, l))
    }
}

fn report(m: &Measure, json: bool) -> Result<()> {
    let n = m.instructions as f64;
    let ours_rate = n / m.ours.as_secs_f64();
    if json {
        let mut v = serde_json::json!({
            "bench": m.bench,
            "arch": m.arch.name(),
            "instructions": m.instructions,
            "distinct": m.distinct,
            "bytes": m.bytes,
            "ours_s": m.ours.as_secs_f64(),
            "ours_inst_per_s": ours_rate,
        });
        match m.llvm {
            Some((d, tool)) => {
                v["llvm_tool"] = tool.into();
                v["llvm_s"] = d.as_secs_f64().into();
                v["llvm_inst_per_s"] = (n / d.as_secs_f64()).into();
                v["speedup"] = (d.as_secs_f64() / m.ours.as_secs_f64()).into();
                if let Some((o, l)) = m.cpu.both() {
                    v["ours_cpu_s"] = o.into();
                    v["llvm_cpu_s"] = l.into();
                    v["speedup_cpu"] = (l / o).into();
                }
            }
            None => {
                v["llvm_s"] = serde_json::Value::Null;
                v["note"] = "llvm-mc not installed: only ours measured".into();
            }
        }
        out::line(v)
    } else {
        let mut line = format!(
            "{:<7} {:<8} {} instructions: ours {:.3} s ({:.2} M inst/s)",
            m.bench,
            m.arch.name(),
            m.instructions,
            m.ours.as_secs_f64(),
            ours_rate / 1e6
        );
        match m.llvm {
            Some((d, tool)) => {
                line += &format!(
                    ", {tool} {:.3} s ({:.2} M inst/s), ours {:.2}x",
                    d.as_secs_f64(),
                    n / d.as_secs_f64() / 1e6,
                    d.as_secs_f64() / m.ours.as_secs_f64()
                );
                if let Some((o, l)) = m.cpu.both() {
                    line += &format!("; by CPU time ours {o:.3} s, {tool} {l:.3} s, ours {:.2}x", l / o);
                }
            }
            None => line += " (llvm-mc not installed: not compared)",
        }
        out::line(line)
    }
}

fn asm(args: AsmArgs, json: bool) -> Result<()> {
    if args.count == 0 {
        return Err(Error::Usage("--count must be at least 1".into()));
    }
    if args.runs == 0 {
        return Err(Error::Usage("--runs must be at least 1".into()));
    }
    if args.count > MAX_COUNT {
        return Err(Error::Usage(format!("--count {}: at most {MAX_COUNT}", args.count)));
    }
    let (dir, temp) = match &args.keep {
        Some(d) => (d.clone(), false),
        None => (std::env::temp_dir().join(format!("baregpu-bench-asm-{}", std::process::id())), true),
    };
    std::fs::create_dir_all(&dir).map_err(|source| Error::Io { path: dir.clone(), source })?;
    let r = asm_in(&args, json, &dir);
    if temp {
        let _ = std::fs::remove_dir_all(&dir);
    }
    r
}

fn asm_in(args: &AsmArgs, json: bool, dir: &Path) -> Result<()> {
    let mc = args.llvm_mc.as_str();
    let have_llvm = llvm_available(mc)?;
    let archs: Vec<Arch> = match args.arch {
        Some(a) => vec![a],
        None => Arch::ALL.to_vec(),
    };
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |source| Error::Io { path: p, source }
    };
    let mut decode_rates = Vec::new();
    for &arch in &archs {
        let mut lines = corpus(arch);
        if have_llvm {
            lines = llvm_filter(mc, arch, dir, lines)?;
        }
        if lines.is_empty() {
            return Err(Error::Usage(format!("bench asm: no usable golden vectors for {}", arch.name())));
        }
        let distinct = lines.len();
        let mut src = String::with_capacity(args.count * 40);
        for k in 0..args.count {
            src.push_str(lines[k % lines.len()]);
            src.push('\n');
        }
        let s_path = dir.join(format!("{}.s", arch.name()));
        std::fs::write(&s_path, &src).map_err(io(&s_path))?;

        // Assembly.
        let mut bytes = Vec::new();
        let mut cpu = Cpu::default();
        let ours = best(args.runs, || {
            let c0 = decode::thread_cpu();
            bytes = isa::assemble(arch, &src).map_err(|e| Error::Usage(format!("{}: {e}", s_path.display())))?;
            child_cpu::keep_least(&mut cpu.ours, c0, decode::thread_cpu());
            Ok(())
        })?;
        let llvm = if have_llvm {
            let d = best(args.runs, || {
                let c0 = child_cpu::children_cpu();
                run_tool(Command::new(mc).args(mc_args(arch)).args(["-filetype=obj", "-o", "/dev/null"]).arg(&s_path))?;
                child_cpu::keep_least(&mut cpu.llvm, c0, child_cpu::children_cpu());
                Ok(())
            })?;
            Some((d, "llvm-mc"))
        } else {
            None
        };
        report(
            &Measure { bench: "asm", arch, instructions: args.count, bytes: bytes.len(), ours, llvm, distinct, cpu },
            json,
        )?;

        // Disassembly of the same bytes.
        let mut text = String::new();
        let ours = best(args.runs, || {
            text.clear();
            text.reserve(src.len());
            let mut at = 0;
            while at < bytes.len() {
                let i = isa::decode_at(arch, &bytes, at).map_err(|e| Error::Usage(format!("bench disasm: {e}")))?;
                isa::disassemble_into(&i, &mut text);
                text.push('\n');
                at += i.size();
            }
            Ok(())
        })?;
        if text != src {
            let first = text.lines().zip(src.lines()).position(|(a, b)| a != b).unwrap_or(0);
            return Err(Error::Usage(format!(
                "bench asm: {}: disassembly differs from the source at line {}",
                arch.name(),
                first + 1
            )));
        }
        let llvm = if have_llvm {
            let hex_path = dir.join(format!("{}.hex", arch.name()));
            let mut hex = String::with_capacity(bytes.len() * 6);
            let mut at = 0;
            while at < bytes.len() {
                let i = isa::decode_at(arch, &bytes, at).map_err(|e| Error::Usage(format!("bench disasm: {e}")))?;
                for (k, b) in bytes[at..at + i.size()].iter().enumerate() {
                    if k > 0 {
                        hex.push(',');
                    }
                    hex += &format!("0x{b:02x}");
                }
                hex.push('\n');
                at += i.size();
            }
            std::fs::write(&hex_path, hex).map_err(io(&hex_path))?;
            let d = best(args.runs, || {
                run_tool(Command::new(mc).args(mc_args(arch)).args(["--disassemble", "-o", "/dev/null"]).arg(&hex_path))
            })?;
            Some((d, "llvm-mc --disassemble"))
        } else {
            None
        };
        report(
            &Measure {
                bench: "disasm",
                arch,
                instructions: args.count,
                bytes: bytes.len(),
                ours,
                llvm,
                distinct,
                cpu: Cpu::default(),
            },
            json,
        )?;

        decode_rates.push(decode::measure(arch, &bytes, args.count, distinct, args.runs, json)?);
    }
    decode::summary(&decode_rates, json)?;
    builder::measure(&archs, args.runs, json)
}
