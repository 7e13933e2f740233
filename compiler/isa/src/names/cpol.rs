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

/// gfx12 temporal hints as llvm-mc 22 names them: (code, name, scopes it goes with as a bit
/// mask over SCOPE_CU..SCOPE_SYS). Code 3 of loads and stores is named by the scope (last use
/// or write-back below the system scope, bypass at it); the atomic cascades need device scope.
/// Codes without a name here (a load's 7, an atomic's 5 and 7) llvm-mc cannot spell losslessly.
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
    (2, "TH_ATOMIC_NT", ANY),
    (3, "TH_ATOMIC_NT_RETURN", ANY),
    (4, "TH_ATOMIC_CASCADE_RT", DEV_UP),
    (6, "TH_ATOMIC_CASCADE_NT", DEV_UP),
];
const ANY: u8 = 0b1111;
const BELOW_SYS: u8 = 0b0111;
const SYS: u8 = 0b1000;
const DEV_UP: u8 = 0b1100;

fn th_table(a: Access) -> &'static [(u32, &'static str, u8)] {
    match a {
        Access::Load => TH_LOAD,
        Access::Store => TH_STORE,
        Access::Atomic => TH_ATOMIC,
    }
}

/// The name of a gfx12 temporal hint at a scope (0, the default, has none).
pub fn th_name(a: Access, th: u32, scope: u32) -> Option<&'static str> {
    th_table(a).iter().find(|e| e.0 == th && e.2 >> scope & 1 != 0).map(|e| e.1)
}

/// The code of a gfx12 temporal hint name of any access kind.
pub fn th(name: &str) -> Option<u32> {
    [Access::Load, Access::Store, Access::Atomic]
        .into_iter()
        .find_map(|a| th_table(a).iter().find(|e| e.1 == name).map(|e| e.0))
}

/// gfx12 scopes, by code.
pub const SCOPES: [&str; 4] = ["SCOPE_CU", "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS"];

pub fn scope_name(v: u32) -> Option<&'static str> {
    SCOPES.get(v as usize).copied()
}

pub fn scope(name: &str) -> Option<u32> {
    SCOPES.iter().position(|x| *x == name).map(|k| k as u32)
}
