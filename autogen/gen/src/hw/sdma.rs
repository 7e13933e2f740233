//! SDMA packet tables from the kernel's `*_sdma_pkt_open.h` headers.
//!
//! The headers define, per packet `SDMA_PKT_<P>` and dword `<W>`, for each field `<f>` the macros
//! `SDMA_PKT_<P>_<W>_<f>_offset` (dword index), `_mask` (before shifting), `_shift` and the encoder
//! `SDMA_PKT_<P>_<W>_<F>(x)`, under `Definitions for <P> packet` / `define for <W> word` /
//! `define for <f> field` comments. Those comments give the split of each name, which is then
//! checked against the macro names; the encoder bodies are checked to be `((x) & mask) << shift`.

use super::cdefs::{self, Expr, Op};
use super::{const_fn, const_item, doc, file, kernel, module_head};
use crate::inputs::{Input, Inputs};
use crate::Generated;
use std::collections::BTreeSet;

const SDMA_4_0_0: Input = kernel(
    "drivers/gpu/drm/amd/amdgpu/vega10_sdma_pkt_open.h",
    "67b76881b8dac15c02e073f6a9a7d8970ce9a5a03c52949d46198dbb06a24168",
);
const SDMA_5_0_0: Input = kernel(
    "drivers/gpu/drm/amd/amdgpu/navi10_sdma_pkt_open.h",
    "f15a9e66ae9d919cc241ddae144879cc856323a05ae26e427bedb6184373e3c1",
);
const SDMA_6_0_0: Input = kernel(
    "drivers/gpu/drm/amd/amdgpu/sdma_v6_0_0_pkt_open.h",
    "d01f73f53b8bf9f287880f07b6287b4d9522494b0fa57fb33ea92c93a8623dbe",
);

pub fn generate(inputs: &Inputs) -> Result<Vec<Generated>, String> {
    let mut out = Vec::new();
    for (path, input, what) in [
        (
            "src/amd/sdma_4_0_0.rs",
            &SDMA_4_0_0,
            "SDMA 4.x (gfx9: Vega, MI200, MI300 gfx942 SDMA 4.4.2, gfx950 SDMA 4.4.x)",
        ),
        ("src/amd/sdma_5_0_0.rs", &SDMA_5_0_0, "SDMA 5.x (gfx10)"),
        ("src/amd/sdma_6_0_0.rs", &SDMA_6_0_0, "SDMA 6.x (gfx11); the kernel also drives SDMA 7.x (gfx12) with it"),
    ] {
        out.push(file(path, module(inputs, input, what)?));
    }
    out.push(file("src/amd/sdma_7_0.rs", sdma_7_0()));
    Ok(out)
}

struct Field {
    name: String,
    offset: String,
    mask: String,
    shift: String,
    encoder: Option<String>,
}

struct Word {
    name: String,
    fields: Vec<Field>,
}

struct Packet {
    name: String,
    words: Vec<Word>,
}

fn module(inputs: &Inputs, input: &Input, what: &str) -> Result<String, String> {
    let text = inputs.read(input)?;
    let (top, packets) = split(&text).map_err(|e| format!("{}: {e}", input.path))?;
    let mut s = module_head(
        &[input],
        &format!(
            "{what}: SDMA packet definitions from the kernel's `{}`.\n\n\
The opcode (`SDMA_OP_*`) and sub-opcode (`SDMA_SUBOP_*`) constants and the header's other macros come\n\
first. Then one module per packet (`SDMA_PKT_*`, `SDMA_AQL_PKT_*`) with one module per dword holding,\n\
for each field, `<field>_offset` (dword index in the packet), `<field>_mask` (before shifting),\n\
`<field>_shift`, and the encoder `<FIELD>(x) = (x & mask) << shift`.",
            input.path.rsplit('/').next().unwrap_or(input.path)
        ),
    );
    s.push('\n');
    super::pm4::translate(&top, &[], &mut s, 0).map_err(|e| format!("{}: {e}", input.path))?;
    for p in &packets {
        s.push('\n');
        s.push_str(&format!("pub mod {} {{\n", p.name));
        for (wi, w) in p.words.iter().enumerate() {
            if wi > 0 {
                s.push('\n');
            }
            let dw = w.fields.first().map(|f| f.offset.as_str()).unwrap_or("?");
            doc(&mut s, 4, &format!("`{}` (dword {dw}).", w.name));
            s.push_str(&format!("    pub mod {} {{\n", w.name));
            for f in &w.fields {
                const_item(&mut s, 8, &format!("{}_offset", f.name), "u32", &f.offset);
                const_item(&mut s, 8, &format!("{}_mask", f.name), "u32", &f.mask);
                const_item(&mut s, 8, &format!("{}_shift", f.name), "u32", &f.shift);
                if let Some(enc) = &f.encoder {
                    const_fn(&mut s, 8, enc, &["x".to_string()], &format!("(x & {0}_mask) << {0}_shift", f.name));
                }
            }
            s.push_str("    }\n");
        }
        s.push_str("}\n");
    }
    Ok(s)
}

/// Splits a header into its top-level macros and its packets.
fn split(text: &str) -> Result<(Vec<cdefs::Define>, Vec<Packet>), String> {
    // Section markers by line, from the comments (which `parse_defines` strips).
    let mut markers: Vec<(usize, char, String)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if let Some(r) = l.strip_prefix("** Definitions for ") {
            let name = r.strip_suffix(" packet").ok_or_else(|| format!("line {}: odd packet comment", i + 1))?;
            markers.push((i + 1, 'p', name.trim().to_string()));
        } else if let Some(r) = l.strip_prefix("/*define for ") {
            let r = r.trim_end_matches("*/");
            if let Some(w) = r.strip_suffix(" word") {
                markers.push((i + 1, 'w', w.trim().to_string()));
            } else if let Some(f) = r.strip_suffix(" field") {
                markers.push((i + 1, 'f', f.trim().to_string()));
            }
        }
    }
    let defs = cdefs::parse_defines(text);
    let mut top = Vec::new();
    let mut packets: Vec<Packet> = Vec::new();
    let (mut pkt, mut word, mut field) = (None::<String>, None::<String>, None::<String>);
    let mut m = 0;
    for d in defs {
        while m < markers.len() && markers[m].0 < d.line {
            let (_, kind, name) = &markers[m];
            match kind {
                'p' => {
                    pkt = Some(name.clone());
                    word = None;
                    field = None;
                    packets.push(Packet { name: name.clone(), words: Vec::new() });
                }
                'w' => {
                    word = Some(name.clone());
                    field = None;
                    let p = packets.last_mut().ok_or("word outside a packet")?;
                    if p.words.iter().any(|w| w.name == *name) {
                        return Err(format!("{}: word {name} twice", p.name));
                    }
                    p.words.push(Word { name: name.clone(), fields: Vec::new() });
                }
                _ => field = Some(name.clone()),
            }
            m += 1;
        }
        let Some(p) = &pkt else {
            top.push(d);
            continue;
        };
        if d.body.is_empty() {
            continue; // the include guard's closing side, if any
        }
        let (Some(w), Some(f)) = (&word, &field) else {
            return Err(format!("line {}: `{}` outside a word/field section", d.line, d.name));
        };
        let base = format!("{p}_{w}_{f}");
        let wd = packets.last_mut().and_then(|p| p.words.last_mut()).ok_or("no word")?;
        if wd.fields.last().map(|x| x.name != *f).unwrap_or(true) {
            wd.fields.push(Field {
                name: f.clone(),
                offset: String::new(),
                mask: String::new(),
                shift: String::new(),
                encoder: None,
            });
        }
        let fd = wd.fields.last_mut().expect("just pushed");
        let lit = || -> Result<String, String> {
            match cdefs::parse_expr(&d.body) {
                Ok(Expr::Num(_, s)) => Ok(s),
                _ => Err(format!("line {}: `{}` is not a literal", d.line, d.name)),
            }
        };
        if d.name == format!("{base}_offset") {
            fd.offset = lit()?;
        } else if d.name == format!("{base}_mask") {
            fd.mask = lit()?;
        } else if d.name == format!("{base}_shift") {
            fd.shift = lit()?;
        } else if d.name == format!("{p}_{w}_{}", f.to_uppercase()) && d.params.as_deref() == Some(&["x".to_string()]) {
            let want = Expr::Bin(
                Op::Shl,
                Box::new(Expr::Bin(
                    Op::And,
                    Box::new(Expr::Ident("x".into())),
                    Box::new(Expr::Ident(format!("{base}_mask"))),
                )),
                Box::new(Expr::Ident(format!("{base}_shift"))),
            );
            if cdefs::parse_expr(&d.body).ok() != Some(want) {
                return Err(format!("line {}: `{}` is not `((x) & mask) << shift`", d.line, d.name));
            }
            fd.encoder = Some(f.to_uppercase());
        } else {
            return Err(format!("line {}: `{}` does not belong to field {base}", d.line, d.name));
        }
    }
    for p in &packets {
        for w in &p.words {
            let mut offsets = BTreeSet::new();
            for f in &w.fields {
                if f.offset.is_empty() || f.mask.is_empty() || f.shift.is_empty() {
                    return Err(format!("{}_{}_{}: incomplete field", p.name, w.name, f.name));
                }
                offsets.insert(f.offset.clone());
            }
            if offsets.len() > 1 {
                return Err(format!("{}_{}: fields at several dword offsets {offsets:?}", p.name, w.name));
            }
        }
    }
    Ok((top, packets))
}

/// SDMA 7.0 (gfx12) has no packet header of its own in linux 6.12.
fn sdma_7_0() -> String {
    let mut s = module_head(
        &[&SDMA_6_0_0],
        "SDMA 7.x (gfx12, RDNA4): the SDMA 6.0 packet definitions.\n\n\
Linux 6.12 has no SDMA 7 packet header: `drivers/gpu/drm/amd/amdgpu/sdma_v7_0.c` includes\n\
`sdma_v6_0_0_pkt_open.h` (and the GC 12.0.0 register headers), so this module re-exports [`super::sdma_6_0_0`].\n\n\
One difference shows in the kernel source: `sdma_v7_0_emit_copy_buffer` (and `sdma_v7_0_vm_copy_pte`)\n\
emit `COPY_LINEAR` as 8 dwords (`copy_num_dw = 8`): after `DST_ADDR_HI` comes a dword that is 0 or a\n\
DCC/compression control built from the `SDMA_DCC_*` macros; SDMA 6.0 emits 7 (`copy_num_dw = 7`). That\n\
eighth dword has no field definitions in the 6.0 header. The COUNT field is the 6.0 header's\n\
(`SDMA_PKT_COPY_LINEAR_COUNT_count_mask` = 0x3FFFFFFF), and both drivers cap one copy at\n\
`copy_max_bytes = 0x400000`.",
    );
    s.push_str("\npub use super::sdma_6_0_0::*;\n");
    s
}
