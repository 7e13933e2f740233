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

/// The words of an export line: target, four sources (`off` for none), then modifiers; llvm-mc
/// takes commas or blanks between them.
pub(super) fn exp_words<'a>(line: &Line<'a>) -> Vec<Tok<'a>> {
    super::lexer::split_top(line.rest.text, line.rest.col, super::lexer::SEP_COMMA | super::lexer::SEP_BLANK)
}

pub(super) fn exp(i: &mut Instruction, line: &Line) -> Result<(), PErr> {
    let words = exp_words(line);
    let Some(t) = words.first() else { return err(&line.rest, "export needs a target") };
    let target = t.text;
    let bad = || (t.col, format!("bad export target '{target}'"));
    let tv = names::exp::value(target).ok_or_else(|| (t.col, format!("unknown export target '{target}'")))?;
    if !i.set_field("target", tv) {
        return Err(bad());
    }
    let mut en = 0;
    for (k, w) in words.iter().skip(1).enumerate() {
        let set = |i: &mut Instruction, f: &str| {
            if i.set_field(f, 1) {
                Ok(())
            } else {
                err(w, format!("'{}' is not valid here", w.text))
            }
        };
        match w.text {
            "off" if k < 4 => {}
            r if k < 4 => {
                let reg = parse_reg(r).filter(|g| g.file == 'v' && g.count == 1 && g.first < 256);
                let reg = reg.ok_or_else(|| (w.col, format!("expected a VGPR or off, found '{r}'")))?;
                i.set_field(&format!("vsrc{k}"), reg.first);
                en |= 1 << k;
            }
            "done" => set(i, "done")?,
            "row_en" => set(i, "row")?,
            _ => return err(w, format!("unknown modifier '{}'", w.text)),
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
        // `UC_VERSION_GFX10|UC_VERSION_W32_BIT`: the names llvm-mc 22 takes on gfx11+.
        "s_version" => super::expr::eval(s, &mut |n| names::uc_version::value(n).map(i64::from))
            .filter(|v| (0..=0xffff).contains(v))
            .map(|v| v as u32)
            .ok_or_else(|| (t.col, format!("bad version '{s}'"))),
        "s_set_gpr_idx_on" | "s_set_gpr_idx_mode" => gpr_idx(s).ok_or_else(|| (t.col, format!("bad gpr_idx '{s}'"))),
        _ => err(t, format!("expected an immediate, found '{s}'")),
    }
}
