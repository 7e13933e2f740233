//! `s_version` (gfx11+): the microcode version names and flag bits, as llvm-mc 22 reads and prints
//! them (observed from llvm-mc-22 -disassemble on every form below).

/// Version numbers in the low byte.
const VERSIONS: [(u32, &str); 4] =
    [(0, "UC_VERSION_GFX7"), (4, "UC_VERSION_GFX10"), (6, "UC_VERSION_GFX11"), (9, "UC_VERSION_GFX12")];

/// Flag bits, in the order llvm-mc prints them.
const FLAGS: [(u32, &str); 3] =
    [(0x2000, "UC_VERSION_W64_BIT"), (0x4000, "UC_VERSION_W32_BIT"), (0x8000, "UC_VERSION_MDP_BIT")];

/// The value of a version or flag name.
pub fn value(name: &str) -> Option<u32> {
    super::value_of(&VERSIONS, name).or_else(|| super::value_of(&FLAGS, name))
}

/// The operand as llvm-mc prints it: with any of bits 8-12 set, the number in hex; else the
/// version (its name, or the number in decimal) followed by each flag, the earlier ones in
/// parentheses (`(UC_VERSION_GFX12|UC_VERSION_W64_BIT)|UC_VERSION_MDP_BIT`).
pub fn text(v: u32) -> String {
    if v & 0x1f00 != 0 || v > 0xffff {
        return format!("0x{v:x}");
    }
    let version = v & 0xff;
    let mut out = super::name_of(&VERSIONS, version).map_or_else(|| version.to_string(), str::to_string);
    for (k, (_, name)) in FLAGS.iter().filter(|(bit, _)| v & bit != 0).enumerate() {
        out = if k == 0 { format!("{out}|{name}") } else { format!("({out})|{name}") };
    }
    out
}
