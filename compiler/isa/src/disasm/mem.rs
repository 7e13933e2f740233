//! Memory and export formats: SMEM, DS, FLAT/GLOBAL/SCRATCH, MUBUF/MTBUF, VBUFFER, LDSDIR, EXP.

use baregpu_autogen::isa::OperandKind;

use super::src_text;
use crate::inst::Instruction;
use crate::names::{buf_fmt, cpol as cp, swizzle};
use crate::operand::{is_gfx9, reg_range, sreg_text, ValType};
use crate::Arch;

pub fn text(i: &Instruction) -> String {
    let f = i.format();
    match f.name {
        "SMEM" => smem(i),
        "EXP" => exp(i),
        "LDSDIR" => ldsdir(i),
        _ => generic(i),
    }
}

fn join(m: &str, ops: &[String], mods: &str) -> String {
    let mut s = m.to_string();
    if !ops.is_empty() {
        s.push(' ');
        s.push_str(&ops.join(", "));
    }
    s.push_str(mods);
    s
}

pub(crate) fn null_sgpr(arch: Arch) -> u32 {
    if is_gfx9(arch) {
        0x7f
    } else {
        0x7c
    }
}

fn smem(i: &Instruction) -> String {
    let op = i.opcode();
    let g9 = is_gfx9(i.arch);
    let mut ops = Vec::new();
    let mut mods = String::new();
    for o in i.operands() {
        let d = o.dwords.max(1) as u32;
        match o.kind {
            OperandKind::Sgpr if o.name == "sbase" => {
                ops.push(sreg_text(i.arch, (i.f(o.name) * 2) as u16, d).unwrap_or_default())
            }
            OperandKind::Sgpr => ops.push(sreg_text(i.arch, i.f(o.name) as u16, d).unwrap_or_default()),
            OperandKind::Imm if o.name == "sdata" => {
                let v = i.f("sdata");
                ops.push(if v <= 64 { v.to_string() } else { format!("0x{v:x}") })
            }
            OperandKind::Offset | OperandKind::Ssrc | OperandKind::Imm => {
                let off = i.f("offset");
                if g9 {
                    let (imm, soe) = (i.f("imm"), i.f("soe"));
                    // A 21-bit signed byte offset.
                    let off = hex_signed(sext(off, 21));
                    if soe != 0 {
                        // SGPR plus immediate: llvm-mc prints the offset even when it is 0.
                        ops.push(sreg_text(i.arch, i.f("soffset") as u16, 1).unwrap_or_default());
                        if imm != 0 {
                            mods.push_str(&format!(" offset:{off}"));
                        }
                    } else if imm != 0 {
                        ops.push(off);
                    } else {
                        ops.push(sreg_text(i.arch, i.f("offset") as u16, 1).unwrap_or_default());
                    }
                } else if i.operands().iter().any(|o| o.name == "soffset") {
                    // soffset is an operand of its own (s_prefetch_*): the offset is always shown.
                    let bits = if i.arch == Arch::Gfx1201 { 24 } else { 21 };
                    ops.push(hex_signed(sext(off, bits)));
                } else {
                    let so = i.f("soffset");
                    let off = if i.arch == Arch::Gfx1201 { sext(off, 24) } else { sext(off, 21) };
                    if so != null_sgpr(i.arch) {
                        ops.push(sreg_text(i.arch, so as u16, 1).unwrap_or_default());
                        // gfx12 prints the offset beside a register soffset even when it is 0.
                        if off != 0 || i.arch == Arch::Gfx1201 {
                            mods.push_str(&format!(" offset:{}", hex_signed(off)));
                        }
                    } else if off == 0 && i.arch == Arch::Gfx1100 {
                        // gfx11 llvm-mc prints the null soffset for no offset at all.
                        ops.push("null".to_string());
                    } else {
                        ops.push(hex_signed(off));
                    }
                }
            }
            OperandKind::Special => ops.push(o.name.to_string()),
            _ => ops.push(i.f(o.name).to_string()),
        }
    }
    cpol(i, &mut mods);
    join(op.mnemonic, &ops, &mods)
}

fn hex_signed(v: i64) -> String {
    if v < 0 {
        format!("-0x{:x}", -v)
    } else {
        format!("0x{v:x}")
    }
}

pub(crate) fn sext(v: u32, bits: u32) -> i64 {
    let v = v as i64;
    if v >> (bits - 1) & 1 != 0 {
        v - (1 << bits)
    } else {
        v
    }
}

/// Cache-policy flags in llvm-mc's order.
fn cpol(i: &Instruction, out: &mut String) {
    for n in cp::set(i) {
        out.push_str(&format!(" {n}"));
    }
    if let Some(st) = i.field("scope_th") {
        cp::push_th_scope(cp::Access::of(i.mnemonic()), st, out);
    }
}

/// A global wave sync operation (`ds_gws_init`...).
pub(crate) fn gws(mnemonic: &str) -> bool {
    mnemonic.starts_with("ds_gws_")
}

pub(crate) fn returns(i: &Instruction) -> bool {
    match i.arch {
        Arch::Gfx942 | Arch::Gfx950 => i.f("sc0") != 0,
        Arch::Gfx1100 => i.f("glc") != 0,
        Arch::Gfx1201 => i.f("scope_th") >> 2 & 1 != 0,
    }
}

/// A returning atomic without a destination operand of its own prints its `vdst` field first,
/// as many registers as its data operand (half of a compare-swap's): (first, count).
pub(crate) fn atomic_ret_dst(i: &Instruction) -> Option<(u32, u32)> {
    let m = i.mnemonic();
    let fam = i.format().name;
    if i.tables().mnem[i.op as usize] & crate::tables::MNEM_ATOMIC == 0
        || !returns(i)
        || i.operands().iter().any(|o| o.name == "vdst" || o.name == "vdata" && crate::substr::has(fam, "BUF"))
    {
        return None;
    }
    let d = i.operands().iter().find(|o| o.name == "data" || o.name == "data0" || o.name == "vsrc")?;
    let n = if crate::substr::has(m, "cmpswap") || crate::substr::has(m, "cmpst") {
        (d.dwords / 2).max(1)
    } else {
        d.dwords
    };
    Some((i.f("vdst"), n as u32))
}

fn generic(i: &Instruction) -> String {
    let op = i.opcode();
    let m = op.mnemonic;
    let f = i.format();
    let g9 = is_gfx9(i.arch);
    let fam = f.name;
    let acc = i.field("acc").unwrap_or(0) != 0;
    let mut ops = Vec::new();
    let mut mods = String::new();
    if let Some((first, n)) = atomic_ret_dst(i) {
        ops.push(reg_range(if acc { "a" } else { "v" }, first, n));
    }
    let buf = matches!(fam, "MUBUF" | "MTBUF" | "VBUFFER");
    let (offen, idxen) = (i.field("offen").unwrap_or(0) != 0, i.field("idxen").unwrap_or(0) != 0);
    let lds = lds_load(i);
    for o in i.operands() {
        let d = o.dwords.max(1) as u32;
        let v = i.f(o.name);
        if lds && o.name == "vdata" {
            continue;
        }
        let t = match (o.kind, o.name) {
            (OperandKind::Vgpr | OperandKind::Agpr, "vaddr") if buf => {
                if offen && idxen {
                    reg_range("v", v, 2)
                } else if offen || idxen {
                    reg_range("v", v, 1)
                } else {
                    "off".into()
                }
            }
            // gfx12 names the field vaddr: a 64-bit address when saddr is off.
            (OperandKind::Vgpr | OperandKind::Agpr, "addr" | "vaddr") if fam == "GLOBAL" => {
                let sa = i.f("saddr");
                let null = sa == null_sgpr(i.arch) || g9 && sa == 0x7d;
                reg_range("v", v, if null { 2 } else { 1 })
            }
            (OperandKind::Vgpr | OperandKind::Agpr, "addr" | "vaddr") if fam == "SCRATCH" => {
                let sve = i.field("sve").unwrap_or(1) != 0;
                if !sve {
                    "off".into()
                } else {
                    reg_range("v", v, 1)
                }
            }
            (OperandKind::Vgpr | OperandKind::Agpr, "vdata") if buf && i.field("tfe").unwrap_or(0) != 0 => {
                reg_range(if acc { "a" } else { "v" }, v, d + 1)
            }
            (OperandKind::Vgpr, _) | (OperandKind::Agpr, _) => {
                // gfx9 GWS operations carry their data operand in the addr field.
                let a = o.kind == OperandKind::Agpr
                    || acc && matches!(o.name, "vdst" | "data" | "data0" | "data1" | "vdata")
                    || acc && o.name == "addr" && gws(m);
                reg_range(if a { "a" } else { "v" }, v, d)
            }
            (OperandKind::Sgpr, "saddr") => {
                if v == null_sgpr(i.arch) || g9 && v == 0x7d {
                    "off".into()
                } else {
                    sreg_text(i.arch, v as u16, d).unwrap_or_default()
                }
            }
            (OperandKind::Sgpr, "srsrc" | "rsrc") => {
                let n = if fam == "VBUFFER" { v } else { v * 4 };
                sreg_text(i.arch, n as u16, 4).unwrap_or_default()
            }
            (OperandKind::Sgpr | OperandKind::Ssrc, "soffset") => src_text(i.arch, v, 1, ValType::B32, i.literal),
            (OperandKind::Sgpr, _) => sreg_text(i.arch, v as u16, d).unwrap_or_default(),
            (OperandKind::Off, _) => "off".into(),
            (OperandKind::Special, _) => o.name.to_string(),
            _ => v.to_string(),
        };
        ops.push(t);
    }
    if buf {
        if fam == "MTBUF" || fam == "VBUFFER" && m.starts_with("tbuffer") {
            fmt_mod(i, &mut mods);
        }
        if idxen {
            mods.push_str(" idxen");
        }
        if offen {
            mods.push_str(" offen");
        }
        let off = i.f("offset");
        if off != 0 {
            mods.push_str(&format!(" offset:{off}"));
        }
    }
    if fam == "DS" {
        let (o0, o1) = (i.f("offset0"), i.f("offset1"));
        if two_offsets(m) {
            if o0 != 0 {
                mods.push_str(&format!(" offset0:{o0}"));
            }
            if o1 != 0 {
                mods.push_str(&format!(" offset1:{o1}"));
            }
        } else {
            let off = o0 | o1 << 8;
            if off != 0 {
                if m == "ds_swizzle_b32" {
                    mods.push_str(&format!(" offset:{}", swizzle::text(i.arch, off)));
                } else {
                    mods.push_str(&format!(" offset:{off}"));
                }
            }
        }
        // gfx942/gfx950 have no GDS: llvm-mc ignores the bit, except in the GWS operations,
        // which decode only with it set and always print it.
        if i.field("gds").unwrap_or(0) != 0 && (!g9 || gws(m)) {
            mods.push_str(" gds");
        }
    }
    if matches!(fam, "FLAT" | "GLOBAL" | "SCRATCH") {
        let off = i.f("offset");
        let off = match (i.arch, fam) {
            (Arch::Gfx1201, _) => sext(off, 24),
            (Arch::Gfx1100, "FLAT") => off as i64 & 0xfff,
            // gfx9 plain FLAT: 12-bit unsigned, but llvm-mc prints bit 12 too.
            (_, "FLAT") if g9 => off as i64 & 0x1fff,
            _ => sext(off, 13),
        };
        if off != 0 {
            mods.push_str(&format!(" offset:{off}"));
        }
    }
    cpol(i, &mut mods);
    if i.field("tfe").unwrap_or(0) != 0 {
        mods.push_str(" tfe");
    }
    if fam == "MUBUF" && i.field("lds").unwrap_or(0) != 0 && !crate::substr::has(m, "lds") {
        mods.push_str(" lds");
    }
    join(m, &ops, &mods)
}

/// DS opcodes that access two addresses, with an 8-bit offset each (gfx9 `ds_read2*`,
/// `ds_write2*`, `ds_wrxchg2*`; gfx11+ `*_2addr*`).
pub(crate) fn two_offsets(m: &str) -> bool {
    ["2addr", "_read2", "_write2", "_wrxchg2"].iter().any(|p| crate::substr::has(m, p))
}

/// MUBUF loads with `lds` write to LDS: llvm-mc prints no vdata operand.
pub fn lds_load(i: &Instruction) -> bool {
    is_gfx9(i.arch)
        && i.format().name == "MUBUF"
        && i.field("lds").unwrap_or(0) != 0
        && !crate::substr::has(i.mnemonic(), "lds")
}

fn fmt_mod(i: &Instruction, out: &mut String) {
    if is_gfx9(i.arch) {
        out.push_str(&buf_fmt::dfmt_nfmt_text(i.f("dfmt"), i.f("nfmt")));
    } else {
        out.push_str(&buf_fmt::ufmt_text(i.arch, i.f("format")));
    }
}

fn ldsdir(i: &Instruction) -> String {
    let m = i.mnemonic();
    let mut s = format!("{m} v{}", i.f("vdst"));
    if m == "lds_param_load" || m == "ds_param_load" {
        s.push_str(&format!(", attr{}.{}", i.f("attr"), ["x", "y", "z", "w"][i.f("attrchan") as usize & 3]));
    }
    if i.arch == Arch::Gfx1201 {
        s.push_str(&format!(" wait_va_vdst:{} wait_vm_vsrc:{}", i.f("wait_va_vdst"), i.f("wait_vm_vsrc")));
    } else {
        s.push_str(&format!(" wait_vdst:{}", i.f("wait_va_vdst")));
    }
    s
}

fn exp(i: &Instruction) -> String {
    let t = i.f("target");
    let tn = crate::names::exp::name(t).unwrap_or_else(|| format!("invalid_target_{t}"));
    let en = i.f("en");
    let srcs: Vec<String> = (0..4)
        .map(|k| if en >> k & 1 != 0 { format!("v{}", i.f(&format!("vsrc{k}"))) } else { "off".into() })
        .collect();
    let m = if i.arch == Arch::Gfx1201 { "export" } else { "exp" };
    let mut s = format!("{m} {tn} {}", srcs.join(", "));
    if i.f("done") != 0 {
        s.push_str(" done");
    }
    if i.field("row").unwrap_or(0) != 0 {
        s.push_str(" row_en");
    }
    s
}
