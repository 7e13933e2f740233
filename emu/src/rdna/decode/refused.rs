//! The instructions the interpreter refuses by design, each with the reason (the dispatch
//! fails with an Illegal fault naming the instruction and the reason; docs/cdna-gfx9-ops.md
//! lists them).

/// Why `m` is not run, when it is one of the refused instructions.
pub(super) fn refused(m: &str) -> Option<&'static str> {
    let base = m.strip_suffix("_e32").or_else(|| m.strip_suffix("_e64")).unwrap_or(m);
    Some(match base {
        "s_cbranch_g_fork" | "s_cbranch_i_fork" | "s_cbranch_join" => {
            "the fork/join control-flow stack (CSP) is not modelled (no compiler emits it)"
        }
        "s_rfe_b64" | "s_rfe_restore_b64" => {
            "returns from a trap handler, and the emulator runs none (a trap ends the dispatch)"
        }
        "s_setvskip" => "the VSKIP mode (skipping vector instructions) is not modelled",
        "v_screen_partition_4se_b32" => "a graphics lookup table the ISA guides do not give",
        "v_exp_legacy_f32" | "v_log_legacy_f32" => "the legacy special cases are not in the ISA guides",
        "ds_condxchg32_rtn_b64" => "the condition it applies is not in the ISA guides",
        m if m.starts_with("ds_gws_") => {
            "the global wave sync unit is not modelled (its semaphores and barrier wait on waves of \
             other workgroups, which the emulator does not promise to run at the same time)"
        }
        _ => return None,
    })
}
