//! PM4 packet tables: every `#define` of `nvd.h` (gfx10+) and `soc15d.h` (gfx9) becomes a Rust
//! constant or `const fn`, and the KFD MEC/MES packet headers give enums and bitfield layouts.

use super::cdefs::{self, Define, Expr};
use super::{const_fn, const_item, doc, file, kernel, module_head, rust_ident};
use crate::inputs::{Input, Inputs};
use crate::Generated;
use std::collections::{BTreeMap, BTreeSet};

const NVD_H: Input =
    kernel("drivers/gpu/drm/amd/amdgpu/nvd.h", "f65a105dfceff3bc03b3e02ac52ed18586586a5866135170a3239ec77fbe29c8");
const SOC15D_H: Input =
    kernel("drivers/gpu/drm/amd/amdgpu/soc15d.h", "45426641c204f06f54951174ac02a58c9bd49f7b0a7c822eaf984668ba3b8457");
const KFD_PM4_AI_H: Input = kernel(
    "drivers/gpu/drm/amd/amdkfd/kfd_pm4_headers_ai.h",
    "bc31ff7f69f80b1d9f0bb1b73456b9ceb371bd2b5b22f4b72a192770f2123789",
);

/// Macros that are not translated, with the reason (named here so nothing is dropped silently).
const SKIP: &[(&str, &str)] = &[("PACKET2", "uses REG_SET, which the header does not define")];

pub fn generate(inputs: &Inputs) -> Result<Vec<Generated>, String> {
    let nv_doc = "PM4 packets for gfx10 and later (RDNA3 gfx11, RDNA4 gfx12), from the kernel's `nvd.h`.\n\n\
Every `#define` of the header in its order: packet types, `PACKET3_*` opcodes, the register windows\n\
(`PACKET3_SET_SH_REG_START` ...), and each field macro as a `const fn`. `PACKET3(op, n)` builds a type-3\n\
header where `n` is the number of payload dwords minus one.";
    let soc_doc = "PM4 packets for gfx9 (CDNA3 gfx942, CDNA4 gfx950), from the kernel's `soc15d.h`.\n\n\
Every `#define` of the header in its order: packet types, `PACKET3_*` opcodes, the register windows\n\
(`PACKET3_SET_SH_REG_START` ...), and each field macro as a `const fn`. `PACKET3(op, n)` builds a type-3\n\
header where `n` is the number of payload dwords minus one.";
    Ok(vec![
        file("src/amd/pm4_nv.rs", defines_module(inputs, &NVD_H, nv_doc)?),
        file("src/amd/pm4_soc15.rs", defines_module(inputs, &SOC15D_H, soc_doc)?),
        file("src/amd/pm4_mec.rs", mec_module(inputs)?),
    ])
}

fn defines_module(inputs: &Inputs, input: &Input, doc_text: &str) -> Result<String, String> {
    let text = inputs.read(input)?;
    let mut s = module_head(&[input], doc_text);
    s.push('\n');
    let skipped =
        translate(&cdefs::parse_defines(&text), SKIP, &mut s, 0).map_err(|e| format!("{}: {e}", input.path))?;
    if !skipped.is_empty() {
        s.push_str("\n// Not translated:\n");
        for (name, why) in skipped {
            s.push_str(&format!("//   {name}: {why}\n"));
        }
    }
    Ok(s)
}

/// Translates `#define`s into Rust items at `indent`; returns the macros skipped by `skip`.
/// Empty macros (include guards) produce nothing; anything else that does not translate is an
/// error.
pub(crate) fn translate(
    defs: &[Define],
    skip: &[(&'static str, &'static str)],
    out: &mut String,
    indent: usize,
) -> Result<Vec<(&'static str, &'static str)>, String> {
    let mut env: BTreeMap<String, u64> = BTreeMap::new();
    let mut fns: BTreeSet<String> = BTreeSet::new();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut skipped = Vec::new();
    for d in defs {
        if let Some(&(n, why)) = skip.iter().find(|(n, _)| *n == d.name) {
            skipped.push((n, why));
            continue;
        }
        if d.body.is_empty() {
            continue;
        }
        let key = format!("{:?} {}", d.params, d.body);
        if let Some(prev) = seen.get(&d.name) {
            if *prev == key {
                continue;
            }
            return Err(format!("`{}` redefined differently at line {}", d.name, d.line));
        }
        seen.insert(d.name.clone(), key);
        let expr = cdefs::parse_expr(&d.body).map_err(|e| format!("line {} `{}`: {e}", d.line, d.name))?;
        match &d.params {
            None => {
                let v = expr.eval(&env).map_err(|e| format!("line {} `{}`: {e}", d.line, d.name))?;
                if v > u64::from(u32::MAX) {
                    return Err(format!("line {} `{}`: {v:#x} does not fit 32 bits", d.line, d.name));
                }
                env.insert(d.name.clone(), v);
                const_item(out, indent, &d.name, "u32", &expr.to_rust());
            }
            Some(params) => {
                let mut names = Vec::new();
                expr.idents(&mut names);
                for n in &names {
                    if !params.contains(n) && !env.contains_key(n) && !fns.contains(n) {
                        return Err(format!("line {} `{}`: unknown identifier `{n}`", d.line, d.name));
                    }
                }
                let renamed = rename(&expr, params);
                let ps: Vec<String> = params.iter().map(|p| rust_ident(p)).collect();
                const_fn(out, indent, &d.name, &ps, &renamed.to_rust());
                fns.insert(d.name.clone());
            }
        }
    }
    Ok(skipped)
}

/// Renames parameters that are Rust keywords (`type` becomes `type_`).
fn rename(e: &Expr, params: &[String]) -> Expr {
    match e {
        Expr::Ident(n) if params.contains(n) => Expr::Ident(rust_ident(n)),
        Expr::Not(x) => Expr::Not(Box::new(rename(x, params))),
        Expr::Bin(op, a, b) => Expr::Bin(*op, Box::new(rename(a, params)), Box::new(rename(b, params))),
        Expr::Call(n, args) => Expr::Call(n.clone(), args.iter().map(|a| rename(a, params)).collect()),
        other => other.clone(),
    }
}

// ---- kfd_pm4_headers_ai.h: enums and bitfield layouts of the MEC/MES packets ----

/// A C `enum` with its constants.
struct CEnum {
    name: String,
    items: Vec<(String, u64)>,
}

/// One bitfield of a packet dword.
struct BitField {
    name: String,
    shift: u32,
    width: u32,
}

/// The named bitfield layouts that overlay one dword.
type Groups = Vec<(String, Vec<BitField>)>;

/// A packet struct: per dword (ordinal, 1-based), the named bitfield groups that overlay it.
struct Packet {
    name: String,
    dwords: Vec<(u32, Groups)>,
}

fn mec_module(inputs: &Inputs) -> Result<String, String> {
    let text = inputs.read(&KFD_PM4_AI_H)?;
    let src = cdefs::strip_comments(&text);
    let (enums, packets) = parse_structs(&src).map_err(|e| format!("{}: {e}", KFD_PM4_AI_H.path))?;
    let mut s = module_head(
        &[&KFD_PM4_AI_H],
        "MEC/MES PM4 packets as KFD builds them (`kfd_pm4_headers_ai.h`, used by KFD for gfx9 and later).\n\n\
The enums give the values of the packets' selector fields (`RELEASE_MEM` event index, data/int/dst select,\n\
`MAP_QUEUES` engine and queue selects ...). Each packet struct becomes a module with one module per\n\
dword that has bitfields (`ordinalN`, 1-based: ordinal 1 is the PM4 header), holding `<field>_shift`\n\
and `<field>_mask` (mask before shifting). Where the C struct overlays several layouts on one dword\n\
(`bitfields4` and `bitfields4b`), the first layout's fields keep their names and later ones are\n\
prefixed with their group name.",
    );
    s.push_str("\n// -- enums --\n\n");
    for e in &enums {
        doc(&mut s, 0, &format!("`enum {}`", e.name));
        for (n, v) in &e.items {
            const_item(&mut s, 0, n, "u32", &format!("{v}"));
        }
    }
    s.push_str("\n// -- packet layouts --\n");
    for p in &packets {
        s.push('\n');
        doc(&mut s, 0, &format!("`struct {}`", p.name));
        if p.dwords.is_empty() {
            s.push_str(&format!("pub mod {} {{}}\n", p.name));
            continue;
        }
        s.push_str(&format!("pub mod {} {{\n", p.name));
        let mut first_dw = true;
        for (ordinal, groups) in &p.dwords {
            if !first_dw {
                s.push('\n');
            }
            first_dw = false;
            s.push_str(&format!("    /// Dword {} (from 0).\n    pub mod ordinal{ordinal} {{\n", ordinal - 1));
            let mut names = BTreeSet::new();
            for (gi, (group, fields)) in groups.iter().enumerate() {
                for f in fields {
                    if f.name.starts_with("reserved") {
                        continue;
                    }
                    let name = if gi == 0 || !names.contains(&f.name) {
                        f.name.clone()
                    } else {
                        format!("{group}_{}", f.name)
                    };
                    if !names.insert(name.clone()) {
                        return Err(format!(
                            "{}: field `{name}` twice in {} ordinal{ordinal}",
                            KFD_PM4_AI_H.path, p.name
                        ));
                    }
                    let mask = if f.width == 32 { u32::MAX } else { (1u32 << f.width) - 1 };
                    const_item(&mut s, 8, &format!("{name}_shift"), "u32", &f.shift.to_string());
                    const_item(&mut s, 8, &format!("{name}_mask"), "u32", &format!("{mask:#x}"));
                }
            }
            s.push_str("    }\n");
        }
        s.push_str("}\n");
    }
    Ok(s)
}

/// Reads the `enum`s and the packet `struct`s (unions of bitfield structs per dword).
fn parse_structs(src: &str) -> Result<(Vec<CEnum>, Vec<Packet>), String> {
    let toks = ctoks(src);
    let mut enums = Vec::new();
    let mut packets = Vec::new();
    let mut i = 0;
    let mut anon = 0;
    while i < toks.len() {
        // Skip preprocessor lines: the tokenizer keeps `#` and the line's words; they never
        // contain braces in this header, so scanning for `enum`/`struct` at depth 0 is enough.
        if toks[i] == "enum" && i + 2 < toks.len() && (toks[i + 2] == "{" || toks[i + 1] == "{") {
            let (name, open) = if toks[i + 1] == "{" {
                anon += 1;
                (format!("anonymous_{anon}"), i + 1)
            } else {
                (toks[i + 1].clone(), i + 2)
            };
            let close = find_close(&toks, open)?;
            let mut items = Vec::new();
            let body = &toks[open + 1..close];
            for item in body.split(|t| t == ",") {
                if item.is_empty() {
                    continue;
                }
                if item.len() != 3 || item[1] != "=" {
                    return Err(format!("enum {name}: unsupported item {item:?}"));
                }
                let v = cdefs::parse_int(&item[2]).ok_or_else(|| format!("enum {name}: bad value {}", item[2]))?;
                items.push((item[0].clone(), v));
            }
            enums.push(CEnum { name, items });
            i = close + 1;
        } else if (toks[i] == "struct" || toks[i] == "union")
            && i + 2 < toks.len()
            && toks[i + 2] == "{"
            && toks[i + 1] != "{"
        {
            let name = toks[i + 1].clone();
            let open = i + 2;
            let close = find_close(&toks, open)?;
            if toks[i] == "struct" {
                packets.push(parse_packet(&name, &toks[open + 1..close])?);
            }
            i = close + 1;
        } else {
            i += 1;
        }
    }
    Ok((enums, packets))
}

/// The members of a packet struct, in order: each `union { ... };` or plain `uint32_t x;` is one
/// dword; inside a union, each `struct { ... } name;` is a bitfield layout of that dword.
fn parse_packet(name: &str, body: &[String]) -> Result<Packet, String> {
    let mut dwords = Vec::new();
    let mut ordinal = 0u32;
    let mut i = 0;
    while i < body.len() {
        if body[i] == "union" || body[i] == "struct" {
            let is_struct = body[i] == "struct";
            let open = i + 1;
            if body.get(open).map(String::as_str) != Some("{") {
                return Err(format!("{name}: expected `{{` after {}", body[i]));
            }
            let close = find_close(body, open)?;
            let member_end = body[close..].iter().position(|t| t == ";").map(|p| close + p).ok_or("missing `;`")?;
            if is_struct {
                // A bare struct of dwords: each member (or bitfield run) in turn.
                let fields = bitfields(&body[open + 1..close])?;
                let mut bits = 0;
                for f in &fields {
                    bits += f.width;
                }
                let start = ordinal + 1;
                ordinal += bits.div_ceil(32);
                dwords.push((start, vec![("struct".to_string(), fields)]));
            } else {
                ordinal += 1;
                let groups = union_groups(&body[open + 1..close], name)?;
                if !groups.is_empty() {
                    dwords.push((ordinal, groups));
                }
            }
            i = member_end + 1;
        } else {
            // `uint32_t name;` or `uint32_t a:8;`-style plain member.
            let end = body[i..].iter().position(|t| t == ";").map(|p| i + p).ok_or("missing `;`")?;
            ordinal += 1;
            i = end + 1;
        }
    }
    Ok(Packet { name: name.to_string(), dwords })
}

/// The `struct { bitfields } name;` groups inside a union; plain members carry no layout.
fn union_groups(body: &[String], pkt: &str) -> Result<Groups, String> {
    let mut groups = Vec::new();
    let mut i = 0;
    while i < body.len() {
        if body[i] == "struct" && body.get(i + 1).map(String::as_str) == Some("{") {
            let close = find_close(body, i + 1)?;
            let fields = bitfields(&body[i + 2..close])?;
            let gname = body.get(close + 1).cloned().unwrap_or_default();
            let total: u32 = fields.iter().map(|f| f.width).sum();
            if total != 32 {
                return Err(format!("{pkt}: bitfield group `{gname}` covers {total} bits, not 32"));
            }
            groups.push((gname, fields));
            i = close + 1;
        } else {
            i += 1;
        }
    }
    Ok(groups)
}

/// `type name : width ;` members, laid out from bit 0 (the kernel's little-endian layout).
fn bitfields(body: &[String]) -> Result<Vec<BitField>, String> {
    let mut out = Vec::new();
    let mut shift = 0;
    for member in body.split(|t| t == ";") {
        if member.is_empty() {
            continue;
        }
        let n = member.len();
        if n >= 3 && member[n - 2] == ":" {
            let width: u32 = member[n - 1].parse().map_err(|_| format!("bad width in {member:?}"))?;
            out.push(BitField { name: member[n - 3].clone(), shift, width });
            shift += width;
        } else {
            out.push(BitField { name: member[n - 1].clone(), shift, width: 32 });
            shift += 32;
        }
    }
    Ok(out)
}

fn find_close(toks: &[String], open: usize) -> Result<usize, String> {
    let mut depth = 0;
    for (j, t) in toks.iter().enumerate().skip(open) {
        if t == "{" {
            depth += 1;
        } else if t == "}" {
            depth -= 1;
            if depth == 0 {
                return Ok(j);
            }
        }
    }
    Err("unbalanced braces".into())
}

/// C tokens: identifiers/numbers and single punctuation characters; preprocessor lines dropped.
fn ctoks(src: &str) -> Vec<String> {
    let mut toks = Vec::new();
    for line in src.lines() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        let mut cur = String::new();
        for c in line.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                cur.push(c);
            } else {
                if !cur.is_empty() {
                    toks.push(std::mem::take(&mut cur));
                }
                if !c.is_whitespace() {
                    toks.push(c.to_string());
                }
            }
        }
        if !cur.is_empty() {
            toks.push(cur);
        }
    }
    toks
}
