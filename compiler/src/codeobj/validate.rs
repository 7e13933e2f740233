//! Input checks of the code-object writer: every kernel must be encodable on its architecture
//! before anything is laid out.

use std::collections::HashSet;

use super::{arch, Arch, ArgKind, CodeObjectError, CodeObjectOptions, Kernel, KernelArg, TargetFeature, WaveSize};

type Result<T> = std::result::Result<T, CodeObjectError>;

pub(super) fn code_object(arch: Arch, options: &CodeObjectOptions, kernels: &[Kernel]) -> Result<()> {
    if kernels.is_empty() {
        return Err(CodeObjectError::NoKernels { arch: arch.name() });
    }
    for (supported, setting, feature) in [
        (arch::supports_xnack(arch), options.xnack, "xnack"),
        (arch::supports_sramecc(arch), options.sramecc, "sramecc"),
    ] {
        if !supported && setting != TargetFeature::Any {
            return Err(CodeObjectError::UnsupportedTargetFeature { arch: arch.name(), feature });
        }
    }
    let mut names = HashSet::new();
    for k in kernels {
        kernel(arch, k)?;
        if !names.insert(k.name.as_str()) {
            return Err(CodeObjectError::DuplicateKernel(k.name.clone()));
        }
    }
    Ok(())
}

fn name(name: &str) -> Result<()> {
    let reason = if name.is_empty() {
        "it is empty"
    } else if name.contains('\0') {
        "it contains a NUL byte"
    } else if name.ends_with(".kd") {
        "it ends with `.kd`, which would clash with the descriptor symbols"
    } else {
        return Ok(());
    };
    Err(CodeObjectError::InvalidName { name: name.to_string(), reason })
}

fn kernel(arch: Arch, k: &Kernel) -> Result<()> {
    name(&k.name)?;
    let kname = || k.name.clone();
    let an = arch.name();
    if k.code.is_empty() {
        return Err(CodeObjectError::EmptyCode { kernel: kname() });
    }
    if k.code.len() & 3 != 0 {
        return Err(CodeObjectError::MisalignedCode { kernel: kname(), len: k.code.len() });
    }
    let r = &k.resources;
    let unsupported = |feature: &'static str| CodeObjectError::Unsupported { kernel: kname(), arch: an, feature };
    let cdna = arch::is_cdna(arch);

    // Registers.
    let limit = |what: &'static str, count: u32, limit: u32| {
        if count > limit {
            Err(CodeObjectError::RegisterLimit { kernel: kname(), arch: an, what, count, limit })
        } else {
            Ok(())
        }
    };
    limit("VGPR", r.vgpr_count, arch::MAX_ARCH_VGPRS)?;
    if cdna {
        limit("AGPR", r.agpr_count, arch::MAX_AGPRS)?;
        limit("unified VGPR (accum_offset + AGPR)", r.total_vgprs(arch), arch::MAX_UNIFIED_VGPRS)?;
    } else if r.agpr_count > 0 {
        return Err(unsupported("AccVGPRs (AGPRs)"));
    }
    limit("SGPR", r.sgpr_count, arch::MAX_SGPRS)?;

    // Memory.
    if r.lds_bytes > arch::max_lds_bytes(arch) {
        return Err(CodeObjectError::LdsLimit {
            kernel: kname(),
            arch: an,
            bytes: r.lds_bytes,
            limit: arch::max_lds_bytes(arch),
        });
    }

    let max_private = arch::max_private_bytes(arch, r.wave_size == WaveSize::Wave64);
    if r.private_bytes > max_private {
        return Err(CodeObjectError::InvalidField {
            kernel: kname(),
            field: "private_segment_fixed_size",
            reason: format!(
                "{} bytes of scratch per work-item exceed {an}'s {max_private} ({})",
                r.private_bytes,
                if r.wave_size == WaveSize::Wave64 { "wave64" } else { "wave32" }
            ),
        });
    }

    // Modes that only some generations have.
    if cdna && r.wave_size == WaveSize::Wave32 {
        return Err(unsupported("wave32"));
    }
    if arch::is_gfx12(arch) && r.ieee_mode {
        return Err(unsupported("IEEE mode (RSRC1.ENABLE_IEEE_MODE)"));
    }
    if arch::is_gfx12(arch) && r.dx10_clamp {
        return Err(unsupported("DX10 clamp (RSRC1.ENABLE_DX10_CLAMP)"));
    }
    if cdna && r.wgp_mode {
        return Err(unsupported("WGP mode"));
    }
    if cdna && r.mem_ordered {
        return Err(unsupported("RSRC1.MEM_ORDERED"));
    }
    if cdna && r.fwd_progress {
        return Err(unsupported("RSRC1.FWD_PROGRESS"));
    }
    if !cdna && r.tg_split {
        return Err(unsupported("TG_SPLIT"));
    }
    if let Some(lines) = r.inst_pref_size {
        match arch::inst_pref_size_max(arch) {
            None => return Err(unsupported("INST_PREF_SIZE")),
            Some(max) if lines > max => {
                return Err(CodeObjectError::InvalidField {
                    kernel: kname(),
                    field: "inst_pref_size",
                    reason: format!("{lines} lines do not fit the field (at most {max})"),
                })
            }
            Some(_) => {}
        }
    }

    // Inputs.
    if r.user_sgprs.private_segment_buffer {
        return Err(unsupported("the private segment buffer user SGPRs (architected flat scratch)"));
    }
    if r.user_sgprs.flat_scratch_init {
        return Err(unsupported("the flat scratch init user SGPRs (architected flat scratch)"));
    }
    let implied = r.user_sgprs.count();
    if let Some(count) = r.user_sgpr_count {
        let reason = if count < implied {
            Some(format!("the enabled inputs need {implied}"))
        } else if count > arch::MAX_USER_SGPRS {
            Some(format!("the hardware initialises at most {} user SGPRs", arch::MAX_USER_SGPRS))
        } else {
            None
        };
        if let Some(reason) = reason {
            return Err(CodeObjectError::UserSgprCount { kernel: kname(), count, reason });
        }
    }
    if !(1..=3).contains(&r.workitem_id_dims) {
        return Err(CodeObjectError::InvalidField {
            kernel: kname(),
            field: "workitem_id_dims",
            reason: format!("{} is not 1, 2 or 3", r.workitem_id_dims),
        });
    }
    if !(1..=1024).contains(&k.max_flat_workgroup_size) {
        return Err(CodeObjectError::InvalidField {
            kernel: kname(),
            field: "max_flat_workgroup_size",
            reason: format!("{} is not in 1..=1024", k.max_flat_workgroup_size),
        });
    }
    if let Some(size) = k.reqd_workgroup_size {
        let total = size.iter().map(|&d| u64::from(d)).product::<u64>();
        if size.contains(&0) || total > u64::from(k.max_flat_workgroup_size) {
            return Err(CodeObjectError::InvalidField {
                kernel: kname(),
                field: "reqd_workgroup_size",
                reason: format!(
                    "{size:?} must have no zero dimension and at most max_flat_workgroup_size ({}) work-items",
                    k.max_flat_workgroup_size
                ),
            });
        }
    }
    if let Some(lang) = &k.language {
        if lang.0.contains('\0') {
            return Err(CodeObjectError::InvalidField {
                kernel: kname(),
                field: "language",
                reason: "it contains a NUL byte".to_string(),
            });
        }
    }

    // Kernel arguments.
    if !k.kernarg_segment_align.is_power_of_two() {
        return Err(CodeObjectError::InvalidField {
            kernel: kname(),
            field: "kernarg_segment_align",
            reason: format!("{} is not a power of two", k.kernarg_segment_align),
        });
    }
    args(k)
}

fn arg_label(a: &KernelArg) -> String {
    match &a.name {
        Some(n) => format!("`{n}`"),
        None => a.kind.value_kind().to_string(),
    }
}

fn args(k: &Kernel) -> Result<()> {
    let invalid = |index: usize, a: &KernelArg, reason: String| CodeObjectError::InvalidArg {
        kernel: k.name.clone(),
        index,
        arg: arg_label(a),
        reason,
    };
    for (i, a) in k.args.iter().enumerate() {
        if a.size == 0 {
            return Err(invalid(i, a, "its size is 0".to_string()));
        }
        for (field, value) in [("name", &a.name), ("type name", &a.type_name)] {
            if value.as_deref().is_some_and(|s| s.contains('\0')) {
                return Err(invalid(i, a, format!("its {field} contains a NUL byte")));
            }
        }
        if let ArgKind::DynamicSharedPointer { pointee_align: Some(align) } = a.kind {
            if !align.is_power_of_two() {
                return Err(invalid(i, a, format!("pointee alignment {align} is not a power of two")));
            }
        }
        if u64::from(a.offset) + u64::from(a.size) > u64::from(k.kernarg_segment_size) {
            return Err(CodeObjectError::ArgOutOfBounds {
                kernel: k.name.clone(),
                index: i,
                arg: arg_label(a),
                offset: a.offset,
                size: a.size,
                segment_size: k.kernarg_segment_size,
            });
        }
    }
    let span = |a: &KernelArg| (u64::from(a.offset), u64::from(a.offset) + u64::from(a.size));
    let mut order: Vec<usize> = (0..k.args.len()).collect();
    order.sort_by_key(|&i| span(&k.args[i]));
    for pair in order.windows(2) {
        let (i, j) = (pair[0], pair[1]);
        let (a, b) = (&k.args[i], &k.args[j]);
        let ((s1, e1), (s2, e2)) = (span(a), span(b));
        if s2 < e1 {
            // Report in argument order.
            let ((i, a, s1, e1), (j, b, s2, e2)) =
                if i < j { ((i, a, s1, e1), (j, b, s2, e2)) } else { ((j, b, s2, e2), (i, a, s1, e1)) };
            return Err(CodeObjectError::ArgOverlap {
                kernel: k.name.clone(),
                index: j,
                arg: arg_label(b),
                start: s2,
                end: e2,
                other: i,
                other_arg: arg_label(a),
                other_start: s1,
                other_end: e1,
            });
        }
    }
    Ok(())
}
