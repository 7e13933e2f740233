//! Mnemonic aliases and deprecated names: the llvm-mc 22 name each stands for, per architecture
//! (`s_add_u32` is `s_add_co_u32` on gfx1201, `v_accvgpr_read` is `v_accvgpr_read_b32` on gfx942).
//! The table is generated and confirmed against llvm-mc (autogen/gen/src/isa/alias.rs).

use baregpu_autogen::isa::aliases;

use crate::Arch;

/// The encoding suffixes an alias keeps (`v_add_u32_e64` is `v_add_nc_u32_e64` on gfx1100), longest
/// first so that `_e64_dpp` is not read as `_dpp`.
const SUFFIXES: &[&str] = &["_e64_dpp", "_e32", "_e64", "_dpp", "_sdwa"];

/// Every (alias, llvm-mc name) pair of an architecture, sorted by alias.
pub fn table(arch: Arch) -> &'static [(&'static str, &'static str)] {
    match arch {
        Arch::Gfx1100 => aliases::GFX1100,
        Arch::Gfx1201 => aliases::GFX1201,
        Arch::Gfx942 => aliases::GFX942,
        Arch::Gfx950 => aliases::GFX950,
    }
}

/// The llvm-mc name that `mnemonic` (an alias or deprecated name, lower case, no suffix) stands
/// for on `arch`; `None` for names that are not aliases there.
pub fn canonical(arch: Arch, mnemonic: &str) -> Option<&'static str> {
    let t = table(arch);
    t.binary_search_by(|(alias, _)| (*alias).cmp(mnemonic)).ok().map(|i| t[i].1)
}

/// `mnemonic` with its alias part replaced by the llvm-mc name and any encoding suffix kept;
/// `None` when it is not an alias on `arch`.
pub fn resolve(arch: Arch, mnemonic: &str) -> Option<String> {
    if let Some(c) = canonical(arch, mnemonic) {
        return Some(c.to_string());
    }
    SUFFIXES.iter().find_map(|s| {
        let base = mnemonic.strip_suffix(s)?;
        canonical(arch, base).map(|c| format!("{c}{s}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_without_duplicates() {
        for arch in Arch::ALL {
            let t = table(arch);
            assert!(t.windows(2).all(|w| w[0].0 < w[1].0), "{}: aliases not sorted or repeated", arch.name());
            assert!(t.iter().all(|(a, _)| canonical(arch, a).is_some()));
        }
    }

    #[test]
    fn lookups() {
        assert_eq!(canonical(Arch::Gfx1201, "s_add_u32"), Some("s_add_co_u32"));
        assert_eq!(canonical(Arch::Gfx1100, "s_add_u32"), None);
        assert_eq!(canonical(Arch::Gfx942, "v_accvgpr_read"), Some("v_accvgpr_read_b32"));
        assert_eq!(canonical(Arch::Gfx1201, "s_add_co_u32"), None);
        assert_eq!(resolve(Arch::Gfx1100, "v_add_u32_e64").as_deref(), Some("v_add_nc_u32_e64"));
        assert_eq!(resolve(Arch::Gfx1100, "v_add_u32_e64_dpp").as_deref(), Some("v_add_nc_u32_e64_dpp"));
        assert_eq!(resolve(Arch::Gfx1100, "v_add_nc_u32_e64"), None);
        assert_eq!(resolve(Arch::Gfx1100, "_e64"), None);
    }
}
