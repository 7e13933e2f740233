//! Image dmask values llvm-mc 22 refuses: a gather4 selects one channel ("invalid image_gather
//! dmask: only one bit must be set"), an atomic 1, 2 or 4 registers from the bottom ("invalid
//! atomic image dmask": 0x1, 0x3 or 0xf), and of those not 0xf on an atomic other than cmpswap,
//! nor 0x1 without tfe on cmpswap (no data register of that size: "image data size does not
//! match dmask and tfe"). The disassembler prints such words as `.long` (disasm::raw).

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
    if !m.starts_with("image_atomic") {
        return Ok(());
    }
    if !matches!(dmask, 0x1 | 0x3 | 0xf) {
        return Err(format!("{m}: an atomic's dmask is 0x1, 0x3 or 0xf"));
    }
    // The data is dmask's bits plus tfe's dword, and llvm-mc 22 has data of 1 to 3 dwords for
    // an atomic, 2 to 5 for cmpswap (probed with each dmask, tfe and data size).
    let cmpswap = m.starts_with("image_atomic_cmpswap");
    if !cmpswap && dmask == 0xf {
        return Err(format!("{m}: dmask 0xf takes four data registers, which llvm-mc 22 has not for this atomic"));
    }
    if cmpswap && dmask == 0x1 && i.field("tfe").unwrap_or(0) == 0 {
        return Err(format!(
            "{m}: dmask 0x1 takes one data register without tfe, which llvm-mc 22 has not for cmpswap"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::{assemble_line, Arch};

    /// Data sizes llvm-mc 22 has no register for are refused, and such words print as `.long`;
    /// the bytes are llvm-mc 22's.
    #[test]
    fn atomic_data_sizes() {
        for (arch, line) in [
            (Arch::Gfx1100, "image_atomic_cmpswap v[8:9], v24, s[16:23] dmask:0x1 dim:SQ_RSRC_IMG_1D"),
            (Arch::Gfx1201, "image_atomic_cmpswap v8, v24, s[16:23] dmask:0x1 dim:SQ_RSRC_IMG_1D"),
            (Arch::Gfx1100, "image_atomic_and v[8:11], v24, s[16:23] dmask:0xf dim:SQ_RSRC_IMG_1D"),
            (Arch::Gfx1201, "image_atomic_and v8, v24, s[16:23] dmask:0xf dim:SQ_RSRC_IMG_1D a16"),
        ] {
            assert!(assemble_line(arch, line).is_err(), "{line}");
        }
        let tfe = "image_atomic_cmpswap v[8:9], v24, s[16:23] dmask:0x1 dim:SQ_RSRC_IMG_1D tfe";
        let want = [0x00, 0xc0, 0x42, 0xd0, 0x08, 0x20, 0x80, 0x00, 0x18, 0x00, 0x00, 0x00];
        assert_eq!(assemble_line(Arch::Gfx1201, tfe).ok(), Some(want.to_vec()));
        let text = |b: &[u8]| crate::disassemble(&crate::decode::decode(Arch::Gfx1100, b).expect("decodes"));
        assert!(text(&[0x04, 0x01, 0x2c, 0xf0, 0x02, 0x00, 0x00, 0x00]).starts_with(".long"));
        assert!(text(&[0x04, 0x0f, 0x48, 0xf0, 0x02, 0x00, 0x00, 0x00]).starts_with(".long"));
        assert!(text(&[0x04, 0x03, 0x2c, 0xf0, 0x02, 0x00, 0x00, 0x00]).starts_with("image_atomic_cmpswap v[0:1]"));
    }
}
