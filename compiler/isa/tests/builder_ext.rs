//! The builder's DPP16, DPP8, SDWA (gfx9), VOPD and export forms against llvm-mc 22: every line
//! of tests/isa/builder_ext/<arch>.txt (instruction lines of LLVM's public MC tests, with the
//! bytes llvm-mc-22 gives them; see scripts/isa/builder_ext_vectors.py) is turned into typed
//! builder calls (registers, constants, modifiers as values: the text is read here, in the test,
//! never by the builder) and the builder's bytes must be llvm-mc's.

use std::path::Path;

use baregpu_isa::builder::*;
use baregpu_isa::Arch;

/// One instruction as typed values.
struct Call {
    name: String,
    ops: Vec<Operand>,
    mods: Vec<Mod>,
}

fn num(w: &str) -> Option<i64> {
    let (neg, d) = w.strip_prefix('-').map_or((false, w), |d| (true, d));
    let v = match d.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16).ok()?,
        None => d.parse().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// `v5`, `v5.h`, `s[2:3]`, `ttmp15`...
fn reg(w: &str) -> Option<Reg> {
    let (w, half) = match w.strip_suffix(".l") {
        Some(b) => (b, Some(false)),
        None => w.strip_suffix(".h").map_or((w, None), |b| (b, Some(true))),
    };
    let (file, rest) = ["ttmp", "v", "s"].iter().find_map(|p| w.strip_prefix(p).map(|r| (*p, r)))?;
    let (first, count) = match rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        Some(range) => {
            let (a, b) = range.split_once(':')?;
            let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
            (a, b + 1 - a)
        }
        None => (rest.parse().ok()?, 1),
    };
    let r = match file {
        "v" => v_range(first, count),
        "s" => s_range(first, count),
        _ => ttmp(first).sub(0, count as i64),
    };
    Some(match half {
        Some(false) => r.l(),
        Some(true) => r.h(),
        None => r,
    })
}

fn operand(w: &str) -> Result<Operand, String> {
    let call = |f: &str| w.strip_prefix(f).and_then(|x| x.strip_prefix('(')).and_then(|x| x.strip_suffix(')'));
    if let Some(inner) = w.strip_prefix('|').and_then(|x| x.strip_suffix('|')).or(call("abs")) {
        return Ok(fabs(operand(inner)?));
    }
    if let Some(inner) = call("sext") {
        return Ok(sext(operand(inner)?));
    }
    if let Some(rest) = w.strip_prefix('-').filter(|r| !r.starts_with(|c: char| c.is_ascii_digit())) {
        return Ok(fneg(operand(rest)?));
    }
    if let Some(r) = reg(w) {
        return Ok(r.into());
    }
    let special = match w {
        "vcc" => Some(vcc()),
        "vcc_lo" => Some(vcc_lo()),
        "vcc_hi" => Some(vcc_hi()),
        "exec" => Some(exec()),
        "exec_lo" => Some(exec_lo()),
        "exec_hi" => Some(exec_hi()),
        "m0" => Some(m0()),
        "null" => Some(null()),
        "src_scc" => Some(scc()),
        _ => None,
    };
    if let Some(s) = special {
        return Ok(s.into());
    }
    if let Some(n) = num(w) {
        return Ok(Operand::Int(n));
    }
    w.parse::<f32>().map(Operand::F32).map_err(|_| format!("operand '{w}'"))
}

fn sel(s: &str) -> Result<SdwaSel, String> {
    Ok(match s {
        "BYTE_0" => SdwaSel::Byte0,
        "BYTE_1" => SdwaSel::Byte1,
        "BYTE_2" => SdwaSel::Byte2,
        "BYTE_3" => SdwaSel::Byte3,
        "WORD_0" => SdwaSel::Word0,
        "WORD_1" => SdwaSel::Word1,
        "DWORD" => SdwaSel::Dword,
        _ => return Err(format!("selector '{s}'")),
    })
}

fn lanes<const N: usize>(v: &str) -> Result<[u8; N], String> {
    let inner = v.strip_prefix('[').and_then(|x| x.strip_suffix(']')).ok_or(format!("list '{v}'"))?;
    let l: Vec<u8> =
        inner.split(',').map(|x| x.trim().parse().map_err(|_| format!("lane '{x}'"))).collect::<Result<_, _>>()?;
    l.try_into().map_err(|_| format!("{N} lanes expected in '{v}'"))
}

/// A modifier word; `None` for one that states a default (`fi:0`, gfx11+ `bound_ctrl:0`).
fn modifier(arch: Arch, w: &str) -> Result<Option<Mod>, String> {
    let (name, v) = w.split_once(':').unwrap_or((w, ""));
    let n = || num(v).and_then(|n| u8::try_from(n).ok()).ok_or(format!("value in '{w}'"));
    let gfx9 = matches!(arch, Arch::Gfx942 | Arch::Gfx950);
    Ok(Some(match name {
        "quad_perm" => quad_perm(lanes(v)?),
        "dpp8" => dpp8(lanes(v)?),
        "row_shl" => row_shl(n()?),
        "row_shr" => row_shr(n()?),
        "row_ror" => row_ror(n()?),
        "row_share" => row_share(n()?),
        "row_xmask" => row_xmask(n()?),
        "row_newbcast" => row_newbcast(n()?),
        "row_mirror" => row_mirror(),
        "row_half_mirror" => row_half_mirror(),
        "row_mask" => row_mask(n()?),
        "bank_mask" => bank_mask(n()?),
        // gfx9 llvm-mc sets the bit for bound_ctrl:0 as well (its old spelling).
        "bound_ctrl" if gfx9 || n()? == 1 => bound_ctrl(),
        "fi" if n()? == 1 => fi(),
        "bound_ctrl" | "fi" => return Ok(None),
        "dst_sel" => dst_sel(sel(v)?),
        "src0_sel" => src0_sel(sel(v)?),
        "src1_sel" => src1_sel(sel(v)?),
        "dst_unused" => dst_unused(match v {
            "UNUSED_PAD" => DstUnused::Pad,
            "UNUSED_SEXT" => DstUnused::Sext,
            "UNUSED_PRESERVE" => DstUnused::Preserve,
            _ => return Err(format!("'{w}'")),
        }),
        "clamp" => clamp(),
        "mul" if v == "2" => Mod::Omod(Omod::Mul2),
        "mul" if v == "4" => Mod::Omod(Omod::Mul4),
        "div" if v == "2" => Mod::Omod(Omod::Div2),
        _ => return Err(format!("modifier '{w}'")),
    }))
}

/// Words split at commas and blanks outside brackets.
fn words(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' | ' ' if depth == 0 => {
                if i > start {
                    out.push(&s[start..i]);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// `name:value` (a colon before any bracket: `v[2:3]` is a register) or a bare modifier.
fn is_modifier(w: &str) -> bool {
    let colon = w.find(':').is_some_and(|c| w.find('[').is_none_or(|b| c < b));
    colon || matches!(w, "row_mirror" | "row_half_mirror" | "clamp")
}

/// The constructor for a mnemonic: encoding suffixes become the form (an explicit `_e64` keeps
/// the VOP3 constructor where one exists); aliases resolve to llvm-mc's names.
fn call(arch: Arch, text: &str) -> Result<Call, String> {
    let (m, rest) = text.split_once(' ').unwrap_or((text, ""));
    let mut mods = Vec::new();
    let mut ops = Vec::new();
    for w in words(rest) {
        if is_modifier(w) {
            mods.extend(modifier(arch, w)?);
        } else {
            ops.push(operand(w)?);
        }
    }
    let mut base = m;
    for suffix in ["_dpp", "_sdwa"] {
        if let Some(b) = base.strip_suffix(suffix) {
            base = b;
            // The suffix selects the form (with its defaults where no modifier says more).
            mods.push(if suffix == "_dpp" { dpp16_form() } else { sdwa_form() });
        }
    }
    let plain = base.strip_suffix("_e64").or(base.strip_suffix("_e32")).unwrap_or(base);
    let known = |n: &str| ctor_id(n).is_some();
    let name = [base, plain]
        .into_iter()
        .map(str::to_string)
        .chain(baregpu_isa::alias::resolve(arch, plain))
        .find(|n| known(n))
        .ok_or(format!("no constructor for '{m}'"))?;
    Ok(Call { name, ops, mods })
}

fn export(arch: Arch, text: &str) -> Result<Export, String> {
    let w = words(text);
    let target = match w.get(1).copied().unwrap_or("") {
        "mrtz" => ExpTarget::Mrtz,
        "null" => ExpTarget::Null,
        "prim" => ExpTarget::Prim,
        t => {
            let n = |p: &str| t.strip_prefix(p).and_then(|d| d.parse::<u8>().ok());
            if let Some(k) = n("dual_src_blend") {
                ExpTarget::DualSrcBlend(k)
            } else if let Some(k) = n("mrt") {
                ExpTarget::Mrt(k)
            } else if let Some(k) = n("pos") {
                ExpTarget::Pos(k)
            } else if let Some(k) = n("param") {
                ExpTarget::Param(k)
            } else {
                return Err(format!("{}: target '{t}'", arch.name()));
            }
        }
    };
    let mut e = Export::new(target);
    for (k, s) in w.iter().skip(2).enumerate() {
        match *s {
            "off" => {}
            "done" => e = e.done(),
            "row_en" => e = e.row_en(),
            r => e = e.src(k, reg(r).ok_or(format!("source '{r}'"))?),
        }
    }
    Ok(e)
}

/// The builder's bytes for one line.
fn build(arch: Arch, text: &str) -> Result<Vec<u8>, String> {
    let mut b = Builder::new(arch);
    let e = |e: baregpu_isa::IsaError| e.to_string();
    if text.starts_with("exp ") || text.starts_with("export ") {
        b.try_export(export(arch, text)?).map_err(e)?;
    } else if let Some((x, y)) = text.split_once("::") {
        let (cx, cy) = (call(arch, x.trim())?, call(arch, y.trim())?);
        let half = |c: &Call| {
            let mut h = DualHalf::default();
            h.ctor(ctor_id(&c.name).unwrap_or(u16::MAX), &c.ops);
            h
        };
        b.try_dual(&half(&cx), &half(&cy)).map_err(e)?;
    } else {
        let c = call(arch, text)?;
        b.try_op_mods(&c.name, &c.ops, &c.mods).map_err(e)?;
    }
    b.finish().map_err(e)
}

fn bytes(s: &str) -> Vec<u8> {
    let inner = s.trim().trim_start_matches('[').trim_end_matches(']');
    inner.split(',').map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap()).collect()
}

fn check(arch: Arch) -> usize {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../tests/isa/builder_ext/{}.txt", arch.name()));
    let text = std::fs::read_to_string(&path).unwrap();
    let (mut n, mut bad) = (0, Vec::new());
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (src, enc) = line.rsplit_once(" ; ").unwrap();
        n += 1;
        let want = bytes(enc);
        match build(arch, src) {
            Ok(got) if got == want => {}
            Ok(got) => bad.push(format!("{src}\n    builder {got:02x?}\n    llvm-mc {want:02x?}")),
            Err(e) => bad.push(format!("{src}\n    error: {e}")),
        }
    }
    assert!(bad.is_empty(), "{} of {n} lines differ on {}:\n{}", bad.len(), arch.name(), bad.join("\n"));
    n
}

/// Every line of tests/isa/builder_ext/<arch>.refused.txt (refused by llvm-mc 22, its error
/// given) must be refused by the builder, with nothing emitted.
fn check_refused(arch: Arch) -> usize {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../tests/isa/builder_ext/{}.refused.txt", arch.name()));
    let text = std::fs::read_to_string(&path).unwrap();
    let (mut n, mut bad) = (0, Vec::new());
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (src, why) = line.rsplit_once(" ; error: ").unwrap();
        n += 1;
        if let Ok(got) = build(arch, src) {
            bad.push(format!("{src}\n    builder {got:02x?}\n    llvm-mc: {why}"));
        }
    }
    assert!(bad.is_empty(), "{} of {n} lines accepted on {}:\n{}", bad.len(), arch.name(), bad.join("\n"));
    n
}

/// VOPD pairs whose sources share a VGPR bank (or whose destinations share a parity), which
/// llvm-mc refuses.
#[test]
fn vopd_bank_conflicts_are_refused() {
    assert!(check_refused(Arch::Gfx1100) >= 8);
    assert!(check_refused(Arch::Gfx1201) >= 8);
    // The message names the operands, in llvm-mc's words.
    let e = build(Arch::Gfx1100, "v_dual_add_f32 v0, v1, v2 :: v_dual_add_f32 v3, v4, v6").unwrap_err();
    assert!(e.contains("src1 operands must use different VGPR banks"), "{e}");
}

#[test]
fn gfx1100_dpp_vopd_export_match_llvm_mc() {
    assert!(check(Arch::Gfx1100) >= 90);
}

#[test]
fn gfx1201_dpp_vopd_export_match_llvm_mc() {
    assert!(check(Arch::Gfx1201) >= 25);
}

#[test]
fn gfx942_dpp_sdwa_match_llvm_mc() {
    assert!(check(Arch::Gfx942) >= 40);
}

/// What each form cannot hold is an error naming it, and nothing is emitted.
#[test]
fn bad_forms_are_errors() {
    let err = |arch: Arch, f: &dyn Fn(&mut Builder) -> baregpu_isa::Result<usize>| {
        let mut b = Builder::new(arch);
        let e = f(&mut b).expect_err("must fail").to_string();
        assert!(b.is_empty(), "{e}: emitted anyway");
        e
    };
    // row_newbcast is gfx9's; row_share is gfx10+'s.
    let e = err(Arch::Gfx1100, &|b| b.try_op_mods("v_mov_b32", &[v(0).into(), v(1).into()], &[row_newbcast(1)]));
    assert!(e.contains("row_newbcast:1 is not a DPP control of gfx1100"), "{e}");
    let e = err(Arch::Gfx942, &|b| b.try_op_mods("v_mov_b32", &[v(0).into(), v(1).into()], &[row_share(1)]));
    assert!(e.contains("row_share:1"), "{e}");
    // A DPP source is a VGPR; DPP takes no literal.
    let e = err(Arch::Gfx1100, &|b| b.try_op_mods("v_mov_b32", &[v(0).into(), s(1).into()], &[row_shl(1)]));
    assert!(e.contains("operand 2 (s1)"), "{e}");
    let e = err(Arch::Gfx1100, &|b| {
        b.try_op_mods("v_add_f32", &[v(0).into(), v(1).into(), Operand::Int(1234)], &[row_shl(1)])
    });
    assert!(e.contains("1234"), "{e}");
    // dpp8 lanes are 0..=7; SDWA exists on gfx9 only; sext needs SDWA.
    let e = err(Arch::Gfx1100, &|b| b.try_op_mods("v_mov_b32", &[v(0).into(), v(1).into()], &[dpp8([8; 8])]));
    assert!(e.contains("dpp8 lane 0 is 8"), "{e}");
    let e =
        err(Arch::Gfx1100, &|b| b.try_op_mods("v_mov_b32", &[v(0).into(), v(1).into()], &[dst_sel(SdwaSel::Word1)]));
    assert!(e.contains("SDWA form"), "{e}");
    let e = err(Arch::Gfx942, &|b| b.try_op("v_mov_b32", &[v(0).into(), sext(v(1))]));
    assert!(e.contains("sext"), "{e}");
    // VOPD destinations: one even, one odd.
    let e = err(Arch::Gfx1100, &|b| {
        let (mut x, mut y) = (DualHalf::default(), DualHalf::default());
        x.v_dual_mov_b32(v(0), v(1));
        y.v_dual_mov_b32(v(2), v(3));
        b.try_dual(&x, &y)
    });
    assert!(e.contains("one even and one odd"), "{e}");
    // A VOPD half alone, an export through the generic path, an export on gfx942.
    let e = err(Arch::Gfx1100, &|b| b.try_op("v_dual_mov_b32", &[v(0).into(), v(1).into()]));
    assert!(e.contains("Builder::dual"), "{e}");
    let e = err(Arch::Gfx942, &|b| b.try_export(Export::new(ExpTarget::Mrt(0)).src(0, v(1))));
    assert!(e.contains("no exports"), "{e}");
    let e = err(Arch::Gfx1100, &|b| b.try_export(Export::new(ExpTarget::Pos(5))));
    assert!(e.contains("pos5 is not an export target"), "{e}");
}

#[test]
fn gfx950_dpp_sdwa_match_llvm_mc() {
    assert!(check(Arch::Gfx950) >= 40);
}

/// gfx11/gfx12 VOP3P DPP16/DPP8 forms (v_fma_mix*, v_dot2*) from typed calls, with llvm-mc 22's
/// bytes; packed math (`v_pk_add_f16`) has none.
#[test]
fn vop3p_dpp_match_llvm_mc() {
    let build = |arch: Arch, name: &str, ops: &[Operand], mods: &[Mod]| {
        let mut b = Builder::new(arch);
        b.try_op_mods(name, ops, mods).map(|_| b.finish().unwrap())
    };
    let src = |a: Operand, b: Operand, c: Operand| [v(12).into(), a, b, c];
    for arch in [Arch::Gfx1100, Arch::Gfx1201] {
        let got =
            build(arch, "v_dot2_f32_f16", &src(v(24).into(), v(40).into(), v(56).into()), &[quad_perm([0, 1, 2, 3])]);
        assert_eq!(got.unwrap(), [0x0c, 0x40, 0x13, 0xcc, 0xfa, 0x50, 0xe2, 0x1c, 0x18, 0xe4, 0x00, 0xff]);
        let got = build(
            arch,
            "v_fma_mix_f32",
            &src(neg(v(24)), abs(v(40)), s(5).into()),
            &[
                op_sel(&[1, 0, 0]),
                op_sel_hi(&[1, 1, 0]),
                quad_perm([1, 0, 2, 3]),
                row_mask(3),
                bank_mask(1),
                bound_ctrl(),
                fi(),
            ],
        );
        assert_eq!(got.unwrap(), [0x0c, 0x0a, 0x20, 0xcc, 0xfa, 0x50, 0x16, 0x38, 0x18, 0xe1, 0x0c, 0x31]);
        let got = build(
            arch,
            "v_fma_mix_f32",
            &src(v(24).into(), v(40).into(), v(56).into()),
            &[op_sel_hi(&[1, 1, 1]), dpp8([0, 1, 2, 3, 4, 5, 6, 7])],
        );
        assert_eq!(got.unwrap(), [0x0c, 0x40, 0x20, 0xcc, 0xe9, 0x50, 0xe2, 0x1c, 0x18, 0x88, 0xc6, 0xfa]);
        assert!(
            build(arch, "v_pk_add_f16", &[v(1).into(), v(2).into(), v(3).into()], &[quad_perm([0, 1, 2, 3])]).is_err()
        );
    }
}
