//! Selected hardware enums of the kernel's per-SoC `*_enum.h` headers: `amd/enums.rs`, one module
//! per SoC family (vega10 for gfx9, soc21 for gfx11, soc24 for gfx12) with every enumerator of the
//! enums listed in [`ENUMS`]. The PM4 builders need VGT event types (CS_PARTIAL_FLUSH,
//! CACHE_FLUSH_AND_INV_TS_EVENT, BOTTOM_OF_PIPE_TS) and the RELEASE_MEM/EVENT_WRITE event indices.

use crate::inputs::{Input, Inputs, LINUX_SOURCE, LINUX_VERSION};
use crate::{banner, Generated};
use std::fmt::Write;

const HEADERS: &[(&str, Input)] = &[
    (
        "vega10",
        Input {
            package: LINUX_SOURCE,
            version: LINUX_VERSION,
            path: "drivers/gpu/drm/amd/include/vega10_enum.h",
            sha256: "cb4d03b3ee3fa28a240434f8742434facafb9b670f3dec9b49c1295a4d70a83d",
        },
    ),
    (
        "soc21",
        Input {
            package: LINUX_SOURCE,
            version: LINUX_VERSION,
            path: "drivers/gpu/drm/amd/include/soc21_enum.h",
            sha256: "38180a3a0b49d4cb1f3ced4df45e0d2fb1963fb928d8ec6ed5eb4ed9c9c42099",
        },
    ),
    (
        "soc24",
        Input {
            package: LINUX_SOURCE,
            version: LINUX_VERSION,
            path: "drivers/gpu/drm/amd/include/soc24_enum.h",
            sha256: "e917c9330582f43b75e2965f2dc65b183ed01d111f54a07fa9f5fc85af5d890f",
        },
    ),
];

/// The enums taken from each header.
const ENUMS: &[&str] = &["VGT_EVENT_TYPE"];

/// Enumerators of `typedef enum NAME { A = 0x1, ... } NAME;`.
fn enum_values(text: &str, name: &str) -> Option<Vec<(String, u32)>> {
    let start = text.find(&format!("typedef enum {name} {{"))?;
    let body = &text[start..];
    let body = &body[body.find('{')? + 1..body.find('}')?];
    let mut out = Vec::new();
    for line in body.lines() {
        let line = line.trim().trim_end_matches(',');
        let Some((n, v)) = line.split_once('=') else { continue };
        let v = v.trim();
        let v = match v.strip_prefix("0x") {
            Some(h) => u32::from_str_radix(h, 16).ok()?,
            None => v.parse().ok()?,
        };
        out.push((n.trim().to_string(), v));
    }
    Some(out)
}

pub fn generate(inputs: &Inputs) -> Result<Vec<Generated>, String> {
    let pins: Vec<&Input> = HEADERS.iter().map(|(_, i)| i).collect();
    let mut s = banner("amd_enums", &pins);
    s.push_str("\n//! Hardware enums of the kernel's `*_enum.h` headers, one module per SoC family.\n\n");
    s.push_str("#![allow(non_upper_case_globals, non_snake_case)]\n");
    for (module, input) in HEADERS {
        let text = inputs.read(input)?;
        writeln!(s, "\n/// From `{}`.\npub mod {module} {{", input.path).unwrap();
        for e in ENUMS {
            let values = enum_values(&text, e).ok_or_else(|| format!("{}: enum {e} not found", input.path))?;
            writeln!(s, "    /// `enum {e}`\n    pub mod {e} {{").unwrap();
            for (n, v) in values {
                writeln!(s, "        pub const {n}: u32 = {v:#x};").unwrap();
            }
            s.push_str("    }\n");
        }
        s.push_str("}\n");
    }
    Ok(vec![Generated { path: "src/amd/enums.rs".into(), text: crate::abi::rustfmt(&s)? }])
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_an_enum() {
        let t = "typedef enum X {\nA = 0x00000007,\nB                = 2,\n} X;\ntypedef enum Y {\nC = 1,\n} Y;";
        assert_eq!(super::enum_values(t, "X").unwrap(), vec![("A".to_string(), 7), ("B".to_string(), 2)]);
        assert!(super::enum_values(t, "Z").is_none());
    }
}
