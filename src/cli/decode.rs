//! `baregpu decode pm4|sdma|gpfifo [--arch ARCH] FILE`: print a command stream one packet a line,
//! with the decoder the emulated command processors execute (PM4, SDMA) or the push-buffer method
//! headers (gpfifo: the methods a GPFIFO entry points at).

use baregpu::{Error, Result};
use baregpu_drivers::amd::decode;
use baregpu_drivers::nv::pushbuf::{MethodHeader, SecOp};
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

/// One line per method header of a push buffer, with its data words.
fn decode_pushbuf(words: &[u32]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let h = MethodHeader::decode(words[i]);
        let n = h.data_words() as usize;
        let line = match h.op {
            SecOp::Immediate => {
                format!("{:#06x}: IMMD subch {} method {:#06x} = {:#x}", i * 4, h.subchannel, h.method, h.count)
            }
            SecOp::Inc | SecOp::NonInc | SecOp::OneInc => {
                let data = words.get(i + 1..i + 1 + n);
                let shown = match data {
                    Some(d) => d.iter().map(|w| format!("{w:#x}")).collect::<Vec<_>>().join(" "),
                    None => format!("(truncated: {n} data words expected, {} left)", words.len() - i - 1),
                };
                format!("{:#06x}: {:?} subch {} method {:#06x} [{n}] {shown}", i * 4, h.op, h.subchannel, h.method)
            }
            op => format!("{:#06x}: {op:?} header {:#010x}", i * 4, words[i]),
        };
        out.push(line);
        i += 1 + n;
    }
    out
}

pub fn run(args: Args) -> Result<()> {
    let bytes = super::input::read(&args.file)?;
    let at = |e: String| Error::Usage(format!("{}: {e}", args.file.display()));
    let lines: Vec<String> = match args.kind {
        Kind::Pm4 | Kind::Sdma => {
            let kind = if args.kind == Kind::Pm4 { "pm4" } else { "sdma" };
            decode::decode_bytes(kind, &args.arch, &bytes).map_err(at)?.iter().map(|p| p.to_string()).collect()
        }
        Kind::Gpfifo => decode_pushbuf(&decode::words_from_bytes(&bytes).map_err(at)?),
    };
    for l in lines {
        super::out::line(l)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use baregpu_drivers::nv::pushbuf::PushBuffer;

    #[test]
    fn push_buffers_decode_header_by_header() {
        let mut pb = PushBuffer::new();
        pb.inc(1, 0x2b4, &[1, 2]).unwrap().immediate(4, 0x100, 7).unwrap().non_inc(0, 0x10, &[9]).unwrap();
        let lines = decode_pushbuf(pb.words());
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[0].contains("Inc subch 1 method 0x02b4 [2] 0x1 0x2"), "{}", lines[0]);
        assert!(lines[1].contains("IMMD subch 4 method 0x0100 = 0x7"), "{}", lines[1]);
        assert!(lines[2].contains("NonInc subch 0 method 0x0010 [1] 0x9"), "{}", lines[2]);
        // A header promising more data than there is says so instead of reading past the end.
        let cut = &pb.words()[..2];
        assert!(decode_pushbuf(cut)[0].contains("truncated"));
    }
}
