//! Buffer encodings (MUBUF, MTBUF, gfx12 VBUFFER) -> `BufAccess`.
//!
//! Operand fields (LLVM's SIInstrFormats / our tables): gfx9 MUBUF has OFFEN/IDXEN in the first
//! dword and `lds` at bit 16; gfx11 moves OFFEN/IDXEN to bits 54/55; gfx12 VBUFFER has a
//! 24-bit offset and the V# as an SGPR number. With both IDXEN and OFFEN, VADDR holds the index
//! and VADDR+1 the offset.

use super::*;

pub(super) fn lower_buffer(m: &str, i: &Instruction, arch: Arch) -> Result<Op, String> {
    let unsupported = || format!("{m}: not supported");
    let gfx9 = gfx9::is_gfx9(arch);
    let gfx12 = arch == Arch::Gfx1201;
    let (tbuf, name) = match m.strip_prefix("tbuffer_") {
        Some(n) => (true, n),
        None => (false, m.strip_prefix("buffer_").ok_or_else(unsupported)?),
    };
    if matches!(name, "wbl2" | "inv" | "wbinvl1" | "wbinvl1_vol" | "gl0_inv" | "gl1_inv" | "wb") {
        return Ok(Op::Nop);
    }
    let (op, fmt) = if let Some(f) = name.strip_prefix("load_format_").or_else(|| name.strip_prefix("store_format_")) {
        let load = name.starts_with("load");
        let fmt = format_op(f, tbuf, i, gfx9, gfx12).ok_or_else(unsupported)?;
        let op =
            if load { MemOp::Load { bytes: 0, sign: false, d16: 0 } } else { MemOp::Store { bytes: 0, d16hi: false } };
        (op, Some(fmt))
    } else if let Some(a) = name.strip_prefix("atomic_") {
        let (op, wide) = atomic_op(a).ok_or_else(unsupported)?;
        let ret =
            if gfx12 { (i.f("scope_th") >> 2) & 1 != 0 } else { i.field("glc").or(i.field("sc0")).unwrap_or(0) != 0 };
        (MemOp::Atomic { op, wide, ret }, None)
    } else {
        // The plain loads and stores share the global ones' names after the prefix.
        let n = name.replace("ubyte_d16_hi", "d16_hi_u8").replace("sbyte_d16_hi", "d16_hi_i8");
        let n = n.replace("short_d16_hi", "d16_hi_b16").replace("ubyte_d16", "d16_u8");
        let n = n.replace("sbyte_d16", "d16_i8").replace("short_d16", "d16_b16");
        (plain_op(&n).ok_or_else(unsupported)?, None)
    };
    let layout = if gfx9 {
        VsharpLayout::Gfx9
    } else if gfx12 {
        VsharpLayout::Gfx12
    } else {
        VsharpLayout::Gfx11
    };
    let (srsrc, soffset, offset) = if gfx12 {
        let s = i.f("soffset");
        (i.f("rsrc") as u8, if s == NULL as u32 { Ss::K(0) } else { ssrc(s, Ty::B32, None)? }, i.f("offset"))
    } else {
        (i.f("srsrc") as u8 * 4, ssrc(i.f("soffset"), Ty::B32, None)?, i.f("offset"))
    };
    let lds = i.field("lds").unwrap_or(0) != 0;
    if lds && (!matches!(op, MemOp::Load { d16: 0, .. }) || fmt.is_some()) {
        return Err(format!("{m} lds: not supported"));
    }
    let acc = if gfx9 && gfx9::acc_fields(i) { gfx9::ACC } else { 0 };
    let vdata = i.f("vdata") as u16 + acc;
    Ok(Op::Buf(Box::new(BufAccess {
        op,
        fmt,
        layout,
        vdata,
        vaddr: i.f("vaddr") as u16,
        srsrc,
        soffset,
        offset,
        offen: i.f("offen") != 0,
        idxen: i.f("idxen") != 0,
        lds,
    })))
}

/// `x`, `xy`, `d16_xyzw`, `d16_hi_x`: the components moved; the format from the instruction
/// (MTBUF) or the V#.
fn format_op(f: &str, tbuf: bool, i: &Instruction, gfx9: bool, gfx12: bool) -> Option<BufFmt> {
    let (d16, hi, f) = match f.strip_prefix("d16_") {
        Some(r) => match r.strip_prefix("hi_") {
            Some(r) => (true, true, r),
            None => (true, false, r),
        },
        None => (false, false, f),
    };
    let comps = match f {
        "x" => 1,
        "xy" => 2,
        "xyz" => 3,
        "xyzw" => 4,
        _ => return None,
    };
    if gfx12 {
        // gfx12's format numbering is not modelled.
        return None;
    }
    let inst = tbuf.then(|| if gfx9 { (i.f("dfmt") | i.f("nfmt") << 4) as u8 } else { i.f("format") as u8 });
    Some(BufFmt { comps, d16, hi, inst })
}
