//! Hardware tables for AMD GPUs, generated from the pinned linux-source-6.12 headers:
//!
//! - `amd/pm4_nv.rs`, `amd/pm4_soc15.rs`: PM4 packet constants and field encoders ([`pm4`]);
//! - `amd/pm4_mec.rs`: MEC/MES packet enums and bitfield layouts from KFD ([`pm4`]);
//! - `amd/sdma_*.rs`: SDMA packet opcodes and per-packet field layouts ([`sdma`]);
//! - `amd/regs/*.rs`: filtered register offsets, segments and fields per IP block ([`regs`]);
//! - `amd/ip_base.rs`: static IP segment base tables ([`bases`]).
//!
//! Everything is read with a plain-text parser of `#define` lines ([`cdefs`]); no C compiler.

mod bases;
mod cdefs;
mod pm4;
mod regs;
mod sdma;

use crate::inputs::{Input, Inputs, LINUX_SOURCE, LINUX_VERSION};
use crate::Generated;
use std::path::PathBuf;

/// A pinned kernel header.
pub(crate) const fn kernel(path: &'static str, sha256: &'static str) -> Input {
    Input { package: LINUX_SOURCE, version: LINUX_VERSION, path, sha256 }
}

/// The generator entry registered in `GENERATORS`.
pub fn generate(inputs: &Inputs) -> Result<Vec<Generated>, String> {
    let mut out = Vec::new();
    out.extend(pm4::generate(inputs)?);
    out.extend(sdma::generate(inputs)?);
    out.extend(regs::generate(inputs)?);
    out.extend(bases::generate(inputs)?);
    Ok(out)
}

/// Starts a generated Rust module: the banner, the module doc and the lint allowances.
pub(crate) fn module_head(inputs: &[&Input], doc: &str) -> String {
    let mut s = crate::banner("hw", inputs);
    s.push('\n');
    for line in doc.lines() {
        if line.is_empty() {
            s.push_str("//!\n");
        } else {
            s.push_str("//! ");
            s.push_str(line);
            s.push('\n');
        }
    }
    s.push_str("\n#![allow(non_upper_case_globals, non_snake_case, dead_code, clippy::all)]\n");
    s
}

pub(crate) fn file(path: &str, text: String) -> Generated {
    Generated { path: PathBuf::from(path), text }
}

/// Width limit of the workspace's rustfmt configuration.
pub(crate) const MAX_WIDTH: usize = 120;

/// `pub const NAME: TY = VALUE;` laid out the way rustfmt lays it out.
pub(crate) fn const_item(out: &mut String, indent: usize, name: &str, ty: &str, value: &str) {
    let pad = " ".repeat(indent);
    let line = format!("{pad}pub const {name}: {ty} = {value};");
    let next = format!("{pad}    {value};");
    if line.len() <= MAX_WIDTH {
        out.push_str(&line);
    } else if next.len() <= MAX_WIDTH {
        out.push_str(&format!("{pad}pub const {name}: {ty} =\n{next}"));
    } else if let Some((func, args)) = split_call(value) {
        out.push_str(&format!("{pad}pub const {name}: {ty} = {func}(\n"));
        for a in args {
            out.push_str(&format!("{pad}    {a},\n"));
        }
        out.push_str(&format!("{pad});"));
    } else {
        out.push_str(&format!("{pad}pub const {name}: {ty} =\n{next}"));
    }
    out.push('\n');
}

/// `f(a, b)` into `f` and its top-level arguments.
fn split_call(value: &str) -> Option<(&str, Vec<&str>)> {
    let open = value.find('(')?;
    let inner = value[open + 1..].strip_suffix(')')?;
    let (mut depth, mut start, mut args) = (0, 0, Vec::new());
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                args.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    args.push(inner[start..].trim());
    Some((&value[..open], args))
}

/// `pub const fn NAME(a: u32, ...) -> u32 { BODY }` laid out the way rustfmt lays it out.
pub(crate) fn const_fn(out: &mut String, indent: usize, name: &str, params: &[String], body: &str) {
    let pad = " ".repeat(indent);
    let args: Vec<String> = params.iter().map(|p| format!("{p}: u32")).collect();
    out.push_str(&format!("{pad}pub const fn {name}({}) -> u32 {{\n{pad}    {body}\n{pad}}}\n", args.join(", ")));
}

/// Doc comment lines at an indentation.
pub(crate) fn doc(out: &mut String, indent: usize, text: &str) {
    let pad = " ".repeat(indent);
    for line in text.lines() {
        if line.is_empty() {
            out.push_str(&format!("{pad}///\n"));
        } else {
            out.push_str(&format!("{pad}/// {line}\n"));
        }
    }
}

/// `LHS = &[a, b, ...]SUFFIX` laid out the way rustfmt lays it out: on one line when it fits, else
/// the value on its own line, else one item per line, or packed lines when every item is short.
pub(crate) fn list(out: &mut String, indent: usize, lhs: &str, items: &[String], suffix: &str) {
    let pad = " ".repeat(indent);
    let value = format!("&[{}]{suffix}", items.join(", "));
    let one = format!("{pad}{lhs} {value}");
    if one.len() <= MAX_WIDTH || items.is_empty() {
        out.push_str(&one);
        out.push('\n');
        return;
    }
    let two = format!("{pad}    {value}");
    if two.len() <= MAX_WIDTH {
        out.push_str(&format!("{pad}{lhs}\n{two}\n"));
        return;
    }
    out.push_str(&format!("{pad}{lhs} &[\n"));
    if items.iter().all(|i| i.len() <= SHORT_ITEM) {
        // rustfmt packs short items: as many per line as fit, each followed by a comma.
        let mut line = String::new();
        for i in items {
            if !line.is_empty() && pad.len() + 4 + line.len() + 1 + i.len() + 1 > MAX_WIDTH {
                out.push_str(&format!("{pad}    {line}\n"));
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(i);
            line.push(',');
        }
        out.push_str(&format!("{pad}    {line}\n"));
    } else {
        for i in items {
            out.push_str(&format!("{pad}    {i},\n"));
        }
    }
    out.push_str(&format!("{pad}]{suffix}\n"));
}

/// rustfmt's `short_array_element_width_threshold`.
const SHORT_ITEM: usize = 10;

/// Rust keywords that a C name might be; such parameters get a trailing underscore.
pub(crate) fn rust_ident(name: &str) -> String {
    const KW: &[&str] = &[
        "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl",
        "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "static", "struct",
        "super", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract",
        "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
        "gen",
    ];
    if KW.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// Matches `name` against a pattern where `*` stands for any run of characters.
pub(crate) fn glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs() {
        assert!(glob("CP_*", "CP_HQD_ACTIVE"));
        assert!(!glob("CP_*", "CPC_INT"));
        assert!(glob("BIF_BX_PF*_GPU_HDP_FLUSH_*", "BIF_BX_PF1_GPU_HDP_FLUSH_DONE"));
        assert!(glob("GB_ADDR_CONFIG", "GB_ADDR_CONFIG"));
        assert!(!glob("GB_ADDR_CONFIG", "GB_ADDR_CONFIG_READ"));
        assert!(glob("*_HQD_*", "CP_HQD_PQ_BASE"));
    }
}
