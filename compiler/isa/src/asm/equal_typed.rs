//! A quick proof that a candidate's decoded operands and modifiers are the line's: most lines
//! are written as llvm-mc prints them, so their typed form equals the decoded one item by item,
//! and then every rule of `verify::same_typed` holds (an equal value passes each of its
//! comparisons). Anything else (modifiers on either side, selector lists, `.h` halves, values
//! compared by their code) is left to `same_typed`: this only ever answers "the same".

use baregpu_autogen::isa::OperandKind;

use super::value::{Modifier, Operand, Typed, Val};
use super::verify::{split_extra, SELECTOR_LISTS};
use crate::inst::Instruction;

/// True when `w` (the line) and `g` (the candidate decoded) are equal as `same_typed` reads
/// them; false means only "not shown here", not a mismatch.
pub(super) fn equal(i: &Instruction, w: &Typed, g: &Typed) -> bool {
    let kinds = i.operands();
    if w.ops.len() != g.ops.len() || w.mods.len() != g.mods.len() {
        return false;
    }
    // No operand read as a modifier (`split_extra`), no implied VCC destination (which
    // `same_typed` drops from the decoded side).
    // (Asked only past the table's operands, where `split_extra` may move one.)
    let moved = |t: &Typed| t.ops.len() > kinds.len() && split_extra(t, kinds.len()).0.len() != t.ops.len();
    if moved(w) || moved(g) {
        return false;
    }
    if super::parser::implicit_vcc(i.format().name, i.mnemonic(), w.ops.len(), kinds) {
        return false;
    }
    let by_field = |k: usize| kinds.get(k).is_some_and(|o| matches!(o.kind, OperandKind::Hwreg | OperandKind::Sendmsg));
    let ops = w.ops.iter().zip(&g.ops).enumerate().all(|(k, (a, b))| !by_field(k) && same_operand(a, b));
    ops && w.mods.iter().zip(&g.mods).all(|(a, b)| same_modifier(a, b))
}

/// Plain operands of equal value. A `.h` half is left to `same_typed` (it may imply an
/// `op_sel`); a half left implicit is the low one, as `same_typed` reads registers.
fn same_operand(a: &Operand, b: &Operand) -> bool {
    a.plain()
        && b.plain()
        && match (&a.val, &b.val) {
            (Val::Reg(x), Val::Reg(y)) => {
                let hi = |r: &super::operand::Reg| r.hi.unwrap_or(false);
                x.hi != Some(true) && x.file == y.file && x.first == y.first && x.count == y.count && hi(x) == hi(y)
            }
            (Val::Int(x), Val::Int(y)) => x == y,
            (Val::Name(x), Val::Name(y)) => x == y,
            _ => false,
        }
}

/// The same modifier with an equal value, in the same place. Selector lists (cut to the
/// sources by `same_typed`) and values compared by their code (`th`, `scope`, `dim`) are left to
/// `same_typed`.
fn same_modifier(a: &Modifier, b: &Modifier) -> bool {
    if a.name != b.name || SELECTOR_LISTS.contains(&a.name) || matches!(a.name, "th" | "scope" | "dim") {
        return false;
    }
    match (&a.val, &b.val) {
        (None, None) => true,
        (Some(Val::Int(x)), Some(Val::Int(y))) => x == y,
        (Some(Val::Name(x)), Some(Val::Name(y))) => x == y,
        (Some(Val::List(x)), Some(Val::List(y))) => x == y,
        (Some(Val::Names(x)), Some(Val::Names(y))) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::decoded::decoded;
    use crate::asm::lexer::split_line;
    use crate::asm::value::typed;
    use crate::Arch;

    /// Over the golden vectors, each with the lowest bit of each field flipped: wherever the
    /// quick proof answers "the same", `same_typed` does too; and it answers for most lines as
    /// written (it is the common path, not a dead one).
    #[test]
    fn equal_only_where_same_typed() {
        for arch in Arch::ALL {
            let (mut lines, mut shown, mut flips_shown) = (0, 0, 0);
            for (text, b) in crate::golden_vectors::golden(arch) {
                let text = text.as_str();
                let Ok(i) = crate::decode(arch, &b) else { continue };
                let Some(l) = split_line(text, 1) else { continue };
                let w = typed(&l);
                let Some(g) = decoded(&i) else { continue };
                lines += 1;
                if equal(&i, &w, &g) {
                    assert!(super::super::verify::same_typed(&i, &w, &g), "{}: '{text}'", arch.name());
                    shown += 1;
                }
                for f in i.format().fields.iter().filter(|f| f.name != "op") {
                    let mut m = i;
                    if !m.set_field(f.name, i.f(f.name) ^ 1) {
                        continue;
                    }
                    let Some(g) = decoded(&m) else { continue };
                    if equal(&m, &w, &g) {
                        let msg = format!("{}: '{text}' with {} flipped", arch.name(), f.name);
                        assert!(super::super::verify::same_typed(&m, &w, &g), "{msg}");
                        flips_shown += 1;
                    }
                }
            }
            eprintln!("{}: {shown} of {lines} lines shown equal; {flips_shown} flipped words", arch.name());
            assert!(shown * 2 > lines, "{}: only {shown} of {lines}", arch.name());
        }
    }
}
