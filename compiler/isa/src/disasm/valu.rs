//! Vector ALU formats: VOP1, VOP2, VOPC, VOP3, VOP3SD, VOP3P, WMMA, MFMA, VINTERP, VOPD, with their
//! DPP16, DPP8 and SDWA forms.

use baregpu_autogen::isa::OperandKind;

use super::src_text;
use crate::inst::Instruction;
use crate::operand::{is_gfx9, reg_range, src_index, sreg_text, ValType};
use crate::tables::{takes_mods, FLAG_LIT16};

/// How a VALU instruction's dwords are read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shape {
    /// VOP1/VOP2/VOPC 32-bit encoding.
    E32,
    Vop3,
    Vop3p,
    Interp,
    Mfma,
    Vopd,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ext {
    None,
    Dpp16,
    Dpp8,
    Sdwa,
}

pub fn shape(i: &Instruction) -> (Shape, Ext) {
    // Looked up per format (this is asked several times for every VALU line read or printed).
    i.tables().shapes[i.fmt as usize]
}

/// [`shape`] of the instructions of format `f` (`Tables::shapes` holds it per format).
pub fn format_shape(f: &baregpu_autogen::isa::Format) -> (Shape, Ext) {
    let enc = f.parent.unwrap_or(f.name);
    let ext = if f.name.ends_with("_DPP16") {
        Ext::Dpp16
    } else if f.name.ends_with("_DPP8") {
        Ext::Dpp8
    } else if f.name.ends_with("_SDWA") {
        Ext::Sdwa
    } else {
        Ext::None
    };
    let s = match (f.name, enc) {
        ("MFMA", _) | ("VOP3PX2", _) => Shape::Mfma,
        ("WMMA", _) | (_, "VOP3P") => Shape::Vop3p,
        (_, "VOP3") | ("VOP3SD", _) | (_, "VOP3SD") => Shape::Vop3,
        (_, "VINTERP") => Shape::Interp,
        (_, "VOPD") | ("VOPD_Y", _) => Shape::Vopd,
        _ => Shape::E32,
    };
    (s, ext)
}

pub fn mnemonic(i: &Instruction, s: Shape, ext: Ext) -> String {
    let m = i.mnemonic();
    let g9 = is_gfx9(i.arch);
    match ext {
        // A VOP3 form of a name the 32-bit encoding also has (`v_nop`): llvm-mc prints it
        // unsuffixed, which reads back as the 32-bit form; the suffix keeps it lossless.
        Ext::None if s == Shape::Vop3 && !m.ends_with("_e64") && has_e32_form(i) => format!("{m}_e64"),
        Ext::None => m.to_string(),
        Ext::Sdwa => format!("{}_sdwa", m.trim_end_matches("_e32")),
        Ext::Dpp16 | Ext::Dpp8 => {
            // VOP3P DPP (v_fma_mix*, v_dot2*) prints as llvm-mc does: `_e64_dpp`.
            if matches!(s, Shape::Vop3 | Shape::Vop3p) {
                if m.ends_with("_e64") {
                    format!("{m}_dpp")
                } else {
                    format!("{m}_e64_dpp")
                }
            } else if !g9 && i.format().name.starts_with("VOPC") {
                m.trim_end_matches("_e32").to_string()
            } else {
                format!("{}_dpp", m.trim_end_matches("_e32"))
            }
        }
    }
}

/// Whether the instruction's mnemonic also names an opcode of a 32-bit VALU encoding.
fn has_e32_form(i: &Instruction) -> bool {
    let t = crate::tables::Tables::get(i.arch);
    t.by_mnemonic
        .get(i.mnemonic())
        .is_some_and(|ops| ops.iter().any(|&op| matches!(t.op(op).format, "VOP1" | "VOP2" | "VOPC")))
}

fn val_type(i: &Instruction, m: &str, idx: Option<usize>, dwords: u32) -> ValType {
    crate::operand::src_val_type(i.arch, m, idx.unwrap_or(0), dwords)
}

pub fn text(i: &Instruction) -> String {
    let (s, ext) = shape(i);
    if s == Shape::Vopd {
        return vopd(i);
    }
    let op = i.opcode();
    let m = op.mnemonic;
    let g9 = is_gfx9(i.arch);
    let t16 = i.tables().t16[i.op as usize] | fake16_halves(i, s);
    let lane = if g9 { 2 } else { 1 };
    let is_cmp = m.starts_with("v_cmp");
    let mix = m.contains("_mix");
    let opsel = i.f("opsel");
    let mut ops = Vec::new();
    let nsrc = i.operands().iter().filter(|o| matches!(o.name, "src0" | "src1" | "src2" | "vsrc1")).count();
    for (k, o) in i.operands().iter().enumerate() {
        let d = o.dwords.max(1) as u32;
        let is16 = t16 >> k & 1 != 0;
        let idx = src_index(o.name);
        let txt = match o.kind {
            // gfx9 VOPC SDWA: `sd` sends the result to an SGPR pair instead of VCC.
            OperandKind::Special if ext == Ext::Sdwa && o.name == "vcc" && i.f("sd") != 0 => {
                sreg_text(i.arch, i.f("sdst") as u16, 2).unwrap_or_default()
            }
            OperandKind::Special => o.name.to_string(),
            OperandKind::Sgpr => sreg_text(i.arch, i.f(o.name) as u16, d).unwrap_or_default(),
            OperandKind::Vgpr | OperandKind::Agpr | OperandKind::Vsrc => {
                let mut v = i.f(o.name);
                let nine_bit = i.field_def(o.name).map(|f| f.hi - f.lo == 8).unwrap_or(false);
                let mut is_vgpr_field = !nine_bit;
                if o.name == "vdst"
                    && (is_cmp && s == Shape::Vop3 || m.starts_with("v_readlane") || m.starts_with("v_readfirstlane"))
                {
                    ops.push(sreg_text(i.arch, v as u16, if is_cmp { lane } else { d }).unwrap_or_default());
                    continue;
                }
                // DPP / SDWA: src0 lives in the extra dword.
                if o.name == "src0" && matches!(ext, Ext::Dpp16 | Ext::Dpp8) {
                    v = i.f("dpp_src0");
                    is_vgpr_field = true;
                }
                if ext == Ext::Sdwa && o.name == "src0" {
                    v = i.f("sdwa_src0");
                    is_vgpr_field = i.f("s0") == 0;
                    if !is_vgpr_field {
                        // An SGPR or an inline constant.
                        ops.push(sdwa_mods(i, 0, src_text(i.arch, v, d, val_type(i, m, idx, d), None)));
                        continue;
                    }
                }
                if ext == Ext::Sdwa && o.name == "vsrc1" && i.f("s1") != 0 {
                    ops.push(sdwa_mods(i, 1, src_text(i.arch, v, d, val_type(i, m, idx, d), None)));
                    continue;
                }
                let acc = s == Shape::Mfma && mfma_acc(i, o.name)
                    || o.kind == OperandKind::Agpr && !is_vgpr_field && v >= 256;
                let d = if s == Shape::Mfma { mfma_regs(i, o.name, d) } else { d };
                let mut t = if is_vgpr_field {
                    let prefix = if acc || o.kind == OperandKind::Agpr { "a" } else { "v" };
                    if is16 && s == Shape::E32 {
                        format!("v{}.{}", v & 0x7f, if v & 0x80 != 0 { "h" } else { "l" })
                    } else {
                        reg_range(prefix, v, d)
                    }
                } else if acc && v >= 256 {
                    reg_range("a", v - 256, d)
                } else {
                    let lit = if op.flags & FLAG_LIT16 != 0 { i.literal.map(|l| l & 0xffff) } else { i.literal };
                    let neg16 = if v == 255 { crate::asm::neg16::signed_literal(i) } else { None };
                    let t = match neg16 {
                        Some(n) => crate::asm::neg16::text(n),
                        None => src_text(i.arch, v, d, val_type(i, m, idx, d), lit),
                    };
                    if is16 && v >= 256 && s == Shape::E32 {
                        format!("v{}.{}", (v - 256) & 0x7f, if v & 0x80 != 0 { "h" } else { "l" })
                    } else {
                        t
                    }
                };
                let is_v = is_vgpr_field || v >= 256;
                if is16 && s != Shape::E32 && is_v && !t.contains('[') {
                    let bit = idx.unwrap_or(0);
                    t = format!("{t}.{}", if opsel >> bit & 1 != 0 { "h" } else { "l" });
                }
                if let Some(si) = idx.filter(|&x| x < 3) {
                    t = apply_mods(i, s, ext, si, t, mix);
                }
                t
            }
            OperandKind::Ssrc => {
                // A scalar-only source in a 9-bit field (v_s_*): llvm-mc prints a VGPR there with
                // a comment naming the register class it wanted.
                let v = i.f(o.name);
                let mut t = src_text(i.arch, v, d, val_type(i, m, idx, d), i.literal);
                if v >= 256 {
                    t.push_str(&format!("/*Invalid register, operand has 'SReg_{}' register class*/", 32 * d));
                }
                match idx.filter(|&x| x < 3) {
                    Some(si) => apply_mods(i, s, ext, si, t, mix),
                    None => t,
                }
            }
            OperandKind::Imm => format!("0x{:x}", i.literal.unwrap_or(0)),
            _ => i.f(o.name).to_string(),
        };
        ops.push(txt);
    }
    let mut out = mnemonic(i, s, ext);
    if !ops.is_empty() {
        out.push(' ');
        out.push_str(&ops.join(", "));
    }
    // Trailing modifiers.
    match s {
        Shape::Vop3 if g9 && vop3_special(i, &mut out) => {}
        Shape::Vop3 => {
            if let Some(b) = byte_sel(m, opsel).filter(|_| !g9) {
                if b != 0 {
                    out.push_str(&format!(" byte_sel:{b}"));
                }
            } else if (m.starts_with("v_permlane") || !has_dst(i)) && opsel != 0 {
                // The permlane op_sel bits are fi and bound_ctrl: two entries, no destination bit.
                let n = if has_dst(i) { 2 } else { nsrc };
                out.push_str(&format!(" op_sel:{}", list(opsel, n)));
            } else if opsel != 0 {
                let tied = m.starts_with("v_fmac") || m.starts_with("v_mac") || g9 && TIED_VDST_IN.contains(&m);
                // llvm-mc prints a compare's DPP op_sel without the destination entry (where
                // that bit is clear, else the list would lose it).
                let cmp_dpp = m.starts_with("v_cmp") && !matches!(ext, Ext::None) && opsel & 8 == 0;
                if cmp_dpp {
                    out.push_str(&format!(" op_sel:{}", list(opsel, nsrc)));
                } else {
                    let n = if tied { 4 } else { nsrc + 1 };
                    // The tied src2's entry is the destination's half (tied_dst_half).
                    let from = |b: usize| if b == n - 1 || b == 2 && tied_dst_half(i) { 3 } else { b };
                    let bits: Vec<String> = (0..n).map(|b| (opsel >> from(b) & 1).to_string()).collect();
                    out.push_str(&format!(" op_sel:[{}]", bits.join(",")));
                }
            }
            if i.f("clamp") != 0 {
                out.push_str(" clamp");
            }
            omod(&mut out, i.f("omod"));
        }
        Shape::Interp => {
            // llvm-mc prints (and reads) clamp before op_sel here.
            if i.f("clamp") != 0 {
                out.push_str(" clamp");
            }
            if opsel != 0 {
                let bits: Vec<String> = (0..4).map(|b| (opsel >> b & 1).to_string()).collect();
                out.push_str(&format!(" op_sel:[{}]", bits.join(",")));
            }
            out.push_str(&format!(" wait_exp:{}", i.f("waitexp")));
        }
        Shape::Vop3p => vop3p_mods(i, &mut out, nsrc, mix),
        Shape::Mfma => mfma_mods(i, &mut out),
        _ => {}
    }
    match ext {
        Ext::Dpp16 => dpp16(i, &mut out),
        Ext::Dpp8 => {
            let l = i.f("lane_sel");
            let sel: Vec<String> = (0..8).map(|k| (l >> (3 * k) & 7).to_string()).collect();
            out.push_str(&format!(" dpp8:[{}]", sel.join(",")));
            let src0 = i.f("src0");
            if src0 == 234 {
                out.push_str(" fi:1");
            }
        }
        Ext::Sdwa => sdwa(i, &mut out),
        Ext::None => {}
    }
    out
}

/// Whether a VOP3 op_sel list ends with a destination entry (op_sel[3]): not for v_cmpx_*_e64,
/// which write EXEC only, nor for v_permlane*, whose two op_sel bits are fi and bound_ctrl.
/// Whether an SDWA instruction has dst_sel/dst_unused: the fp8/bf8 -> f32 conversions pick their
/// source bytes with src0_sel and have none.
/// gfx1201 (fake16 in llvm-mc 22) VOPC: a 16-bit VGPR source at v128 or above is `vN.h` to llvm-mc's
/// assembler, which takes it when every VGPR source is written as a half; its disassembler prints
/// an invalid register there. The 16-bit sources printed as halves then re-assemble to the same
/// word (with llvm-mc and with ours); the mask of those sources, else 0.
fn fake16_halves(i: &Instruction, s: Shape) -> u8 {
    let mask = crate::t16::lo128_mask(i.arch, i.opcode());
    if mask == 0 || s != Shape::E32 || i.format().name != "VOPC" {
        return 0;
    }
    let high = i.operands().iter().enumerate().any(|(k, o)| {
        let v = i.f(o.name);
        mask >> k & 1 != 0 && (o.name == "src0" && v >= 384 || o.name == "vsrc1" && v >= 128)
    });
    if high {
        mask
    } else {
        0
    }
}

/// Whether the SDWA form of mnemonic `m` (with or without `_sdwa` or `_e32`) takes `dst_sel` and
/// `dst_unused`: all but the generated list (llvm-mc 22 refuses them on the fp8/bf8 conversions).
pub fn sdwa_has_dst_sel(m: &str) -> bool {
    let m = m.strip_suffix("_sdwa").unwrap_or(m);
    let m = m.strip_suffix("_e32").unwrap_or(m);
    !baregpu_autogen::isa::sdwa_dst::NO_DST_SEL.contains(&m)
}

pub fn has_dst(i: &Instruction) -> bool {
    i.operands().iter().any(|o| o.name == "vdst" || o.name == "sdst")
}

/// The length of a VOP3 (not VOP3P) `op_sel` list with a destination entry, which is its last:
/// one entry per source, plus one for the destination; four where the destination is also read
/// (v_fmac/v_mac, gfx9's tied `vdst_in`), as llvm-mc counts them.
pub fn vop3_opsel_len(i: &Instruction) -> usize {
    let m = i.mnemonic();
    let tied = m.starts_with("v_fmac") || m.starts_with("v_mac") || is_gfx9(i.arch) && TIED_VDST_IN.contains(&m);
    let nsrc = i.operands().iter().filter(|o| matches!(o.name, "src0" | "src1" | "src2" | "vsrc1")).count();
    if tied {
        4
    } else {
        nsrc + 1
    }
}

/// gfx11 `v_fmac_f16_e64`: its src2 is the destination, so llvm-mc 22 writes and reads op_sel
/// entry 2 as the destination's entry 3 (`v12.h, v24.l, v40.l op_sel:[0,0,1,1]` writes op_sel
/// bit 3 only; `op_sel:[0,0,0,1]` it refuses, though its disassembler prints it).
pub(crate) fn tied_dst_half(i: &Instruction) -> bool {
    i.arch == crate::Arch::Gfx1100 && i.mnemonic().starts_with("v_fmac_f16")
}

/// The gfx12 fp8/bf8 conversions select a byte with op_sel bits that llvm-mc prints as
/// `byte_sel:N`: the source byte of v_cvt_f32_{fp8,bf8} (op_sel[0] is its high bit, op_sel[1]
/// its low bit) and the destination byte of v_cvt_sr_{fp8,bf8}_f32 (op_sel[2..3]).
pub fn byte_sel(m: &str, opsel: u32) -> Option<u32> {
    let b = super::super::t16::base(m);
    match b {
        "v_cvt_f32_fp8" | "v_cvt_f32_bf8" => Some((opsel & 1) << 1 | (opsel >> 1) & 1),
        "v_cvt_sr_fp8_f32" | "v_cvt_sr_bf8_f32" => Some(opsel >> 2 & 3),
        _ => None,
    }
}

/// The op_sel value of a `byte_sel:N` (inverse of [`byte_sel`]).
pub fn byte_sel_opsel(m: &str, b: u32) -> Option<u32> {
    match super::super::t16::base(m) {
        "v_cvt_f32_fp8" | "v_cvt_f32_bf8" => Some((b & 1) << 1 | (b >> 1) & 1),
        "v_cvt_sr_fp8_f32" | "v_cvt_sr_bf8_f32" => Some((b & 3) << 2),
        _ => None,
    }
}

/// VOPD (gfx11+ dual issue): `X-op operands :: Y-op operands`. Both halves read the one VOPD
/// dword pair; vdsty holds the Y destination without its low bit, which is the opposite of
/// vdstx's; a literal (fmaak/fmamk, or a literal source) is shared.
fn vopd(i: &Instruction) -> String {
    let half = |op: u32| -> String {
        let t = i.tables();
        let mut out = t.op(op).mnemonic.to_string();
        for (k, o) in t.operands[op as usize].iter().enumerate() {
            let v = i.f(o.name);
            let txt = match (o.kind, o.name) {
                (_, "vdsty") => format!("v{}", v << 1 | (i.f("vdstx") & 1 ^ 1)),
                (OperandKind::Vsrc, _) => src_text(i.arch, v, 1, ValType::F32, i.literal),
                (OperandKind::Imm, _) => format!("0x{:x}", i.literal.unwrap_or(0)),
                _ => reg_range("v", v, 1),
            };
            out.push_str(if k == 0 { " " } else { ", " });
            out.push_str(&txt);
        }
        out
    };
    match i.op_y {
        Some(y) => format!("{} :: {}", half(i.op), half(y)),
        None => half(i.op),
    }
}

fn omod(out: &mut String, v: u32) {
    match v {
        1 => out.push_str(" mul:2"),
        2 => out.push_str(" mul:4"),
        3 => out.push_str(" div:2"),
        _ => {}
    }
}

/// gfx9 VOP3 opcodes with two sources whose destination is also read (the tied `vdst_in` that
/// keeps the bytes they do not write): llvm-mc counts it as a third source in `op_sel`.
const TIED_VDST_IN: [&str; 4] =
    ["v_cvt_sr_fp8_f32", "v_cvt_sr_bf8_f32", "v_cvt_scalef32_pk_fp4_f16", "v_cvt_scalef32_pk_fp4_bf16"];

/// gfx950 VOP3 opcodes that reuse modifier bits for something else; true when handled.
/// - `v_bitop3_*`: the 8-bit truth table is spread over neg (bits 0-2), abs (3-5), omod (6-7);
/// - `v_permlane*_swap`: op_sel bits 0 and 1 are `fi` and `bound_ctrl`.
fn vop3_special(i: &Instruction, out: &mut String) -> bool {
    let m = i.mnemonic();
    if m.starts_with("v_bitop3") {
        let v = bitop3(i);
        if v > 10 {
            out.push_str(&format!(" bitop3:0x{v:x}"));
        } else if v != 0 {
            out.push_str(&format!(" bitop3:{v}"));
        }
        let opsel = i.f("opsel");
        if opsel != 0 {
            let bits: Vec<String> =
                (0..4).map(|b| if b == 3 { opsel >> 3 & 1 } else { opsel >> b & 1 }.to_string()).collect();
            out.push_str(&format!(" op_sel:[{}]", bits.join(",")));
        }
        if i.f("clamp") != 0 {
            out.push_str(" clamp");
        }
        return true;
    }
    if m.starts_with("v_permlane16_swap") || m.starts_with("v_permlane32_swap") {
        let opsel = i.f("opsel");
        if opsel & 2 != 0 {
            out.push_str(" bound_ctrl:1");
        }
        if opsel & 1 != 0 {
            out.push_str(" fi:1");
        }
        return true;
    }
    false
}

/// The `v_bitop3_*` truth table from its neg, abs and omod bits.
pub fn bitop3(i: &Instruction) -> u32 {
    i.f("neg") | i.f("abs") << 3 | i.f("omod") << 6
}

fn apply_mods(i: &Instruction, s: Shape, ext: Ext, si: usize, t: String, mix: bool) -> String {
    if (s, ext) == (Shape::E32, Ext::Sdwa) && si < 2 {
        // sext stands where neg/abs do not (v_ldexp_f16's integer exponent): sdwa_mods checks.
        return sdwa_mods(i, si, t);
    }
    if s == Shape::Vop3 && is_gfx9(i.arch) && i.mnemonic().starts_with("v_bitop3") || !takes_mods(i.opcode(), si) {
        return t;
    }
    let (neg, abs) = match (s, ext) {
        (Shape::Vop3 | Shape::Interp, _) => (i.f("neg") >> si & 1 != 0, i.f("abs") >> si & 1 != 0),
        (Shape::E32, Ext::Dpp16) if si < 2 => (i.f(&format!("src{si}_neg")) != 0, i.f(&format!("src{si}_abs")) != 0),
        (Shape::E32, Ext::Sdwa) if si < 2 => return sdwa_mods(i, si, t),
        (Shape::Vop3p, _) if mix => (i.f("neg") >> si & 1 != 0, i.f("neg_hi") >> si & 1 != 0),
        _ => (false, false),
    };
    // llvm-mc writes a negated constant without abs as neg(...): `-1.0` is another constant.
    let imm = t.starts_with(|c: char| c.is_ascii_digit() || c == '-');
    let t = if abs { format!("|{t}|") } else { t };
    if neg && imm && !abs {
        format!("neg({t})")
    } else if neg {
        format!("-{t}")
    } else {
        t
    }
}

fn sdwa_mods(i: &Instruction, si: usize, t: String) -> String {
    let mods = takes_mods(i.opcode(), si);
    let neg = mods && i.f(&format!("src{si}_neg")) != 0;
    let abs = mods && i.f(&format!("src{si}_abs")) != 0;
    let sext = i.f(&format!("src{si}_sext")) != 0;
    let imm = t.starts_with(|c: char| c.is_ascii_digit() || c == '-');
    let t = if abs { format!("|{t}|") } else { t };
    let t = if neg && imm && !abs {
        format!("neg({t})")
    } else if neg {
        format!("-{t}")
    } else {
        t
    };
    if sext {
        format!("sext({t})")
    } else {
        t
    }
}

fn list(v: u32, n: usize) -> String {
    let b: Vec<String> = (0..n).map(|k| (v >> k & 1).to_string()).collect();
    format!("[{}]", b.join(","))
}

fn vop3p_mods(i: &Instruction, out: &mut String, nsrc: usize, mix: bool) {
    let opsel = i.f("opsel");
    let hi = i.f("opsel_hi") | i.f("opsel_hi2") << 2;
    let full = (1u32 << nsrc) - 1;
    if i.mnemonic().starts_with("v_swmmac") {
        // Sparse WMMA: op_sel[1:0] is the index key (which part of the sparsity index to use).
        if opsel & 3 != 0 {
            out.push_str(&format!(" index_key:{}", opsel & 3));
        }
    } else if opsel & full != 0 {
        out.push_str(&format!(" op_sel:{}", list(opsel, nsrc)));
    }
    let hi_default = if mix { 0 } else { full };
    if hi & full != hi_default {
        out.push_str(&format!(" op_sel_hi:{}", list(hi, nsrc)));
    }
    if !mix {
        let nl = i.f("neg");
        let nh = i.f("neg_hi");
        if nl & full != 0 {
            out.push_str(&format!(" neg_lo:{}", list(nl, nsrc)));
        }
        if nh & full != 0 {
            out.push_str(&format!(" neg_hi:{}", list(nh, nsrc)));
        }
    }
    if i.f("clamp") != 0 {
        out.push_str(" clamp");
    }
}

fn dpp16(i: &Instruction, out: &mut String) {
    let c = i.f("dpp_ctrl");
    let t = crate::names::dpp::ctrl_text(i.arch, c).unwrap_or_else(|| format!("dpp_ctrl:0x{c:x}"));
    out.push(' ');
    out.push_str(&t);
    out.push_str(&format!(" row_mask:0x{:x} bank_mask:0x{:x}", i.f("row_mask"), i.f("bank_mask")));
    if i.f("bound_ctrl") != 0 {
        out.push_str(" bound_ctrl:1");
    }
    if i.f("fi") != 0 {
        out.push_str(" fi:1");
    }
}

use crate::names::dpp::{sdwa_dst_unused_name, sdwa_sel_name as sel};

fn sdwa(i: &Instruction, out: &mut String) {
    // `v_nop_sdwa` as llvm-mc writes it (every selector 0): nothing to print, and the bare
    // mnemonic assembles back to this word.
    if i.operands().is_empty() && i.words[1] == 0 {
        return;
    }
    let f = i.format();
    let vopc = f.name.starts_with("VOPC");
    if i.f("clamp") != 0 {
        out.push_str(" clamp");
    }
    omod(out, i.f("omod"));
    let dst_sel = sdwa_has_dst_sel(i.mnemonic());
    if !vopc && dst_sel {
        out.push_str(&format!(
            " dst_sel:{} dst_unused:{}",
            sel(i.f("dst_sel")),
            sdwa_dst_unused_name(i.f("dst_unused"))
        ));
    }
    out.push_str(&format!(" src0_sel:{}", sel(i.f("src0_sel"))));
    if !f.name.starts_with("VOP1") {
        out.push_str(&format!(" src1_sel:{}", sel(i.f("src1_sel"))));
    }
}

/// Whether an MFMA operand is in the AGPR file: `acc_cd` moves the destination and the
/// accumulator (not SMFMAC's sparsity index, which is always a VGPR), `acc` the A and B sources.
pub(crate) fn mfma_acc(i: &Instruction, name: &str) -> bool {
    match name {
        "vdst" => i.f("acc_cd") != 0,
        "src2" => i.f("acc_cd") != 0 && !i.mnemonic().starts_with("v_smfmac"),
        "src0" => i.f("acc") & 1 != 0,
        "src1" => i.f("acc") & 2 != 0,
        _ => false,
    }
}

/// Registers of an MFMA source: the `*_f8f6f4` forms read A and B in the element format that
/// `cbsz` (A) and `blgp` (B) select, so their size follows it (fp8/bf8: 8, fp6/bf6: 6, fp4: 4).
pub fn mfma_regs(i: &Instruction, name: &str, table: u32) -> u32 {
    if !i.mnemonic().ends_with("_f8f6f4") {
        return table;
    }
    let fmt = match name {
        "src0" => i.f("cbsz"),
        "src1" => i.f("blgp"),
        _ => return table,
    };
    match fmt {
        2 | 3 => 6,
        4 => 4,
        _ => 8,
    }
}

/// MFMA modifiers in llvm-mc's order. The f64 MFMAs have no B-matrix broadcast: their `blgp`
/// bits are the sources' negate flags. The gfx950 scaled MFMAs (VOP3PX2) print the scale word's
/// op_sel/op_sel_hi (two selectors and a third that is never encoded) and have no `abid`.
fn mfma_mods(i: &Instruction, out: &mut String) {
    let x2 = i.field_def("scale_opsel").is_some();
    if x2 {
        let sel = i.f("scale_opsel") & 3;
        if sel != 0 {
            out.push_str(&format!(" op_sel:{}", list(sel, 3)));
        }
        out.push_str(&format!(" op_sel_hi:{}", list(i.f("scale_opsel_hi") & 3, 3)));
    }
    let f64 = i.mnemonic().starts_with("v_mfma_f64");
    for n in ["cbsz", "abid", "blgp"] {
        let v = i.f(n);
        if v == 0 || x2 && n == "abid" {
            continue;
        }
        if f64 && n == "blgp" {
            out.push_str(&format!(" neg:{}", list(v, 3)));
        } else {
            out.push_str(&format!(" {n}:{v}"));
        }
    }
}
