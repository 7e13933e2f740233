//! One table of symbolic names, shared by the assembler (name -> value) and the disassembler
//! (value -> name), per architecture: hardware registers, messages, special registers, swizzle and
//! DPP controls, export targets, cache policies, buffer formats, and the fields of the wait counters.
//!
//! Each concept's module offers lookups in both directions (`name(arch, value)` and
//! `value(arch, name)`-style functions) and, for the composite operands (`hwreg(...)`,
//! `sendmsg(...)`, `swizzle(...)`, `s_waitcnt` counters), `text` and `parse` functions that are
//! inverses of each other on every value `text` prints.

pub mod buf_fmt;
pub mod cpol;
pub mod dpp;
pub mod exp;
pub mod hwreg;
pub mod sendmsg;
pub mod sreg;
pub mod swizzle;
pub mod uc_version;
pub mod waitcnt;

/// The name of `v` in a (value, name) table.
pub(crate) fn name_of(table: &[(u32, &'static str)], v: u32) -> Option<&'static str> {
    table.iter().find(|e| e.0 == v).map(|e| e.1)
}

/// The value of `name` in a (value, name) table.
pub(crate) fn value_of(table: &[(u32, &'static str)], name: &str) -> Option<u32> {
    table.iter().find(|e| e.1 == name).map(|e| e.0)
}

/// An integer as llvm-mc accepts it in a named operand's argument: decimal or 0x hex, with an
/// optional minus sign.
pub(crate) fn int(s: &str) -> Option<i64> {
    crate::asm::operand::parse_int(s.trim())
}

/// The comma-separated arguments of `kind(...)`, trimmed; `None` if `s` is not of that form.
pub(crate) fn call_args<'a>(s: &'a str, kind: &str) -> Option<Vec<&'a str>> {
    let inner = s.trim().strip_prefix(kind)?.trim_start().strip_prefix('(')?.strip_suffix(')')?;
    Some(inner.split(',').map(str::trim).collect())
}
