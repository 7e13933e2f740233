//! Output of the `isa` generator: the Rust table of an architecture, the coverage report.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::formats::{Fmt, FmtRole};
use super::{llvm, ArchOut, OpInfo, FLAG_LIT16_SHIFT, FLAG_NO_MODS_SHIFT, LLVM_INPUT};
use crate::banner;

/// Disjoint (mask, value) alternatives of a top-level encoding: its fixed bits minus every
/// other encoding nested inside it.
fn disjoint_encoding(fmts: &[Fmt], i: usize) -> Vec<(u32, u32)> {
    let mut pieces = vec![fmts[i].enc];
    for (j, q) in fmts.iter().enumerate() {
        if j == i || q.role != FmtRole::Encoding {
            continue;
        }
        let q = q.enc;
        let mut next = Vec::new();
        for p in pieces {
            let overlap = (p.1 ^ q.1) & p.0 & q.0 == 0;
            if !overlap {
                next.push(p);
                continue;
            }
            if q.0 & p.0 == q.0 && p.0 != q.0 {
                // p inside q: dropped (q is more specific only when its mask is larger).
                next.push(p);
                continue;
            }
            if q.0 == p.0 {
                // The very same bits: this piece is the other encoding's.
                continue;
            }
            let inter = (p.0 | q.0, p.1 | q.1);
            let mut cur = p;
            for bit in (0..32).rev().map(|b| 1u32 << b) {
                if inter.0 & bit != 0 && cur.0 & bit == 0 {
                    next.push((cur.0 | bit, cur.1 | (!inter.1 & bit)));
                    cur = (cur.0 | bit, cur.1 | (inter.1 & bit));
                }
            }
        }
        pieces = next;
    }
    pieces.sort();
    pieces
}

pub(super) fn emit_rust(o: &ArchOut) -> Result<String, String> {
    let mut s = banner("isa", &[&LLVM_INPUT]);
    let _ = writeln!(s, "//! Instruction table for {}: formats and opcodes enumerated with llvm-mc.", o.arch);
    s.push_str("#![allow(clippy::all, clippy::pedantic, clippy::unreadable_literal)]\n\n");
    s.push_str("use super::OperandKind::*;\nuse super::{o, op, Arch, Field, Format, FormatRole, Image, Opcode};\n\n");
    let _ = writeln!(s, "/// Every format of {}.", o.arch);
    s.push_str("pub static FORMATS: &[Format] = &[\n");
    for (i, f) in o.formats.iter().enumerate() {
        let enc = if f.role == FmtRole::Encoding {
            disjoint_encoding(&o.formats, i)
        } else {
            // The encoding a layout or modifier lives in: up the parents to the Encoding format.
            let mut parent = o.formats.iter().position(|x| Some(x.name) == f.parent).unwrap();
            while o.formats[parent].role != FmtRole::Encoding {
                parent = o.formats.iter().position(|x| Some(x.name) == o.formats[parent].parent).unwrap();
            }
            disjoint_encoding(&o.formats, parent)
        };
        let enc: Vec<String> = enc.iter().map(|(m, v)| format!("(0x{m:08x}, 0x{v:08x})")).collect();
        let sel: Vec<String> = f.select.iter().map(|(l, h, v)| format!("({l}, {h}, 0x{v:x})")).collect();
        let mut fields: Vec<String> = Vec::new();
        if let Some((lo, hi)) = f.op {
            fields.push(format!("Field {{ name: \"op\", lo: {lo}, hi: {hi} }}"));
        }
        for fd in f.fields.iter().filter(|fd| Some((fd.lo, fd.hi)) != f.op) {
            fields.push(format!("Field {{ name: \"{}\", lo: {}, hi: {} }}", fd.name, fd.lo, fd.hi));
        }
        let role = match f.role {
            FmtRole::Encoding => "Encoding",
            FmtRole::Layout => "Layout",
            FmtRole::Modifier => "Modifier",
        };
        let parent = f.parent.map(|p| format!("Some(\"{p}\")")).unwrap_or_else(|| "None".into());
        let opf = f.op.map(|(l, h)| format!("Some(({l}, {h}))")).unwrap_or_else(|| "None".into());
        let _ = writeln!(
            s,
            "Format {{ name: \"{}\", bits: {}, role: FormatRole::{role}, parent: {parent}, encoding: &[{}], select: &[{}], opcode: {opf}, fields: &[{}] }},",
            f.name,
            f.bits,
            enc.join(", "),
            sel.join(", "),
            fields.join(", ")
        );
    }
    s.push_str("];\n\n");
    let _ = writeln!(s, "/// Every opcode of {}, by format then opcode.", o.arch);
    s.push_str("pub static OPCODES: &[Opcode] = &[\n");
    for op in &o.opcodes {
        let flags = (op.literal as u8)
            | ((op.dpp16 as u8) << 1)
            | ((op.dpp8 as u8) << 2)
            | ((op.sdwa as u8) << 3)
            | (op.no_mods << FLAG_NO_MODS_SHIFT)
            | ((op.lit16 as u8) << FLAG_LIT16_SHIFT);
        let operands: Vec<String> =
            op.operands.iter().map(|x| format!("o(\"{}\", {}, {})", x.name, x.kind, x.dwords)).collect();
        let _ = writeln!(
            s,
            "op(\"{}\", \"{}\", \"{}\", {}, {flags}, &[{}]),",
            op.mnemonic,
            o.formats[op.fmt].name,
            o.formats[op.layout].name,
            op.opcode,
            operands.join(", ")
        );
    }
    s.push_str("];\n\n");
    let _ = writeln!(s, "/// Image opcodes' register counts (see `Image`).");
    s.push_str("pub static IMAGES: &[Image] = &[\n");
    for (m, c) in &o.image_addrs {
        let a: Vec<String> = c.addrs.iter().map(|x| x.to_string()).collect();
        let d: Vec<String> = c.data.iter().map(|x| x.to_string()).collect();
        let h: Vec<String> = c.shape.iter().map(|x| x.to_string()).collect();
        let _ = writeln!(
            s,
            "Image {{ mnemonic: \"{m}\", addrs: [{}], data: [{}], shape: [{}] }},",
            a.join(", "),
            d.join(", "),
            h.join(", ")
        );
    }
    s.push_str("];\n\n");
    let _ = writeln!(s, "/// The {} table.", o.arch);
    let _ = writeln!(
        s,
        "pub static ARCH: Arch = Arch {{ name: \"{}\", formats: FORMATS, opcodes: OPCODES, images: IMAGES }};",
        o.arch
    );
    rustfmt(&s)
}

pub(super) fn rustfmt(src: &str) -> Result<String, String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--config", "max_width=120,use_small_heuristics=Max"])
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("rustfmt: {e}"))?;
    let mut stdin = child.stdin.take().expect("piped");
    let input = src.to_string();
    let w = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().map_err(|e| format!("rustfmt: {e}"))?;
    let _ = w.join();
    if !out.status.success() {
        return Err(format!("rustfmt failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    String::from_utf8(out.stdout).map_err(|_| "rustfmt output not UTF-8".into())
}

pub(super) fn coverage(outs: &[ArchOut]) -> String {
    let mut s = String::from("# ISA table coverage\n\n");
    let _ = writeln!(
        s,
        "Generated by `baregpu-autogen-gen` (isa) with llvm-mc {}; do not edit. Opcodes per format \
         (the format whose opcode space holds them; layouts in parentheses).\n",
        llvm::LLVM_VERSION
    );
    for o in outs {
        let _ = writeln!(s, "## {}\n", o.arch);
        let _ = writeln!(
            s,
            "{} opcodes, {} golden vectors ({} assembled back to the very bytes that were disassembled), \
             {} operands that no field probe explained.\n",
            o.opcodes.len(),
            o.golden.len(),
            o.round_trip_same_bytes,
            o.unmapped
        );
        s.push_str("| format | opcodes | layouts | DPP16 | DPP8 | SDWA |\n|---|---|---|---|---|---|\n");
        for (fi, f) in o.formats.iter().enumerate() {
            let ops: Vec<&OpInfo> = o.opcodes.iter().filter(|x| x.fmt == fi).collect();
            if ops.is_empty() {
                continue;
            }
            let mut layouts: BTreeMap<&str, usize> = BTreeMap::new();
            for x in &ops {
                if x.layout != fi {
                    *layouts.entry(o.formats[x.layout].name).or_default() += 1;
                }
            }
            let l: Vec<String> = layouts.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                f.name,
                ops.len(),
                l.join(", "),
                ops.iter().filter(|x| x.dpp16).count(),
                ops.iter().filter(|x| x.dpp8).count(),
                ops.iter().filter(|x| x.sdwa).count()
            );
        }
        let dead: Vec<String> = o
            .field_effect
            .iter()
            .filter(|(k, v)| !**v && o.opcodes.iter().any(|x| o.formats[x.fmt].name == k.0))
            .map(|(k, _)| format!("{}.{}", k.0, k.1))
            .collect();
        let _ = writeln!(
            s,
            "\nFields whose change never altered llvm-mc's disassembly (unverified or inert): {}\n",
            if dead.is_empty() { "none".to_string() } else { dead.join(", ") }
        );
    }
    s
}
