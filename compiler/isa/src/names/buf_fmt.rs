//! MTBUF buffer formats: gfx9's separate data and numeric formats
//! (`format:[BUF_DATA_FORMAT_.., BUF_NUM_FORMAT_..]`) and gfx11+'s unified format
//! (`format:[BUF_FMT_..]`), as llvm-mc 22 prints and accepts them.

use crate::operand::is_gfx9;
use crate::Arch;

/// gfx9 data formats, by code.
pub const DFMT: [&str; 16] = [
    "BUF_DATA_FORMAT_INVALID",
    "BUF_DATA_FORMAT_8",
    "BUF_DATA_FORMAT_16",
    "BUF_DATA_FORMAT_8_8",
    "BUF_DATA_FORMAT_32",
    "BUF_DATA_FORMAT_16_16",
    "BUF_DATA_FORMAT_10_11_11",
    "BUF_DATA_FORMAT_11_11_10",
    "BUF_DATA_FORMAT_10_10_10_2",
    "BUF_DATA_FORMAT_2_10_10_10",
    "BUF_DATA_FORMAT_8_8_8_8",
    "BUF_DATA_FORMAT_32_32",
    "BUF_DATA_FORMAT_16_16_16_16",
    "BUF_DATA_FORMAT_32_32_32",
    "BUF_DATA_FORMAT_32_32_32_32",
    "BUF_DATA_FORMAT_RESERVED_15",
];

/// gfx9 numeric formats, by code.
pub const NFMT: [&str; 8] = [
    "BUF_NUM_FORMAT_UNORM",
    "BUF_NUM_FORMAT_SNORM",
    "BUF_NUM_FORMAT_USCALED",
    "BUF_NUM_FORMAT_SSCALED",
    "BUF_NUM_FORMAT_UINT",
    "BUF_NUM_FORMAT_SINT",
    "BUF_NUM_FORMAT_RESERVED_6",
    "BUF_NUM_FORMAT_FLOAT",
];

/// The default data and numeric format (not printed): BUF_DATA_FORMAT_8, BUF_NUM_FORMAT_UNORM.
pub const DEFAULT_DFMT: u32 = 1;
pub const DEFAULT_NFMT: u32 = 0;

/// gfx11/gfx12 unified formats, by code (64..=127 have no name).
pub const UFMT: [&str; 64] = [
    "BUF_FMT_INVALID",
    "BUF_FMT_8_UNORM",
    "BUF_FMT_8_SNORM",
    "BUF_FMT_8_USCALED",
    "BUF_FMT_8_SSCALED",
    "BUF_FMT_8_UINT",
    "BUF_FMT_8_SINT",
    "BUF_FMT_16_UNORM",
    "BUF_FMT_16_SNORM",
    "BUF_FMT_16_USCALED",
    "BUF_FMT_16_SSCALED",
    "BUF_FMT_16_UINT",
    "BUF_FMT_16_SINT",
    "BUF_FMT_16_FLOAT",
    "BUF_FMT_8_8_UNORM",
    "BUF_FMT_8_8_SNORM",
    "BUF_FMT_8_8_USCALED",
    "BUF_FMT_8_8_SSCALED",
    "BUF_FMT_8_8_UINT",
    "BUF_FMT_8_8_SINT",
    "BUF_FMT_32_UINT",
    "BUF_FMT_32_SINT",
    "BUF_FMT_32_FLOAT",
    "BUF_FMT_16_16_UNORM",
    "BUF_FMT_16_16_SNORM",
    "BUF_FMT_16_16_USCALED",
    "BUF_FMT_16_16_SSCALED",
    "BUF_FMT_16_16_UINT",
    "BUF_FMT_16_16_SINT",
    "BUF_FMT_16_16_FLOAT",
    "BUF_FMT_10_11_11_FLOAT",
    "BUF_FMT_11_11_10_FLOAT",
    "BUF_FMT_10_10_10_2_UNORM",
    "BUF_FMT_10_10_10_2_SNORM",
    "BUF_FMT_10_10_10_2_UINT",
    "BUF_FMT_10_10_10_2_SINT",
    "BUF_FMT_2_10_10_10_UNORM",
    "BUF_FMT_2_10_10_10_SNORM",
    "BUF_FMT_2_10_10_10_USCALED",
    "BUF_FMT_2_10_10_10_SSCALED",
    "BUF_FMT_2_10_10_10_UINT",
    "BUF_FMT_2_10_10_10_SINT",
    "BUF_FMT_8_8_8_8_UNORM",
    "BUF_FMT_8_8_8_8_SNORM",
    "BUF_FMT_8_8_8_8_USCALED",
    "BUF_FMT_8_8_8_8_SSCALED",
    "BUF_FMT_8_8_8_8_UINT",
    "BUF_FMT_8_8_8_8_SINT",
    "BUF_FMT_32_32_UINT",
    "BUF_FMT_32_32_SINT",
    "BUF_FMT_32_32_FLOAT",
    "BUF_FMT_16_16_16_16_UNORM",
    "BUF_FMT_16_16_16_16_SNORM",
    "BUF_FMT_16_16_16_16_USCALED",
    "BUF_FMT_16_16_16_16_SSCALED",
    "BUF_FMT_16_16_16_16_UINT",
    "BUF_FMT_16_16_16_16_SINT",
    "BUF_FMT_16_16_16_16_FLOAT",
    "BUF_FMT_32_32_32_UINT",
    "BUF_FMT_32_32_32_SINT",
    "BUF_FMT_32_32_32_FLOAT",
    "BUF_FMT_32_32_32_32_UINT",
    "BUF_FMT_32_32_32_32_SINT",
    "BUF_FMT_32_32_32_32_FLOAT",
];

/// The default unified format (not printed): BUF_FMT_8_UNORM.
pub const DEFAULT_UFMT: u32 = 1;

fn position(t: &[&str], name: &str) -> Option<u32> {
    t.iter().position(|x| *x == name).map(|k| k as u32)
}

pub fn dfmt_name(v: u32) -> Option<&'static str> {
    DFMT.get(v as usize).copied()
}

pub fn dfmt(name: &str) -> Option<u32> {
    position(&DFMT, name)
}

pub fn nfmt_name(v: u32) -> Option<&'static str> {
    NFMT.get(v as usize).copied()
}

pub fn nfmt(name: &str) -> Option<u32> {
    position(&NFMT, name)
}

/// The name of a unified format (gfx11+).
pub fn ufmt_name(arch: Arch, v: u32) -> Option<&'static str> {
    if is_gfx9(arch) {
        return None;
    }
    UFMT.get(v as usize).copied()
}

/// The code of a unified format name (gfx11+).
pub fn ufmt(arch: Arch, name: &str) -> Option<u32> {
    if is_gfx9(arch) {
        return None;
    }
    position(&UFMT, name)
}

/// The unified format (gfx11+) a data and numeric format name: `BUF_FMT_<data>_<numeric>`, as
/// llvm-mc converts `[BUF_DATA_FORMAT_32, BUF_NUM_FORMAT_FLOAT]`; `None` where gfx11 has none.
fn split_to_ufmt(d: u32, n: u32) -> Option<u32> {
    if d == 0 {
        return (n == DEFAULT_NFMT).then_some(0);
    }
    let data = dfmt_name(d)?.strip_prefix("BUF_DATA_FORMAT_")?;
    let num = nfmt_name(n)?.strip_prefix("BUF_NUM_FORMAT_")?;
    position(&UFMT, &format!("BUF_FMT_{data}_{num}"))
}

/// The value of a `format:[...]` list: one unified name (gfx11+), or data and numeric format
/// names (either left out is its default). gfx9 numbers the pair dfmt | nfmt << 4 (its
/// `format:N`); gfx11+ takes it as the unified format of the same name. `None` for a list
/// llvm-mc refuses.
pub fn list_value(arch: Arch, names: &[&str]) -> Option<u32> {
    if let [u] = names {
        if let Some(v) = ufmt(arch, u) {
            return Some(v);
        }
    }
    let (mut d, mut n) = (DEFAULT_DFMT, DEFAULT_NFMT);
    for x in names {
        match (dfmt(x), nfmt(x)) {
            (Some(k), _) => d = k,
            (_, Some(k)) => n = k,
            _ => return None,
        }
    }
    if is_gfx9(arch) {
        Some(d | n << 4)
    } else {
        split_to_ufmt(d, n)
    }
}

/// gfx9's ` format:[..]` modifier text of a data and numeric format ("" for the defaults).
pub fn dfmt_nfmt_text(d: u32, n: u32) -> String {
    let mut p = Vec::new();
    if d != DEFAULT_DFMT {
        p.extend(dfmt_name(d));
    }
    if n != DEFAULT_NFMT {
        p.extend(nfmt_name(n));
    }
    if p.is_empty() {
        String::new()
    } else {
        format!(" format:[{}]", p.join(","))
    }
}

/// gfx11+'s ` format:..` modifier text of a unified format ("" for the default).
pub fn ufmt_text(arch: Arch, v: u32) -> String {
    match ufmt_name(arch, v) {
        _ if v == DEFAULT_UFMT => String::new(),
        Some(n) => format!(" format:[{n}]"),
        None => format!(" format:{v}"),
    }
}
