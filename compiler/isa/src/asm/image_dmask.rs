//! Image dmask values llvm-mc 22 refuses: a gather4 selects one channel ("invalid image_gather
//! dmask: only one bit must be set"), an atomic 1, 2 or 4 registers from the bottom ("invalid
//! atomic image dmask": 0x1, 0x3 or 0xf). The disassembler prints such words as `.long`
//! (disasm::raw).

use crate::inst::Instruction;

/// Refuses a gather4 or atomic image word whose dmask llvm-mc refuses.
pub(crate) fn check(i: &Instruction) -> Result<(), String> {
    if crate::disasm::image::bvh_shape(i).is_some() {
        return Ok(());
    }
    let (m, dmask) = (i.mnemonic(), i.field("dmask").unwrap_or(0) & 0xf);
    if crate::substr::has(m, "_gather4") && dmask.count_ones() != 1 {
        return Err(format!("{m}: a gather4 dmask has one bit set"));
    }
    if m.starts_with("image_atomic") && !matches!(dmask, 0x1 | 0x3 | 0xf) {
        return Err(format!("{m}: an atomic's dmask is 0x1, 0x3 or 0xf"));
    }
    Ok(())
}
