//! The `isa_src_types` generator: the value type llvm-mc 22 reads each VALU/SALU source as, per
//! architecture, mnemonic and source, found by asking llvm-mc.
//!
//! For every opcode of the committed tables with a source operand (`src0`..`src2`, `ssrc0`,
//! `ssrc1`, VOPD `src0x`/`src0y`, the lane selects the tables split in two (line_operands.rs),
//! gfx950 `scale_src0/1`, which must refuse every probe), a golden line of that mnemonic (or, where no golden line
//! shows it, a line written from its operand list) is assembled with the source replaced by each
//! of [`PROBES`]. A probe that encodes no longer than the inline integer `64`
//! was folded into an inline constant; one four bytes longer became a literal (its bits are the
//! last dword). Which patterns fold gives the type (`0x3800` is 0.5 only to an f16 source,
//! `0x3f00` only to bf16, `0x38003800` to two f16 halves, `0x3f000000` to 32-bit sources,
//! `0x3fe00000` to f64); where none folds, the source is a 16- or 64-bit integer by its width.
//!
//! Input: the committed tables (`baregpu_autogen::isa`, for each opcode's operands) and golden
//! vectors (`tests/isa/golden/<arch>.txt`, for valid lines). Output: `src/isa/src_types.rs`, one
//! table per architecture keyed by the mnemonic without its encoding suffix (the encodings of one
//! instruction read their sources alike; the generator fails where they do not).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use baregpu_autogen::isa::{Arch as Table, Opcode, OperandKind};

use super::line_operands::{line_operands, LineOperand};
use super::text::operands;
use super::{llvm, ARCHS, LLVM_INPUT};
use crate::inputs::Inputs;
use crate::{banner, Generated};

/// The probe tokens; index 0 is the baseline every usable line must take as an inline constant.
const PROBES: [&str; 7] = ["64", "0x3800", "0x3f00", "0x38003800", "0x3f000000", "0x3fe00000", "1.5"];
const P_F16: usize = 1;
const P_BF16: usize = 2;
const P_PK: usize = 3;
const P_F32: usize = 4;
const P_F64: usize = 5;
const P_FLOAT: usize = 6;

/// Golden lines tried per (mnemonic, source) until one takes the baseline.
const LINES_PER_SOURCE: usize = 3;

/// What llvm-mc made of one probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Error,
    Inline,
    Literal(u32),
    /// Another length (an encoding change): read as neither.
    Other,
}

/// The suffixes that name an encoding, longest first.
const SUFFIXES: &[&str] = &["_e64_dpp", "_e32", "_e64", "_dpp", "_sdwa"];

/// The mnemonic without its encoding suffix: the key of the emitted tables.
fn base(m: &str) -> &str {
    SUFFIXES.iter().find_map(|s| m.strip_suffix(s)).unwrap_or(m)
}

/// One source to probe: its key, the golden lines to try and where the source is in them.
struct Target {
    key: (String, usize),
    dwords: u8,
    /// (line, byte range of the source operand).
    lines: Vec<(String, std::ops::Range<usize>)>,
}

/// The byte range of operand `k` in `part` (one instruction, or one VOPD half), checked against
/// the operand text [`operands`] reads.
pub(super) fn operand_range(part: &str, k: usize) -> Option<std::ops::Range<usize>> {
    let want = operands(part, 0).get(k)?.clone();
    let start_ops = part.find(char::is_whitespace)?;
    let mut depth = 0i32;
    let mut idx = 0usize;
    let mut elem_start = start_ops;
    for (i, ch) in part.char_indices().skip_while(|(i, _)| *i < start_ops) {
        match ch {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                if idx == k {
                    break;
                }
                idx += 1;
                elem_start = i + 1;
            }
            _ => {}
        }
    }
    let lead = part[elem_start..].len() - part[elem_start..].trim_start().len();
    let s = elem_start + lead;
    part[s..].starts_with(&want).then(|| s..s + want.len())
}

/// Golden lines per mnemonic (each VOPD half under its own mnemonic): (line, VOPD half).
pub(super) type Golden = BTreeMap<String, Vec<(String, usize)>>;

pub(super) fn read_golden(arch: &str) -> Result<Golden, String> {
    let mut g = Golden::new();
    for asm in super::golden::read_texts(arch)? {
        for (half, part) in asm.split(" :: ").enumerate() {
            let m = part.split_whitespace().next().unwrap_or("");
            g.entry(m.to_string()).or_default().push((asm.clone(), half));
        }
    }
    Ok(g)
}

/// A line of `op` written from its operand list (registers of each operand's kind and size, an
/// integer for immediates; the last VALU source an SGPR where `vsrc_sgpr`, for lane masks such
/// as `v_cndmask_b32_e64`'s src2; the destination an SGPR where `sdst`), for opcodes no golden
/// line shows (`v_fmamk_f16`, gfx9 `v_dot2_f32_f16`).
pub(super) fn synth_line(op: &Opcode, lops: &[LineOperand], vsrc_sgpr: bool, sdst: bool) -> Option<String> {
    let mut ops = Vec::new();
    let last_vsrc = lops.iter().rposition(|o| o.kind == OperandKind::Vsrc);
    for (i, o) in lops.iter().enumerate() {
        let n = 8 * (i + 1);
        let d = usize::from(o.dwords.max(1));
        let reg = |c: &str| if d == 1 { format!("{c}{n}") } else { format!("{c}[{n}:{}]", n + d - 1) };
        ops.push(match o.kind {
            OperandKind::Vsrc if vsrc_sgpr && last_vsrc == Some(i) => reg("s"),
            OperandKind::Vgpr if sdst && i == 0 && o.name == "vdst" => reg("s"),
            OperandKind::Vgpr | OperandKind::Vsrc => reg("v"),
            OperandKind::Agpr => reg("a"),
            OperandKind::Sgpr | OperandKind::Ssrc => reg("s"),
            OperandKind::Special | OperandKind::Off => o.name.to_string(),
            OperandKind::Imm | OperandKind::Simm16 | OperandKind::Offset => "0x1234".to_string(),
            _ => return None,
        });
    }
    Some(format!("{} {}", op.mnemonic, ops.join(", ")))
}

/// Every source of every opcode of `table`, with the golden lines to probe it in (or a line
/// written from its operands where no golden line has its mnemonic and operand count).
fn targets(table: &Table, golden: &Golden) -> Vec<Target> {
    let mut out = Vec::new();
    let none = Vec::new();
    for op in table.opcodes {
        let lops = line_operands(op);
        let mut lines: Vec<(String, usize)> = golden
            .get(op.mnemonic)
            .unwrap_or(&none)
            .iter()
            .filter(|(l, half)| l.split(" :: ").nth(*half).is_some_and(|p| operands(p, 0).len() == lops.len()))
            .take(LINES_PER_SOURCE)
            .cloned()
            .collect();
        if lines.is_empty() && !op.format.starts_with("VOPD") {
            // Also with an SGPR destination: the tables type `v_readlane_b32`'s and gfx12
            // `v_s_exp_f32`'s (scalar) destination as a VGPR.
            let forms = [(false, false), (true, false), (false, true), (true, true)];
            lines
                .extend(forms.into_iter().filter_map(|(sgpr, sdst)| synth_line(op, &lops, sgpr, sdst)).map(|l| (l, 0)));
        }
        for (k, o) in lops.iter().enumerate() {
            let Some(src) = o.source else { continue };
            if !matches!(o.kind, OperandKind::Vsrc | OperandKind::Ssrc) {
                continue;
            }
            let mut t = Target { key: (base(op.mnemonic).to_string(), src), dwords: o.dwords, lines: Vec::new() };
            for (line, half) in &lines {
                let Some(part) = line.split(" :: ").nth(*half) else { continue };
                let offset = part.as_ptr() as usize - line.as_ptr() as usize;
                if let Some(r) = operand_range(part, k) {
                    t.lines.push((line.clone(), r.start + offset..r.end + offset));
                }
            }
            if !t.lines.is_empty() {
                out.push(t);
            }
        }
    }
    out
}

/// The type code of a source from its probes' outcomes; `Err` describes outcomes no type
/// explains.
fn classify(o: &[Outcome; PROBES.len()], dwords: u8) -> Result<&'static str, String> {
    let fold = |p: usize| o[p] == Outcome::Inline;
    let folds: Vec<usize> = (P_F16..=P_F64).filter(|&p| fold(p)).collect();
    let t = match folds.as_slice() {
        [] if dwords >= 2 => "B64",
        [] => "B16",
        // A 16-bit source that truncates 32-bit values (gfx12 `v_ldexp_f16` src1, gfx950
        // `v_cvt_scalef32_sr_fp8_f16` src0) folds `0x38003800` as its low half, 0.5.
        // An f16 source that refuses `0x38003800` reads a 16-bit literal; one that takes it
        // (as a literal or folded) reads 32 bits.
        [P_F16] if o[P_PK] == Outcome::Error => "F16",
        [P_F16] | [P_F16, P_PK] => "F16Lit32",
        [P_BF16] if o[P_PK] == Outcome::Error => "Bf16",
        [P_BF16] => "Bf16Lit32",
        [P_PK] => "PkF16",
        [P_F32] => "F32",
        [P_F64] => "F64",
        _ => return Err(format!("{o:?}")),
    };
    // The float literal, where one is legal, must be 1.5 in that type.
    let want = match t {
        "F16" | "F16Lit32" | "PkF16" => 0x3e00,
        "Bf16" | "Bf16Lit32" => 0x3fc0,
        "F64" | "B64" => 0x3ff8_0000,
        _ => 0x3fc0_0000,
    };
    match o[P_FLOAT] {
        Outcome::Literal(b) if b != want => Err(format!("{t} but 1.5 -> 0x{b:x}: {o:?}")),
        _ => Ok(t),
    }
}

/// Reads llvm-mc's answer to one probe against the baseline's encoding (the inline integer 64,
/// code 192). A fold must be into 0.5 (code 240): the words differ by exactly 192 ^ 240 in one
/// field. Another inline code (a 16-bit source truncates `0x3f000000` to the integer 0) is
/// `Other`.
fn outcome(base: &[u8], r: &Option<llvm::Inst>) -> Outcome {
    let word = |b: &[u8]| b.iter().rev().fold(0u128, |w, &x| w << 8 | u128::from(x));
    match r {
        None => Outcome::Error,
        Some(i) if i.bytes.len() == base.len() => {
            let x = word(&i.bytes) ^ word(base);
            let fold = x != 0 && x >> x.trailing_zeros() == (192 ^ 240) >> 4 && x.trailing_zeros() >= 4;
            if fold {
                Outcome::Inline
            } else {
                Outcome::Other
            }
        }
        Some(i) if i.bytes.len() == base.len() + 4 => {
            let b = &i.bytes[base.len()..];
            Outcome::Literal(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        }
        Some(_) => Outcome::Other,
    }
}

/// Per key, the type code; conflicts and unexplained outcomes are errors.
type Types = BTreeMap<(String, usize), &'static str>;

/// The emitted table's slots: src0..src2. A source beyond them (gfx950 `scale_src0/1`) must
/// take no constant: llvm-mc refuses every probe there (a VGPR only, as asm::matrix checks).
const SLOTS: usize = 3;

/// The types of an architecture's sources, and how many sources beyond the slots were probed.
fn probe_arch(arch: &str) -> Result<(Types, usize), String> {
    let table =
        baregpu_autogen::isa::ARCHS.iter().find(|a| a.name == arch).ok_or_else(|| format!("no table for {arch}"))?;
    let golden = read_golden(arch)?;
    let targets = targets(table, &golden);
    let mut lines = Vec::new();
    for t in &targets {
        for (line, r) in &t.lines {
            for p in PROBES {
                lines.push(format!("{}{p}{}", &line[..r.start], &line[r.end..]));
            }
        }
    }
    let res = llvm::assemble(arch, &lines)?;
    let mut types = Types::new();
    let mut k = 0;
    let mut errors = Vec::new();
    let mut beyond = 0;
    for t in &targets {
        let mut found = None;
        let mut refused = true;
        for _ in &t.lines {
            let r = &res[k..k + PROBES.len()];
            k += PROBES.len();
            refused &= r.iter().all(Option::is_none);
            let Some(base) = r[0].as_ref().map(|i| i.bytes.as_slice()) else { continue };
            if found.is_none() {
                let o: [Outcome; PROBES.len()] = std::array::from_fn(|i| outcome(base, &r[i]));
                found = Some(classify(&o, t.dwords));
            }
        }
        if t.key.1 >= SLOTS {
            if !refused {
                errors.push(format!("{} src{}: takes a constant, the table has no slot for it", t.key.0, t.key.1));
            }
            beyond += 1;
            continue;
        }
        match found {
            Some(Ok(ty)) => match types.insert(t.key.clone(), ty) {
                // gfx9 VOP3 takes no literal at all, so `0x38003800` fails there: the encodings
                // that take a literal say how wide it is.
                Some(wide @ ("F16Lit32" | "Bf16Lit32")) if wide.strip_suffix("Lit32") == Some(ty) => {
                    types.insert(t.key.clone(), wide);
                }
                Some(prev) if ty.strip_suffix("Lit32") == Some(prev) => {}
                Some(prev) if prev != ty => {
                    errors.push(format!("{} src{}: {prev} in one encoding, {ty} in another", t.key.0, t.key.1))
                }
                _ => {}
            },
            Some(Err(e)) => errors.push(format!("{} src{}: {e}", t.key.0, t.key.1)),
            None => {}
        }
    }
    llvm::found(arch, &errors, (types, beyond))
}

pub fn generate(_inputs: &Inputs) -> Result<Vec<Generated>, String> {
    llvm::check_version()?;
    let tables = llvm::per_arch("isa_src_types", ARCHS, |_, a| probe_arch(a))?;
    let mut s = banner("isa_src_types", &[&LLVM_INPUT]);
    s.push_str(
        "//! The value type llvm-mc 22 reads each VALU/SALU source as, per architecture: (mnemonic\n\
         //! without its encoding suffix, types of src0..src2), sorted by mnemonic. Each type was found\n\
         //! by assembling a golden line with the source replaced by probe values (generator\n\
         //! autogen/gen/src/isa/src_types.rs); `None` where the source is not one or was not probed.\n\n",
    );
    s.push_str("use super::SrcType::{self, *};\n\n");
    for (arch, table) in ARCHS.iter().zip(tables) {
        let (table, beyond) = table;
        let mut by_name: BTreeMap<&str, [Option<&str>; SLOTS]> = BTreeMap::new();
        for ((m, src), ty) in &table {
            by_name.entry(m.as_str()).or_default()[*src] = Some(ty);
        }
        let _ = write!(s, "/// {} sources of {} mnemonics of {arch}", table.len(), by_name.len());
        if beyond > 0 {
            let _ = write!(s, "; {beyond} scale sources take no constant (llvm-mc refuses every probe)");
        }
        s.push_str(".\n");
        let _ = writeln!(s, "pub static {}: &[(&str, [Option<SrcType>; 3])] = &[", arch.to_uppercase());
        for (m, tys) in &by_name {
            let t: Vec<String> = tys.iter().map(|t| t.map_or("None".into(), |t| format!("Some({t})"))).collect();
            let _ = writeln!(s, "    ({m:?}, [{}]),", t.join(", "));
        }
        s.push_str("];\n\n");
    }
    s.pop();
    Ok(vec![Generated { path: PathBuf::from("src/isa/src_types.rs"), text: s }])
}
