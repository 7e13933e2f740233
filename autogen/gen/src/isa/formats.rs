//! Encoding formats per architecture: fixed bits, field bit ranges, and the operand values used
//! to enumerate and probe opcodes. The layouts come from AMD's ISA guides and are checked against
//! llvm-mc by the generator: every golden vector is assembled back by llvm-mc and must give the
//! bytes built from these layouts, and each register field is probed (changing it must move one
//! operand by exactly the change).

/// What a field holds; decides how it is probed and which operand kind it gives.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    /// Encoding constant or opcode.
    Fixed,
    /// 8-bit VGPR number.
    Vgpr,
    /// VOPD vdsty: 7 bits, register = field*2 + (vdstx&1 ^ 1).
    VdstY,
    /// 7-bit SGPR number.
    Sgpr,
    /// SGPR pair/quad number divided by 2 (SMEM sbase).
    SgprX2,
    /// SGPR quad number divided by 4 (MUBUF/MTBUF srsrc).
    SgprX4,
    /// 8-bit scalar source: SGPR, inline constant or literal.
    SSrc,
    /// 9-bit vector-ALU source: SGPR, VGPR, inline constant or literal.
    Src,
    /// 16-bit immediate of SOPP/SOPK.
    Simm16,
    /// Memory offset.
    Offset,
    /// Other immediate shown as an operand (export target, LDS attribute).
    Imm,
    /// Modifier bits, printed after the operands.
    Mod,
}

#[derive(Clone, Debug)]
pub struct FieldDef {
    pub name: &'static str,
    pub lo: u32,
    pub hi: u32,
    pub role: Role,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FmtRole {
    Encoding,
    Layout,
    Modifier,
}

#[derive(Clone, Debug)]
pub struct Fmt {
    pub name: &'static str,
    pub bits: u32,
    pub role: FmtRole,
    pub parent: Option<&'static str>,
    /// Fixed bits of the first dword (before nested encodings are carved out).
    pub enc: (u32, u32),
    /// Conditions `(lo, hi, value)` that select a layout or modifier inside its parent.
    pub select: Vec<(u32, u32, u32)>,
    pub op: Option<(u32, u32)>,
    pub fields: Vec<FieldDef>,
    /// Alternative operand values (field, value) tried in order when enumerating opcodes.
    pub templates: Vec<Vec<(&'static str, u64)>>,
    /// Also try each template followed by a 32-bit literal.
    pub literal: bool,
    /// Enumerate this format's opcode space.
    pub enumerate: bool,
    /// Register fields that llvm-mc wants zero when the opcode does not use them: every subset
    /// of them is tried, the largest first.
    pub optional: Vec<&'static str>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Family {
    Gfx9,
    Gfx11,
    Gfx12,
}

pub fn family(arch: &str) -> Family {
    match arch {
        "gfx1100" => Family::Gfx11,
        "gfx1201" => Family::Gfx12,
        _ => Family::Gfx9,
    }
}

pub(super) fn f(name: &'static str, lo: u32, hi: u32, role: Role) -> FieldDef {
    FieldDef { name, lo, hi, role }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn fmt(
    name: &'static str,
    bits: u32,
    enc: (u32, u32),
    op: Option<(u32, u32)>,
    fields: Vec<FieldDef>,
    templates: Vec<Vec<(&'static str, u64)>>,
    literal: bool,
) -> Fmt {
    Fmt {
        name,
        bits,
        role: FmtRole::Encoding,
        parent: None,
        enc,
        select: Vec::new(),
        op,
        fields,
        templates,
        literal,
        enumerate: true,
        optional: Vec::new(),
    }
}

fn layout(mut base: Fmt, name: &'static str, parent: &'static str) -> Fmt {
    base.name = name;
    base.role = FmtRole::Layout;
    base.parent = Some(parent);
    base.enumerate = false;
    base
}

const V: u64 = 256;

/// The fields of the extra DPP16 / DPP8 / SDWA dword at bit `b`.
fn dpp16_fields(b: u32, fi: bool) -> Vec<FieldDef> {
    let mut v = vec![f("dpp_src0", b, b + 7, Role::Vgpr), f("dpp_ctrl", b + 8, b + 16, Role::Mod)];
    if fi {
        v.push(f("fi", b + 18, b + 18, Role::Mod));
    }
    v.extend([
        f("bound_ctrl", b + 19, b + 19, Role::Mod),
        f("src0_neg", b + 20, b + 20, Role::Mod),
        f("src0_abs", b + 21, b + 21, Role::Mod),
        f("src1_neg", b + 22, b + 22, Role::Mod),
        f("src1_abs", b + 23, b + 23, Role::Mod),
        f("bank_mask", b + 24, b + 27, Role::Mod),
        f("row_mask", b + 28, b + 31, Role::Mod),
    ]);
    v
}

fn dpp8_fields(b: u32) -> Vec<FieldDef> {
    vec![f("dpp_src0", b, b + 7, Role::Vgpr), f("lane_sel", b + 8, b + 31, Role::Mod)]
}

fn sdwa_fields(b: u32, vopc: bool) -> Vec<FieldDef> {
    let mut v = vec![f("sdwa_src0", b, b + 7, Role::Src)];
    if vopc {
        v.extend([f("sdst", b + 8, b + 14, Role::Sgpr), f("sd", b + 15, b + 15, Role::Mod)]);
    } else {
        v.extend([
            f("dst_sel", b + 8, b + 10, Role::Mod),
            f("dst_unused", b + 11, b + 12, Role::Mod),
            f("clamp", b + 13, b + 13, Role::Mod),
            f("omod", b + 14, b + 15, Role::Mod),
        ]);
    }
    v.extend([
        f("src0_sel", b + 16, b + 18, Role::Mod),
        f("src0_sext", b + 19, b + 19, Role::Mod),
        f("src0_neg", b + 20, b + 20, Role::Mod),
        f("src0_abs", b + 21, b + 21, Role::Mod),
        f("s0", b + 23, b + 23, Role::Mod),
        f("src1_sel", b + 24, b + 26, Role::Mod),
        f("src1_sext", b + 27, b + 27, Role::Mod),
        f("src1_neg", b + 28, b + 28, Role::Mod),
        f("src1_abs", b + 29, b + 29, Role::Mod),
        f("s1", b + 31, b + 31, Role::Mod),
    ]);
    v
}

/// A modifier format (DPP16/DPP8/SDWA) of `base`, selected by the source field at `src`.
pub(super) fn modifier(base: &Fmt, name: &'static str, src: (u32, u32), value: u32, extra: Vec<FieldDef>) -> Fmt {
    let mut fields = base.fields.clone();
    fields.extend(extra);
    Fmt {
        name,
        bits: base.bits + 32,
        role: FmtRole::Modifier,
        parent: Some(base.name),
        enc: base.enc,
        select: vec![(src.0, src.1, value)],
        op: base.op,
        fields,
        templates: Vec::new(),
        literal: false,
        enumerate: false,
        optional: Vec::new(),
    }
}

/// The DPP8 form of `base`, twice under one name: selected by the source field holding 0xE9
/// (DPP8) or 0xEA (DPP8 with `fi:1`), which one select (one value per bit range) cannot express.
fn dpp8(base: &Fmt, name: &'static str, src: (u32, u32), b: u32) -> [Fmt; 2] {
    [modifier(base, name, src, 0xE9, dpp8_fields(b)), modifier(base, name, src, 0xEA, dpp8_fields(b))]
}

#[allow(clippy::vec_init_then_push)]
pub fn formats(arch: &str) -> Vec<Fmt> {
    let fam = family(arch);
    let gfx9 = fam == Family::Gfx9;
    let mut v = Vec::new();

    // Scalar ALU: identical layouts on every family.
    v.push(fmt(
        "SOP2",
        32,
        (0xC000_0000, 0x8000_0000),
        Some((23, 29)),
        vec![f("ssrc0", 0, 7, Role::SSrc), f("ssrc1", 8, 15, Role::SSrc), f("sdst", 16, 22, Role::Sgpr)],
        vec![vec![("ssrc0", 24), ("ssrc1", 40), ("sdst", 16)]],
        true,
    ));
    v.push(fmt(
        "SOPK",
        32,
        (0xF000_0000, 0xB000_0000),
        Some((23, 27)),
        vec![f("simm16", 0, 15, Role::Simm16), f("sdst", 16, 22, Role::Sgpr)],
        vec![vec![("simm16", 0x10), ("sdst", 16)]],
        true,
    ));
    v.push(fmt(
        "SOP1",
        32,
        (0xFF80_0000, 0xBE80_0000),
        Some((8, 15)),
        vec![f("ssrc0", 0, 7, Role::SSrc), f("sdst", 16, 22, Role::Sgpr)],
        vec![vec![("ssrc0", 24), ("sdst", 16)]],
        true,
    ));
    v.push(fmt(
        "SOPC",
        32,
        (0xFF80_0000, 0xBF00_0000),
        Some((16, 22)),
        vec![f("ssrc0", 0, 7, Role::SSrc), f("ssrc1", 8, 15, Role::SSrc)],
        vec![vec![("ssrc0", 24), ("ssrc1", 40)]],
        true,
    ));
    v.push(fmt(
        "SOPP",
        32,
        (0xFF80_0000, 0xBF80_0000),
        Some((16, 22)),
        vec![f("simm16", 0, 15, Role::Simm16)],
        vec![vec![("simm16", 0)]],
        false,
    ));

    // SMEM.
    match fam {
        Family::Gfx9 => v.push(fmt(
            "SMEM",
            64,
            (0xFC00_0000, 0xC000_0000),
            Some((18, 25)),
            vec![
                f("sbase", 0, 5, Role::SgprX2),
                f("sdata", 6, 12, Role::Sgpr),
                f("soe", 14, 14, Role::Mod),
                f("nv", 15, 15, Role::Mod),
                f("glc", 16, 16, Role::Mod),
                f("imm", 17, 17, Role::Mod),
                f("offset", 32, 52, Role::Offset),
                f("soffset", 57, 63, Role::Sgpr),
            ],
            // Cache and timer operations (s_dcache_wb, s_memtime...) decode only with the
            // fields they do not use at 0.
            vec![vec![("sbase", 8), ("sdata", 24), ("imm", 1), ("offset", 0x10)], vec![]],
            false,
        )),
        Family::Gfx11 => v.push(fmt(
            "SMEM",
            64,
            (0xFC00_0000, 0xF400_0000),
            Some((18, 25)),
            vec![
                f("sbase", 0, 5, Role::SgprX2),
                f("sdata", 6, 12, Role::Sgpr),
                f("dlc", 13, 13, Role::Mod),
                f("glc", 14, 14, Role::Mod),
                f("offset", 32, 52, Role::Offset),
                f("soffset", 57, 63, Role::Sgpr),
            ],
            vec![vec![("sbase", 8), ("sdata", 24), ("offset", 0x10), ("soffset", 0x7C)]],
            false,
        )),
        Family::Gfx12 => v.push(fmt(
            "SMEM",
            64,
            (0xFC00_0000, 0xF400_0000),
            Some((13, 18)),
            vec![
                f("sbase", 0, 5, Role::SgprX2),
                f("sdata", 6, 12, Role::Sgpr),
                f("scope_th", 21, 25, Role::Mod),
                f("offset", 32, 55, Role::Offset),
                f("soffset", 57, 63, Role::Sgpr),
            ],
            vec![vec![("sbase", 8), ("sdata", 24), ("offset", 0x10), ("soffset", 0x7C)]],
            false,
        )),
    }

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
    v.push(vop3p);

    // LDS/GDS.
    let mut ds = vec![f("offset0", 0, 7, Role::Offset), f("offset1", 8, 15, Role::Offset)];
    match fam {
        Family::Gfx9 => ds.extend([f("gds", 16, 16, Role::Mod), f("acc", 25, 25, Role::Mod)]),
        Family::Gfx11 => ds.push(f("gds", 17, 17, Role::Mod)),
        Family::Gfx12 => {}
    }
    ds.extend([
        f("addr", 32, 39, Role::Vgpr),
        f("data0", 40, 47, Role::Vgpr),
        f("data1", 48, 55, Role::Vgpr),
        f("vdst", 56, 63, Role::Vgpr),
    ]);
    let ds_lds = vec![("addr", 8), ("data0", 24), ("data1", 40), ("vdst", 56)];
    let mut ds_templates = vec![ds_lds.clone()];
    if fam != Family::Gfx12 {
        // The GWS and ordered-count operations (ds_gws_init, ds_ordered_count...) decode only
        // with the gds bit set; tried after the LDS form so the others keep gds clear.
        let mut gds = ds_lds;
        gds.push(("gds", 1));
        ds_templates.push(gds);
    }
    v.push(fmt(
        "DS",
        64,
        (0xFC00_0000, 0xD800_0000),
        Some(if gfx9 { (17, 24) } else { (18, 25) }),
        ds,
        ds_templates,
        false,
    ));

    // FLAT / GLOBAL / SCRATCH.
    let segs = [("FLAT", 0u32), ("SCRATCH", 1), ("GLOBAL", 2)];
    match fam {
        Family::Gfx9 | Family::Gfx11 => {
            for (name, seg) in segs {
                let (mask, value, fields) = if gfx9 {
                    (
                        0xFC00_C000,
                        0xDC00_0000 | (seg << 14),
                        vec![
                            f("offset", 0, 12, Role::Offset),
                            f("sve", 13, 13, Role::Mod),
                            f("seg", 14, 15, Role::Fixed),
                            f("sc0", 16, 16, Role::Mod),
                            f("nt", 17, 17, Role::Mod),
                            f("sc1", 25, 25, Role::Mod),
                            f("addr", 32, 39, Role::Vgpr),
                            f("data", 40, 47, Role::Vgpr),
                            f("saddr", 48, 54, Role::Sgpr),
                            f("acc", 55, 55, Role::Mod),
                            f("vdst", 56, 63, Role::Vgpr),
                        ],
                    )
                } else {
                    (
                        0xFC03_0000,
                        0xDC00_0000 | (seg << 16),
                        vec![
                            f("offset", 0, 12, Role::Offset),
                            f("dlc", 13, 13, Role::Mod),
                            f("glc", 14, 14, Role::Mod),
                            f("slc", 15, 15, Role::Mod),
                            f("seg", 16, 17, Role::Fixed),
                            f("addr", 32, 39, Role::Vgpr),
                            f("data", 40, 47, Role::Vgpr),
                            f("saddr", 48, 54, Role::Sgpr),
                            f("sve", 55, 55, Role::Mod),
                            f("vdst", 56, 63, Role::Vgpr),
                        ],
                    )
                };
                let off = if gfx9 { 0x7F } else { 0x7C };
                let base = vec![("seg", seg as u64), ("addr", 8), ("data", 24), ("vdst", 56)];
                let with = |s: u64, sve: u64| {
                    let mut t = base.clone();
                    t.push(("saddr", s));
                    if sve == 1 {
                        t.push(("sve", 1));
                    }
                    t
                };
                let templates = if seg == 0 {
                    // gfx9 plain FLAT has no SGPR address: its saddr bits must be 0.
                    vec![with(if gfx9 { 0 } else { off }, 0)]
                } else {
                    vec![with(16, 1), with(off, 1), with(16, 0), with(off, 0)]
                };
                v.push(fmt(name, 64, (mask, value), Some((18, 24)), fields, templates, false));
            }
        }
        Family::Gfx12 => {
            for (name, seg) in segs {
                let value = match seg {
                    0 => 0xEC00_0000,
                    1 => 0xED00_0000,
                    _ => 0xEE00_0000,
                };
                let fields = vec![
                    f("saddr", 0, 6, Role::Sgpr),
                    f("vdst", 32, 39, Role::Vgpr),
                    f("sve", 49, 49, Role::Mod),
                    f("scope_th", 50, 54, Role::Mod),
                    f("vsrc", 55, 62, Role::Vgpr),
                    f("vaddr", 64, 71, Role::Vgpr),
                    f("offset", 72, 95, Role::Offset),
                ];
                let base = vec![("vaddr", 8u64), ("vsrc", 24), ("vdst", 56)];
                let with = |s: u64, sve: u64| {
                    let mut t = base.clone();
                    t.push(("saddr", s));
                    if sve == 1 {
                        t.push(("sve", 1));
                    }
                    t
                };
                let templates = if seg == 0 {
                    vec![with(0x7C, 0)]
                } else {
                    vec![with(16, 1), with(0x7C, 1), with(16, 0), with(0x7C, 0)]
                };
                v.push(fmt(name, 96, (0xFF00_0000, value), Some((14, 20)), fields, templates, false));
            }
        }
    }

    // Buffers.
    match fam {
        Family::Gfx9 => {
            let tail = || {
                vec![
                    f("vaddr", 32, 39, Role::Vgpr),
                    f("vdata", 40, 47, Role::Vgpr),
                    f("srsrc", 48, 52, Role::SgprX4),
                    f("acc", 55, 55, Role::Mod),
                    f("soffset", 56, 63, Role::SSrc),
                ]
            };
            let t = vec![("vaddr", 8u64), ("vdata", 24), ("srsrc", 4), ("soffset", 40), ("offen", 1)];
            let mut mubuf = vec![
                f("offset", 0, 11, Role::Offset),
                f("offen", 12, 12, Role::Mod),
                f("idxen", 13, 13, Role::Mod),
                f("sc0", 14, 14, Role::Mod),
                f("sc1", 15, 15, Role::Mod),
                f("lds", 16, 16, Role::Mod),
                f("nt", 17, 17, Role::Mod),
            ];
            mubuf.extend(tail());
            // Cache maintenance (buffer_wbl2, buffer_inv...) decodes only with unused fields at 0.
            v.push(fmt("MUBUF", 64, (0xFC00_0000, 0xE000_0000), Some((18, 24)), mubuf, vec![t.clone(), vec![]], false));
            let mut mtbuf = vec![
                f("offset", 0, 11, Role::Offset),
                f("offen", 12, 12, Role::Mod),
                f("idxen", 13, 13, Role::Mod),
                f("sc0", 14, 14, Role::Mod),
                f("dfmt", 19, 22, Role::Mod),
                f("nfmt", 23, 25, Role::Mod),
                f("sc1", 53, 53, Role::Mod),
                f("nt", 54, 54, Role::Mod),
            ];
            mtbuf.extend(tail());
            let mut tt = t;
            tt.extend([("dfmt", 4), ("nfmt", 7)]);
            v.push(fmt("MTBUF", 64, (0xFC00_0000, 0xE800_0000), Some((15, 18)), mtbuf, vec![tt], false));
        }
        Family::Gfx11 => {
            let tail = || {
                vec![
                    f("vaddr", 32, 39, Role::Vgpr),
                    f("vdata", 40, 47, Role::Vgpr),
                    f("srsrc", 48, 52, Role::SgprX4),
                    f("tfe", 53, 53, Role::Mod),
                    f("offen", 54, 54, Role::Mod),
                    f("idxen", 55, 55, Role::Mod),
                    f("soffset", 56, 63, Role::SSrc),
                ]
            };
            let t = vec![("vaddr", 8u64), ("vdata", 24), ("srsrc", 4), ("soffset", 40), ("offen", 1)];
            let mut mubuf = vec![
                f("offset", 0, 11, Role::Offset),
                f("slc", 12, 12, Role::Mod),
                f("dlc", 13, 13, Role::Mod),
                f("glc", 14, 14, Role::Mod),
                f("lds", 16, 16, Role::Mod),
            ];
            mubuf.extend(tail());
            // buffer_gl0_inv / buffer_gl1_inv take no operands and llvm-mc wants their fields zero.
            let templates = vec![t.clone(), Vec::new()];
            v.push(fmt("MUBUF", 64, (0xFC00_0000, 0xE000_0000), Some((18, 25)), mubuf, templates, false));
            let mut mtbuf = vec![
                f("offset", 0, 11, Role::Offset),
                f("slc", 12, 12, Role::Mod),
                f("dlc", 13, 13, Role::Mod),
                f("glc", 14, 14, Role::Mod),
                f("format", 19, 25, Role::Mod),
            ];
            mtbuf.extend(tail());
            let mut tt = t;
            tt.push(("format", 1));
            v.push(fmt("MTBUF", 64, (0xFC00_0000, 0xE800_0000), Some((15, 18)), mtbuf, vec![tt], false));
        }
        Family::Gfx12 => {
            let fields = || {
                vec![
                    f("soffset", 0, 6, Role::Sgpr),
                    f("vdata", 32, 39, Role::Vgpr),
                    f("rsrc", 41, 49, Role::Sgpr),
                    f("scope_th", 50, 54, Role::Mod),
                    f("tfe", 22, 22, Role::Mod),
                    f("format", 55, 61, Role::Mod),
                    f("offen", 62, 62, Role::Mod),
                    f("idxen", 63, 63, Role::Mod),
                    f("vaddr", 64, 71, Role::Vgpr),
                    f("offset", 72, 95, Role::Offset),
                ]
            };
            let t = vec![("vaddr", 8u64), ("vdata", 24), ("rsrc", 16), ("soffset", 40), ("offen", 1), ("format", 1)];
            // gfx12 VBUFFER: buffer_* and tbuffer_* share one opcode space (tbuffer at 0x80..).
            v.push(fmt("VBUFFER", 96, (0xFF80_0000, 0xC400_0000), Some((14, 21)), fields(), vec![t], false));
        }
    }
    v.extend(super::image::formats(fam));
    for f in &mut v {
        f.optional = match f.name {
            "DS" => vec!["addr", "data0", "data1", "vdst"],
            "FLAT" | "GLOBAL" | "SCRATCH" if fam == Family::Gfx12 => vec!["vaddr", "vsrc", "vdst"],
            "FLAT" | "GLOBAL" | "SCRATCH" => vec!["addr", "data", "vdst"],
            "EXP" => vec!["vsrc0", "vsrc1", "vsrc2", "vsrc3"],
            // A one-source VOPD half (v_dual_mov_b32) wants its vsrc1 zero.
            "VOPD" | "VOPD_Y" => vec!["vsrc1x", "vsrc1y"],
            _ => Vec::new(),
        };
    }
    v
}
