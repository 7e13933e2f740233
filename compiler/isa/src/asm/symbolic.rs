//! Symbolic operands written as one expression: `s_waitcnt vmcnt(0) lgkmcnt(0)`, `s_delay_alu`,
//! `s_waitcnt_depctr`, hwreg(...)/sendmsg(...), gpr_idx(...), export targets.

use super::lexer::{Line, Tok};
use super::operand::{parse_int, parse_reg};
use super::parser::{err, PErr};
use crate::disasm::special;
use crate::inst::Instruction;
use crate::operand::is_gfx9;
use crate::Arch;

pub(super) fn gpr_idx(s: &str) -> Option<u32> {
    let inner = s.strip_prefix("gpr_idx(")?.strip_suffix(')')?;
    let mut v = 0;
    for p in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let b = ["SRC0", "SRC1", "SRC2", "DST"].iter().position(|x| *x == p)?;
        if v & 1 << b != 0 {
            return None;
        }
        v |= 1 << b;
    }
    Some(v)
}

pub(super) fn exp(i: &mut Instruction, line: &Line) -> Result<(), PErr> {
    let rest = &line.rest;
    let (target, tail) =
        rest.text.split_once(char::is_whitespace).ok_or((rest.col, "export needs a target".to_string()))?;
    let tv = match target {
        "mrtz" => 8,
        "null" => 9,
        "prim" => 20,
        _ => {
            if let Some(n) = target.strip_prefix("mrt") {
                n.parse().map_err(|_| (rest.col, "bad target".to_string()))?
            } else if let Some(n) = target.strip_prefix("pos") {
                12 + n.parse::<u32>().map_err(|_| (rest.col, "bad target".to_string()))?
            } else if let Some(n) = target.strip_prefix("param") {
                32 + n.parse::<u32>().map_err(|_| (rest.col, "bad target".to_string()))?
            } else {
                return err(rest, format!("unknown export target '{target}'"));
            }
        }
    };
    i.set_field("target", tv);
    let col = rest.col + target.len() + 1;
    let parts = super::lexer::split_top(tail, col, |c| c == ',');
    let mut en = 0;
    for (k, p) in parts.iter().enumerate() {
        let mut words = p.text.split_whitespace();
        let r = words.next().unwrap_or("");
        if k < 4 && r != "off" {
            let reg = parse_reg(r).ok_or((p.col, format!("expected a register, found '{r}'")))?;
            i.set_field(&format!("vsrc{k}"), reg.first);
            en |= 1 << k;
        }
        for w in words {
            match w {
                "done" => {
                    i.set_field("done", 1);
                }
                "row_en" => {
                    i.set_field("row", 1);
                }
                _ => return err(p, format!("unknown modifier '{w}'")),
            }
        }
    }
    i.set_field("en", en);
    Ok(())
}

pub(super) fn special_parse(arch: Arch, kind: &str, s: &str) -> Option<u32> {
    let inner = s.strip_prefix(kind)?.strip_prefix('(')?.strip_suffix(')')?;
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    let first = |names: &dyn Fn(u32) -> Option<&'static str>, max: u32| -> Option<u32> {
        parse_int(parts[0]).map(|v| v as u32).or_else(|| (0..max).find(|&k| names(k) == Some(parts[0])))
    };
    if kind == "hwreg" {
        let id = first(&|k| special::hwreg_name(arch, k), 64)?;
        let (off, size) =
            if parts.len() == 3 { (parse_int(parts[1])? as u32, parse_int(parts[2])? as u32) } else { (0, 32) };
        if id > 63 || off > 31 || size == 0 || size > 32 {
            return None;
        }
        Some(id | off << 6 | (size - 1) << 11)
    } else {
        let id = first(&|k| special::sendmsg_name(arch, k), 256)?;
        let op_code = |p: &str| {
            parse_int(p).map(|v| v as u32).or_else(|| {
                special::GS_OPS
                    .iter()
                    .position(|x| *x == p)
                    .map(|k| k as u32)
                    .or_else(|| (1..8).find(|&k| special::sysmsg_op(k) == Some(p)))
            })
        };
        let (op, st) = if parts.len() >= 2 {
            (op_code(parts[1])?, parse_int(parts.get(2).unwrap_or(&"0"))? as u32)
        } else {
            (0, 0)
        };
        if is_gfx9(arch) {
            Some(id | op << 4 | st << 8)
        } else {
            Some(id | op << 8)
        }
    }
}

pub(super) fn simm16(arch: Arch, m: &str, t: &Tok) -> Result<u32, PErr> {
    let s = t.text;
    if let Some(v) = parse_int(s) {
        if !(-32768..=65535).contains(&v) {
            return err(t, format!("immediate {s} out of range for 16 bits"));
        }
        return Ok(v as u32 & 0xffff);
    }
    match m {
        "s_waitcnt" => {
            let g9 = is_gfx9(arch);
            let (mut vm, mut ex, mut lg) = (63u32, 7u32, if g9 { 15 } else { 63 });
            for p in s.split(|c: char| c.is_whitespace() || c == '&' || c == ',').filter(|x| !x.is_empty()) {
                let (n, v) =
                    p.strip_suffix(')').and_then(|x| x.split_once('(')).ok_or((t.col, format!("bad counter '{p}'")))?;
                let v = parse_int(v).ok_or((t.col, format!("bad counter '{p}'")))? as u32;
                match n {
                    "vmcnt" => vm = v,
                    "expcnt" => ex = v,
                    "lgkmcnt" => lg = v,
                    _ => return err(t, format!("unknown counter '{n}'")),
                }
            }
            Ok(if g9 { (vm & 0xf) | (vm >> 4 & 3) << 14 | ex << 4 | lg << 8 } else { vm << 10 | ex | lg << 4 })
        }
        "s_delay_alu" => {
            let mut v = 0;
            for p in s.split('|').map(str::trim) {
                let (n, x) =
                    p.strip_suffix(')').and_then(|x| x.split_once('(')).ok_or((t.col, format!("bad field '{p}'")))?;
                let ids = [
                    "NO_DEP",
                    "VALU_DEP_1",
                    "VALU_DEP_2",
                    "VALU_DEP_3",
                    "VALU_DEP_4",
                    "TRANS32_DEP_1",
                    "TRANS32_DEP_2",
                    "TRANS32_DEP_3",
                    "FMA_ACCUM_CYCLE_1",
                    "SALU_CYCLE_1",
                    "SALU_CYCLE_2",
                    "SALU_CYCLE_3",
                ];
                let skips = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];
                match n {
                    "instid0" => v |= ids.iter().position(|y| *y == x).ok_or((t.col, format!("bad '{x}'")))? as u32,
                    "instskip" => {
                        v |= (skips.iter().position(|y| *y == x).ok_or((t.col, format!("bad '{x}'")))? as u32) << 4
                    }
                    "instid1" => {
                        v |= (ids.iter().position(|y| *y == x).ok_or((t.col, format!("bad '{x}'")))? as u32) << 7
                    }
                    _ => return err(t, format!("unknown field '{n}'")),
                }
            }
            Ok(v)
        }
        "s_waitcnt_depctr" | "s_wait_alu" => {
            let mut v = 0u32;
            let mut seen = 0u32;
            for p in s.split_whitespace() {
                let (n, x) =
                    p.strip_suffix(')').and_then(|x| x.split_once('(')).ok_or((t.col, format!("bad field '{p}'")))?;
                let (_, lo, w) =
                    special::DEPCTR.iter().find(|d| d.0 == n).ok_or((t.col, format!("unknown field '{n}'")))?;
                let x = parse_int(x).ok_or((t.col, format!("bad value '{x}'")))? as u32;
                if x >= 1 << w {
                    return err(t, format!("{n} value {x} out of range"));
                }
                v = (v & !(((1 << w) - 1) << lo)) | x << lo;
                seen |= ((1 << w) - 1) << lo;
            }
            for (_, lo, w) in special::DEPCTR {
                if seen >> lo & 1 == 0 {
                    v |= ((1 << w) - 1) << lo;
                }
            }
            Ok(v)
        }
        "s_set_gpr_idx_on" | "s_set_gpr_idx_mode" => gpr_idx(s).ok_or((t.col, format!("bad gpr_idx '{s}'"))),
        _ => err(t, format!("expected an immediate, found '{s}'")),
    }
}
