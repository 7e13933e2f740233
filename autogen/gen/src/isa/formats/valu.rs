//! The vector ALU formats: VOP1/VOP2/VOPC with their DPP16/DPP8/SDWA forms, VOP3, VOP3SD,
//! VOP3P and the matrix layouts, VOPD, VINTERP/LDSDIR and EXP.

use super::*;

/// Appends the vector ALU formats (and exports), in the order the tables list them.
pub(super) fn push(arch: &str, fam: Family, v: &mut Vec<Fmt>) {
    let gfx9 = fam == Family::Gfx9;
    // Vector ALU.
    let mut vop2 = fmt(
        "VOP2",
        32,
        (0x8000_0000, 0),
        Some((25, 30)),
        vec![f("src0", 0, 8, Role::Src), f("vsrc1", 9, 16, Role::Vgpr), f("vdst", 17, 24, Role::Vgpr)],
        vec![vec![("src0", V + 24), ("vsrc1", 40), ("vdst", 8)], vec![("src0", 24), ("vsrc1", 40), ("vdst", 8)]],
        true,
    );
    let mut vop1 = fmt(
        "VOP1",
        32,
        (0xFE00_0000, 0x7E00_0000),
        Some((9, 16)),
        vec![f("src0", 0, 8, Role::Src), f("vdst", 17, 24, Role::Vgpr)],
        vec![vec![("src0", V + 24), ("vdst", 8)], vec![("src0", 24), ("vdst", 8)]],
        true,
    );
    // v_nop (and gfx9's v_clrexcp) decode only with their unused fields at 0.
    vop1.templates.push(Vec::new());
    if !gfx9 {
        // gfx11+ v_illegal is VOP2 opcode 0 with every field 0 (the all-zero dword).
        vop2.templates.push(Vec::new());
    }
    let vopc = fmt(
        "VOPC",
        32,
        (0xFE00_0000, 0x7C00_0000),
        Some((17, 24)),
        vec![f("src0", 0, 8, Role::Src), f("vsrc1", 9, 16, Role::Vgpr)],
        vec![vec![("src0", V + 24), ("vsrc1", 40)], vec![("src0", 24), ("vsrc1", 40)]],
        true,
    );
    let src3 = |vdst: u64| -> Vec<Vec<(&'static str, u64)>> {
        vec![
            vec![("vdst", vdst), ("src0", V + 24), ("src1", V + 40), ("src2", V + 56)],
            vec![("vdst", vdst), ("src0", V + 24), ("src1", 40), ("src2", V + 56)],
            vec![("vdst", vdst), ("src0", 24), ("src1", 40), ("src2", 56)],
            vec![("vdst", vdst), ("src0", V + 24), ("src1", V + 40), ("src2", 56)],
        ]
    };
    // gfx11+ v_cmpx_*_e64 write EXEC only: llvm-mc wants vdst = 126 (exec_lo) there and calls
    // any other value undefined, so those templates come last.
    let mut vop3_templates = src3(8);
    if !gfx9 {
        vop3_templates.extend(src3(126));
    }
    // The VOP3 forms of v_nop, v_pipeflush and v_clrexcp decode only with every field 0.
    vop3_templates.push(Vec::new());
    let vop3 = fmt(
        "VOP3",
        64,
        (0xFC00_0000, if gfx9 { 0xD000_0000 } else { 0xD400_0000 }),
        Some((16, 25)),
        vec![
            f("vdst", 0, 7, Role::Vgpr),
            f("abs", 8, 10, Role::Mod),
            f("opsel", 11, 14, Role::Mod),
            f("clamp", 15, 15, Role::Mod),
            f("src0", 32, 40, Role::Src),
            f("src1", 41, 49, Role::Src),
            f("src2", 50, 58, Role::Src),
            f("omod", 59, 60, Role::Mod),
            f("neg", 61, 63, Role::Mod),
        ],
        vop3_templates,
        !gfx9,
    );
    let mut vop3sd = layout(vop3.clone(), "VOP3SD", "VOP3");
    vop3sd.fields = vec![
        f("vdst", 0, 7, Role::Vgpr),
        f("sdst", 8, 14, Role::Sgpr),
        f("clamp", 15, 15, Role::Mod),
        f("src0", 32, 40, Role::Src),
        f("src1", 41, 49, Role::Src),
        f("src2", 50, 58, Role::Src),
        f("omod", 59, 60, Role::Mod),
        f("neg", 61, 63, Role::Mod),
    ];
    let mut vop3p = fmt(
        "VOP3P",
        64,
        if gfx9 { (0xFF80_0000, 0xD380_0000) } else { (0xFF00_0000, 0xCC00_0000) },
        Some((16, 22)),
        vec![
            f("vdst", 0, 7, Role::Vgpr),
            f("neg_hi", 8, 10, Role::Mod),
            f("opsel", 11, 13, Role::Mod),
            f("opsel_hi2", 14, 14, Role::Mod),
            f("clamp", 15, 15, Role::Mod),
            f("src0", 32, 40, Role::Src),
            f("src1", 41, 49, Role::Src),
            f("src2", 50, 58, Role::Src),
            f("opsel_hi", 59, 60, Role::Mod),
            f("neg", 61, 63, Role::Mod),
        ],
        Vec::new(),
        !gfx9,
    );
    let mut t = Vec::new();
    for hi in if gfx9 { [(0u64, 0u64), (3, 1)] } else { [(3, 1), (0, 0)] } {
        for mut s in src3(8) {
            s.extend([("opsel_hi", hi.0), ("opsel_hi2", hi.1)]);
            t.push(s);
        }
    }
    if arch == "gfx950" {
        // v_mfma_ld_scale_b32 on its own decodes only with vdst 0 (it writes no VGPR).
        t.push(vec![("vdst", 0), ("src0", V + 20), ("src1", V + 21), ("opsel_hi", 3), ("opsel_hi2", 1)]);
    }
    vop3p.templates = t;
    let vop1_e = vop1.clone();
    let vop2_e = vop2.clone();
    let vopc_e = vopc.clone();
    v.extend([vop2, vop1, vopc]);
    if gfx9 {
        v.push(modifier(&vop1_e, "VOP1_DPP16", (0, 8), 0xFA, dpp16_fields(32, false)));
        v.push(modifier(&vop2_e, "VOP2_DPP16", (0, 8), 0xFA, dpp16_fields(32, false)));
        v.push(modifier(&vopc_e, "VOPC_DPP16", (0, 8), 0xFA, dpp16_fields(32, false)));
        v.push(modifier(&vop1_e, "VOP1_SDWA", (0, 8), 0xF9, sdwa_fields(32, false)));
        v.push(modifier(&vop2_e, "VOP2_SDWA", (0, 8), 0xF9, sdwa_fields(32, false)));
        v.push(modifier(&vopc_e, "VOPC_SDWA", (0, 8), 0xF9, sdwa_fields(32, true)));
    } else {
        for (b, n16, n8) in [
            (&vop1_e, "VOP1_DPP16", "VOP1_DPP8"),
            (&vop2_e, "VOP2_DPP16", "VOP2_DPP8"),
            (&vopc_e, "VOPC_DPP16", "VOPC_DPP8"),
        ] {
            v.push(modifier(b, n16, (0, 8), 0xFA, dpp16_fields(32, true)));
            v.extend(dpp8(b, n8, (0, 8), 32));
        }
        v.push(modifier(&vop3, "VOP3_DPP16", (32, 40), 0xFA, dpp16_fields(64, true)));
        v.extend(dpp8(&vop3, "VOP3_DPP8", (32, 40), 64));
    }
    // VOP3SD opcodes (v_add_co_u32...) in DPP form keep their sdst field: modifiers of the
    // VOP3SD layout, chosen by the opcode's layout before the DPP select.
    let sd_dpp = (!gfx9).then(|| {
        let mut m = vec![modifier(&vop3sd, "VOP3SD_DPP16", (32, 40), 0xFA, dpp16_fields(64, true))];
        m.extend(dpp8(&vop3sd, "VOP3SD_DPP8", (32, 40), 64));
        m
    });
    v.push(vop3);
    v.push(vop3sd);
    v.extend(sd_dpp.into_iter().flatten());
    if gfx9 {
        let mut mfma = layout(vop3p.clone(), "MFMA", "VOP3P");
        mfma.fields = vec![
            f("vdst", 0, 7, Role::Vgpr),
            f("cbsz", 8, 10, Role::Mod),
            f("abid", 11, 14, Role::Mod),
            f("acc_cd", 15, 15, Role::Mod),
            f("src0", 32, 40, Role::Src),
            f("src1", 41, 49, Role::Src),
            f("src2", 50, 58, Role::Src),
            f("acc", 59, 60, Role::Mod),
            f("blgp", 61, 63, Role::Mod),
        ];
        v.push(mfma);
        if arch == "gfx950" {
            // v_mfma_scale_*: a v_mfma_ld_scale_b32 word (VOP3P opcode 44) followed by the MFMA.
            let mut x2 = layout(vop3p.clone(), "VOP3PX2", "VOP3P");
            x2.bits = 128;
            // The pair is recognised by the ld_scale opcode, the MFMA word's VOP3P encoding bits
            // and its bit 11 (abid in a plain MFMA) set: llvm-mc reads two separate
            // instructions when that bit is clear, and rejects other abid values.
            x2.select = vec![(16, 22, 44), (75, 78, 1), (87, 95, 0x1A7)];
            x2.op = Some((80, 86));
            x2.enumerate = true;
            x2.literal = false;
            x2.fields = vec![
                f("scale_op", 16, 22, Role::Fixed),
                f("scale_opsel", 11, 13, Role::Mod),
                f("scale_opsel_hi2", 14, 14, Role::Mod),
                f("scale_src0", 32, 40, Role::Src),
                f("scale_src1", 41, 49, Role::Src),
                f("scale_opsel_hi", 59, 60, Role::Mod),
                f("vdst", 64, 71, Role::Vgpr),
                f("cbsz", 72, 74, Role::Mod),
                f("acc_cd", 79, 79, Role::Mod),
                f("src0", 96, 104, Role::Src),
                f("src1", 105, 113, Role::Src),
                f("src2", 114, 122, Role::Src),
                f("acc", 123, 124, Role::Mod),
                f("blgp", 125, 127, Role::Mod),
            ];
            x2.templates = vec![vec![
                ("scale_op", 44),
                ("scale_src0", V + 20),
                ("scale_src1", V + 21),
                ("vdst", 8),
                ("src0", V + 24),
                ("src1", V + 40),
                ("src2", V + 56),
            ]];
            v.push(x2);
        }
    } else {
        v.push(layout(vop3p.clone(), "WMMA", "VOP3P"));
        let vopd_fields = vec![
            f("src0x", 0, 8, Role::Src),
            f("vsrc1x", 9, 16, Role::Vgpr),
            f("opy", 17, 21, Role::Fixed),
            f("opx", 22, 25, Role::Fixed),
            f("src0y", 32, 40, Role::Src),
            f("vsrc1y", 41, 48, Role::Vgpr),
            f("vdsty", 49, 55, Role::VdstY),
            f("vdstx", 56, 63, Role::Vgpr),
        ];
        let vt =
            vec![("src0x", V + 16), ("vsrc1x", 33), ("src0y", V + 18), ("vsrc1y", 35), ("vdstx", 8), ("vdsty", 12)];
        let mut tx = vt.clone();
        tx.push(("opy", 8));
        let mut ty = vt;
        ty.push(("opx", 8));
        v.push(fmt("VOPD", 64, (0xFC00_0000, 0xC800_0000), Some((22, 25)), vopd_fields.clone(), vec![tx], true));
        let mut y = layout(
            fmt("VOPD_Y", 64, (0xFC00_0000, 0xC800_0000), Some((17, 21)), vopd_fields, vec![ty], true),
            "VOPD_Y",
            "VOPD",
        );
        y.enumerate = true;
        v.push(y);
        v.push(fmt(
            "VINTERP",
            64,
            (0xFF00_0000, 0xCD00_0000),
            Some(if fam == Family::Gfx12 { (16, 20) } else { (16, 22) }),
            vec![
                f("vdst", 0, 7, Role::Vgpr),
                f("waitexp", 8, 10, Role::Mod),
                f("opsel", 11, 14, Role::Mod),
                f("clamp", 15, 15, Role::Mod),
                f("src0", 32, 40, Role::Src),
                f("src1", 41, 49, Role::Src),
                f("src2", 50, 58, Role::Src),
                f("neg", 61, 63, Role::Mod),
            ],
            vec![vec![("vdst", 8), ("src0", V + 24), ("src1", V + 40), ("src2", V + 56)]],
            false,
        ));
        v.push(fmt(
            "LDSDIR",
            32,
            (0xFF00_0000, 0xCE00_0000),
            Some((20, 21)),
            vec![
                f("vdst", 0, 7, Role::Vgpr),
                f("attrchan", 8, 9, Role::Imm),
                f("attr", 10, 15, Role::Imm),
                f("wait_va_vdst", 16, 19, Role::Mod),
                f("wait_vm_vsrc", 23, 23, Role::Mod),
            ],
            vec![vec![("vdst", 8), ("attr", 2), ("attrchan", 1)]],
            false,
        ));
        v.push(fmt(
            "EXP",
            64,
            (0xFC00_0000, 0xF800_0000),
            None,
            vec![
                f("en", 0, 3, Role::Mod),
                f("target", 4, 9, Role::Imm),
                f("done", 11, 11, Role::Mod),
                f("row", 13, 13, Role::Mod),
                f("vsrc0", 32, 39, Role::Vgpr),
                f("vsrc1", 40, 47, Role::Vgpr),
                f("vsrc2", 48, 55, Role::Vgpr),
                f("vsrc3", 56, 63, Role::Vgpr),
            ],
            vec![vec![("en", 0xF), ("vsrc0", 8), ("vsrc1", 24), ("vsrc2", 40), ("vsrc3", 56)]],
            false,
        ));
    }
    if !gfx9 {
        // v_fma_mix*, v_dot2* and (gfx12) v_dot4*_fp8/bf8 have DPP forms: the VOP3P word and one
        // DPP dword, selected by src0 as in VOP3 (the probe in forms.rs finds which opcodes).
        let m16 = modifier(&vop3p, "VOP3P_DPP16", (32, 40), 0xFA, dpp16_fields(64, true));
        let m8 = dpp8(&vop3p, "VOP3P_DPP8", (32, 40), 64);
        v.push(vop3p);
        v.push(m16);
        v.extend(m8);
    } else {
        v.push(vop3p);
    }
}
