//! Scalar memory encodings (SMEM) -> `Op::Smem`.

use super::*;

/// s_load*, s_buffer_load*; cache maintenance is a no-op.
pub(super) fn lower_smem(m: &str, i: &Instruction, lit: Option<u32>, gfx9: bool, gfx12: bool) -> Result<Op, String> {
    let (n, buffer) = match m {
        "s_load_b32" | "s_load_dword" => (1, false),
        "s_load_b64" | "s_load_dwordx2" => (2, false),
        "s_load_b96" => (3, false),
        "s_load_b128" | "s_load_dwordx4" => (4, false),
        "s_load_b256" | "s_load_dwordx8" => (8, false),
        "s_load_b512" | "s_load_dwordx16" => (16, false),
        "s_buffer_load_b32" | "s_buffer_load_dword" => (1, true),
        "s_buffer_load_b64" | "s_buffer_load_dwordx2" => (2, true),
        "s_buffer_load_b96" => (3, true),
        "s_buffer_load_b128" | "s_buffer_load_dwordx4" => (4, true),
        "s_buffer_load_b256" | "s_buffer_load_dwordx8" => (8, true),
        "s_buffer_load_b512" | "s_buffer_load_dwordx16" => (16, true),
        // gfx12 sub-dword scalar loads: one SGPR, zero- or sign-extended.
        "s_load_u8" => (SMEM_U8, false),
        "s_load_i8" => (SMEM_I8, false),
        "s_load_u16" => (SMEM_U16, false),
        "s_load_i16" => (SMEM_I16, false),
        "s_buffer_load_u8" => (SMEM_U8, true),
        "s_buffer_load_i8" => (SMEM_I8, true),
        "s_buffer_load_u16" => (SMEM_U16, true),
        "s_buffer_load_i16" => (SMEM_I16, true),
        // The shader clock and the constant 100 MHz "real time" clock (exec/run.rs).
        "s_memtime" | "s_memrealtime" => return Ok(Op::Clock { dst: i.f("sdata") as u8, real: m == "s_memrealtime" }),
        // s_atc_probe*: a hint to the address-translation cache (no result).
        m if m.starts_with("s_dcache")
            || m.starts_with("s_gl1_inv")
            || m.starts_with("s_prefetch")
            || m.starts_with("s_atc_probe") =>
        {
            return Ok(Op::Nop)
        }
        _ if gfx9 => return lower_smem_write(m, i),
        _ => return Err(format!("{m}: not supported")),
    };
    let bits = if gfx12 { 24 } else { 21 };
    let soff = i.f("soffset");
    let (off, soff) = if gfx9 {
        gfx9::smem_offsets(i)?
    } else {
        (sext(i.f("offset"), bits), if soff == NULL as u32 { Ss::K(0) } else { ssrc(soff, Ty::B32, lit)? })
    };
    Ok(Op::Smem { dst: i.f("sdata") as u8, n, base: (i.f("sbase") * 2) as u8, off, soff, buffer })
}

/// gfx9 `s_store_*`, `s_buffer_store_*`, `s_atomic_*`, `s_buffer_atomic_*`.
fn lower_smem_write(m: &str, i: &Instruction) -> Result<Op, String> {
    let unsupported = || format!("{m}: not supported");
    let (buffer, rest) = match m.strip_prefix("s_buffer_") {
        Some(r) => (true, r),
        None => (false, m.strip_prefix("s_").ok_or_else(unsupported)?),
    };
    let dwords = |w: &str| match w {
        "" => Ok(1),
        "x2" => Ok(2),
        "x4" => Ok(4),
        _ => Err(unsupported()),
    };
    let kind = if let Some(w) = rest.strip_prefix("scratch_load_dword") {
        SmemWriteKind::Scratch { n: dwords(w)?, store: false }
    } else if let Some(w) = rest.strip_prefix("scratch_store_dword") {
        SmemWriteKind::Scratch { n: dwords(w)?, store: true }
    } else if let Some(w) = rest.strip_prefix("store_dword") {
        SmemWriteKind::Store { n: dwords(w)? }
    } else if let Some(a) = rest.strip_prefix("atomic_") {
        let (op, wide) = atomic_op(a).ok_or_else(unsupported)?;
        SmemWriteKind::Atomic { op, wide, ret: i.f("glc") != 0 }
    } else {
        return Err(unsupported());
    };
    let (off, soff) = gfx9::smem_offsets(i)?;
    let (data, base) = (i.f("sdata") as u8, (i.f("sbase") * 2) as u8);
    Ok(Op::SmemWrite(Box::new(SmemWrite { kind, data, base, off, soff, buffer })))
}
