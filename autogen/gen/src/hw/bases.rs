//! Static IP segment base tables from the kernel's `include/<asic>_ip_offset.h` headers
//! (`static const struct IP_BASE NAME = { { { { seg0, seg1, ... } }, ... } };`).

use super::cdefs;
use super::{doc, file, kernel, list, module_head};
use crate::inputs::{Input, Inputs};
use crate::Generated;

const VEGA10: Input = kernel(
    "drivers/gpu/drm/amd/include/vega10_ip_offset.h",
    "0eafce93ac395bf5d20fdb2a227fc320ec21d3d67be8c4f0d252cfe1ee9dbead",
);
const VEGA20: Input = kernel(
    "drivers/gpu/drm/amd/include/vega20_ip_offset.h",
    "ec84ddd3db7ed243e65365cfdff3daacdaa9de3a1b960f43223e2c5050fa1b22",
);
const ALDEBARAN: Input = kernel(
    "drivers/gpu/drm/amd/include/aldebaran_ip_offset.h",
    "c24cd4bdd90de4ab62eda2e01207327d34172dab48660ba0f67c16a8ba4be5c0",
);
const NAVI10: Input = kernel(
    "drivers/gpu/drm/amd/include/navi10_ip_offset.h",
    "d9488ceab9b664db8a53b0bf6efcfe355e43a4c953100a7c53da705b5fcc1d03",
);
const SIENNA_CICHLID: Input = kernel(
    "drivers/gpu/drm/amd/include/sienna_cichlid_ip_offset.h",
    "27ce382f43a5df3fffdfb5abdaafc85dc8beb940f68e6b10f52f5731068f3bbd",
);

/// Segments per instance in the generated tables (the widest header's `MAX_SEGMENT`).
const SEGMENTS: usize = 6;

const TABLES: &[(&str, &Input, &str)] = &[
    ("vega10", &VEGA10, "Vega10 (gfx900). The vega-class layout: GC segment 0 at 0x2000, segment 1 at 0xA000."),
    ("vega20", &VEGA20, "Vega20 (gfx906): vega-class layout."),
    (
        "aldebaran",
        &ALDEBARAN,
        "Aldebaran (MI200, gfx90a): vega-class layout. MI300 (gfx942, GC 9.4.3) and gfx950 have no static\n\
table in linux 6.12 (their bases come from IP discovery); their GC registers use segments 0 and 1\n\
only, whose bases (0x2000, 0xA000) are the same in vega10, vega20 and aldebaran, and the PM4 register\n\
windows (`PACKET3_SET_SH_REG_START` = 0x2C00 ...) assume that GC layout.",
    ),
    ("navi10", &NAVI10, "Navi10 (gfx1010). The navi-class layout: GC segment 0 at 0x1260, segment 1 at 0xA000."),
    (
        "sienna_cichlid",
        &SIENNA_CICHLID,
        "Sienna Cichlid (Navi21, gfx1030): navi-class layout. gfx11 and gfx12 get their real bases from IP\n\
discovery at run time; their GC registers are laid out so that GC segment 0 at 0x1260 (as here) puts\n\
the SH registers in the PM4 `SET_SH_REG` window (0x2C00..0x3000), e.g. COMPUTE_PGM_LO at 0x2E0C.",
    ),
];

pub fn generate(inputs: &Inputs) -> Result<Vec<Generated>, String> {
    let ins: Vec<&Input> = TABLES.iter().map(|t| t.1).collect();
    let mut s = module_head(
        &ins,
        "Static IP segment base tables: per IP block, per instance, the MMIO dword address of each register\n\
segment, so that a register's absolute dword address is `TABLE[instance][base_idx] + offset`.\n\n\
Only instances present in the header are listed (trailing all-zero instances dropped); every instance\n\
has six segments, zero-padded where the header has fewer. Chips with IP discovery (gfx942, gfx950,\n\
gfx11, gfx12) read their real bases from the discovery table at run time; these tables describe the\n\
vega-class (gfx9) and navi-class (gfx10+) layouts that the PM4 register windows are built around.",
    );
    for (module, input, about) in TABLES {
        let text = inputs.read(input)?;
        let bases = parse(&text).map_err(|e| format!("{}: {e}", input.path))?;
        s.push('\n');
        doc(&mut s, 0, &format!("{about}\n\nFrom `{}`.", input.path));
        s.push_str(&format!("pub mod {module} {{\n"));
        for (name, instances) in &bases {
            let items: Vec<String> = instances
                .iter()
                .map(|segs| {
                    let v: Vec<String> = segs
                        .iter()
                        .map(|&x| if x == 0 { "0".to_string() } else { format!("{x:#010X}").replace("0X", "0x") })
                        .collect();
                    format!("[{}]", v.join(", "))
                })
                .collect();
            list(&mut s, 4, &format!("pub const {name}: &[[u32; {SEGMENTS}]] ="), &items, ";");
        }
        s.push_str("}\n");
    }
    Ok(vec![file("src/amd/ip_base.rs", s)])
}

type Bases = Vec<(String, Vec<[u32; SEGMENTS]>)>;

fn parse(text: &str) -> Result<Bases, String> {
    let src = cdefs::strip_comments(text);
    let mut out: Bases = Vec::new();
    let mut rest = src.as_str();
    while let Some(p) = rest.find("struct IP_BASE ") {
        rest = &rest[p + "struct IP_BASE ".len()..];
        let Some(eq) = rest.find('=') else { break };
        let head = rest[..eq].trim();
        if head.contains(['{', ';', '}']) {
            continue; // the struct's own definition
        }
        let name = head.split_whitespace().last().ok_or("IP_BASE without a name")?.to_string();
        let end = rest.find(';').ok_or("unterminated IP_BASE")?;
        let body = &rest[eq + 1..end];
        // Innermost brace groups are the instances.
        let mut instances = Vec::new();
        let mut start = None;
        for (i, c) in body.char_indices() {
            match c {
                '{' => start = Some(i + 1),
                '}' => {
                    if let Some(st) = start.take() {
                        let mut segs = [0u32; SEGMENTS];
                        let vals: Vec<&str> = body[st..i].split(',').map(str::trim).collect();
                        if vals.len() > SEGMENTS {
                            return Err(format!("{name}: {} segments", vals.len()));
                        }
                        for (k, v) in vals.iter().enumerate() {
                            let n = cdefs::parse_int(v).ok_or_else(|| format!("{name}: bad value `{v}`"))?;
                            segs[k] = u32::try_from(n).map_err(|_| format!("{name}: {v} too wide"))?;
                        }
                        instances.push(segs);
                    }
                }
                _ => {}
            }
        }
        while instances.last().is_some_and(|s| s.iter().all(|&x| x == 0)) {
            instances.pop();
        }
        if out.iter().any(|(n, _)| *n == name) {
            return Err(format!("{name} twice"));
        }
        out.push((name, instances));
        rest = &rest[end..];
    }
    if out.is_empty() {
        return Err("no IP_BASE tables".into());
    }
    Ok(out)
}
