//! Symbolic operands written as one expression: `s_waitcnt vmcnt(0) lgkmcnt(0)`, `s_delay_alu`,
//! `s_waitcnt_depctr`, hwreg(...)/sendmsg(...), gpr_idx(...), export targets.

use super::lexer::{Line, Tok};
use super::operand::{parse_int, parse_reg};
use super::parser::{err, PErr};
use crate::inst::Instruction;
use crate::names;
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

pub(super) fn simm16(arch: Arch, m: &str, t: &Tok) -> Result<u32, PErr> {
    let s = t.text;
    if let Some(v) = parse_int(s) {
        if !(-32768..=65535).contains(&v) {
            return err(t, format!("immediate {s} out of range for 16 bits"));
        }
        return Ok(v as u32 & 0xffff);
    }
    match m {
        "s_waitcnt" => names::waitcnt::parse(arch, s).map_err(|e| (t.col, e)),
        "s_delay_alu" => names::waitcnt::delay_alu_parse(s).map_err(|e| (t.col, e)),
        "s_waitcnt_depctr" | "s_wait_alu" => names::waitcnt::depctr_parse(s).map_err(|e| (t.col, e)),
        "s_set_gpr_idx_on" | "s_set_gpr_idx_mode" => gpr_idx(s).ok_or((t.col, format!("bad gpr_idx '{s}'"))),
        _ => err(t, format!("expected an immediate, found '{s}'")),
    }
}
