//! The disassembler is lossless: for every golden vector and for random words of every opcode's
//! format (fields of golden instructions set at random), the text we print assembles with
//! llvm-mc 22 to the very same bytes. Random words count only where llvm-mc itself decodes them
//! as one instruction whose text it assembles back to the same bytes (else llvm-mc has no
//! lossless spelling to match). Skipped, with a message, when llvm-mc-22 is not installed.

use std::io::Write;
use std::process::{Command, Stdio};

use baregpu_isa::{assemble_line, decode, disassemble, names, Arch, Instruction};

mod common;
#[path = "../../../tests/common/mutate.rs"]
mod mutate;
use mutate::Rng;

const LLVM_MC: &str = "llvm-mc-22";

/// Candidates per llvm-mc disassembly run.
const CHUNK: usize = 2000;

/// An instruction between candidates, so that llvm-mc's output splits back into one segment per
/// candidate (llvm-mc skips what it cannot read, printing nothing for it).
const MARK_TEXT: &str = "s_nop 0xabc";
const MARK: [u8; 4] = [0xbc, 0x0a, 0x80, 0xbf];
/// The marker after odd candidates in a disassembly (`s_nop 0xabd`).
const MARK_ODD: [u8; 4] = [0xbd, 0x0a, 0x80, 0xbf];

fn have_llvm_mc() -> bool {
    let ok = Command::new(LLVM_MC).arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    if !ok {
        eprintln!("lossless_disasm: {LLVM_MC} not installed, skipped");
    }
    ok
}

/// Runs llvm-mc on `input`: its stdout, and whether it exited normally (it crashes on a few
/// words).
fn llvm_mc(arch: Arch, args: &[&str], input: String) -> (String, bool) {
    let mut child = Command::new(LLVM_MC)
        .args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={}", arch.name()), "-show-encoding"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("llvm-mc runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("llvm-mc output");
    // A crashed llvm-mc closes its input early: the write may fail.
    let _ = writer.join().expect("writer");
    (String::from_utf8_lossy(&out.stdout).into_owned(), out.status.success())
}

/// One instruction llvm-mc printed: its text and encoding.
type Printed = (String, Vec<u8>);

/// llvm-mc's output lines, split at the markers into segments (the last one still open); with
/// `runs`, a run of one marker ends one segment (and the two markers alternate).
fn segments(stdout: &str, runs: bool) -> Vec<Vec<Printed>> {
    let mut segs = vec![Vec::new()];
    let mut after_mark = None;
    for line in stdout.lines() {
        // `.long N`: data, one dword (what we print for words no instruction line produces).
        if let Some(v) = line.trim().strip_prefix(".long").and_then(|v| v.trim().parse::<i64>().ok()) {
            after_mark = None;
            segs.last_mut().expect("a segment").push((".long".to_string(), (v as u32).to_le_bytes().to_vec()));
            continue;
        }
        let Some((text, enc)) = line.split_once("; encoding: [") else { continue };
        let bytes: Vec<u8> = enc
            .trim_end()
            .trim_end_matches(']')
            .split(',')
            .filter_map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).ok())
            .collect();
        if bytes == MARK || bytes == MARK_ODD {
            if !(runs && after_mark == Some(bytes[0])) {
                segs.push(Vec::new());
            }
            after_mark = Some(bytes[0]);
        } else {
            after_mark = None;
            segs.last_mut().expect("a segment").push((text.trim().to_string(), bytes));
        }
    }
    segs
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("0x{x:02x}")).collect::<Vec<_>>().join(",")
}

/// Disassembles each candidate with llvm-mc: its text when it is one instruction of exactly
/// those bytes. llvm-mc reads its input as one byte stream, so a candidate it reads as longer
/// eats into the markers after it: a run of five keeps the segments apart. Where llvm-mc
/// crashes, the candidate after the last whole segment counts as unreadable and the rest is
/// read again.
fn llvm_disasm(arch: Arch, cands: &[Vec<u8>]) -> Vec<Option<String>> {
    let marks = [MARK, MARK_ODD].map(|m| format!("{}\n", hex(&m)).repeat(5));
    let mut texts = Vec::with_capacity(cands.len());
    while texts.len() < cands.len() {
        // In chunks: a crash costs a rerun of the rest of its chunk only.
        let rest = &cands[texts.len()..(texts.len() + CHUNK).min(cands.len())];
        let input: String = rest.iter().enumerate().map(|(k, c)| format!("{}\n{}", hex(c), marks[k % 2])).collect();
        let (out, ok) = llvm_mc(arch, &["-disassemble"], input);
        let mut segs = segments(&out, true);
        if ok {
            segs.resize(rest.len(), Vec::new());
        } else {
            // The closed segments are whole; the crash is in the open one's candidate.
            *segs.last_mut().expect("a segment") = Vec::new();
        }
        segs.truncate(rest.len());
        for (s, c) in segs.into_iter().zip(rest) {
            texts.push(match &s[..] {
                [(t, b)] if b == c => Some(t.clone()),
                _ => None,
            });
        }
    }
    texts
}

/// Assembles each text with llvm-mc: the bytes of each line, `None` where it is rejected.
fn llvm_asm(arch: Arch, texts: &[String]) -> Vec<Option<Vec<u8>>> {
    let input: String = texts.iter().map(|t| format!("{t}\n{MARK_TEXT}\n")).collect();
    let mut segs = segments(&llvm_mc(arch, &[], input).0, false);
    segs.resize(texts.len(), Vec::new());
    segs.into_iter().map(|s| (!s.is_empty()).then(|| s.into_iter().flat_map(|p| p.1).collect())).collect()
}

/// A copy of `i` with `n` of its fields (not the opcode, not the bits that select the format)
/// set at random (all of them when `n` is 0).
fn randomize(i: &Instruction, rng: &mut Rng, n: usize) -> Vec<u8> {
    let f = i.format();
    let mut r = *i;
    let fixed = |lo: u16, hi: u16| f.select.iter().any(|s| lo <= s.1 && s.0 <= hi);
    let free: Vec<_> =
        f.fields.iter().filter(|fd| fd.name != "op" && !fd.name.starts_with("op_y") && !fixed(fd.lo, fd.hi)).collect();
    let picks: Vec<usize> =
        if n == 0 { (0..free.len()).collect() } else { (0..n).map(|_| rng.below(free.len())).collect() };
    for k in picks {
        let Some(fd) = free.get(k) else { continue };
        let width = (fd.hi - fd.lo + 1) as u32;
        let v = rng.next() as u32;
        r.set_field(fd.name, if width >= 32 { v } else { v & ((1 << width) - 1) });
    }
    // The encoding bits of the first dword stay the template's.
    let mask = f.encoding.iter().find(|e| i.words[0] & e.0 == e.1).map_or(0, |e| e.0);
    r.words[0] = (r.words[0] & !mask) | (i.words[0] & mask);
    let mut b = r.encode();
    // A literal may be wanted by the new operands: random bytes after the words.
    b.extend_from_slice(&(rng.next() as u32).to_le_bytes());
    b
}

/// Random variants of each golden instruction: how many fields each sets at random (0: all).
const VARIANTS: [usize; 1] = [1];

/// Golden vectors and random words of one architecture (deduplicated).
fn candidates(arch: Arch, rng: &mut Rng) -> (Vec<Vec<u8>>, usize) {
    let golden: Vec<Vec<u8>> = common::load(arch).into_iter().map(|v| v.bytes).collect();
    let n_golden = golden.len();
    let mut all = golden.clone();
    // Every second golden instruction as a template keeps the test within its time budget.
    for g in golden.iter().step_by(2) {
        let Ok(i) = decode(arch, g) else { continue };
        for n in VARIANTS {
            if let Ok(r) = decode(arch, &randomize(&i, rng, n)) {
                all.push(r.encode());
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (k, c) in all.into_iter().enumerate() {
        if c != MARK && c != MARK_ODD && (k < n_golden || seen.insert(c.clone())) {
            out.push(c);
        }
    }
    (out, n_golden)
}

struct Rates {
    checked: usize,
    llvm_ok: usize,
    ours_ok: usize,
    failures: Vec<String>,
}

fn check_arch(arch: Arch, rng: &mut Rng) -> Rates {
    let (cands, n_golden) = candidates(arch, rng);
    // Random words llvm-mc has a lossless spelling for.
    let llvm_text = llvm_disasm(arch, &cands[n_golden..]);
    let texts: Vec<String> = llvm_text.iter().map(|t| t.clone().unwrap_or_default()).collect();
    let back = llvm_asm(arch, &texts);
    let mut keep: Vec<&Vec<u8>> = cands[..n_golden].iter().collect();
    for ((c, t), b) in cands[n_golden..].iter().zip(&llvm_text).zip(&back) {
        if t.is_some() && b.as_ref() == Some(c) {
            keep.push(c);
        }
    }
    let ours: Vec<Result<String, String>> = keep
        .iter()
        .map(|c| match decode(arch, c) {
            Ok(i) if i.size() == c.len() => Ok(disassemble(&i)),
            Ok(i) => Err(format!("decoded as {} bytes: {}", i.size(), disassemble(&i))),
            Err(e) => Err(format!("not decoded: {e}")),
        })
        .collect();
    let texts: Vec<String> = ours.iter().map(|t| t.clone().unwrap_or_default()).collect();
    let back = llvm_asm(arch, &texts);
    let mut r = Rates { checked: keep.len(), llvm_ok: 0, ours_ok: 0, failures: Vec::new() };
    for ((c, t), b) in keep.iter().zip(&ours).zip(&back) {
        let t = match t {
            Ok(t) => t,
            Err(e) => {
                r.failures.push(format!("[{}]: {e}", hex(c)));
                continue;
            }
        };
        if b.as_ref() == Some(*c) {
            r.llvm_ok += 1;
        } else {
            let got = b.as_ref().map_or("rejected".to_string(), |b| format!("[{}]", hex(b)));
            r.failures.push(format!("[{}]: `{t}` -> llvm-mc {got}", hex(c)));
        }
        if assemble_line(arch, t).is_ok_and(|b| b == **c) {
            r.ours_ok += 1;
        }
    }
    eprintln!(
        "{}: {} golden, {} random words, {} of them kept",
        arch.name(),
        n_golden,
        cands.len() - n_golden,
        r.checked - n_golden
    );
    r
}

#[test]
fn printed_text_assembles_back_to_the_same_bytes() {
    if !have_llvm_mc() {
        return;
    }
    let mut rng = Rng::new(12);
    let mut bad = Vec::new();
    for arch in Arch::ALL {
        let r = check_arch(arch, &mut rng);
        let pct = |n: usize| 100.0 * n as f64 / r.checked.max(1) as f64;
        eprintln!(
            "{}: {} words; llvm-mc gives the bytes back for {:.2}%, ours for {:.2}%",
            arch.name(),
            r.checked,
            pct(r.llvm_ok),
            pct(r.ours_ok)
        );
        for f in r.failures.iter().take(40) {
            eprintln!("  {}: {f}", arch.name());
        }
        bad.extend(r.failures.into_iter().map(|f| format!("{}: {f}", arch.name())));
    }
    assert!(bad.is_empty(), "{} words print as text that does not assemble back; first: {}", bad.len(), bad[0]);
}

/// Words whose text lost bits (or named the wrong register) before, with llvm-mc 22's text.
const PRINTED: &[(Arch, &[u8], &str)] = &[
    // gfx12 renamed and renumbered the hardware registers: id 4 is WAVE_STATE_PRIV, not HW_ID1.
    (Arch::Gfx1201, &[0x04, 0xf8, 0x80, 0xb8], "s_getreg_b32 s0, hwreg(HW_REG_WAVE_STATE_PRIV)"),
    (Arch::Gfx1201, &[0x17, 0xf8, 0x80, 0xb8], "s_getreg_b32 s0, hwreg(HW_REG_WAVE_HW_ID1)"),
    (Arch::Gfx1100, &[0x17, 0xf8, 0x80, 0xb8], "s_getreg_b32 s0, hwreg(HW_REG_HW_ID1)"),
    // Bits outside the counters (gfx942 bits 12-13): only the number keeps them.
    (Arch::Gfx942, &[0x41, 0x31, 0x8c, 0xbf], "s_waitcnt 0x3141"),
    (Arch::Gfx942, &[0xd1, 0xc1, 0x90, 0xbf], "s_sendmsg 49617"),
    (Arch::Gfx1100, &[0xd1, 0xc1, 0xb6, 0xbf], "s_sendmsg 49617"),
    // A message without operation but with stream bits: llvm-mc says sendmsg(MSG_INTERRUPT).
    (Arch::Gfx1100, &[0x01, 0x01, 0xb6, 0xbf], "s_sendmsg 257"),
    (Arch::Gfx942, &[0x01, 0x01, 0x90, 0xbf], "s_sendmsg sendmsg(1, 0, 1)"),
    // DPP8 with fi:1 (src0 0xea) is one instruction of 8 (12) bytes.
    (
        Arch::Gfx1100,
        &[0xea, 0x50, 0x10, 0x06, 0x18, 0x88, 0xc6, 0xfa],
        "v_add_f32_dpp v8, v24, v40 dpp8:[0,1,2,3,4,5,6,7] fi:1",
    ),
    (
        Arch::Gfx1201,
        &[0xea, 0x50, 0x10, 0x06, 0x18, 0x88, 0xc6, 0xfa],
        "v_add_f32_dpp v8, v24, v40 dpp8:[0,1,2,3,4,5,6,7] fi:1",
    ),
    (
        Arch::Gfx1100,
        &[0x08, 0x00, 0x03, 0xd5, 0xea, 0x50, 0x02, 0x00, 0x18, 0x77, 0x39, 0x05],
        "v_add_f32_e64_dpp v8, v24, v40 dpp8:[7,6,5,4,3,2,1,0] fi:1",
    ),
    // gfx12 temporal hint 3 is named by the scope.
    (
        Arch::Gfx1201,
        &[0x7c, 0x00, 0x05, 0xee, 0x01, 0x00, 0x30, 0x00, 0x02, 0x00, 0x00, 0x00],
        "global_load_b32 v1, v[2:3], off th:TH_LOAD_LU",
    ),
    (
        Arch::Gfx1201,
        &[0x7c, 0x00, 0x05, 0xee, 0x01, 0x00, 0x3c, 0x00, 0x02, 0x00, 0x00, 0x00],
        "global_load_b32 v1, v[2:3], off th:TH_LOAD_BYPASS scope:SCOPE_SYS",
    ),
    // s_version: version names and flag bits, the number where bits 8-12 are set.
    (Arch::Gfx1100, &[0x09, 0x00, 0x80, 0xb0], "s_version UC_VERSION_GFX12"),
    (Arch::Gfx1201, &[0x06, 0x40, 0x80, 0xb0], "s_version UC_VERSION_GFX11|UC_VERSION_W32_BIT"),
    (Arch::Gfx1201, &[0x09, 0xa0, 0x80, 0xb0], "s_version (UC_VERSION_GFX12|UC_VERSION_W64_BIT)|UC_VERSION_MDP_BIT"),
    (Arch::Gfx1100, &[0x80, 0x40, 0x80, 0xb0], "s_version 128|UC_VERSION_W32_BIT"),
    (Arch::Gfx1100, &[0xd1, 0xc1, 0x80, 0xb0], "s_version 0xc1d1"),
    // Branch offsets: unsigned on every target.
    (Arch::Gfx1100, &[0xfc, 0xff, 0xa2, 0xbf], "s_cbranch_scc1 65532"),
    (Arch::Gfx1201, &[0xd1, 0xc1, 0x0a, 0xba], "s_call_b64 s[10:11], 49617"),
    // s_setreg_imm32_b32: inline integers in decimal.
    (
        Arch::Gfx1201,
        &[0x1a, 0xf8, 0x80, 0xb9, 0x02, 0x00, 0x00, 0x00],
        "s_setreg_imm32_b32 hwreg(HW_REG_WAVE_SCHED_MODE), 2",
    ),
    (Arch::Gfx942, &[0x01, 0xf8, 0x00, 0xba, 0xf0, 0xff, 0xff, 0xff], "s_setreg_imm32_b32 hwreg(HW_REG_MODE), -16"),
    // A gfx12 v_s_* f16 source reads 16 bits: a literal holding an inline value keeps `lit()`.
    (
        Arch::Gfx1201,
        &[0x05, 0x00, 0x81, 0xd6, 0xff, 0x00, 0x00, 0x00, 0x00, 0x38, 0x00, 0x00],
        "v_s_exp_f16 s5, lit(0x3800)",
    ),
    // VINTERP: llvm-mc reads clamp only before op_sel.
    (
        Arch::Gfx1100,
        &[0x08, 0xd8, 0x02, 0xcd, 0x18, 0x51, 0xe2, 0x04],
        "v_interp_p10_f16_f32 v8, v24.h, v40, v56.l clamp op_sel:[1,1,0,1] wait_exp:0",
    ),
];

#[path = "lossless_disasm/round_trips.rs"]
mod round_trips;
use round_trips::ROUND_TRIPS;

#[test]
fn words_without_a_spelling_print_as_text_that_assembles_back() {
    for (arch, bytes, text, _) in ROUND_TRIPS {
        let i = decode(*arch, bytes).unwrap_or_else(|e| panic!("{}: {text}: {e}", arch.name()));
        assert_eq!(i.size(), bytes.len(), "{}: {text}: one instruction", arch.name());
        assert_eq!(disassemble(&i), *text, "{}", arch.name());
        assert_eq!(assemble_line(*arch, text).as_deref().ok(), Some(*bytes), "{}: {text}", arch.name());
    }
    if !have_llvm_mc() {
        return;
    }
    for arch in Arch::ALL {
        let rows: Vec<_> = ROUND_TRIPS.iter().filter(|r| r.0 == arch && r.3).collect();
        let back = llvm_asm(arch, &rows.iter().map(|r| r.2.to_string()).collect::<Vec<_>>());
        for (r, b) in rows.iter().zip(back) {
            assert_eq!(b.as_deref(), Some(r.1), "{}: llvm-mc reads back {}", arch.name(), r.2);
        }
    }
}

/// gfx1201 VOPC words with a 16-bit VGPR source at v128 or above: llvm-mc 22 (fake16) prints an
/// invalid register there but reads these texts (every VGPR source a half) back to the same word,
/// and so must ours (`v_cmp_class_f16 vcc_lo, v1.h, v2.l`, gfx12_asm_vopc.s).
const FAKE16_HALVES: &[(&[u8], &str)] = &[
    (&[0x81, 0x05, 0xfa, 0x7c], "v_cmp_class_f16_e32 vcc_lo, v1.h, v2.l"),
    (&[0xfd, 0x04, 0xfb, 0x7c], "v_cmp_class_f16_e32 vcc_lo, src_scc, v2.h"),
    (&[0x81, 0x05, 0x04, 0x7d], "v_cmpx_eq_f16_e32 v1.h, v2.l"),
    (&[0xff, 0xff, 0x05, 0x7c], "v_cmp_eq_f16_e32 vcc_lo, v127.h, v127.h"),
];

#[test]
fn fake16_high_halves_print_and_assemble_back() {
    for (bytes, text) in FAKE16_HALVES {
        let i = decode(Arch::Gfx1201, bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(disassemble(&i), *text);
        assert_eq!(assemble_line(Arch::Gfx1201, text).as_deref().ok(), Some(*bytes), "{text}");
    }
    // Only with every VGPR source a half, as llvm-mc 22 takes it.
    assert!(assemble_line(Arch::Gfx1201, "v_cmp_class_f16 vcc_lo, v1.h, v2").is_err());
    assert!(assemble_line(Arch::Gfx1201, "v_cmp_eq_f32 vcc_lo, v1.h, v2.l").is_err());
}

#[test]
fn words_print_as_llvm_mc_prints_them_losslessly() {
    for (arch, bytes, text) in PRINTED {
        let i = decode(*arch, bytes).unwrap_or_else(|e| panic!("{}: {text}: {e}", arch.name()));
        assert_eq!(i.size(), bytes.len(), "{}: {text}: one instruction", arch.name());
        assert_eq!(disassemble(&i), *text, "{}", arch.name());
    }
}

#[test]
fn hwreg_names_assemble_to_their_arch_ids() {
    // HW_REG_HW_ID1 is id 23 on gfx11 and gfx12 (gfx9's HW_REG_HW_ID is 4); gfx12 prints it
    // HW_REG_WAVE_HW_ID1 and still reads the old name.
    assert_eq!(
        assemble_line(Arch::Gfx1100, "s_getreg_b32 s0, hwreg(HW_REG_HW_ID1)").unwrap(),
        [0x17, 0xf8, 0x80, 0xb8]
    );
    for arch in [Arch::Gfx1100, Arch::Gfx1201] {
        assert_eq!(names::hwreg::parse(arch, "hwreg(HW_REG_HW_ID1)"), Some(0xf817), "{}", arch.name());
        assert_eq!(names::hwreg::id(arch, "HW_REG_HW_ID1"), Some(23), "{}", arch.name());
    }
    assert_eq!(assemble_line(Arch::Gfx942, "s_getreg_b32 s0, hwreg(HW_REG_HW_ID)").unwrap(), [0x04, 0xf8, 0x80, 0xb8]);
    assert_eq!(
        assemble_line(Arch::Gfx1201, "s_getreg_b32 s0, hwreg(HW_REG_WAVE_STATE_PRIV)").unwrap(),
        [0x04, 0xf8, 0x80, 0xb8]
    );
}

/// The instructions whose immediate is a named operand, and the width of that immediate.
const NAMED_IMMEDIATES: &[(&str, u32)] = &[
    ("s_sendmsg", 16),
    ("s_waitcnt", 16),
    ("s_getreg_b32", 16),
    ("s_waitcnt_depctr", 16),
    ("s_wait_alu", 16),
    ("s_delay_alu", 16),
    ("s_sendmsg_rtn_b32", 8),
    ("s_version", 16),
];

#[test]
fn named_immediates_print_losslessly_for_every_value() {
    if !have_llvm_mc() {
        return;
    }
    let mut rng = Rng::new(0x5e4d);
    let mut bad = Vec::new();
    for arch in Arch::ALL {
        let golden = common::load(arch);
        let mut words: Vec<Vec<u8>> = Vec::new();
        for (m, bits) in NAMED_IMMEDIATES {
            let Some(t) = golden.iter().find(|v| v.text.split_whitespace().next() == Some(*m)) else { continue };
            let mask = (1u32 << bits) - 1;
            // Every value below 0x800 (every id, counter and field of the low bits), then a
            // sample of the rest.
            let values = (0..0x800u32.min(mask + 1)).chain((0..1500).map(|_| rng.next() as u32 & mask));
            for v in values {
                let mut b = t.bytes.clone();
                let w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & !mask | v;
                b[..4].copy_from_slice(&w.to_le_bytes());
                words.push(b);
            }
        }
        let texts: Vec<String> =
            words.iter().map(|b| decode(arch, b).map(|i| disassemble(&i)).unwrap_or_default()).collect();
        let back = llvm_asm(arch, &texts);
        for ((b, t), got) in words.iter().zip(&texts).zip(&back) {
            if got.as_ref() != Some(b) {
                bad.push(format!("{}: [{}] `{t}` -> {got:?}", arch.name(), hex(b)));
            }
        }
        eprintln!("{}: {} named immediates", arch.name(), words.len());
    }
    for b in bad.iter().take(40) {
        eprintln!("  {b}");
    }
    assert!(bad.is_empty(), "{} named immediates do not assemble back; first: {}", bad.len(), bad[0]);
}

#[test]
fn hwreg_and_message_names_read_as_llvm_mc_reads_them() {
    if !have_llvm_mc() {
        return;
    }
    let mut bad = Vec::new();
    for arch in Arch::ALL {
        // Every name and alias of the tables, as llvm-mc encodes it (gfx9 GS and system
        // messages need an operation: their forms are in the value test above).
        let hw = names::hwreg::table(arch);
        let msgs: Vec<_> = names::sendmsg::table(arch)
            .iter()
            .filter(|e| !matches!(e.1, "MSG_GS" | "MSG_GS_DONE" | "MSG_SYSMSG"))
            .collect();
        let mut texts: Vec<String> = hw.iter().map(|e| format!("s_getreg_b32 s0, hwreg({})", e.1)).collect();
        texts.extend(msgs.iter().map(|e| format!("s_sendmsg sendmsg({})", e.1)));
        let want = hw.iter().map(|e| (e.0, 0x3f, e.1)).chain(msgs.iter().map(|e| (e.0, 0xffff, e.1)));
        for ((id, mask, name), got) in want.zip(llvm_asm(arch, &texts)) {
            let got = got.map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & mask);
            if got != Some(id) {
                bad.push(format!("{}: {name} is {id} here, llvm-mc: {got:?}", arch.name()));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn hwreg_ids_and_messages_print_as_llvm_mc_prints_them() {
    if !have_llvm_mc() {
        return;
    }
    let mut bad = Vec::new();
    for arch in Arch::ALL {
        let golden = common::load(arch);
        let mut words = Vec::new();
        // Every message id and operation; gfx9's bit 7 is none, and llvm-mc's names lose it.
        let msg_end = if matches!(arch, Arch::Gfx942 | Arch::Gfx950) { 0x80 } else { 0x100 };
        for (m, values) in [
            ("s_getreg_b32", (0..64).map(|id| id | 31 << 11).collect::<Vec<u32>>()),
            ("s_sendmsg", (0..msg_end).collect()),
        ] {
            let t = golden.iter().find(|v| v.text.split_whitespace().next() == Some(m)).expect("a golden vector");
            for v in values {
                let mut b = t.bytes.clone();
                b[..2].copy_from_slice(&(v as u16).to_le_bytes());
                words.push(b);
            }
        }
        for (b, llvm) in words.iter().zip(llvm_disasm(arch, &words)) {
            let ours = decode(arch, b).map(|i| disassemble(&i)).ok();
            if ours != llvm {
                bad.push(format!("{}: [{}] ours {ours:?}, llvm-mc {llvm:?}", arch.name(), hex(b)));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}
