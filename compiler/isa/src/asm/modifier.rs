//! Trailing modifiers (`offset:16`, `glc`, `op_sel:[0,1]`, `row_shl:1`, `format:[...]`...) into
//! instruction fields.

use super::lexer::Tok;
use super::operand::parse_int;
use super::parser::{err, Ext, PErr};
use crate::inst::Instruction;
use crate::names;
use crate::offset_range::offset_range;
use crate::operand::is_gfx9;
use crate::Arch;

/// The set entries and the length of a modifier's `[0,1,...]` list.
pub(super) fn list_bits(v: &str) -> Option<(u32, usize)> {
    let inner = v.strip_prefix('[')?.strip_suffix(']')?;
    let mut bits = 0;
    let mut n = 0;
    for (k, x) in inner.split(',').enumerate() {
        match parse_int(x.trim())? {
            0 => {}
            1 => bits |= 1 << k,
            _ => return None,
        }
        n += 1;
    }
    Some((bits, n))
}

/// VOP3P: the selector bits of its sources; llvm-mc takes longer `op_sel`/`neg_lo`/`neg_hi`
/// lists (`op_sel:[1,1,1,1]` on a two-source op) and drops the rest. Other formats: all bits.
fn vop3p_mask(i: &Instruction) -> u32 {
    match super::verify::vop3p_sources(i) {
        Some(n) => (1 << n) - 1,
        None => u32::MAX,
    }
}

/// The `opsel` field bits of an `op_sel` list of `n` entries whose set entries are `b`.
pub(super) fn op_sel_field(i: &Instruction, b: u32, n: usize) -> u32 {
    let fname = i.format().name;
    let b = b & vop3p_mask(i);
    // A compare's two-entry list has no destination entry (llvm-mc prints its DPP so).
    let cmp_pair = n <= 2 && i.mnemonic().starts_with("v_cmp");
    if i.mnemonic().starts_with("v_permlane") || !crate::disasm::has_dst(i) || cmp_pair {
        b
    } else if fname.starts_with("VOP3") && !fname.starts_with("VOP3P") && fname != "WMMA" {
        // llvm-mc reads entries by position: one per source, then the destination's; entries
        // past those are ignored (`op_sel:[0,1,0,0]` on a VOP1 is `[0,1]`).
        let dst = crate::disasm::vop3_opsel_len(i) - 1;
        if crate::disasm::tied_dst_half(i) {
            // Entry 2 must repeat entry 3; where it does not, the refused bit 2 says so.
            let (e2, e3) = (b >> 2 & 1, b >> 3 & 1);
            return (b & 3) | (e2 ^ e3) << 2 | e3 << 3;
        }
        (b & ((1 << dst.min(3)) - 1)) | ((b >> dst) & 1) << 3
    } else {
        b
    }
}

pub(super) fn modifier(i: &mut Instruction, t: &Tok, ext: Ext) -> Result<(), PErr> {
    let s = t.text;
    let (name, val) = super::value::split_colon(s).unwrap_or((s, ""));
    let fname = i.format().name;
    let int = |v: &str| parse_int(v).ok_or_else(|| (t.col, format!("bad value in '{s}'")));
    let set1 = |i: &mut Instruction, f: &str, v: u32| -> Result<(), PErr> {
        if i.set_field(f, v) {
            Ok(())
        } else {
            err(t, format!("modifier '{s}' is not valid here or out of range"))
        }
    };
    // DPP16 controls: gfx90a+ 64-bit ("DP ALU") instructions take row_newbcast only.
    let set_ctrl = |i: &mut Instruction, c: u32| -> Result<(), PErr> {
        if names::dpp::dp_alu_refuses(i, c) {
            return err(t, "DP ALU dpp only supports row_newbcast");
        }
        set1(i, "dpp_ctrl", c)
    };
    // A modifier none of whose bits llvm-mc writes for the opcode: refused whatever its value
    // (`v_trunc_f32_e64 v1, v2 op_sel:[0,0,1]` on gfx9), as llvm-mc refuses it.
    if let Some(e) = crate::modifiers::name_refusal(i, name) {
        return err(t, e);
    }
    if let Some(e) = super::mem_mods::refusal(i, name) {
        return err(t, e);
    }
    match name {
        // gfx9's GWS operations are the only ones that take (and require) gds.
        "gds" if is_gfx9(i.arch) && !i.mnemonic().starts_with("ds_gws_") => {
            return err(t, "gds is not supported on this architecture")
        }
        "clamp" | "glc" | "slc" | "dlc" | "gds" | "sc0" | "sc1" | "nt" | "tfe" | "offen" | "idxen" | "lds" | "done" => {
            set1(i, name, 1)?
        }
        "row_en" => set1(i, "row", 1)?,
        // `nosc0`, `noglc`...: the cache-policy bit written as off.
        n if n.strip_prefix("no").is_some_and(|f| CPOL.contains(&f)) && val.is_empty() => set1(i, &n[2..], 0)?,
        "off" => {}
        "mul" | "div" => {
            let omod = match (name, int(val)?) {
                (_, 1) => 0,
                ("mul", 2) => 1,
                ("mul", 4) => 2,
                ("div", 2) => 3,
                _ => return err(t, format!("'{s}': the output modifier is mul:2, mul:4 or div:2")),
            };
            set1(i, "omod", omod)?
        }
        "offset" => {
            let v = if val.starts_with("swizzle(") {
                crate::names::swizzle::parse(i.arch, val)
                    .filter(|_| i.mnemonic() == "ds_swizzle_b32")
                    .ok_or_else(|| (t.col, format!("bad swizzle '{val}'")))? as i64
            } else {
                int(val)?
            };
            if fname == "DS" {
                if !(0..=0xffff).contains(&v) {
                    return err(t, format!("offset {v} out of range"));
                }
                set1(i, "offset0", v as u32 & 0xff)?;
                set1(i, "offset1", (v as u32) >> 8)?;
            } else if fname == "SMEM" {
                if is_gfx9(i.arch) {
                    if i.f("imm") == 0 && i.f("soe") == 0 {
                        let sgpr = i.f("offset");
                        set1(i, "soffset", sgpr)?;
                        set1(i, "soe", 1)?;
                    }
                    set1(i, "imm", 1)?;
                }
                if let Some(e) = super::smem_rules::offset_refusal(i, v, val) {
                    return err(t, e);
                }
                let width = super::smem_rules::offset_bits(i);
                set1(i, "offset", v as u32 & ((1u64 << width) - 1) as u32)?;
            } else {
                let width = i.field_def("offset").map_or(12, |f| u32::from(f.hi - f.lo + 1));
                let (lo, hi) = offset_range(i.arch, fname, width);
                if v < lo || v > hi {
                    let bits = (hi - lo + 1).ilog2();
                    // llvm-mc 22 keeps the low 12 bits of a buffer offset (on gfx9 the rest
                    // spills into offen/idxen): the bytes would not say this offset.
                    let mc = if fname.contains("BUF") { "; llvm-mc drops the high bits" } else { "" };
                    return err(
                        t,
                        format!("offset {v} out of range: {fname} offsets are {bits} bits ({lo}..{hi}){mc}"),
                    );
                }
                set1(i, "offset", (v as u32) & ((1u64 << width) - 1) as u32)?;
            }
        }
        "offset0" | "offset1" => set1(i, name, int(val)? as u32)?,
        "byte_sel" => {
            let m = i.mnemonic();
            let v = int(val)?;
            let bits = crate::disasm::byte_sel_opsel(m, v as u32)
                .filter(|_| (0..4).contains(&v) && !is_gfx9(i.arch))
                .ok_or_else(|| (t.col, format!("modifier '{s}' is not valid here or out of range")))?;
            set1(i, "opsel", i.f("opsel") | bits)?;
        }
        "index_key" => {
            let v = int(val)?;
            if !i.mnemonic().starts_with("v_swmmac") || !(0..4).contains(&v) {
                return err(t, format!("modifier '{s}' is not valid here or out of range"));
            }
            set1(i, "opsel", i.f("opsel") | v as u32)?;
        }
        // gfx950 scaled MFMA: the selectors of the two scale sources; the third is not encoded.
        "op_sel" | "op_sel_hi" if i.field_def("scale_opsel").is_some() => {
            let (b, n) = list_bits(val).ok_or_else(|| (t.col, format!("bad list in '{s}'")))?;
            if n != 3 || b & 4 != 0 {
                return err(t, format!("'{s}': the third selector of a scaled MFMA must be 0"));
            }
            set1(i, if name == "op_sel" { "scale_opsel" } else { "scale_opsel_hi" }, b)?;
        }
        // f64 MFMAs: the blgp bits negate the sources.
        "neg" if i.mnemonic().starts_with("v_mfma_f64") => {
            set1(i, "blgp", list_bits(val).ok_or_else(|| (t.col, format!("bad list in '{s}'")))?.0)?
        }
        "bitop3" if i.mnemonic().starts_with("v_bitop3") && is_gfx9(i.arch) => {
            let v = int(val)?;
            if !(0..=255).contains(&v) {
                return err(t, format!("bitop3 value {v} out of range"));
            }
            let v = v as u32;
            set1(i, "neg", v & 7)?;
            set1(i, "abs", v >> 3 & 7)?;
            set1(i, "omod", v >> 6)?;
        }
        // gfx950 v_permlane*_swap (VOP3): fi and bound_ctrl live in op_sel bits 0 and 1.
        "fi" | "bound_ctrl" if fname == "VOP3" && i.mnemonic().contains("_swap") => {
            // As llvm-mc reads them: fi is the value's low bit (`fi:0b1`, `fi:0x0001`); bound_ctrl
            // is 0 or 1, and either sets the bit (as gfx9 DPP's bound_ctrl:0 does).
            let v = int(val)?;
            let bit = match name {
                "fi" => (v & 1) as u32,
                _ if matches!(v, 0 | 1) => 2,
                _ => return err(t, format!("'{s}': bound_ctrl is 0 or 1")),
            };
            set1(i, "opsel", i.f("opsel") | bit)?;
        }
        "op_sel" => {
            let (b, n) = list_bits(val).ok_or_else(|| (t.col, format!("bad list in '{s}'")))?;
            if b != 0 && pk_fmac_drops_mods(i) {
                // llvm-mc 22 reads it, prints it back and writes no op_sel bits: refused rather
                // than assembled to bytes that drop it.
                return err(t, "op_sel is not encodable on gfx9 v_pk_fmac_f16_e64 (llvm-mc drops it)");
            }
            set1(i, "opsel", op_sel_field(i, b, n) | i.f("opsel"))?;
        }
        "op_sel_hi" => {
            let (b, n) = list_bits(val).ok_or_else(|| (t.col, format!("bad list in '{s}'")))?;
            set1(i, "opsel_hi", b & 3)?;
            // A list shorter than the sources leaves the third selector 0; a two-source op keeps
            // its default whatever a longer list says (llvm-mc).
            let three = i.operands().iter().any(|o| o.name == "src2");
            let two_src = super::verify::vop3p_sources(i) == Some(2);
            if (n >= 3 && !two_src || three) && i.field_def("opsel_hi2").is_some() {
                set1(i, "opsel_hi2", b >> 2 & 1)?;
            }
        }
        "neg_lo" | "neg_hi" => {
            let b = list_bits(val).ok_or_else(|| (t.col, format!("bad list in '{s}'")))?.0;
            set1(i, if name == "neg_lo" { "neg" } else { "neg_hi" }, b & vop3p_mask(i))?
        }
        "wait_exp" => set1(i, "waitexp", int(val)? as u32)?,
        "wait_vdst" | "wait_va_vdst" => set1(i, "wait_va_vdst", int(val)? as u32)?,
        "wait_vm_vsrc" => set1(i, "wait_vm_vsrc", int(val)? as u32)?,
        "cbsz" | "abid" | "blgp" => set1(i, name, int(val)? as u32)?,
        "row_mask" | "bank_mask" => set1(i, name, int(val)? as u32)?,
        // gfx9 sets the bit for `bound_ctrl:0` too (llvm-mc's historical spelling); gfx11+ writes
        // the value.
        "bound_ctrl" => {
            let v = if val.is_empty() || is_gfx9(i.arch) { 1 } else { int(val)? };
            if !(0..=1).contains(&v) {
                return err(t, format!("'{s}': the value must be 0 or 1"));
            }
            set1(i, "bound_ctrl", v as u32)?
        }
        "fi" => {
            let v = if val.is_empty() { 1 } else { int(val)? };
            if !(0..=1).contains(&v) {
                return err(t, format!("'{s}': the value must be 0 or 1"));
            }
            if ext == Ext::Dpp8 {
                // DPP8 with fetch-inactive is its own src0 code.
                set1(i, "src0", if v == 1 { 234 } else { 233 })?;
            } else {
                set1(i, "fi", v as u32)?
            }
        }
        "quad_perm" => {
            let inner = val
                .strip_prefix('[')
                .and_then(|x| x.strip_suffix(']'))
                .ok_or_else(|| (t.col, "bad quad_perm".to_string()))?;
            let mut c = 0;
            for (k, x) in inner.split(',').enumerate() {
                c |= (int(x.trim())? as u32 & 3) << (2 * k);
            }
            set_ctrl(i, c)?;
        }
        "row_shl" | "row_shr" | "row_ror" | "row_share" | "row_xmask" | "wave_shl" | "wave_rol" | "wave_shr"
        | "wave_ror" | "row_bcast" | "row_newbcast" => {
            let v = int(val)? as u32;
            let c = match name {
                "row_shl" => 0x100 + v,
                "row_shr" => 0x110 + v,
                "row_ror" => 0x120 + v,
                "row_share" | "row_newbcast" => 0x150 + v,
                "row_xmask" => 0x160 + v,
                "wave_shl" => 0x130,
                "wave_rol" => 0x134,
                "wave_shr" => 0x138,
                "wave_ror" => 0x13c,
                _ => {
                    if v == 15 {
                        0x142
                    } else {
                        0x143
                    }
                }
            };
            set_ctrl(i, c)?;
        }
        "row_mirror" => set_ctrl(i, 0x140)?,
        "row_half_mirror" => set_ctrl(i, 0x141)?,
        "dpp8" => {
            let inner = val
                .strip_prefix('[')
                .and_then(|x| x.strip_suffix(']'))
                .ok_or_else(|| (t.col, "bad dpp8".to_string()))?;
            let mut c = 0;
            for (k, x) in inner.split(',').enumerate() {
                c |= (int(x.trim())? as u32 & 7) << (3 * k);
            }
            set1(i, "lane_sel", c)?;
        }
        "dst_sel" | "src0_sel" | "src1_sel" => {
            if let Some(e) = super::sdwa_dst::refusal(i, name) {
                return err(t, e);
            }
            let k = ["BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"]
                .iter()
                .position(|x| *x == val)
                .ok_or_else(|| (t.col, format!("bad selector '{val}'")))?;
            set1(i, name, k as u32)?;
        }
        "dst_unused" => {
            if let Some(e) = super::sdwa_dst::refusal(i, name) {
                return err(t, e);
            }
            let k = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"]
                .iter()
                .position(|x| *x == val)
                .ok_or_else(|| (t.col, format!("bad dst_unused '{val}'")))?;
            set1(i, name, k as u32)?;
        }
        "th" | "scope" => {
            let st = i.f("scope_th");
            let v = if name == "scope" {
                let k = names::cpol::scope(val).ok_or_else(|| (t.col, format!("bad scope '{val}'")))?;
                (st & !3) | k
            } else {
                let a = names::cpol::Access::of(i.mnemonic());
                let k = names::cpol::th_value(a, val).ok_or_else(|| (t.col, format!("bad th '{val}'")))?;
                (st & 3) | k << 2
            };
            set1(i, "scope_th", v)?;
        }
        "format" => {
            if val == "[BUF_FMT_INVALID]" {
                set1(i, "format", 0)?;
            } else if let Some(v) = parse_int(val) {
                let v = u32::try_from(v).map_err(|_| (t.col, format!("format {v} out of range")))?;
                if i.field_def("format").is_some() {
                    set1(i, "format", v)?;
                } else {
                    // gfx9: the number is dfmt in bits 0..3 and nfmt above, as llvm-mc reads it.
                    if v > 0x7f {
                        return err(t, format!("format {v} out of range"));
                    }
                    set1(i, "dfmt", v & 0xf)?;
                    set1(i, "nfmt", v >> 4)?;
                }
            } else {
                let inner = val
                    .strip_prefix('[')
                    .and_then(|x| x.strip_suffix(']'))
                    .ok_or_else(|| (t.col, "bad format".to_string()))?;
                let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
                let v = names::buf_fmt::list_value(i.arch, &parts)
                    .ok_or_else(|| (t.col, format!("unsupported format '{val}'")))?;
                if i.field_def("format").is_some() {
                    set1(i, "format", v)?;
                } else {
                    set1(i, "dfmt", v & 0xf)?;
                    set1(i, "nfmt", v >> 4)?;
                }
            }
        }
        _ => return err(t, format!("unknown modifier '{s}'")),
    }
    Ok(())
}

const CPOL: [&str; 6] = ["glc", "slc", "dlc", "sc0", "sc1", "nt"];

/// The largest FLAT-segment offset (gfx9, gfx11): 12 bits unsigned, though the field has 13;
/// llvm-mc 22 refuses more ("expected a 12-bit unsigned offset"), so a word with the 13th bit
/// set prints as `.long` (disasm::unwritten). `None` for other formats and gfx12.
pub(crate) fn flat_segment_max(i: &Instruction) -> Option<i64> {
    (i.format().name == "FLAT" && i.arch != Arch::Gfx1201).then_some(0xfff)
}

/// gfx9 `v_pk_fmac_f16`: llvm-mc 22 reads `op_sel` (e64) and `sext` (SDWA) on it, prints them
/// back and writes no bits for them, and its disassembler ignores those bits. So the assembler
/// refuses them and the disassembler prints a word with them set as `.long` (one rule for both).
pub(crate) fn pk_fmac_drops_mods(i: &Instruction) -> bool {
    is_gfx9(i.arch) && i.mnemonic().starts_with("v_pk_fmac_f16")
}
