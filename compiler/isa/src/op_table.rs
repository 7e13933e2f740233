//! A generated per-mnemonic table laid out once per architecture by opcode index, so a rule
//! looks an instruction's entry up by `i.op` (`modifiers`, `src_kinds`, `dpp_kinds`).

use std::collections::HashMap;
use std::sync::OnceLock;

use baregpu_autogen::isa::Opcode;

use crate::tables::Tables;
use crate::Arch;

/// One lazily built table per architecture.
pub(crate) struct PerArch<T>([OnceLock<Vec<Option<T>>>; 4]);

impl<T: Copy + Send + Sync> PerArch<T> {
    pub(crate) const fn new() -> PerArch<T> {
        PerArch([OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()])
    }

    /// Per opcode index of `arch`, the entry `by_name` gives its mnemonic, where `keep` takes
    /// the opcode (a mnemonic may name opcodes of several formats: VOP1 and VOP3 `v_nop`).
    pub(crate) fn get(
        &self,
        arch: Arch,
        keep: impl Fn(&Opcode) -> bool,
        by_name: impl FnOnce() -> HashMap<&'static str, T>,
    ) -> &[Option<T>] {
        self.0[arch as usize].get_or_init(|| {
            let by_name = by_name();
            let table = Tables::get(arch).table;
            table.opcodes.iter().map(|o| by_name.get(o.mnemonic).copied().filter(|_| keep(o))).collect()
        })
    }
}
