//! The value type llvm-mc 22 reads a VALU/SALU source as: which bit patterns it folds into an
//! inline constant (`0x3800` is 0.5 for an f16 source, a literal for an f32 one) and how a float
//! token becomes literal bits. The types are facts from llvm-mc: the generated table
//! `baregpu_autogen::isa::src_types` (generator autogen/gen/src/isa/src_types.rs) holds, per
//! architecture, mnemonic and source, what llvm-mc 22 made of `0x3800`, `0x3f00`, `0x38003800`,
//! `0x3f000000`, `0x3fe00000` and `1.5` written in that source of a golden line.

use crate::fnv::FnvBuild;
use crate::operand::ValType;
use crate::Arch;
use baregpu_autogen::isa::{src_types, SrcType};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Per mnemonic (without its encoding suffix, sorted), the types of src0..src2.
type Table = &'static [(&'static str, [Option<SrcType>; 3])];

fn table(arch: Arch) -> Table {
    match arch {
        Arch::Gfx1100 => src_types::GFX1100,
        Arch::Gfx1201 => src_types::GFX1201,
        Arch::Gfx942 => src_types::GFX942,
        Arch::Gfx950 => src_types::GFX950,
    }
}

type Index = HashMap<&'static str, [Option<SrcType>; 3], FnvBuild>;

/// The table of an architecture as a hash map, built on first use.
fn index(arch: Arch) -> &'static Index {
    static INDEX: [OnceLock<Index>; 4] = [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let k = Arch::ALL.iter().position(|&a| a == arch).unwrap_or(0);
    INDEX[k].get_or_init(|| table(arch).iter().copied().collect())
}

/// The value type of source `src` (0 = src0) of `mnemonic` (with or without its encoding
/// suffix), `dwords` wide, as llvm-mc 22 reads it (generated table `src_types`). A source the
/// table does not hold (a VGPR-only one, an unknown mnemonic) is read as a 32- or 64-bit one.
pub fn src_val_type(arch: Arch, mnemonic: &str, src: usize, dwords: u32) -> ValType {
    let found = index(arch).get(base_name(mnemonic)).and_then(|t| t.get(src).copied().flatten());
    match found {
        Some(ty) => val_type(ty),
        None if dwords >= 2 => ValType::B64,
        None => ValType::F32,
    }
}

/// Whether source `src` of `mnemonic` is an f16 or bf16 one that reads a 32-bit literal (packed
/// halves, [`SrcType::F16Lit32`], [`SrcType::Bf16Lit32`]), where [`src_val_type`] says only
/// f16 or bf16.
pub(crate) fn halves_read_32bit(arch: Arch, mnemonic: &str, src: usize) -> bool {
    let t = index(arch).get(base_name(mnemonic)).and_then(|t| t.get(src).copied().flatten());
    matches!(t, Some(SrcType::F16Lit32 | SrcType::Bf16Lit32))
}

fn val_type(t: SrcType) -> ValType {
    match t {
        SrcType::B16 => ValType::B16,
        SrcType::F16 | SrcType::F16Lit32 => ValType::F16,
        SrcType::Bf16 | SrcType::Bf16Lit32 => ValType::Bf16,
        SrcType::PkF16 => ValType::PkF16,
        SrcType::F32 => ValType::F32,
        SrcType::B64 => ValType::B64,
        SrcType::F64 => ValType::F64,
    }
}

/// The mnemonic without its encoding suffix.
fn base_name(m: &str) -> &str {
    ["_e64_dpp", "_e32", "_e64", "_dpp", "_sdwa"].iter().find_map(|s| m.strip_suffix(s)).unwrap_or(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use baregpu_autogen::isa::sources::source_index;

    /// Facts of llvm-mc 22 (checked by hand with llvm-mc-22 as well as by the generator).
    #[test]
    fn probed_types() {
        let (g11, g12, g942, g950) = (Arch::Gfx1100, Arch::Gfx1201, Arch::Gfx942, Arch::Gfx950);
        assert_eq!(src_val_type(g12, "v_cvt_f16_f32_e32", 0, 1), ValType::F32);
        assert_eq!(src_val_type(g12, "v_cvt_f32_f16_e64", 0, 1), ValType::F16);
        assert_eq!(src_val_type(g12, "v_cvt_f16_u16_e32", 0, 1), ValType::B16);
        assert_eq!(src_val_type(g12, "v_cvt_pk_f32_fp8_e32", 0, 1), ValType::F16);
        assert_eq!(src_val_type(g942, "v_cvt_pk_f32_fp8", 0, 1), ValType::F32);
        assert_eq!(src_val_type(g12, "v_cvt_pk_rtz_f16_f32_e64", 1, 1), ValType::F32);
        assert_eq!(src_val_type(g12, "v_dot2_f32_f16", 2, 1), ValType::F32);
        assert_eq!(src_val_type(g12, "v_dot2_f32_bf16", 0, 1), ValType::Bf16);
        assert_eq!(src_val_type(g12, "v_pk_fmac_f16", 0, 1), ValType::PkF16);
        assert_eq!(src_val_type(g942, "v_pk_fmac_f16_e32", 0, 1), ValType::F16);
        assert_eq!(src_val_type(g950, "v_cvt_scalef32_pk_fp8_f16", 0, 1), ValType::F16);
        assert_eq!(src_val_type(g950, "v_cvt_scalef32_pk_fp8_f16", 1, 1), ValType::F32);
        assert_eq!(src_val_type(g950, "v_cvt_sr_f16_f32", 1, 1), ValType::F32);
        assert_eq!(src_val_type(g950, "v_cmp_class_f16_e64", 1, 1), ValType::F32);
        assert_eq!(src_val_type(g950, "v_add_f16_e64", 1, 1), ValType::F16);
        assert_eq!(src_val_type(g12, "v_add_f64_e64", 0, 2), ValType::F64);
        // gfx12 SALU f16 arithmetic folds `0x3800`; its compares reject `0x3f000000` (16-bit
        // sources) and keep `0x3800` a literal.
        assert_eq!(src_val_type(g12, "s_add_f16", 1, 1), ValType::F16);
        assert_eq!(src_val_type(g12, "s_cmp_lt_f16", 0, 1), ValType::B16);
        // 16-bit integer sources fold no float pattern (`v_add_nc_u16 v0, 0x3f000000, v1` is
        // rejected); neither do gfx11+ true16 `v_alignbit_b32`'s shift nor `v_mad_u32_u16`.
        assert_eq!(src_val_type(g11, "v_add_nc_u16_e64_dpp", 0, 1), ValType::B16);
        assert_eq!(src_val_type(g12, "v_alignbit_b32", 2, 1), ValType::B16);
        assert_eq!(src_val_type(g942, "v_mad_u32_u16", 0, 1), ValType::B16);
        // Packed f32 and MFMA/WMMA f32 accumulators fold `0x3f000000` into 0.5 although they are
        // wider than a dword; the f64 MFMA accumulator folds nothing (`0x3fe00000` is rejected).
        assert_eq!(src_val_type(g942, "v_pk_add_f32", 0, 2), ValType::F32);
        assert_eq!(src_val_type(g950, "v_mfma_f32_16x16x32_f16", 2, 4), ValType::F32);
        assert_eq!(src_val_type(g12, "v_wmma_f16_16x16x16_f16", 2, 4), ValType::F16);
        assert_eq!(src_val_type(g942, "v_mfma_f64_4x4x4_4b_f64", 2, 2), ValType::B64);
        assert_eq!(src_val_type(g942, "v_lshlrev_b64", 1, 2), ValType::B64);
        // Sources the tables split in two (line_operands.rs): gfx12 v_s_* scalar sources.
        assert_eq!(src_val_type(g12, "v_s_exp_f16", 0, 1), ValType::F16);
        assert_eq!(src_val_type(g12, "v_s_rsq_f32", 0, 1), ValType::F32);
        // SDWA and DPP spellings read the table of their instruction.
        assert_eq!(src_val_type(g942, "v_add_f16_sdwa", 0, 1), ValType::F16);
        assert_eq!(src_val_type(g12, "v_add_f16_dpp", 1, 1), ValType::F16);
        // Outside the table: by width.
        assert_eq!(src_val_type(g12, "v_no_such_op", 0, 1), ValType::F32);
        assert_eq!(src_val_type(g12, "v_no_such_op", 0, 2), ValType::B64);
    }

    /// The operand texts of one instruction (without the modifiers after the last operand).
    fn operand_texts(part: &str) -> Vec<&str> {
        let rest = part.split_once(' ').map_or("", |r| r.1);
        let mut out = Vec::new();
        let (mut depth, mut start) = (0i32, 0usize);
        for (i, c) in rest.char_indices() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(rest[start..i].trim());
                    start = i + 1;
                }
                _ => {}
            }
        }
        out.push(rest[start..].split_whitespace().next().unwrap_or(""));
        out
    }

    /// Each architecture's table is sorted (it is binary searched) and types every source that
    /// holds a constant in a golden line.
    #[test]
    fn table_covers_golden_sources() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa/golden");
        for arch in Arch::ALL {
            let t = table(arch);
            assert!(t.windows(2).all(|w| w[0].0 < w[1].0), "{} table not sorted", arch.name());
            let tab = baregpu_autogen::isa::ARCHS.iter().find(|a| a.name == arch.name()).unwrap();
            let text = std::fs::read_to_string(root.join(format!("{}.txt", arch.name()))).unwrap();
            let mut missing = Vec::new();
            let mut checked = 0;
            for line in text.lines().filter(|l| !l.starts_with('#')) {
                for part in line.split(" ; [").next().unwrap_or("").split(" :: ") {
                    let m = part.split_whitespace().next().unwrap_or("");
                    let texts = operand_texts(part);
                    for op in tab.opcodes.iter().filter(|o| o.mnemonic == m && o.operands.len() == texts.len()) {
                        for (o, text) in op.operands.iter().zip(&texts) {
                            let text = text.trim_start_matches(['-', '|']);
                            if !text.starts_with(|c: char| c.is_ascii_digit()) && !text.starts_with("lit(") {
                                continue;
                            }
                            let Some(src) = source_index(o.name).filter(|&k| k < 3) else { continue };
                            checked += 1;
                            let base = base_name(m);
                            let hit = t.binary_search_by(|(x, _)| (*x).cmp(base)).ok().and_then(|i| t[i].1[src]);
                            if hit.is_none() && !missing.contains(&(base, src)) {
                                missing.push((base, src));
                            }
                        }
                    }
                }
            }
            assert!(missing.is_empty(), "{}: sources without a type: {missing:?}", arch.name());
            assert!(checked > 100, "{}: only {checked} constant sources in the golden vectors", arch.name());
        }
    }
}
