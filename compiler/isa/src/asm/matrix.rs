//! Which sources a matrix instruction (MFMA, SMFMAC, gfx950 scaled MFMA; gfx11/gfx12 WMMA and
//! SWMMAC) takes, as llvm-mc 22 decides: its 9-bit source fields could hold any source code, but
//! llvm-mc refuses SGPRs, special registers and literals there. The C matrix also takes inline
//! constants and the registers llvm-mc reads as inline values (`null`, `src_shared_base`...,
//! `src_scc`).

use crate::inst::Instruction;

/// Whether the instruction's layout is a matrix one.
pub(crate) fn is_matrix(i: &Instruction) -> bool {
    is_matrix_format(i.format().name)
}

/// Whether a layout (by name) is a matrix one: [`check`] accepts every source of any other.
pub(crate) fn is_matrix_format(fname: &str) -> bool {
    matches!(fname, "MFMA" | "VOP3PX2" | "WMMA")
}

/// gfx11+ `null` (124; m0 on gfx9), which llvm-mc 22 takes as a C matrix like an inline constant.
fn is_null(i: &Instruction, code: u32) -> bool {
    code == 124 && !crate::operand::is_gfx9(i.arch)
}

/// Checks one source of a matrix instruction: `code` is its 9-bit source code (256+ for vector
/// registers), `file` the register file when the operand is a register.
pub(crate) fn check(i: &Instruction, name: &str, code: u32, file: Option<char>) -> Result<(), String> {
    if !is_matrix(i) {
        return Ok(());
    }
    let vector = code >= 256 && matches!(file, Some('v' | 'a'));
    let vgpr = vector && file == Some('v');
    let m = i.mnemonic();
    match name {
        "src0" | "src1" if !vector => Err(format!("{m}: the {} matrix must be in VGPRs or AGPRs", ab(name))),
        // SMFMAC's third source is the sparsity index, one VGPR.
        "src2" if (m.starts_with("v_smfmac") || m.starts_with("v_swmmac")) && !vgpr => {
            Err(format!("{m}: the sparsity index must be a VGPR"))
        }
        // The accumulator: vector registers or an inline constant; 254 is lds_direct, 255 a literal.
        "src2" if !vector && !(128..=253).contains(&code) && !is_null(i, code) => {
            Err(format!("{m}: the C matrix must be vector registers or an inline constant (no SGPR or literal)"))
        }
        "scale_src0" | "scale_src1" if !vgpr => Err(format!("{m}: the scale operand must be a VGPR")),
        _ => Ok(()),
    }
}

fn ab(name: &str) -> &'static str {
    if name == "src0" {
        "A"
    } else {
        "B"
    }
}
