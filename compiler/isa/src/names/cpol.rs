//! Cache-policy modifiers: gfx942/gfx950 `sc0 sc1 nt`, gfx11 `glc slc dlc`, and gfx12's
//! temporal hints (`th:TH_*`, named per load/store/atomic) and scopes (`scope:SCOPE_*`).

use crate::Arch;

/// The single-bit cache-policy flags of an architecture, in llvm-mc's print order (`glc` is
/// gfx942's name for `sc0` in some forms; both are fields of the tables).
pub fn flags(arch: Arch) -> &'static [&'static str] {
    match arch {
        Arch::Gfx942 | Arch::Gfx950 => &["glc", "sc0", "nt", "sc1"],
        Arch::Gfx1100 => &["glc", "slc", "dlc"],
        Arch::Gfx1201 => &[],
    }
}

/// The cache-policy flags set in `i`, in [`flags`]' order (their fields found once per format).
pub fn set(i: &crate::inst::Instruction) -> impl Iterator<Item = &'static str> + '_ {
    i.tables().cpol[i.fmt as usize].iter().filter(|f| crate::inst::get(&i.words, f) != 0).map(|f| f.name)
}

/// Which kind of access names gfx12's temporal hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Load,
    Store,
    Atomic,
}

impl Access {
    /// The access kind of a memory instruction, by its mnemonic.
    pub fn of(mnemonic: &str) -> Access {
        if mnemonic.contains("atomic") {
            Access::Atomic
        } else if mnemonic.contains("store") {
            Access::Store
        } else {
            Access::Load
        }
    }
}

/// gfx12 temporal hints as llvm-mc 22 names them: (code, name, scopes at which llvm-mc 22
/// assembles the name to this code, a bit mask over SCOPE_CU..SCOPE_SYS). The first entry for a
/// code and scope is the printed one; later ones (`TH_ATOMIC_RT_RETURN`) are only read. Code 3 of
/// loads and stores is named by the scope (last use or write-back below the system scope, bypass
/// at it). llvm-mc prints the atomic cascades below device scope as `TH_ATOMIC_0x4`, which it does
/// not read, but it reads `TH_ATOMIC_CASCADE_RT` at every scope, so that is printed. Codes with no
/// entry (a load's 7, an atomic's 5 and 7, and `TH_ATOMIC_NT_RETURN` at the system scope, which
/// llvm-mc refuses as a combination) have no spelling llvm-mc reads: they print as numbers.
const TH_LOAD: &[(u32, &str, u8)] = &[
    (1, "TH_LOAD_NT", ANY),
    (2, "TH_LOAD_HT", ANY),
    (3, "TH_LOAD_LU", BELOW_SYS),
    (3, "TH_LOAD_BYPASS", SYS),
    (4, "TH_LOAD_NT_RT", ANY),
    (5, "TH_LOAD_RT_NT", ANY),
    (6, "TH_LOAD_NT_HT", ANY),
];
const TH_STORE: &[(u32, &str, u8)] = &[
    (1, "TH_STORE_NT", ANY),
    (2, "TH_STORE_HT", ANY),
    (3, "TH_STORE_WB", BELOW_SYS),
    (3, "TH_STORE_BYPASS", SYS),
    (4, "TH_STORE_NT_RT", ANY),
    (5, "TH_STORE_RT_NT", ANY),
    (6, "TH_STORE_NT_HT", ANY),
    (7, "TH_STORE_NT_WB", ANY),
];
const TH_ATOMIC: &[(u32, &str, u8)] = &[
    (1, "TH_ATOMIC_RETURN", ANY),
    (1, "TH_ATOMIC_RT_RETURN", ANY),
    (2, "TH_ATOMIC_NT", ANY),
    (3, "TH_ATOMIC_NT_RETURN", BELOW_SYS),
    (4, "TH_ATOMIC_CASCADE_RT", ANY),
    (6, "TH_ATOMIC_CASCADE_NT", ANY),
];
const ANY: u8 = 0b1111;
const BELOW_SYS: u8 = 0b0111;
const SYS: u8 = 0b1000;

/// Names of the default hint (code 0) that llvm-mc reads for every access kind.
const TH_DEFAULT: [&str; 4] = ["TH_DEFAULT", "TH_LOAD_RT", "TH_STORE_RT", "TH_ATOMIC_RT"];

fn th_table(a: Access) -> &'static [(u32, &'static str, u8)] {
    match a {
        Access::Load => TH_LOAD,
        Access::Store => TH_STORE,
        Access::Atomic => TH_ATOMIC,
    }
}

/// The name of a gfx12 temporal hint at a scope that llvm-mc 22 reads back to the same code and
/// scope; `None` for 0 (the default, printed as nothing) and for codes no name spells there.
pub fn th_name(a: Access, th: u32, scope: u32) -> Option<&'static str> {
    th_table(a).iter().find(|e| e.0 == th && e.2 >> scope & 1 != 0).map(|e| e.1)
}

/// A gfx12 temporal hint as printed: its name where one reads back, else its code in hex (which
/// our assembler reads; llvm-mc has no spelling for it).
pub fn th_text(a: Access, th: u32, scope: u32) -> String {
    match th_name(a, th, scope) {
        Some(n) => n.to_string(),
        None => format!("0x{th:x}"),
    }
}

/// The code of a temporal hint written for an access kind: a name of that kind, a default name,
/// or a number that fits the 3-bit field.
pub fn th_value(a: Access, text: &str) -> Option<u32> {
    if TH_DEFAULT.contains(&text) {
        return Some(0);
    }
    if let Some(e) = th_table(a).iter().find(|e| e.1 == text) {
        return Some(e.0);
    }
    super::int(text).and_then(|v| u32::try_from(v).ok()).filter(|&v| v < 8)
}

/// The code of a temporal hint name or number of any access kind (for comparing two spellings
/// already checked against their instruction).
pub fn th_code(text: &str) -> Option<u32> {
    [Access::Load, Access::Store, Access::Atomic].into_iter().find_map(|a| th_value(a, text))
}

/// gfx12 scopes, by code.
pub const SCOPES: [&str; 4] = ["SCOPE_CU", "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS"];

pub fn scope_name(v: u32) -> Option<&'static str> {
    SCOPES.get(v as usize).copied()
}

/// The code of a scope, by name or number.
pub fn scope(text: &str) -> Option<u32> {
    match SCOPES.iter().position(|x| *x == text) {
        Some(k) => Some(k as u32),
        None => super::int(text).and_then(|v| u32::try_from(v).ok()).filter(|&v| v < 4),
    }
}

/// The gfx12 `th:` and `scope:` modifiers of a `scope_th` field (hint in bits 2..4), in
/// llvm-mc's order, each left out at its default.
pub fn push_th_scope(a: Access, scope_th: u32, out: &mut String) {
    let (th, scope) = (scope_th >> 2, scope_th & 3);
    if th != 0 {
        out.push_str(" th:");
        out.push_str(&th_text(a, th, scope));
    }
    if let Some(n) = scope_name(scope).filter(|_| scope != 0) {
        out.push_str(" scope:");
        out.push_str(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code prints as text that reads back to it, at every scope and access kind.
    #[test]
    fn th_round_trips() {
        for a in [Access::Load, Access::Store, Access::Atomic] {
            for th in 0..8 {
                for scope in 0..4 {
                    assert_eq!(th_value(a, &th_text(a, th, scope)), Some(th), "{a:?} {th} {scope}");
                    assert_eq!(th_code(&th_text(a, th, scope)), Some(th));
                }
            }
        }
    }

    #[test]
    fn names_by_kind_and_scope() {
        assert_eq!(th_name(Access::Atomic, 4, 0), Some("TH_ATOMIC_CASCADE_RT"));
        assert_eq!(th_name(Access::Atomic, 5, 2), None);
        assert_eq!(th_name(Access::Atomic, 3, 3), None);
        assert_eq!(th_name(Access::Load, 3, 3), Some("TH_LOAD_BYPASS"));
        assert_eq!(th_name(Access::Store, 3, 1), Some("TH_STORE_WB"));
        assert_eq!(th_name(Access::Load, 7, 0), None);
        assert_eq!(th_value(Access::Store, "TH_LOAD_NT"), None);
        assert_eq!(th_value(Access::Store, "TH_LOAD_RT"), Some(0));
        assert_eq!(th_value(Access::Atomic, "TH_ATOMIC_RT_RETURN"), Some(1));
        assert_eq!(th_value(Access::Load, "0x8"), None);
        assert_eq!(scope("2"), Some(2));
        assert_eq!(scope("SCOPE_SYS"), Some(3));
        assert_eq!(scope("4"), None);
    }
}
