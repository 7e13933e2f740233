//! AMDGPU ELF constants: `amd/elf.rs` from LLVM 22's `BinaryFormat/ELF.h` (EF_AMDGPU_* machine
//! and feature flags, the AMDGPU OS ABI and ABI versions, the NT_AMD*/NT_AMDGPU_* note types) and
//! `ELFRelocs/AMDGPU.def` (R_AMDGPU_* relocation types). Both the code-object loader and writer
//! need them; the `object` crate has only EM_AMDGPU. The header is read as text: these are plain
//! `NAME = value,` enumerators.

use crate::inputs::{Input, Inputs};
use crate::{banner, Generated};
use std::fmt::Write;

const LLVM_DEV: &str = "llvm-22-dev";
const LLVM_VERSION: &str = "1:22.1.8-1~deb12u1";

pub const ELF_H: Input = Input {
    package: LLVM_DEV,
    version: LLVM_VERSION,
    path: "/usr/lib/llvm-22/include/llvm/BinaryFormat/ELF.h",
    sha256: "3bed4e6bc42f8a1dc6ca3af0364c35eb2e28f8b0560db3e575f9f362dcf7cd1a",
};
pub const AMDGPU_RELOCS: Input = Input {
    package: LLVM_DEV,
    version: LLVM_VERSION,
    path: "/usr/lib/llvm-22/include/llvm/BinaryFormat/ELFRelocs/AMDGPU.def",
    sha256: "3b7d257c6010dd62bff19013ac467b0f81f86281fe6c968b21e39746808bc00c",
};

/// Enumerator prefixes taken from ELF.h.
const PREFIXES: &[&str] = &["EF_AMDGPU_", "ELFOSABI_AMDGPU_", "ELFABIVERSION_AMDGPU_", "NT_AMD_", "NT_AMDGPU_"];

/// `NAME = value` enumerators with a literal value (references to other names are skipped).
fn enumerators(text: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim().trim_end_matches(',');
        let Some((name, value)) = line.split_once('=') else { continue };
        let (name, value) = (name.trim(), value.trim());
        if !PREFIXES.iter().any(|p| name.starts_with(p))
            || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            continue;
        }
        let parsed = match value.strip_prefix("0x").or_else(|| value.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => value.parse().ok(),
        };
        if let Some(v) = parsed {
            out.push((name.to_string(), v));
        }
    }
    out
}

/// LLVM's processor name of a machine enumerator: GFX90A → gfx90a, GFX11_GENERIC → gfx11-generic.
fn processor_name(mach: &str) -> Option<String> {
    let rest = mach.strip_prefix("EF_AMDGPU_MACH_AMDGCN_")?;
    if rest.starts_with("RESERVED") || rest == "FIRST" || rest == "LAST" {
        return None;
    }
    let lower = rest.to_ascii_lowercase();
    Some(match lower.strip_suffix("_generic") {
        Some(base) => format!("{}-generic", base.replace('_', "-")),
        None => lower,
    })
}

pub fn generate(inputs: &Inputs) -> Result<Vec<Generated>, String> {
    let elf_h = inputs.read(&ELF_H)?;
    let relocs = inputs.read(&AMDGPU_RELOCS)?;
    let mut s = banner("amdgpu_elf", &[&ELF_H, &AMDGPU_RELOCS]);
    s.push_str(
        "\n//! AMDGPU ELF constants of LLVM 22: machine and feature flags (`e_flags`), the HSA OS ABI and its\n",
    );
    s.push_str("//! ABI versions (code-object versions), note types and relocation types.\n\n");
    s.push_str("#![allow(non_upper_case_globals)]\n\n");
    let values = enumerators(&elf_h);
    if values.len() < 50 {
        return Err(format!("{}: only {} AMDGPU enumerators found", ELF_H.path, values.len()));
    }
    for (name, v) in &values {
        let ty = if *v > u32::MAX as u64 { "u64" } else { "u32" };
        writeln!(s, "pub const {name}: {ty} = {v:#x};").unwrap();
    }
    s.push('\n');
    let mut relocs_out = Vec::new();
    for line in relocs.lines() {
        let Some(args) = line.trim().strip_prefix("ELF_RELOC(").and_then(|l| l.strip_suffix(')')) else { continue };
        let (name, v) = args.split_once(',').ok_or_else(|| format!("{}: bad line {line:?}", AMDGPU_RELOCS.path))?;
        let v: u32 = v.trim().parse().map_err(|_| format!("{}: bad value in {line:?}", AMDGPU_RELOCS.path))?;
        writeln!(s, "pub const {}: u32 = {v};", name.trim()).unwrap();
        relocs_out.push(name.trim().to_string());
    }
    s.push_str("\n/// Every relocation type by name.\npub const RELOCATIONS: &[(&str, u32)] = &[\n");
    for r in &relocs_out {
        writeln!(s, "    (\"{r}\", {r}),").unwrap();
    }
    s.push_str("];\n\n/// `e_flags & EF_AMDGPU_MACH` of every processor, by LLVM's processor name.\n");
    s.push_str("pub const MACHS: &[(&str, u32)] = &[\n");
    for (name, _) in &values {
        if let Some(proc_name) = processor_name(name) {
            if name != "EF_AMDGPU_MACH_AMDGCN_FIRST" && name.starts_with("EF_AMDGPU_MACH_AMDGCN_") {
                writeln!(s, "    (\"{proc_name}\", {name}),").unwrap();
            }
        }
    }
    s.push_str("];\n");
    Ok(vec![Generated { path: "src/amd/elf.rs".into(), text: crate::abi::rustfmt(&s)? }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values() {
        let v = enumerators("  EF_AMDGPU_MACH_AMDGCN_GFX90A          = 0x03f,\n  EF_AMDGPU_MACH_AMDGCN_FIRST = EF_X,\n  NT_AMDGPU_METADATA = 32\n  OTHER = 1,");
        assert_eq!(v, vec![("EF_AMDGPU_MACH_AMDGCN_GFX90A".into(), 0x3f), ("NT_AMDGPU_METADATA".into(), 32)]);
        assert_eq!(processor_name("EF_AMDGPU_MACH_AMDGCN_GFX90A").as_deref(), Some("gfx90a"));
        assert_eq!(processor_name("EF_AMDGPU_MACH_AMDGCN_GFX10_3_GENERIC").as_deref(), Some("gfx10-3-generic"));
        assert_eq!(processor_name("EF_AMDGPU_MACH_AMDGCN_RESERVED_0X40"), None);
    }
}
