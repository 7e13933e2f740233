//! LDS (DS) encodings -> `Ds`.

use super::*;

pub(super) fn lower_ds(m: &str, i: &Instruction, gfx9: bool) -> Result<Op, String> {
    let unsupported = || format!("{m}: not supported");
    let name = &m[3..];
    let o0 = i.f("offset0");
    let o1 = i.f("offset1");
    let single = o0 | (o1 << 8);
    let mut off0 = single;
    let mut off1 = 0;
    let op = match name {
        "load_u8" | "read_u8" => DsOp::Load { bytes: 1, sign: false, d16: 0 },
        "load_i8" | "read_i8" => DsOp::Load { bytes: 1, sign: true, d16: 0 },
        "load_u16" | "read_u16" => DsOp::Load { bytes: 2, sign: false, d16: 0 },
        "load_i16" | "read_i16" => DsOp::Load { bytes: 2, sign: true, d16: 0 },
        "load_b32" | "read_b32" => DsOp::Load { bytes: 4, sign: false, d16: 0 },
        "load_b64" | "read_b64" => DsOp::Load { bytes: 8, sign: false, d16: 0 },
        "load_b96" | "read_b96" => DsOp::Load { bytes: 12, sign: false, d16: 0 },
        "load_b128" | "read_b128" => DsOp::Load { bytes: 16, sign: false, d16: 0 },
        "load_u8_d16" | "read_u8_d16" => DsOp::Load { bytes: 1, sign: false, d16: 1 },
        "load_u8_d16_hi" | "read_u8_d16_hi" => DsOp::Load { bytes: 1, sign: false, d16: 2 },
        "load_i8_d16" | "read_i8_d16" => DsOp::Load { bytes: 1, sign: true, d16: 1 },
        "load_i8_d16_hi" | "read_i8_d16_hi" => DsOp::Load { bytes: 1, sign: true, d16: 2 },
        "load_u16_d16" | "read_u16_d16" => DsOp::Load { bytes: 2, sign: false, d16: 1 },
        "load_u16_d16_hi" | "read_u16_d16_hi" => DsOp::Load { bytes: 2, sign: false, d16: 2 },
        "write_b8_d16_hi" => DsOp::Store { bytes: 1, d16hi: true },
        "write_b16_d16_hi" => DsOp::Store { bytes: 2, d16hi: true },
        "store_b8" | "write_b8" => DsOp::Store { bytes: 1, d16hi: false },
        "store_b16" | "write_b16" => DsOp::Store { bytes: 2, d16hi: false },
        "store_b8_d16_hi" => DsOp::Store { bytes: 1, d16hi: true },
        "store_b16_d16_hi" => DsOp::Store { bytes: 2, d16hi: true },
        "store_b32" | "write_b32" => DsOp::Store { bytes: 4, d16hi: false },
        "store_b64" | "write_b64" => DsOp::Store { bytes: 8, d16hi: false },
        "store_b96" | "write_b96" => DsOp::Store { bytes: 12, d16hi: false },
        "store_b128" | "write_b128" => DsOp::Store { bytes: 16, d16hi: false },
        "load_2addr_b32"
        | "load_2addr_stride64_b32"
        | "load_2addr_b64"
        | "load_2addr_stride64_b64"
        | "read2_b32"
        | "read2st64_b32"
        | "read2_b64"
        | "read2st64_b64" => {
            let bytes = if name.ends_with("b64") { 8 } else { 4 };
            let mul = bytes as u32 * if name.contains("stride64") || name.contains("st64") { 64 } else { 1 };
            off0 = o0 * mul;
            off1 = o1 * mul;
            DsOp::Load2 { bytes }
        }
        "store_2addr_b32"
        | "store_2addr_stride64_b32"
        | "store_2addr_b64"
        | "store_2addr_stride64_b64"
        | "write2_b32"
        | "write2st64_b32"
        | "write2_b64"
        | "write2st64_b64" => {
            let bytes = if name.ends_with("b64") { 8 } else { 4 };
            let mul = bytes as u32 * if name.contains("stride64") || name.contains("st64") { 64 } else { 1 };
            off0 = o0 * mul;
            off1 = o1 * mul;
            DsOp::Store2 { bytes }
        }
        "wrxchg2_rtn_b32" | "wrxchg2st64_rtn_b32" | "wrxchg2_rtn_b64" | "wrxchg2st64_rtn_b64" => {
            let bytes = if name.ends_with("b64") { 8 } else { 4 };
            let mul = bytes as u32 * if name.contains("st64") { 64 } else { 1 };
            off0 = o0 * mul;
            off1 = o1 * mul;
            DsOp::Xchg2 { bytes }
        }
        // RDNA3 and CDNA3 ISA guides, DS_LOAD_ADDTID_B32 / DS_STORE_ADDTID_B32:
        // MEM[{OFFSET1, OFFSET0} + M0[15:0] + laneID × 4].
        "read_addtid_b32" | "load_addtid_b32" => DsOp::LoadTid,
        "write_addtid_b32" | "store_addtid_b32" => DsOp::StoreTid,
        "read_b64_tr_b4" => DsOp::LoadTr { bytes: 8, bits: 4 },
        "read_b64_tr_b8" => DsOp::LoadTr { bytes: 8, bits: 8 },
        "read_b64_tr_b16" => DsOp::LoadTr { bytes: 8, bits: 16 },
        "read_b96_tr_b6" => DsOp::LoadTr { bytes: 12, bits: 6 },
        "nop" => DsOp::Nop,
        "append" => DsOp::Append { consume: false },
        "consume" => DsOp::Append { consume: true },
        "bpermute_b32" => DsOp::Bpermute,
        "permute_b32" => DsOp::Permute,
        "swizzle_b32" => DsOp::Swizzle,
        n => {
            let (ret, a) = match n.strip_suffix("_rtn_b32").or_else(|| n.strip_suffix("_rtn_b64")) {
                Some(_) => (true, n.replacen("_rtn", "", 1)),
                None => (n.contains("_rtn_"), n.replace("_rtn_", "_")),
            };
            // gfx9 spellings: CMPST compares with DATA and stores DATA2 (as the cmpswap staging
            // reads them); WRXCHG is a swap.
            let a = match a.as_str() {
                "cmpst_b32" => "cmpswap_b32".to_string(),
                "cmpst_b64" => "cmpswap_b64".to_string(),
                "wrxchg_b32" => "swap_b32".to_string(),
                "wrxchg_b64" => "swap_b64".to_string(),
                _ => a,
            };
            let (op, wide) = atomic_op(&a).ok_or_else(unsupported)?;
            DsOp::Atomic { op, wide, ret }
        }
    };
    // gfx90a+: the data and destination registers are AGPRs when `acc` is set.
    let acc = if gfx9 && gfx9::acc_fields(i) { gfx9::ACC } else { 0 };
    Ok(Op::Ds(Ds {
        op,
        vdst: i.f("vdst") as u16 + acc,
        addr: i.f("addr") as u16,
        data0: i.f("data0") as u16 + acc,
        data1: i.f("data1") as u16 + acc,
        off0,
        off1,
    }))
}
