//! `baregpu decode pm4|sdma|gpfifo [--arch ARCH] FILE`: print a command stream one packet a line,
//! with the decoder the emulated command processors execute (PM4, SDMA) or the push-buffer method
//! headers (gpfifo: the methods a GPFIFO entry points at).

use baregpu::{Error, Result};
use baregpu_drivers::amd::decode;
use baregpu_drivers::nv::pushbuf;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Kind {
    Pm4,
    Sdma,
    Gpfifo,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// pm4 (AMD compute rings and IBs), sdma (AMD copy engines) or gpfifo (NVIDIA push buffers).
    #[arg(value_enum)]
    kind: Kind,
    /// Little-endian dwords, as a ring or buffer dump holds them.
    file: PathBuf,
    /// AMD architecture (gfx1100, gfx1201, gfx942, gfx950): selects the packet generation.
    #[arg(long, default_value = "gfx1100")]
    arch: String,
}

pub fn run(args: Args) -> Result<()> {
    let bytes = super::input::read(&args.file)?;
    let at = |e: String| Error::Usage(format!("{}: {e}", args.file.display()));
    let lines: Vec<String> = match args.kind {
        Kind::Pm4 | Kind::Sdma => {
            let kind = if args.kind == Kind::Pm4 { "pm4" } else { "sdma" };
            decode::decode_bytes(kind, &args.arch, &bytes).map_err(at)?.iter().map(|p| p.to_string()).collect()
        }
        Kind::Gpfifo => pushbuf::decode(&decode::words_from_bytes(&bytes).map_err(at)?),
    };
    for l in lines {
        super::out::line(l)?;
    }
    Ok(())
}
