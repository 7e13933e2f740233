//! The `isa_ctors` generator: one typed constructor per instruction name for the instruction
//! builder (compiler/isa/src/builder), from the instruction tables of every architecture.
//!
//! A constructor is named after the mnemonic (`s_mov_b32`, `v_add_f32_e64`) or the mnemonic
//! without its encoding suffix (`v_add_f32`, for which the builder picks `_e32` or `_e64` as
//! llvm-mc does). It is a thin wrapper: its operands go to one generic
//! `Ctors::ctor(id, &[operands])`, so the generated code stays small and compiles fast (the
//! methods are generic and only the ones a crate calls are compiled there). Where every
//! encoding of every architecture takes the same number of operands the constructor takes them
//! as arguments named after their fields; otherwise (`v_cmpx_*`: a destination on gfx9, none on
//! gfx11+) it takes a slice.
//!
//! Input: the committed tables (`baregpu_autogen::isa`), with the operand lists the ISA model
//! uses (`baregpu_isa::fixup::operands`). Output: `src/isa/ctors.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use baregpu_isa::{fixup, Arch};

use crate::inputs::Inputs;
use crate::{banner, Generated};

/// The mnemonic without its `_e32` / `_e64` suffix.
fn base(m: &str) -> &str {
    m.strip_suffix("_e32").or_else(|| m.strip_suffix("_e64")).unwrap_or(m)
}

fn is_ident(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A parameter name for an operand: its field (or register) name, made unique.
fn param(name: &str, taken: &mut Vec<String>) -> String {
    let mut p: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    if !is_ident(&p) || matches!(p.as_str(), "self" | "type" | "ref" | "mod" | "in" | "ops") {
        p.insert_str(0, "op_");
    }
    let mut q = p.clone();
    let mut n = 1;
    while taken.contains(&q) {
        n += 1;
        q = format!("{p}{n}");
    }
    taken.push(q.clone());
    q
}

/// One constructor: the operand lists (names) of its encodings, over every architecture.
#[derive(Default)]
struct Ctor {
    arities: BTreeSet<usize>,
    /// The first encoding's operand names, and the architectures that have it.
    names: Option<Vec<&'static str>>,
    archs: BTreeSet<&'static str>,
}

pub fn generate(_inputs: &Inputs) -> Result<Vec<Generated>, String> {
    let mut ctors: BTreeMap<&'static str, Ctor> = BTreeMap::new();
    for arch in Arch::ALL {
        let table = baregpu_autogen::isa::ARCHS
            .iter()
            .find(|a| a.name == arch.name())
            .ok_or_else(|| format!("no table for {}", arch.name()))?;
        // Image instructions are not built yet: their register counts follow their modifiers
        // (dmask, dim), which the constructors do not take.
        for op in table.opcodes.iter().filter(|op| !matches!(op.format, "MIMG" | "VIMAGE" | "VSAMPLE")) {
            let ops = fixup::operands(arch, op);
            for name in [op.mnemonic, base(op.mnemonic)] {
                if !is_ident(name) {
                    return Err(format!("{}: mnemonic '{name}' is not an identifier", arch.name()));
                }
                let c = ctors.entry(name).or_default();
                c.arities.insert(ops.len());
                c.archs.insert(arch.name());
                c.names.get_or_insert_with(|| ops.iter().map(|o| o.name).collect());
            }
        }
    }
    if ctors.len() > u16::MAX as usize {
        return Err(format!("{} constructors do not fit a u16 id", ctors.len()));
    }
    let mut s = banner("isa_ctors", &[]);
    s.push_str(
        "//! Typed instruction constructors, one per instruction name of every architecture \
         (generator\n//! autogen/gen/src/isa/ctors.rs). Each forwards its operands to [`Ctors::ctor`] \
         with the name's\n//! id (its index in [`NAMES`]).\n",
    );
    s.push_str("#![allow(clippy::all, clippy::pedantic)]\n\n");
    s.push_str("/// Every constructor's instruction name, sorted; a constructor's id is its index here.\n");
    s.push_str("pub static NAMES: &[&str] = &[\n");
    for name in ctors.keys() {
        let _ = writeln!(s, "    \"{name}\",");
    }
    s.push_str("];\n\n");
    s.push_str(
        "/// The typed constructors. An implementor encodes `ops` for the instruction name \
         `NAMES[id]`.\npub trait Ctors {\n    /// An operand value.\n    type Op;\n\n    \
         /// Emits the instruction `NAMES[id]` with its operands in assembly order.\n    \
         fn ctor(&mut self, id: u16, ops: &[Self::Op]) -> &mut Self;\n",
    );
    for (id, (name, c)) in ctors.iter().enumerate() {
        let archs: Vec<&str> = c.archs.iter().copied().collect();
        let names = c.names.clone().unwrap_or_default();
        s.push('\n');
        if c.arities.len() == 1 {
            let mut taken = Vec::new();
            let params: Vec<String> = names.iter().map(|n| param(n, &mut taken)).collect();
            let _ = writeln!(s, "    /// `{name} {}` ({}).", names.join(", "), archs.join(", "));
            s.push_str("    #[inline]\n");
            let args: Vec<String> = params.iter().map(|p| format!("{p}: impl Into<Self::Op>")).collect();
            let _ = writeln!(s, "    fn {name}(&mut self, {}) -> &mut Self {{", args.join(", "));
            let vals: Vec<String> = params.iter().map(|p| format!("{p}.into()")).collect();
            let _ = writeln!(s, "        self.ctor({id}, &[{}])", vals.join(", "));
            s.push_str("    }\n");
        } else {
            let ar: Vec<String> = c.arities.iter().map(|a| a.to_string()).collect();
            let _ =
                writeln!(s, "    /// `{name}`: {} operands by architecture ({}).", ar.join(" or "), archs.join(", "));
            s.push_str("    #[inline]\n");
            let _ = writeln!(s, "    fn {name}(&mut self, ops: impl AsRef<[Self::Op]>) -> &mut Self {{");
            let _ = writeln!(s, "        self.ctor({id}, ops.as_ref())");
            s.push_str("    }\n");
        }
    }
    s.push_str("}\n");
    Ok(vec![Generated { path: PathBuf::from("src/isa/ctors.rs"), text: super::rustfmt(&s)? }])
}
