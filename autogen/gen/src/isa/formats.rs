//! Encoding formats per architecture: fixed bits, field bit ranges, and the operand values used
//! to enumerate and probe opcodes. The layouts come from AMD's ISA guides and are checked against
//! llvm-mc by the generator: every golden vector is assembled back by llvm-mc and must give the
//! bytes built from these layouts, and each register field is probed (changing it must move one
//! operand by exactly the change).
//!
//! The formats themselves are listed by group: [`scalar`], [`valu`] and [`memory`] (images in
//! `image.rs`).

mod memory;
mod scalar;
mod valu;

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

/// Every format of an architecture, in table order.
pub fn formats(arch: &str) -> Vec<Fmt> {
    let fam = family(arch);
    let mut v = Vec::new();
    scalar::push(fam, &mut v);
    valu::push(arch, fam, &mut v);
    memory::push(fam, &mut v);
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
