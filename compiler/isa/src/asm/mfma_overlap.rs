//! The C matrix of a wide MFMA, as llvm-mc 22 takes it: when the destination is more than four
//! registers, src2 is the destination itself or apart from it ("source 2 operand must not
//! partially overlap with dst"). llvm-mc 22 does not check the gfx950 `*_f8f6f4` forms (and the
//! scaled ones), so neither do we. The disassembler prints such words as `.long` (disasm::raw).

use crate::inst::Instruction;

/// Whether the rule applies to `i`'s opcode and format (asm::rules keeps it per candidate).
pub(crate) fn applies(i: &Instruction) -> bool {
    matches!(i.format().name, "MFMA" | "VOP3PX2") && !i.mnemonic().ends_with("_f8f6f4")
}

/// Refuses an MFMA whose src2 registers partially overlap its destination's.
pub(crate) fn check(i: &Instruction) -> Result<(), String> {
    if !applies(i) {
        return Ok(());
    }
    let ops = i.operands();
    let (Some(d), Some(c)) = (ops.iter().find(|o| o.name == "vdst"), ops.iter().find(|o| o.name == "src2")) else {
        return Ok(());
    };
    // 128 bits or less; SMFMAC's src2 is its sparsity index; a C matrix below 256 is no register.
    let code = i.f("src2");
    if d.dwords <= 4 || i.mnemonic().starts_with("v_smfmac") || code < 256 {
        return Ok(());
    }
    // Destination and C share a register file (acc_cd selects it for both).
    let (d0, dn, c0, cn) = (i.f("vdst"), u32::from(d.dwords), code - 256, u32::from(c.dwords));
    let overlap = d0 < c0 + cn && c0 < d0 + dn;
    if overlap && (d0, dn) != (c0, cn) {
        return Err(format!("{}: the C matrix must be the destination or not overlap it", i.mnemonic()));
    }
    Ok(())
}
