//! Operand lists patched where the generated tables' probes could not explain an operand (see
//! autogen/isa_coverage.md): the opcode's operands as the ISA model uses them.

use baregpu_autogen::isa::{Opcode, Operand, OperandKind::*};

use crate::Arch;

fn o(name: &'static str, kind: baregpu_autogen::isa::OperandKind, dwords: u8) -> Operand {
    Operand { name, kind, dwords }
}

/// The operand list of an opcode, with the known table gaps filled in.
pub fn operands(_arch: Arch, op: &Opcode) -> Vec<Operand> {
    let m = op.mnemonic;
    let bad = op.operands.iter().any(|x| x.kind == Special && (x.name.contains("/*") || x.name.contains('(')));
    match m {
        "s_getpc_b64" if op.operands.is_empty() => return vec![o("sdst", Sgpr, 2)],
        // Their only operand (`s[0:1]`) reads as a modifier to the probes.
        "s_memtime" | "s_memrealtime" if op.operands.is_empty() => return vec![o("sdata", Sgpr, 2)],
        "s_setpc_b64" | "s_rfe_b64" if op.operands.is_empty() => return vec![o("ssrc0", Ssrc, 2)],
        // gfx9: the SOPC second source is the gpr_idx(...) mode, printed symbolically.
        "s_set_gpr_idx_on" => return vec![o("ssrc0", Ssrc, 1), o("ssrc1", Simm16, 1)],
        _ => {}
    }
    if bad {
        if m.starts_with("v_s_") {
            // gfx12 VOP3 scalar transcendentals: an SGPR destination and one scalar source in a
            // 9-bit source field (the probe's VGPR source printed as an invalid register).
            return vec![o("vdst", Sgpr, 1), o("src0", Ssrc, 1)];
        }
        if m.starts_with("s_sendmsg_rtn") {
            return vec![op.operands[0], o("ssrc0", Sendmsg, 1)];
        }
        if m.starts_with("v_readlane") || m.starts_with("v_writelane") {
            return vec![o("vdst", Vgpr, 1), o("src0", Vsrc, 1), o("src1", Vsrc, 1)];
        }
        if m.starts_with("v_permlane") {
            return vec![o("vdst", Vgpr, 1), o("src0", Vsrc, 1), o("src1", Vsrc, 1), o("src2", Vsrc, 1)];
        }
        return op
            .operands
            .iter()
            .copied()
            .filter(|x| !(x.kind == Special && (x.name.contains("/*") || x.name.contains('('))))
            .collect();
    }
    if op.format == "SMEM" && m.contains("prefetch") {
        // gfx12 s_prefetch_*: `[sbase,] offset, soffset, sdata`; llvm-mc prints soffset even when
        // it is null and sdata (the prefetch size) as a decimal, so the probes saw neither move.
        return op
            .operands
            .iter()
            .map(|x| match (x.kind, x.name) {
                (Special, "null") => o("soffset", Sgpr, 1),
                (Imm, n) if n.starts_with("op") => o("sdata", Imm, 1),
                _ => *x,
            })
            .collect();
    }
    // gfx9 AGPR moves read an AGPR through a 9-bit source field (256 + n), which the probes
    // cannot tell from a VGPR source.
    let agpr_src = matches!(m, "v_accvgpr_read_b32" | "v_accvgpr_mov_b32");
    op.operands
        .iter()
        .map(|x| match (x.kind, x.name) {
            (Imm, "op0") if op.format == "SMEM" => o("sdata", Imm, 1),
            (Vsrc, "src0") if agpr_src => o("src0", Agpr, x.dwords),
            _ => *x,
        })
        .collect()
}
