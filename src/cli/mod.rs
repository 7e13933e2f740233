//! Command-line front end: argument parsing and one module per command.

mod asm;
mod bench;
mod buffers;
mod decode;
mod demo;
mod devices;
mod devices_remote;
mod disasm;
mod gemm;
mod input;
mod logging;
pub mod out;
mod run;
mod serve;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "baregpu",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("BAREGPU_GIT_REV"), ")"),
    about = "Drive AMD and NVIDIA GPUs with no vendor runtime, or their emulated twins",
    long_about = "Drive AMD and NVIDIA GPUs with no vendor runtime (no ROCm, no CUDA), or their emulated \
                  twins.\n\nLogging: set BAREGPU_LOG (off, error, warn, info, debug, trace, or per-module \
                  filters such as baregpu_drivers=debug); the default, error, keeps a failure to one \
                  line, and warn or finer adds its context. Output: when stdout's reader goes away \
                  (`| head`), a command stops quietly with status 0; a full disk is an error.\n\nBAREGPU_SYSROOT=DIR reads /sys, \
                  /proc and /dev under DIR."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List real and emulated devices with their specs, architecture, memory and compute units.
    Devices(devices::Args),
    /// Load a code object and launch one of its kernels with the given arguments.
    Run(run::Args),
    /// Print a PM4, SDMA or push-buffer command stream one packet a line.
    Decode(decode::Args),
    /// The main job: compile and run a real workload on the default (or given) device.
    Demo(demo::Args),
    /// Assemble AMD GPU assembly (llvm-mc syntax) into instruction bytes, or a code object with --elf.
    Asm(asm::Args),
    /// Disassemble instruction bytes or a code object into llvm-mc syntax, one instruction a line.
    Disasm(disasm::Args),
    /// Measurements: `bench asm` (assembler/disassembler against llvm-mc).
    Bench(bench::Args),
    /// Hand-tuned GEMMs: `gemm mxfp4`, the gfx950 MXFP4 GEMM.
    Gemm(gemm::Args),
    /// Serve PCI functions (am:BDF, am:emu:ARCH) to remote clients (`remote:HOST:PORT/SPEC`).
    #[command(after_long_help = serve::HELP)]
    Serve(serve::Args),
}

pub fn init_logging() -> baregpu::Result<()> {
    logging::init()
}

/// The OS that discovery reads. `BAREGPU_SYSROOT=DIR` re-roots /sys, /proc and /dev under DIR, to
/// list the devices of a captured tree from another machine (bring-up, bug reports).
pub fn host_os() -> baregpu_drivers::os::HostOs {
    match std::env::var_os("BAREGPU_SYSROOT") {
        Some(root) => baregpu_drivers::os::HostOs::with_root(root),
        None => baregpu_drivers::os::HostOs::new(),
    }
}

/// The device a command was given, else DESIGN.md's default: the first real GPU, else emu:gfx1100.
pub fn device_or_default(given: Option<baregpu::DeviceSpec>) -> baregpu::Result<baregpu::DeviceSpec> {
    match given {
        Some(s) => Ok(s),
        None => Ok(baregpu::registry::list(&host_os())?.default_spec()),
    }
}

pub fn run(cli: Cli) -> baregpu::Result<()> {
    match cli.command {
        Command::Devices(args) => devices::run(args),
        Command::Run(args) => run::run(args),
        Command::Decode(args) => decode::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Asm(args) => asm::run(args),
        Command::Disasm(args) => disasm::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Gemm(args) => gemm::run(args),
        Command::Serve(args) => serve::run(args),
    }
}
