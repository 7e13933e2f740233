//! DPP16, DPP8 and SDWA forms of the `isa` generator: which VALU opcodes llvm-mc decodes in
//! each form, which of their sources take neg/abs, and the source substitutions
//! (inline constants, SGPRs, literals) that become golden vector candidates.

use std::collections::BTreeMap;

use super::formats::{Family, Fmt, Role};
use super::{bytes_of, field, get, llvm, set, OpInfo};

/// A modifier-form probe: (opcode index, form, words, length in bytes).
type FormProbe = (usize, &'static str, u128, usize);

/// Marks the opcodes that have DPP16, DPP8 and SDWA forms (and the sources that take neg/abs); the probes that decode join the golden candidates.
pub(super) fn mod_forms(
    arch: &str,
    fmts: &[Fmt],
    fam: Family,
    ops: &mut [OpInfo],
    golden_cands: &mut Vec<(u128, usize)>,
) -> Result<(), String> {
    let mut mods: Vec<FormProbe> = Vec::new();
    for (oi, o) in ops.iter().enumerate() {
        golden_cands.push((o.word, o.len));
        let f = &fmts[o.fmt];
        if o.literal {
            continue;
        }
        let src0 = match f.name {
            "VOP1" | "VOP2" | "VOPC" => (0u32, 8u32),
            "VOP3" | "VOP3P" if fam != Family::Gfx9 => (32, 40),
            _ => continue,
        };
        let src0_reg = get(o.word, src0.0, src0.1);
        if src0_reg < 256 {
            continue;
        }
        let v = (src0_reg - 256) as u128;
        let b = f.bits;
        let dpp16 = v | (0xE4 << 8) | (0xF << 24) | (0xF << 28);
        mods.push((oi, "dpp16", set(o.word, src0.0, src0.1, 0xFA) | (dpp16 << b), o.len + 4));
        if fam == Family::Gfx9 {
            if f.name != "VOP3" {
                let sdwa = v | (6 << 8) | (6 << 16) | (6 << 24);
                let sdwa = match f.name {
                    "VOPC" => v | (6 << 16) | (6 << 24),
                    "VOP1" => v | (6 << 8) | (6 << 16),
                    _ => sdwa,
                };
                mods.push((oi, "sdwa", set(o.word, src0.0, src0.1, 0xF9) | (sdwa << b), o.len + 4));
            }
        } else {
            let dpp8 = v | (0xFAC688 << 8);
            mods.push((oi, "dpp8", set(o.word, src0.0, src0.1, 0xE9) | (dpp8 << b), o.len + 4));
        }
    }
    let mlines: Vec<Vec<u8>> = mods.iter().map(|m| bytes_of(m.2, (m.3 * 8) as u32)).collect();
    let mres = llvm::disassemble(arch, &mlines)?;
    for (m, r) in mods.iter().zip(mres) {
        if r.is_some() {
            match m.1 {
                "dpp16" => ops[m.0].dpp16 = true,
                "dpp8" => ops[m.0].dpp8 = true,
                _ => ops[m.0].sdwa = true,
            }
            golden_cands.push((m.2, m.3));
        }
    }
    source_modifiers(arch, fmts, fam, ops, &mods)?;
    Ok(())
}

/// Golden candidates with each source replaced by inline constants, SGPRs, special registers
/// and (where the encoding takes one) a literal.
pub(super) fn substitutions(fmts: &[Fmt], fam: Family, ops: &[OpInfo], golden_cands: &mut Vec<(u128, usize)>) {
    for o in ops {
        let f = &fmts[o.fmt];
        let lit_ok = !o.literal && (f.bits == 32 || (fam != Family::Gfx9 && f.name.starts_with("VOP")));
        for (fname, vals) in [
            ("src0", &[0x80u64, 0xC1, 0xF0, 0xF7, 5, 0x6A, 0x7E][..]),
            ("ssrc0", &[0x80, 0xC1, 0xF2, 5, 0x6A, 0x7E][..]),
            ("src1", &[0x81, 0xF4, 7][..]),
            ("ssrc1", &[0x81, 0xF4, 7][..]),
            ("src0x", &[0x80, 0xF2, 5][..]),
            ("soffset", &[0x80][..]),
        ] {
            let Some(fd) = field(f, fname) else { continue };
            if !matches!(fd.role, Role::Src | Role::SSrc) {
                continue;
            }
            for &v in vals {
                golden_cands.push((set(o.word, fd.lo, fd.hi, v), o.len));
            }
            if lit_ok && (fname == "src0" || fname == "ssrc0" || fname == "src0x") {
                let w = set(o.word, fd.lo, fd.hi, 0xFF) | ((0x1234_5678u128) << (o.len * 8));
                golden_cands.push((w, o.len + 4));
            }
        }
    }
}

/// Which sources of each VALU opcode take neg/abs, found by setting each source's neg and abs
/// bit on its own (VOP3 fields; the DPP16/SDWA dword for VOP1/VOP2/VOPC) and seeing whether
/// llvm-mc prints it. A source whose bits leave the text unchanged, or make a word llvm-mc does
/// not decode (an integer source), takes no modifiers. And, on gfx9, which 32-bit encodings read
/// a 16-bit literal (llvm-mc prints its low half).
pub(super) fn source_modifiers(
    arch: &str,
    fmts: &[Fmt],
    fam: Family,
    ops: &mut [OpInfo],
    mods: &[FormProbe],
) -> Result<(), String> {
    // (opcode index, source, base word, length, probe word)
    let mut probes: Vec<(usize, usize, u128, usize, u128)> = Vec::new();
    for (oi, o) in ops.iter().enumerate() {
        if fmts[o.fmt].name == "VOP3" && !o.literal {
            let nsrc = o.operands.iter().filter(|x| matches!(x.name.as_str(), "src0" | "src1" | "src2")).count();
            // VOP3SD has its sdst where VOP3 has abs.
            let abs = fmts[o.layout].name == "VOP3";
            for k in 0..nsrc as u32 {
                probes.push((oi, k as usize, o.word, o.len, o.word | 1u128 << (61 + k)));
                if abs {
                    probes.push((oi, k as usize, o.word, o.len, o.word | 1u128 << (8 + k)));
                }
            }
        }
    }
    for &(oi, kind, word, len) in mods {
        // The DPP16 dword's modifier bits belong to VOP1/VOP2/VOPC (VOP3/VOP3P keep theirs in their own word).
        if ops[oi].literal || !matches!(kind, "dpp16" | "sdwa") || matches!(fmts[ops[oi].fmt].name, "VOP3" | "VOP3P") {
            continue;
        }
        let b = fmts[ops[oi].fmt].bits;
        // DPP16: src0/src1 neg at 20/22, abs at 21/23; SDWA: src0 at 20/21, src1 at 28/29.
        let bits: [(usize, u32); 4] =
            if kind == "dpp16" { [(0, 20), (0, 21), (1, 22), (1, 23)] } else { [(0, 20), (0, 21), (1, 28), (1, 29)] };
        let nsrc = ops[oi].operands.iter().filter(|x| matches!(x.name.as_str(), "src0" | "vsrc1")).count();
        for (k, bit) in bits {
            if k < nsrc {
                probes.push((oi, k, word, len, word | 1u128 << (b + bit)));
            }
        }
    }
    // 16-bit sources: llvm-mc prints only the low half of a literal.
    let mut lits: Vec<(usize, Vec<u8>)> = Vec::new();
    for (oi, o) in ops.iter().enumerate() {
        let f = &fmts[o.fmt];
        if fam == Family::Gfx9 && !o.literal && f.bits == 32 && matches!(f.name, "VOP1" | "VOP2" | "VOPC") {
            let w = set(o.word, 0, 8, 0xFF) | ((0x1234_5678u128) << 32);
            lits.push((oi, bytes_of(w, 64)));
        }
    }
    let lines16: Vec<Vec<u8>> = lits.iter().map(|l| l.1.clone()).collect();
    for ((oi, _), r) in lits.iter().zip(llvm::disassemble(arch, &lines16)?) {
        if r.is_some_and(|r| r.text.contains("0x5678") && !r.text.contains("0x12345678")) {
            ops[*oi].lit16 = true;
        }
    }
    let base: Vec<Vec<u8>> = probes.iter().map(|p| bytes_of(p.2, (p.3 * 8) as u32)).collect();
    let lines: Vec<Vec<u8>> = probes.iter().map(|p| bytes_of(p.4, (p.3 * 8) as u32)).collect();
    let rb = llvm::disassemble(arch, &base)?;
    let rp = llvm::disassemble(arch, &lines)?;
    // Per (opcode, source): (probes, probes that changed the text).
    let mut seen: BTreeMap<(usize, usize), (u32, u32)> = BTreeMap::new();
    for ((p, b), r) in probes.iter().zip(rb).zip(rp) {
        let Some(b) = b else { continue };
        let e = seen.entry((p.0, p.1)).or_default();
        e.0 += 1;
        e.1 += r.is_some_and(|r| b.text != r.text) as u32;
    }
    for ((oi, k), (n, changed)) in seen {
        if n > 0 && changed == 0 {
            ops[oi].no_mods |= 1 << k;
        }
    }
    Ok(())
}
