//! Vector memory encodings (global, flat, scratch) -> `VMem`.

use super::*;

pub(super) fn lower_vmem(m: &str, enc: &str, i: &Instruction, gfx12: bool, gfx9: bool) -> Result<Op, String> {
    let unsupported = || format!("{m}: not supported");
    let kind = match enc {
        "GLOBAL" => MemKind::Global,
        "FLAT" => MemKind::Flat,
        _ => MemKind::Scratch,
    };
    let name = m.split_once('_').map(|x| x.1).unwrap_or("");
    // gfx9 `*_load_lds_*`: the data goes to the LDS ([`Op::MemLds`]).
    let to_lds = name.starts_with("load_lds_");
    let name = match name {
        "load_lds_ubyte" => "load_ubyte",
        "load_lds_sbyte" => "load_sbyte",
        "load_lds_ushort" => "load_ushort",
        "load_lds_sshort" => "load_sshort",
        "load_lds_dword" => "load_dword",
        "load_lds_dwordx3" => "load_dwordx3",
        "load_lds_dwordx4" => "load_dwordx4",
        // gfx9 spellings of the d16 loads.
        "load_ubyte_d16" => "load_d16_u8",
        "load_sbyte_d16" => "load_d16_i8",
        "load_short_d16" => "load_d16_b16",
        "load_ubyte_d16_hi" => "load_d16_hi_u8",
        "load_sbyte_d16_hi" => "load_d16_hi_i8",
        "load_short_d16_hi" => "load_d16_hi_b16",
        n => n,
    };
    let op = match plain_op(name) {
        Some(op) => op,
        None => match name {
            "inv" | "wb" | "wbinv" => return Ok(Op::Nop),
            n if n.starts_with("atomic_") => {
                let a = &n[7..];
                let (op, wide) = atomic_op(a).ok_or_else(unsupported)?;
                // gfx12: scope_th holds SCOPE in its low two bits and TH above; TH_ATOMIC_RETURN = 1.
                // gfx940+: GLC is named SC0.
                let ret = if gfx12 {
                    (i.f("scope_th") >> 2) & 1 != 0
                } else {
                    i.field("glc").or(i.field("sc0")).unwrap_or(0) != 0
                };
                MemOp::Atomic { op, wide, ret }
            }
            _ => return Err(unsupported()),
        },
    };
    let (vdst, data, addr) =
        if gfx12 { (i.f("vdst"), i.f("vsrc"), i.f("vaddr")) } else { (i.f("vdst"), i.f("data"), i.f("addr")) };
    let saddr = i.f("saddr");
    let saddr = if saddr == NULL as u32 || saddr == 0x7f { None } else { Some(saddr as u8) };
    let off_bits = if gfx12 { 24 } else { 13 };
    let use_vaddr = match kind {
        MemKind::Scratch => i.f("sve") != 0,
        _ => true,
    };
    // gfx90a+: the data and destination registers are AGPRs when `acc` is set.
    let acc = if gfx9 && gfx9::acc_fields(i) { gfx9::ACC } else { 0 };
    let mem = VMem {
        kind,
        op,
        vdst: vdst as u16 + acc,
        data: data as u16 + acc,
        addr: addr as u16,
        saddr,
        use_vaddr,
        offset: sext(i.f("offset"), off_bits) as i32,
    };
    Ok(if to_lds { Op::MemLds(mem) } else { Op::Mem(mem) })
}

pub(super) fn atomic_op(a: &str) -> Option<(AtomicOp, bool)> {
    use AtomicOp as A;
    let (base, wide) = if let Some(b) = a.strip_suffix("_x2") { (b, true) } else { (a, a.ends_with("64")) };
    let op = match base.trim_end_matches("_rtn") {
        "swap_b32" | "swap" | "swap_b64" | "storexchg_rtn_b32" | "storexchg_rtn_b64" | "wrxchg_rtn_b32" => A::Swap,
        "cmpswap_b32" | "cmpswap" | "cmpswap_b64" | "cmpstore_b32" | "cmpstore_rtn_b32" | "cmpstore_b64" => A::Cmpswap,
        "add_u32" | "add" | "add_u64" => A::Add,
        "sub_u32" | "sub" | "sub_u64" => A::Sub,
        "min_i32" | "smin" | "min_i64" => A::Smin,
        "min_u32" | "umin" | "min_u64" => A::Umin,
        "max_i32" | "smax" | "max_i64" => A::Smax,
        "max_u32" | "umax" | "max_u64" => A::Umax,
        "and_b32" | "and" | "and_b64" => A::And,
        "or_b32" | "or" | "or_b64" => A::Or,
        "xor_b32" | "xor" | "xor_b64" => A::Xor,
        "inc_u32" | "inc" | "inc_u64" => A::Inc,
        "dec_u32" | "dec" | "dec_u64" => A::Dec,
        "add_f32" => A::AddF32,
        "min_f32" | "fmin" | "min_num_f32" => A::MinF32,
        "max_f32" | "fmax" | "max_num_f32" => A::MaxF32,
        "add_f64" => A::AddF64,
        "min_f64" | "min_num_f64" => A::MinF64,
        "max_f64" | "max_num_f64" => A::MaxF64,
        "cond_sub_u32" => A::CondSub,
        "sub_clamp_u32" => A::SubClamp,
        "pk_add_f16" => A::PkAddF16,
        "pk_add_bf16" => A::PkAddBf16,
        "rsub_u32" | "rsub_u64" => A::Rsub,
        "mskor_b32" | "mskor_b64" => A::Mskor,
        "wrap_b32" => A::Wrap,
        "cmpst_f32" | "cmpst_f64" => A::CmpswapF,
        _ => return None,
    };
    Some((op, wide))
}

/// A load or store without conversion, by its name after the `global_`/`buffer_`... prefix:
/// `load_ubyte`, `store_dwordx4`, `load_b32`... (vector and buffer memory share the table).
pub(super) fn plain_op(n: &str) -> Option<MemOp> {
    Some(match n {
        "load_u8" | "load_ubyte" => MemOp::Load { bytes: 1, sign: false, d16: 0 },
        "load_i8" | "load_sbyte" => MemOp::Load { bytes: 1, sign: true, d16: 0 },
        "load_u16" | "load_ushort" => MemOp::Load { bytes: 2, sign: false, d16: 0 },
        "load_i16" | "load_sshort" => MemOp::Load { bytes: 2, sign: true, d16: 0 },
        "load_b32" | "load_dword" => MemOp::Load { bytes: 4, sign: false, d16: 0 },
        "load_b64" | "load_dwordx2" => MemOp::Load { bytes: 8, sign: false, d16: 0 },
        "load_b96" | "load_dwordx3" => MemOp::Load { bytes: 12, sign: false, d16: 0 },
        "load_b128" | "load_dwordx4" => MemOp::Load { bytes: 16, sign: false, d16: 0 },
        "load_d16_u8" => MemOp::Load { bytes: 1, sign: false, d16: 1 },
        "load_d16_i8" => MemOp::Load { bytes: 1, sign: true, d16: 1 },
        "load_d16_b16" => MemOp::Load { bytes: 2, sign: false, d16: 1 },
        "load_d16_hi_u8" => MemOp::Load { bytes: 1, sign: false, d16: 2 },
        "load_d16_hi_i8" => MemOp::Load { bytes: 1, sign: true, d16: 2 },
        "load_d16_hi_b16" => MemOp::Load { bytes: 2, sign: false, d16: 2 },
        "store_b8" | "store_byte" => MemOp::Store { bytes: 1, d16hi: false },
        "store_b16" | "store_short" => MemOp::Store { bytes: 2, d16hi: false },
        "store_d16_hi_b8" | "store_byte_d16_hi" => MemOp::Store { bytes: 1, d16hi: true },
        "store_d16_hi_b16" | "store_short_d16_hi" => MemOp::Store { bytes: 2, d16hi: true },
        "store_b32" | "store_dword" => MemOp::Store { bytes: 4, d16hi: false },
        "store_b64" | "store_dwordx2" => MemOp::Store { bytes: 8, d16hi: false },
        "store_b96" | "store_dwordx3" => MemOp::Store { bytes: 12, d16hi: false },
        "store_b128" | "store_dwordx4" => MemOp::Store { bytes: 16, d16hi: false },
        _ => return None,
    })
}
