//! Checks the generated ISA tables: sanity of every table, and every llvm-mc golden vector in
//! tests/isa/golden/<arch>.txt decodes (format by fixed bits, opcode by the opcode field) to an
//! opcode whose mnemonic is the golden one.

use baregpu_autogen::isa::{Arch, Format, FormatRole, ARCHS};
use std::collections::{BTreeMap, BTreeSet};

fn golden(arch: &str) -> String {
    let path = format!("{}/../tests/isa/golden/{arch}.txt", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The mnemonic without the encoding suffixes llvm-mc adds.
fn base(m: &str) -> &str {
    for s in ["_e64_dpp", "_e32", "_e64", "_dpp", "_sdwa"] {
        if let Some(b) = m.strip_suffix(s) {
            return b;
        }
    }
    m
}

fn check_table(a: &Arch) {
    let names: BTreeSet<&str> = a.formats.iter().map(|f| f.name).collect();
    // One name, two entries only for DPP8 (src0 = 0xE9 or, with fi:1, 0xEA): the same role,
    // parent, size and fields, told apart by their fixed bits or their select value alone.
    for (k, f) in a.formats.iter().enumerate() {
        for g in a.formats[..k].iter().filter(|g| g.name == f.name) {
            let same = g.role == f.role && g.parent == f.parent && g.bits == f.bits && g.fields == f.fields;
            let apart = g.encoding != f.encoding || g.select != f.select;
            assert!(f.name.ends_with("DPP8") && same && apart, "{}: duplicate format {}", a.name, f.name);
        }
    }
    for f in a.formats {
        assert!(matches!(f.bits, 32 | 64 | 96 | 128), "{} {}: bits {}", a.name, f.name, f.bits);
        assert!(!f.encoding.is_empty(), "{} {}: no encoding", a.name, f.name);
        if f.role == FormatRole::Encoding {
            assert!(f.parent.is_none(), "{} {}: encoding with a parent", a.name, f.name);
        } else {
            let p = f.parent.unwrap_or_else(|| panic!("{} {}: no parent", a.name, f.name));
            assert!(names.contains(p), "{} {}: parent {p} missing", a.name, f.name);
        }
        let mut used = [false; 128];
        for fd in f.fields {
            assert!(
                fd.lo <= fd.hi && fd.hi < f.bits,
                "{} {}.{}: {}..{} outside {} bits",
                a.name,
                f.name,
                fd.name,
                fd.lo,
                fd.hi,
                f.bits
            );
            for b in fd.lo..=fd.hi {
                assert!(!used[b as usize], "{} {}.{}: bit {b} overlaps another field", a.name, f.name, fd.name);
                used[b as usize] = true;
            }
        }
        if let Some((lo, hi)) = f.opcode {
            assert!(
                f.fields.iter().any(|x| x.name == "op" && x.lo == lo && x.hi == hi),
                "{} {}: op field",
                a.name,
                f.name
            );
        }
        for &(lo, hi, _) in f.select {
            assert!(lo <= hi && hi < f.bits, "{} {}: select outside the format", a.name, f.name);
        }
    }
    // Top-level encodings are told apart by their fixed bits or their select value alone.
    let enc: Vec<&Format> = a.formats.iter().filter(|f| f.role == FormatRole::Encoding).collect();
    for (i, x) in enc.iter().enumerate() {
        for y in &enc[i + 1..] {
            for &(m1, v1) in x.encoding {
                for &(m2, v2) in y.encoding {
                    assert!((v1 ^ v2) & m1 & m2 != 0, "{}: {} and {} overlap", a.name, x.name, y.name);
                }
            }
        }
    }
    let mut seen = BTreeMap::new();
    for o in a.opcodes {
        let f = a.format(o.format).unwrap_or_else(|| panic!("{} {}: format {} missing", a.name, o.mnemonic, o.format));
        let l = a.format(o.layout).unwrap_or_else(|| panic!("{} {}: layout {} missing", a.name, o.mnemonic, o.layout));
        assert!(
            l.name == f.name || l.parent == Some(f.name),
            "{} {}: layout {} not of {}",
            a.name,
            o.mnemonic,
            l.name,
            f.name
        );
        match f.opcode {
            Some((lo, hi)) => {
                assert!((o.opcode as u32) < (1u32 << (hi - lo + 1)), "{} {}: opcode too wide", a.name, o.mnemonic)
            }
            None => assert_eq!(o.opcode, 0),
        }
        assert!(!o.mnemonic.is_empty());
        for op in o.operands {
            assert!(op.dwords >= 1 && op.dwords <= 32, "{} {} {}: {} dwords", a.name, o.mnemonic, op.name, op.dwords);
        }
        if let Some(prev) = seen.insert((o.format, o.opcode), o.mnemonic) {
            panic!("{}: ({}, {}) is both {prev} and {}", a.name, o.format, o.opcode, o.mnemonic);
        }
    }
    assert!(a.opcodes.len() > 1000, "{}: only {} opcodes", a.name, a.opcodes.len());
}

/// The format whose opcode space decodes `dwords` (a layout with its own opcodes, like gfx950
/// VOP3PX2, when its select bits and length match).
fn decode_format(a: &Arch, dwords: &[u32]) -> Result<&'static Format, String> {
    let tops: Vec<&Format> =
        a.formats.iter().filter(|f| f.role == FormatRole::Encoding && f.matches(dwords[0])).collect();
    if tops.len() != 1 {
        return Err(format!("{} encodings match {:#010x}", tops.len(), dwords[0]));
    }
    let top = tops[0];
    for f in a.formats {
        if f.parent == Some(top.name)
            && f.bits > top.bits
            && f.bits as usize == dwords.len() * 32
            && a.opcodes.iter().any(|o| o.format == f.name)
            && f.select
                .iter()
                .all(|&(lo, hi, v)| baregpu_autogen::isa::Field { name: "", lo, hi }.get(dwords) == v as u64)
        {
            return Ok(f);
        }
    }
    Ok(top)
}

fn check_golden(a: &Arch) {
    let text = golden(a.name);
    let mut n = 0;
    let mut per_format: BTreeMap<&str, usize> = BTreeMap::new();
    let mut errors = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (asm, enc) = line.rsplit_once(" ; [").unwrap_or_else(|| panic!("{}: bad line {line}", a.name));
        let bytes: Vec<u8> = enc
            .trim_end_matches(']')
            .split(',')
            .map(|b| u8::from_str_radix(b.trim_start_matches("0x"), 16).expect("hex byte"))
            .collect();
        assert!(bytes.len().is_multiple_of(4) && !bytes.is_empty(), "{}: {line}", a.name);
        let dwords: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        n += 1;
        let f = match decode_format(a, &dwords) {
            Ok(f) => f,
            Err(e) => {
                errors.push(format!("{line}: {e}"));
                continue;
            }
        };
        *per_format.entry(f.name).or_default() += 1;
        if (f.bits as usize) > bytes.len() * 8 {
            errors.push(format!("{line}: shorter than {}", f.name));
            continue;
        }
        let mut halves = asm.split(" :: ");
        let mnemonic = halves.next().unwrap().split_whitespace().next().unwrap();
        let opcode =
            f.opcode.map(|(lo, hi)| baregpu_autogen::isa::Field { name: "", lo, hi }.get(&dwords)).unwrap_or(0);
        match a.opcode(f.name, opcode as u16) {
            Some(o) if base(o.mnemonic) == base(mnemonic) => {}
            Some(o) => errors.push(format!("{line}: {} opcode {opcode} is {} in the table", f.name, o.mnemonic)),
            None => errors.push(format!("{line}: {} opcode {opcode} not in the table", f.name)),
        }
        // The second half of a VOPD pair lives in the VOPD_Y opcode space.
        if let Some(y) = halves.next() {
            let ym = y.split_whitespace().next().unwrap();
            let yf = a.format("VOPD_Y").expect("VOPD_Y");
            let (lo, hi) = yf.opcode.unwrap();
            let yop = baregpu_autogen::isa::Field { name: "", lo, hi }.get(&dwords) as u16;
            match a.opcode("VOPD_Y", yop) {
                Some(o) if o.mnemonic == ym => {}
                other => errors.push(format!("{line}: VOPD_Y opcode {yop} is {:?}", other.map(|o| o.mnemonic))),
            }
        }
    }
    assert!(
        errors.is_empty(),
        "{}: {} of {n} golden vectors disagree, e.g.:\n{}",
        a.name,
        errors.len(),
        errors[..errors.len().min(20)].join("\n")
    );
    assert!(n >= 2000, "{}: only {n} golden vectors", a.name);
    // Every format that holds opcodes is exercised.
    for f in a.formats.iter().filter(|f| f.role == FormatRole::Encoding) {
        if a.opcodes.iter().any(|o| o.format == f.name) {
            assert!(per_format.get(f.name).copied().unwrap_or(0) > 0, "{}: no golden vector for {}", a.name, f.name);
        }
    }
}

#[test]
fn tables_are_sane() {
    assert_eq!(ARCHS.len(), 4);
    for a in ARCHS {
        check_table(a);
    }
}

#[test]
fn golden_vectors_decode_to_their_mnemonic() {
    for a in ARCHS {
        check_golden(a);
    }
}

#[test]
fn the_check_can_fail() {
    // A vector whose opcode field is changed must no longer match its mnemonic.
    let a = ARCHS.iter().find(|a| a.name == "gfx1100").unwrap();
    let add = [0x0602_0702u32]; // v_add_f32_e32 v1, v2, v3
    let f = decode_format(a, &add).unwrap();
    assert_eq!(f.name, "VOP2");
    let (lo, hi) = f.opcode.unwrap();
    let op = baregpu_autogen::isa::Field { name: "", lo, hi }.get(&add) as u16;
    assert_eq!(a.opcode("VOP2", op).map(|o| base(o.mnemonic)), Some("v_add_f32"));
    let sub = [add[0] ^ (1 << 25)];
    assert_ne!(
        a.opcode("VOP2", baregpu_autogen::isa::Field { name: "", lo, hi }.get(&sub) as u16).map(|o| base(o.mnemonic)),
        Some("v_add_f32")
    );
}

/// The source indices of an opcode's operands, counted from the table itself
/// (`isa::sources`: named sources, and a lane select the tables keep as a split pair).
fn source_indices(o: &baregpu_autogen::isa::Opcode) -> BTreeSet<usize> {
    baregpu_autogen::isa::sources::source_indices(o.operands).into_iter().flatten().collect()
}

/// The source-type tables: sorted by mnemonic (they are binary searched), each mnemonic an
/// instruction of its architecture, each typed source one the instruction has.
#[test]
fn src_types_name_real_sources() {
    use baregpu_autogen::isa::src_types;
    let tables = [src_types::GFX1100, src_types::GFX1201, src_types::GFX942, src_types::GFX950];
    for (a, t) in ARCHS.iter().zip(tables) {
        assert!(t.len() > 500, "{}: {} typed mnemonics", a.name, t.len());
        assert!(t.windows(2).all(|w| w[0].0 < w[1].0), "{}: not sorted", a.name);
        for (m, tys) in t {
            let srcs: BTreeSet<usize> =
                a.opcodes.iter().filter(|o| base(o.mnemonic) == *m).flat_map(source_indices).collect();
            for (k, ty) in tys.iter().enumerate() {
                assert!(ty.is_none() || srcs.contains(&k), "{} {m}: src{k} typed but not a source", a.name);
            }
        }
    }
}

/// The source-kind tables: sorted by mnemonic, each mnemonic an opcode of its architecture, each
/// restricted source one the opcode has (or the one operand of an SOP1 opcode the table lists
/// none for, `s_setpc_b64`), a restricted fourth entry only on an opcode with a destination,
/// and the known VGPR-only sources among them.
#[test]
fn src_kinds_name_real_sources() {
    use baregpu_autogen::isa::src_kinds;
    use baregpu_autogen::isa::src_kinds_bits::{ALL, V};
    let tables = [src_kinds::GFX1100, src_kinds::GFX1201, src_kinds::GFX942, src_kinds::GFX950];
    for (a, t) in ARCHS.iter().zip(tables) {
        assert!(t.windows(2).all(|w| w[0].0 < w[1].0), "{}: not sorted", a.name);
        for (m, kinds) in t {
            let op = a.opcodes.iter().find(|o| o.mnemonic == *m).unwrap_or_else(|| panic!("{} {m}: no opcode", a.name));
            let srcs = source_indices(op);
            for (k, &mask) in kinds[..3].iter().enumerate() {
                let listed = srcs.contains(&k) || op.operands.is_empty() && op.format == "SOP1" && k == 0;
                assert!(mask == ALL || listed, "{} {m}: src{k} restricted but not a source", a.name);
            }
            let dst = op.operands.first().is_some_and(|o| o.name == "vdst" || o.name == "sdst");
            assert!(kinds[3] == ALL || dst, "{} {m}: a restricted destination it lacks", a.name);
        }
        let kinds = |m: &str| t.iter().find(|(n, _)| *n == m).map(|(_, k)| *k);
        assert_eq!(kinds("v_readfirstlane_b32").map(|k| k[0]), Some(V), "{}", a.name);
        assert_eq!(kinds("v_swap_b32").map(|k| k[0]), Some(V), "{}", a.name);
    }
}

/// The DPP source-kind tables name gfx11/gfx12 opcodes with that DPP form, sorted; the SDWA
/// list names gfx9 opcodes with an SDWA form.
#[test]
fn dpp_kinds_and_sdwa_dst_name_real_forms() {
    use baregpu_autogen::isa::{dpp_kinds, sdwa_dst, FLAG_DPP16, FLAG_DPP8, FLAG_SDWA};
    for (a, t) in ARCHS.iter().zip([dpp_kinds::GFX1100, dpp_kinds::GFX1201]) {
        assert!(t.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)), "{}: not sorted", a.name);
        for (m, dpp8, _) in t {
            let flag = if *dpp8 { FLAG_DPP8 } else { FLAG_DPP16 };
            assert!(a.opcodes.iter().any(|o| o.mnemonic == *m && o.flags & flag != 0), "{} {m}", a.name);
        }
    }
    for a in ARCHS.iter().filter(|a| a.name.starts_with("gfx9")) {
        for m in sdwa_dst::NO_DST_SEL {
            let has = |o: &&baregpu_autogen::isa::Opcode| o.mnemonic.strip_suffix("_e32").unwrap_or(o.mnemonic) == *m;
            assert!(a.opcodes.iter().filter(has).any(|o| o.flags & FLAG_SDWA != 0), "{} {m}", a.name);
        }
    }
}
