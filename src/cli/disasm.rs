//! `baregpu disasm`: instruction bytes or a code object to LLVM-syntax text, one instruction a line.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use baregpu::{Error, Result};
use baregpu_compiler::isa::{self as isa, Arch};

use super::asm::{parse_arch, read, write_out};

const AFTER_HELP: &str = "\
FILE is either raw little-endian instruction bytes (then --arch is required) or an AMDGPU code
object (ELF; detected by its magic), disassembled kernel by kernel: the kernel's symbol name
followed by a colon, then its instructions. For a code object the architecture comes from the ELF
e_flags; --arch, when given, must agree.

The output is llvm-mc 22 syntax, one instruction a line, and assembles back with `baregpu asm`.
A truncated or undecodable instruction is an error that names the byte offset.";

#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct Args {
    /// Target architecture: gfx1100, gfx1201, gfx942 or gfx950 (optional for a code object).
    #[arg(long, value_parser = parse_arch)]
    arch: Option<Arch>,
    /// Prefix each instruction with its byte offset as a comment (`/*0x0010*/`).
    #[arg(long)]
    offsets: bool,
    /// Output file (default: stdout).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// Raw instruction bytes or a code object.
    file: PathBuf,
}

/// A function symbol of a code object: name, file offset and size of its code.
struct Func {
    name: String,
    offset: usize,
    size: usize,
}

fn u16le(d: &[u8], at: usize) -> Option<u16> {
    d.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]))
}
fn u32le(d: &[u8], at: usize) -> Option<u32> {
    d.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}
fn u64le(d: &[u8], at: usize) -> Option<u64> {
    d.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
}

/// The architecture named by an AMDGPU ELF's e_flags, and its function symbols (`.symtab`, else
/// `.dynsym`) in address order. Every read is bounds-checked: a malformed file is an error.
fn read_elf(d: &[u8]) -> std::result::Result<(Option<Arch>, u32, Vec<Func>), String> {
    let bad = |what: &str| format!("malformed ELF: {what}");
    if d.get(4) != Some(&2) || d.get(5) != Some(&1) {
        return Err("only little-endian ELF64 code objects are supported".into());
    }
    let machine = u16le(d, 18).ok_or_else(|| bad("header"))?;
    if machine != 224 {
        return Err(format!("not an AMDGPU code object (e_machine {machine})"));
    }
    let flags = u32le(d, 48).ok_or_else(|| bad("header"))?;
    let mach = flags & 0xff;
    let arch = baregpu_autogen::amd::elf::MACHS.iter().find(|(_, m)| *m == mach).and_then(|(n, _)| Arch::from_name(n));
    let shoff = u64le(d, 40).ok_or_else(|| bad("header"))? as usize;
    let shentsize = u16le(d, 58).ok_or_else(|| bad("header"))? as usize;
    let shnum = u16le(d, 60).ok_or_else(|| bad("header"))? as usize;
    if shentsize < 64 {
        return Err(bad("section header size"));
    }
    struct Sh {
        ty: u32,
        addr: u64,
        offset: u64,
        size: u64,
        link: u32,
        entsize: u64,
    }
    let mut shs = Vec::with_capacity(shnum);
    for k in 0..shnum {
        let b = shoff
            .checked_add(k.checked_mul(shentsize).ok_or_else(|| bad("sections"))?)
            .ok_or_else(|| bad("sections"))?;
        let sh = || -> Option<Sh> {
            Some(Sh {
                ty: u32le(d, b + 4)?,
                addr: u64le(d, b + 16)?,
                offset: u64le(d, b + 24)?,
                size: u64le(d, b + 32)?,
                link: u32le(d, b + 40)?,
                entsize: u64le(d, b + 56)?,
            })
        };
        shs.push(sh().ok_or_else(|| bad("section header outside the file"))?);
    }
    let symtab = shs.iter().find(|s| s.ty == 2).or_else(|| shs.iter().find(|s| s.ty == 11));
    let mut funcs = Vec::new();
    if let Some(st) = symtab {
        let strtab = shs.get(st.link as usize).ok_or_else(|| bad("symbol string table"))?;
        let ent = if st.entsize == 0 { 24 } else { st.entsize as usize };
        let n = st.size as usize / ent.max(1);
        for k in 0..n {
            let b = (st.offset as usize).saturating_add(k * ent);
            let (Some(name), Some(info), Some(shndx), Some(value), Some(size)) =
                (u32le(d, b), d.get(b + 4), u16le(d, b + 6), u64le(d, b + 8), u64le(d, b + 16))
            else {
                return Err(bad("symbol outside the file"));
            };
            if info & 0xf != 2 {
                continue; // not STT_FUNC
            }
            let sec = shs.get(shndx as usize).ok_or_else(|| bad("symbol section"))?;
            let nstart = (strtab.offset as usize).saturating_add(name as usize);
            let nbytes = d.get(nstart..).ok_or_else(|| bad("symbol name"))?;
            let nlen = nbytes.iter().position(|&c| c == 0).ok_or_else(|| bad("symbol name"))?;
            let name = String::from_utf8_lossy(&nbytes[..nlen]).into_owned();
            let off = value.checked_sub(sec.addr).and_then(|x| x.checked_add(sec.offset));
            let off = off.filter(|&o| o.checked_add(size).is_some_and(|e| e <= d.len() as u64));
            let off = off.ok_or_else(|| format!("function `{name}` lies outside the file"))?;
            let mut size = size;
            if size == 0 {
                // Unsized: up to the end of its section.
                size = (sec.offset + sec.size).saturating_sub(off);
            }
            if !funcs.iter().any(|f: &Func| f.name == name) {
                funcs.push(Func { name, offset: off as usize, size: size as usize });
            }
        }
    }
    funcs.sort_by_key(|f| f.offset);
    Ok((arch, flags, funcs))
}

/// Appends the disassembly of `bytes`; on a decoding error returns it (the offset is relative
/// to `bytes`, `base` is added for the message).
fn disassemble_into(
    out: &mut String,
    arch: Arch,
    bytes: &[u8],
    base: usize,
    offsets: bool,
) -> std::result::Result<(), String> {
    let mut at = 0;
    while at < bytes.len() {
        let i = match isa::decode_at(arch, bytes, at) {
            Ok(i) => i,
            Err(e) => return Err(offset_error(e, base)),
        };
        if offsets {
            let _ = write!(out, "/*0x{:04x}*/ ", base + at);
        }
        out.push_str(&isa::disassemble(&i));
        out.push('\n');
        at += i.size();
    }
    Ok(())
}

fn offset_error(e: isa::IsaError, base: usize) -> String {
    use isa::IsaError::*;
    match e {
        Truncated { offset, need, have } => {
            format!(
                "offset {} (0x{:x}): truncated instruction: need {need} bytes, {have} left",
                base + offset,
                base + offset
            )
        }
        UnknownEncoding { offset, dword } => {
            format!("offset {} (0x{:x}): unknown instruction encoding 0x{dword:08x}", base + offset, base + offset)
        }
        UnknownOpcode { offset, format, opcode, dword } => format!(
            "offset {} (0x{:x}): unknown opcode {opcode} in format {format} (0x{dword:08x})",
            base + offset,
            base + offset
        ),
        e => e.to_string(),
    }
}

pub fn run(args: Args) -> Result<()> {
    let data = read(&args.file)?;
    let file = args.file.display().to_string();
    let fail = |msg: String| Error::Usage(format!("{file}: {msg}"));
    let mut out = String::new();
    let mut err = None;
    if data.starts_with(b"\x7fELF") {
        let (elf_arch, flags, funcs) = read_elf(&data).map_err(fail)?;
        let arch = match (elf_arch, args.arch) {
            (Some(e), Some(a)) if e != a => {
                return Err(fail(format!("a {} code object, but --arch says {}", e.name(), a.name())));
            }
            (Some(e), _) => e,
            (None, Some(a)) => a,
            (None, None) => {
                return Err(fail(format!(
                "e_flags 0x{flags:x} names no supported architecture; give --arch (gfx1100, gfx1201, gfx942, gfx950)"
            )))
            }
        };
        if funcs.is_empty() {
            return Err(fail("the code object has no function symbols".into()));
        }
        for (k, f) in funcs.iter().enumerate() {
            if k > 0 {
                out.push('\n');
            }
            out.push_str(&f.name);
            out.push_str(":\n");
            if let Err(e) = disassemble_into(&mut out, arch, &data[f.offset..f.offset + f.size], f.offset, args.offsets)
            {
                err = Some(fail(format!("kernel `{}`: {e}", f.name)));
                break;
            }
        }
    } else {
        let arch = args.arch.ok_or_else(|| fail("raw instruction bytes need --arch".into()))?;
        if let Err(e) = disassemble_into(&mut out, arch, &data, 0, args.offsets) {
            err = Some(fail(e));
        }
    }
    // What decoded is written even when a later instruction did not.
    let dest = args.output.unwrap_or_else(|| PathBuf::from("-"));
    write_out(Path::new(&dest), out.as_bytes())?;
    match err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
