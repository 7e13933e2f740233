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

const TH_LOAD: &[(u32, &str)] = &[
    (1, "TH_LOAD_NT"),
    (2, "TH_LOAD_HT"),
    (3, "TH_LOAD_BYPASS"),
    (4, "TH_LOAD_NT_RT"),
    (5, "TH_LOAD_RT_NT"),
    (6, "TH_LOAD_NT_HT"),
    (7, "TH_LOAD_RT_WB"),
];
const TH_STORE: &[(u32, &str)] = &[
    (1, "TH_STORE_NT"),
    (2, "TH_STORE_HT"),
    (3, "TH_STORE_BYPASS"),
    (4, "TH_STORE_NT_RT"),
    (5, "TH_STORE_RT_NT"),
    (6, "TH_STORE_NT_HT"),
    (7, "TH_STORE_RT_WB"),
];
const TH_ATOMIC: &[(u32, &str)] = &[
    (1, "TH_ATOMIC_RETURN"),
    (2, "TH_ATOMIC_NT"),
    (3, "TH_ATOMIC_NT_RETURN"),
    (4, "TH_ATOMIC_CASCADE_RT"),
    (6, "TH_ATOMIC_CASCADE_NT"),
];

fn th_table(a: Access) -> &'static [(u32, &'static str)] {
    match a {
        Access::Load => TH_LOAD,
        Access::Store => TH_STORE,
        Access::Atomic => TH_ATOMIC,
    }
}

/// The name of a gfx12 temporal hint (0, the default, has none).
pub fn th_name(a: Access, th: u32) -> Option<&'static str> {
    super::name_of(th_table(a), th)
}

/// The code of a gfx12 temporal hint name of any access kind.
pub fn th(name: &str) -> Option<u32> {
    [Access::Load, Access::Store, Access::Atomic].into_iter().find_map(|a| super::value_of(th_table(a), name))
}

/// gfx12 scopes, by code.
pub const SCOPES: [&str; 4] = ["SCOPE_CU", "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS"];

pub fn scope_name(v: u32) -> Option<&'static str> {
    SCOPES.get(v as usize).copied()
}

pub fn scope(name: &str) -> Option<u32> {
    SCOPES.iter().position(|x| *x == name).map(|k| k as u32)
}
