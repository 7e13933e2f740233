//! `baregpu asm`: AMD GPU assembly (llvm-mc syntax) to instruction bytes, or with `--elf` to a
//! code object (HSACO) built by `baregpu_compiler::codeobj` from a kernel file.
//!
//! Raw mode: one instruction a line, `//` and `;` comments, `name:` labels (branch targets).
//!
//! `--elf` mode: the same instruction syntax inside kernel blocks:
//!
//! ```text
//! .kernel NAME                 start a kernel (several per file)
//! .arg NAME TYPE [OFFSET]      an argument; TYPE: global (8-byte pointer to global memory),
//!                              u8 i8 u16 i16 f16 u32 i32 f32 u64 i64 f64 (by value);
//!                              OFFSET defaults to the next naturally aligned offset
//! .hidden_args                 append the code object v5 implicit arguments (256 bytes)
//! .vgprs N / .agprs N          arch VGPRs / AccVGPRs used (default: highest vN / aN used + 1)
//! .sgprs N                     SGPRs used (default: highest sN used + 1); VCC etc. added as LLVM does
//! .lds BYTES                   static LDS per workgroup
//! .scratch BYTES               private (scratch) bytes per work-item
//! .wave32 / .wave64            wave size (default: wave32 on gfx11/gfx12, wave64 on gfx9)
//! .workgroup_id x[,y[,z]]      system SGPRs for the workgroup ids (default: x)
//! .workitem_id x|xy|xyz        work-item ids loaded into v0 (default: x)
//! .workgroup_size X[,Y[,Z]]    required workgroup size (also the max flat workgroup size)
//! .max_workgroup_size N        max flat workgroup size (default 1024)
//! .end                         end of the kernel
//! ```
//!
//! Outside kernels only blank lines and comments are allowed. The kernarg pointer is in s[0:1].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use baregpu::{Error, Result};
use baregpu_compiler::codeobj::{self, hidden_args_v5, Kernel, KernelArg, KernelResources, WaveSize};
use baregpu_compiler::isa::error::bound_quotes;
use baregpu_compiler::isa::{self as isa, Arch, IsaError};

const AFTER_HELP: &str = "\
Output: raw little-endian instruction bytes, by default into FILE with the extension .bin
(.hsaco with --elf); `-o -` writes to stdout.

Input: one instruction a line in llvm-mc syntax, `//` and `;` comments, `name:` labels as branch
targets (s_branch, s_cbranch_*). Errors are one line: FILE:LINE:COL: reason.

With --elf the file holds kernels (several per file), each between `.kernel NAME` and `.end`:
  .arg NAME TYPE [OFFSET]   TYPE: global (pointer) | u8 i8 u16 i16 f16 u32 i32 f32 u64 i64 f64;
                            OFFSET defaults to the next naturally aligned one
  .hidden_args              append the code object v5 implicit arguments
  .vgprs N  .agprs N  .sgprs N
                            registers used (default: the highest vN/aN/sN in the code + 1)
  .lds BYTES  .scratch BYTES
                            static LDS per workgroup, scratch per work-item
  .wave32 | .wave64         wave size (default: wave32 on gfx1100/gfx1201, wave64 on gfx942/gfx950)
  .workgroup_id x[,y[,z]]   workgroup id SGPRs (default: x)
  .workitem_id x|xy|xyz     work-item ids in v0 (default: x)
  .workgroup_size X[,Y[,Z]] required workgroup size
  .max_workgroup_size N     (default 1024)
The kernarg segment pointer arrives in s[0:1]. See docs/asm.md.

Example:
  .kernel add_one
  .arg buf global
  .vgprs 2
    s_load_b64 s[2:3], s[0:1], 0x0
    v_lshlrev_b32_e32 v0, 2, v0
    s_waitcnt lgkmcnt(0)
    global_load_b32 v1, v0, s[2:3]
    s_waitcnt vmcnt(0)
    v_add_nc_u32_e32 v1, 1, v1
    global_store_b32 v0, v1, s[2:3]
    s_endpgm
  .end";

#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct Args {
    /// Target architecture: gfx1100, gfx1201, gfx942 or gfx950.
    #[arg(long, value_parser = parse_arch)]
    arch: Arch,
    /// Build a code object (HSACO) from `.kernel` blocks instead of raw bytes (see --help).
    #[arg(long)]
    elf: bool,
    /// Output file (`-` for stdout); default: FILE with .bin (.hsaco with --elf).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// Assembly source (llvm-mc syntax).
    file: PathBuf,
}

/// Parses an architecture name for clap.
pub fn parse_arch(s: &str) -> std::result::Result<Arch, String> {
    Arch::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Arch::ALL.iter().map(|a| a.name()).collect();
        format!("unknown architecture `{s}` (one of {})", names.join(", "))
    })
}

pub(crate) fn read(p: &Path) -> Result<Vec<u8>> {
    super::input::read(p)
}

pub(crate) fn write_out(p: &Path, bytes: &[u8]) -> Result<()> {
    if p.as_os_str() == "-" {
        return super::out::bytes(bytes);
    }
    std::fs::write(p, bytes).map_err(|source| Error::Io { path: p.to_path_buf(), source })
}

/// `FILE:LINE:COL: reason` for assembler errors, `FILE: reason` for the others.
pub(crate) fn isa_error(file: &Path, e: IsaError) -> Error {
    match e {
        IsaError::Asm { line, col, msg } => Error::Usage(format!("{}:{line}:{col}: {msg}", file.display())),
        // One `FILE:LINE:COL: message` line per bad line.
        IsaError::AsmMany(errors) => {
            Error::Usage(errors.into_iter().map(|e| format!("{}:{e}", file.display())).collect::<Vec<_>>().join("\n"))
        }
        e => Error::Usage(format!("{}: {e}", file.display())),
    }
}

fn at(file: &Path, line: usize, col: usize, msg: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{}:{line}:{col}: {}", file.display(), bound_quotes(&msg.to_string())))
}

pub fn run(args: Args) -> Result<()> {
    let src = read(&args.file)?;
    let src = String::from_utf8(src).map_err(|e| {
        Error::Usage(format!("{}: not UTF-8 text (byte {})", args.file.display(), e.utf8_error().valid_up_to()))
    })?;
    let bytes = if args.elf {
        let kernels = parse_kernels(args.arch, &args.file, &src)?;
        codeobj::write_code_object(args.arch, &kernels).map_err(|e| {
            Error::Usage(format!("{}: code object: {}", args.file.display(), bound_quotes(&e.to_string())))
        })?
    } else {
        isa::assemble(args.arch, &src).map_err(|e| isa_error(&args.file, e))?
    };
    let out = args.output.unwrap_or_else(|| args.file.with_extension(if args.elf { "hsaco" } else { "bin" }));
    write_out(&out, &bytes)
}

/// One kernel block being collected.
struct Block {
    name: String,
    line: usize,
    /// The kernel's instruction lines; everything else blanked so that line numbers stay true.
    body: String,
    args: Vec<(KernelArg, usize)>,
    hidden: bool,
    vgprs: Option<u32>,
    agprs: Option<u32>,
    sgprs: Option<u32>,
    lds: u32,
    scratch: u32,
    wave: Option<WaveSize>,
    workgroup_id: Option<[bool; 3]>,
    workitem_dims: Option<u32>,
    reqd: Option<[u32; 3]>,
    max_wg: Option<u32>,
    next_arg: u32,
}

fn parse_u32(file: &Path, line: usize, col: usize, s: &str) -> Result<u32> {
    let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u32::from_str_radix(h, 16).ok()
    } else {
        s.parse::<u32>().ok()
    };
    v.ok_or_else(|| at(file, line, col, format!("expected a number, found '{s}'")))
}

/// Scalar argument types: (name, size, OpenCL type name).
const SCALARS: [(&str, u32, &str); 11] = [
    ("u8", 1, "uchar"),
    ("i8", 1, "char"),
    ("u16", 2, "ushort"),
    ("i16", 2, "short"),
    ("f16", 2, "half"),
    ("u32", 4, "uint"),
    ("i32", 4, "int"),
    ("f32", 4, "float"),
    ("u64", 8, "ulong"),
    ("i64", 8, "long"),
    ("f64", 8, "double"),
];

/// Highest register index + 1 per file ('v', 's', 'a') named in the code, and whether VCC is used.
fn used_registers(body: &str) -> (HashMap<char, u32>, bool) {
    let mut max: HashMap<char, u32> = HashMap::new();
    let mut vcc = false;
    for line in body.lines() {
        let code = isa::asm::lexer::strip_comment(line);
        let b = code.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            let word_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
            if word_start && code[i..].starts_with("vcc") {
                vcc = true;
            }
            if word_start && matches!(c, b'v' | b's' | b'a') {
                let rest = &code[i + 1..];
                let (first, last) = if let Some(r) = rest.strip_prefix('[') {
                    let end = r.find(']').unwrap_or(0);
                    let inner = &r[..end];
                    match inner.split_once(':').map(|(a, b)| (a.trim().parse::<u32>(), b.trim().parse::<u32>())) {
                        Some((Ok(a), Ok(b))) => (a, b),
                        _ => {
                            i += 1;
                            continue;
                        }
                    }
                } else {
                    let n = rest.bytes().take_while(u8::is_ascii_digit).count();
                    let after = rest.as_bytes().get(n).copied();
                    if n == 0 || after.is_some_and(|x| x.is_ascii_alphanumeric() || x == b'_') {
                        i += 1;
                        continue;
                    }
                    match rest[..n].parse::<u32>() {
                        Ok(v) => (v, v),
                        Err(_) => {
                            i += 1;
                            continue;
                        }
                    }
                };
                let _ = first;
                let e = max.entry(c as char).or_insert(0);
                *e = (*e).max(last + 1);
            }
            i += 1;
        }
    }
    (max, vcc)
}

/// Parses the kernel blocks of an `--elf` source and assembles their code.
pub fn parse_kernels(arch: Arch, file: &Path, src: &str) -> Result<Vec<Kernel>> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut cur: Option<Block> = None;
    for (n, raw) in src.lines().enumerate() {
        let lno = n + 1;
        let code = isa::asm::lexer::strip_comment(raw);
        let t = code.trim();
        let col = code.len() - code.trim_start().len() + 1;
        if t.is_empty() {
            if let Some(b) = cur.as_mut() {
                b.body.push('\n');
            }
            continue;
        }
        let (d, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
        let rest = rest.trim();
        let rcol = col + t.len() - t[d.len()..].trim_start().len();
        if !d.starts_with('.') {
            match cur.as_mut() {
                Some(b) => {
                    b.body.push_str(raw);
                    b.body.push('\n');
                }
                None => return Err(at(file, lno, col, "instruction outside a `.kernel NAME` ... `.end` block")),
            }
            continue;
        }
        if d == ".kernel" {
            if let Some(b) = &cur {
                return Err(at(file, lno, col, format!("`.kernel` inside kernel `{}` (missing `.end`)", b.name)));
            }
            let ok = !rest.is_empty()
                && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
                && !rest.starts_with(|c: char| c.is_ascii_digit());
            if !ok {
                return Err(at(file, lno, rcol, format!("bad kernel name '{rest}'")));
            }
            if blocks.iter().any(|b| b.name == rest) {
                return Err(at(file, lno, rcol, format!("kernel '{rest}' defined twice")));
            }
            cur = Some(Block {
                name: rest.to_string(),
                line: lno,
                body: "\n".repeat(lno),
                args: Vec::new(),
                hidden: false,
                vgprs: None,
                agprs: None,
                sgprs: None,
                lds: 0,
                scratch: 0,
                wave: None,
                workgroup_id: None,
                workitem_dims: None,
                reqd: None,
                max_wg: None,
                next_arg: 0,
            });
            continue;
        }
        let Some(b) = cur.as_mut() else {
            return Err(at(file, lno, col, format!("`{d}` outside a `.kernel NAME` ... `.end` block")));
        };
        b.body.push('\n');
        let num = |s: &str| parse_u32(file, lno, rcol, s);
        let none = |b: &Block| {
            if rest.is_empty() {
                Ok(())
            } else {
                Err(at(file, lno, rcol, format!("`{d}` takes no operand (in kernel `{}`)", b.name)))
            }
        };
        match d {
            ".end" => {
                none(b)?;
                blocks.push(cur.take().expect("in a kernel"));
            }
            ".arg" => {
                let parts: Vec<&str> = rest.split_whitespace().collect();
                if parts.len() < 2 || parts.len() > 3 {
                    return Err(at(file, lno, rcol, "usage: .arg NAME TYPE [OFFSET]"));
                }
                let (name, ty) = (parts[0], parts[1]);
                if b.args.iter().any(|(a, _)| a.name.as_deref() == Some(name)) {
                    return Err(at(file, lno, rcol, format!("argument '{name}' defined twice")));
                }
                let size = if ty == "global" {
                    8
                } else {
                    SCALARS.iter().find(|s| s.0 == ty).map(|s| s.1).ok_or_else(|| {
                        at(
                            file,
                            lno,
                            rcol,
                            format!("unknown argument type '{ty}' (global, u8, i8, u16, i16, f16, u32, i32, f32, u64, i64, f64)"),
                        )
                    })?
                };
                let offset = match parts.get(2) {
                    Some(o) => {
                        let o = num(o)?;
                        if o % size != 0 {
                            return Err(at(
                                file,
                                lno,
                                rcol,
                                format!("offset {o} of '{name}' is not {size}-byte aligned"),
                            ));
                        }
                        o
                    }
                    None => b.next_arg.div_ceil(size) * size,
                };
                let arg = if ty == "global" {
                    KernelArg::global_buffer(name, offset)
                } else {
                    let tn = SCALARS.iter().find(|s| s.0 == ty).map(|s| s.2).unwrap_or("");
                    KernelArg::by_value(name, offset, size).with_type_name(tn)
                };
                if let Some((a, l)) =
                    b.args.iter().find(|(a, _)| a.offset < offset + size && offset < a.offset + a.size)
                {
                    return Err(at(
                        file,
                        lno,
                        rcol,
                        format!("'{name}' overlaps '{}' (line {l})", a.name.as_deref().unwrap_or("?")),
                    ));
                }
                b.next_arg = b.next_arg.max(offset + size);
                b.args.push((arg, lno));
            }
            ".hidden_args" => {
                none(b)?;
                b.hidden = true;
            }
            ".vgprs" => b.vgprs = Some(num(rest)?),
            ".agprs" => b.agprs = Some(num(rest)?),
            ".sgprs" => b.sgprs = Some(num(rest)?),
            ".lds" => b.lds = num(rest)?,
            ".scratch" => b.scratch = num(rest)?,
            ".wave32" => {
                none(b)?;
                b.wave = Some(WaveSize::Wave32);
            }
            ".wave64" => {
                none(b)?;
                b.wave = Some(WaveSize::Wave64);
            }
            ".workgroup_id" => {
                let mut ids = [false; 3];
                for p in rest.split(',').map(str::trim) {
                    match p {
                        "x" => ids[0] = true,
                        "y" => ids[1] = true,
                        "z" => ids[2] = true,
                        _ => return Err(at(file, lno, rcol, format!("expected x, y or z, found '{p}'"))),
                    }
                }
                b.workgroup_id = Some(ids);
            }
            ".workitem_id" => {
                b.workitem_dims = Some(match rest {
                    "x" => 1,
                    "xy" | "x,y" => 2,
                    "xyz" | "x,y,z" => 3,
                    _ => return Err(at(file, lno, rcol, format!("expected x, xy or xyz, found '{rest}'"))),
                })
            }
            ".workgroup_size" => {
                let v: Vec<&str> = rest.split(',').map(str::trim).collect();
                if v.is_empty() || v.len() > 3 {
                    return Err(at(file, lno, rcol, "usage: .workgroup_size X[,Y[,Z]]"));
                }
                let mut s = [1u32; 3];
                for (k, x) in v.iter().enumerate() {
                    s[k] = num(x)?;
                }
                b.reqd = Some(s);
            }
            ".max_workgroup_size" => b.max_wg = Some(num(rest)?),
            _ => return Err(at(file, lno, col, format!("unknown directive '{d}'"))),
        }
    }
    if let Some(b) = cur {
        return Err(at(file, b.line, 1, format!("kernel `{}` has no `.end`", b.name)));
    }
    if blocks.is_empty() {
        return Err(Error::Usage(format!(
            "{}: no `.kernel NAME` ... `.end` block (needed with --elf)",
            file.display()
        )));
    }
    let mut kernels = Vec::new();
    for b in blocks {
        let code = isa::assemble(arch, &b.body).map_err(|e| isa_error(file, e))?;
        if code.is_empty() {
            return Err(at(file, b.line, 1, format!("kernel `{}` has no instructions", b.name)));
        }
        let (used, vcc) = used_registers(&b.body);
        let mut args: Vec<KernelArg> = b.args.into_iter().map(|(a, _)| a).collect();
        if b.hidden {
            let base = b.next_arg.div_ceil(8) * 8;
            args.extend(hidden_args_v5(base));
        }
        let mut k = Kernel::new(arch, &b.name, code).with_args(args);
        let r: &mut KernelResources = &mut k.resources;
        r.vgpr_count = b.vgprs.unwrap_or_else(|| used.get(&'v').copied().unwrap_or(0)).max(1);
        r.agpr_count = b.agprs.unwrap_or_else(|| used.get(&'a').copied().unwrap_or(0));
        let sgprs = b.sgprs.unwrap_or_else(|| used.get(&'s').copied().unwrap_or(0));
        r.sgpr_count = KernelResources::sgpr_count_for(arch, sgprs, vcc);
        r.lds_bytes = b.lds;
        r.private_bytes = b.scratch;
        if let Some(w) = b.wave {
            r.wave_size = w;
        }
        if let Some(ids) = b.workgroup_id {
            r.workgroup_id = ids;
        }
        if let Some(d) = b.workitem_dims {
            r.workitem_id_dims = d;
        }
        if let Some(s) = b.reqd {
            k.reqd_workgroup_size = Some(s);
            k.max_flat_workgroup_size = s[0] * s[1] * s[2];
        }
        if let Some(m) = b.max_wg {
            k.max_flat_workgroup_size = m;
        }
        kernels.push(k);
    }
    Ok(kernels)
}
