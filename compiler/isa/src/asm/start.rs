//! Candidate encodings of a mnemonic and the instruction each starts from: fixed encoding
//! bits, the opcode, and the defaults llvm-mc writes before any operand is filled.

use baregpu_autogen::isa::FLAG_LITERAL;

use crate::inst::{set, Instruction};
use crate::operand::is_gfx9;
use crate::tables::Tables;
use crate::Arch;

/// Which extension a candidate uses.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ext {
    None,
    Dpp16,
    Dpp8,
    Sdwa,
    /// gfx11 MIMG with a non-sequential address list.
    Nsa,
}

#[derive(Clone, Copy, Debug)]
pub struct Cand {
    pub op: u32,
    pub ext: Ext,
    /// The instruction as [`start`] makes it for this opcode and extension.
    pub init: Instruction,
    /// The whole-instruction rules that can refuse it (asm::rules), worked out once.
    pub rules: super::rules::Rules,
}

impl Cand {
    pub fn new(op: u32, ext: Ext, init: Instruction) -> Cand {
        Cand { op, ext, init, rules: super::rules::Rules::of(&init) }
    }
}

/// Starts an instruction for an opcode: fixed encoding bits, opcode, defaults.
pub fn start(arch: Arch, op: u32, ext: Ext) -> Option<Instruction> {
    let t = Tables::get(arch);
    let opc = t.op(op);
    let enc = t.format_index(opc.format)?;
    let ef = t.format(enc);
    let mut fmt = t.layout[op as usize];
    if ext != Ext::None {
        let want = match ext {
            Ext::Dpp16 => "_DPP16",
            Ext::Dpp8 => "_DPP8",
            Ext::Nsa => "_NSA",
            _ => "_SDWA",
        };
        fmt = *t.mods[fmt as usize].iter().find(|&&m| t.format(m).name.ends_with(want))?;
    }
    let f = t.format(fmt);
    let mut i = Instruction { arch, op, fmt, op_y: None, words: [0; 4], ndwords: (f.bits / 32) as u8, literal: None };
    if let Some((lo, hi)) = ef.opcode {
        set(&mut i.words, &baregpu_autogen::isa::Field { name: "op", lo, hi }, opc.opcode as u32);
    }
    let w0 = i.words[0];
    let alt = ef.encoding.iter().find(|&&(m, v)| (w0 | v) & m == v)?;
    i.words[0] |= alt.1;
    for &(lo, hi, v) in f.select {
        set(&mut i.words, &baregpu_autogen::isa::Field { name: "", lo, hi }, v);
    }
    let g9 = is_gfx9(arch);
    let null = if g9 { 0x7f } else { 0x7c };
    match f.name {
        // An SMEM instruction without operands (s_dcache_inv) keeps soffset 0, as llvm-mc does.
        "SMEM" if !g9 && !i.operands().is_empty() => {
            i.set_field("soffset", null);
        }
        // gfx9 plain FLAT has no SGPR address (its saddr bits are 0).
        "FLAT" if g9 => {}
        "FLAT" | "GLOBAL" if !g9 => {
            i.set_field("saddr", null);
        }
        "GLOBAL" => {
            i.set_field("saddr", null);
        }
        "MTBUF" if !i.set_field("format", 1) => {
            i.set_field("dfmt", 1);
        }
        _ => {}
    }
    // gfx11+ v_cmpx_*_e64 (and their DPP forms) encode vdst as exec_lo.
    if !g9 && f.name.starts_with("VOP3") && opc.mnemonic.starts_with("v_cmpx") {
        i.set_field("vdst", 126);
    }
    if f.name == "SCRATCH" {
        i.set_field("sve", 1);
        i.set_field("saddr", null);
    }
    // gfx12 VBUFFER: llvm-mc writes format 1 (its default) into every buffer instruction, not only
    // tbuffer ones; buffer_* decoding ignores the field.
    if f.name == "VBUFFER" {
        i.set_field("format", 1);
    }
    if ext == Ext::Dpp16 {
        i.set_field("row_mask", 0xf);
        i.set_field("bank_mask", 0xf);
    }
    // An SDWA instruction without operands (`v_nop_sdwa`) keeps its selectors 0, as llvm-mc
    // writes it.
    if ext == Ext::Sdwa && !opc.operands.is_empty() {
        let vop1 = i.format().name.starts_with("VOP1");
        for n in ["dst_sel", "src0_sel", "src1_sel"] {
            if vop1 && n == "src1_sel" {
                continue;
            }
            i.set_field(n, 6);
        }
        // llvm-mc's default when `dst_unused` is left out.
        if crate::disasm::sdwa_has_dst_sel(opc.mnemonic) {
            i.set_field("dst_unused", 2);
        }
    }
    if matches!(f.name, "VOP3P" | "WMMA" | "VOP3P_DPP16" | "VOP3P_DPP8") && !opc.mnemonic.contains("_mix") {
        let nsrc = i.operands().iter().filter(|o| matches!(o.name, "src0" | "src1" | "src2")).count();
        i.set_field("opsel_hi", if nsrc >= 2 { 3 } else { 1 });
        let _ = nsrc;
        i.set_field("opsel_hi2", 1);
    }
    // gfx9 AGPR reads/writes are VOP3P but not packed: llvm-mc sets every op_sel_hi bit.
    if g9 && f.name == "VOP3P" && opc.mnemonic.starts_with("v_accvgpr") {
        i.set_field("opsel_hi", 3);
    }
    if opc.flags & FLAG_LITERAL != 0 {
        i.literal = Some(0);
    }
    Some(i)
}
