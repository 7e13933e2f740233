//! The `isa_image_asm` generator: which image lines llvm-mc 22's assembler takes, per opcode of
//! gfx1100 (MIMG) and gfx1201 (VIMAGE, VSAMPLE).
//!
//! The `isa` generator's image table (image.rs `counts`) holds the register counts llvm-mc's
//! disassembler prints; its assembler validates other counts for some opcode, dim and a16
//! combinations (gfx1100 `image_sample_c_o … dim:SQ_RSRC_IMG_2D_MSAA_ARRAY` takes an 8-register
//! range where 3 print; `image_load_mip` takes no size with that dim), refuses `d16` on some
//! opcodes (`image_load_pck`, `image_get_resinfo`, the atomics) and takes some address lists of
//! other lengths than it prints (gfx1201 VSAMPLE: a last range longer than needed).
//!
//! The first golden line of each image opcode is the baseline. It is assembled with each flag
//! (`unorm`, `glc`, `slc`, `dlc`, `r128`, `lwe`, gfx12 `scope:`; the BVH forms take none), and
//! where it has a `dim:` (the BVH forms have none and keep their fixed shapes) with every dim and
//! a16 and each address form (a range of 1 to 16 registers; a list of 1 to 5 addresses whose
//! last is a range of 1 to 12), and with every dmask, d16 and tfe and 1 to 5 data registers, all
//! in one llvm-mc run per architecture. A refused baseline, a combination taken with two data sizes, or a baseline
//! address form its own dim refuses is an error.
//!
//! Output: `src/isa/image_asm.rs`, one `ImageAsm` per opcode (the schema in autogen/src/isa/mod.rs).

use std::fmt::Write as _;
use std::path::PathBuf;

use super::{golden, llvm, LLVM_INPUT};
use crate::inputs::Inputs;
use crate::{banner, Generated};

const ARCHS: [&str; 2] = ["gfx1100", "gfx1201"];
const DIMS: [&str; 8] = ["1D", "2D", "3D", "CUBE", "1D_ARRAY", "2D_ARRAY", "2D_MSAA", "2D_MSAA_ARRAY"];
/// Address forms: a range of `RANGES` registers, lists of up to `LIST_FIELDS` addresses whose
/// last is a range of up to `LIST_LAST` registers.
const RANGES: u32 = 16;
const LIST_FIELDS: u32 = 5;
const LIST_LAST: u32 = 12;
const DATA: u32 = 5;
/// The flags probed on each baseline, bit `k` of `ImageAsm::flags` (`scope:` stands for both
/// cache-policy operands of gfx12, whose `th:` values depend on the access).
pub const FLAGS: [&str; 7] = ["unorm", "glc", "slc", "dlc", "r128", "lwe", "scope:SCOPE_SE"];

/// A register or range text: `v8`, `v[8:11]`.
fn regs(base: u32, n: u32) -> String {
    if n == 1 {
        format!("v{base}")
    } else {
        format!("v[{base}:{}]", base + n - 1)
    }
}

/// A golden line split into mnemonic, operands (brackets kept whole) and modifiers.
struct Line {
    mnemonic: String,
    ops: Vec<String>,
    mods: Vec<String>,
}

fn split(text: &str) -> Option<Line> {
    let (m, rest) = text.split_once(' ')?;
    let mut ops = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for ch in rest.trim().chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            ops.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    // The last operand is followed by the modifiers, space-separated.
    let last = cur.trim().to_string();
    let mut words = last.split(' ').filter(|w| !w.is_empty());
    ops.push(words.next()?.to_string());
    Some(Line { mnemonic: m.to_string(), ops, mods: words.map(str::to_string).collect() })
}

/// The address forms probed, in order: (is a list, fields, registers of the last), and the text.
fn addr_forms() -> Vec<(bool, u32, u32, String)> {
    let mut v: Vec<_> = (1..=RANGES).map(|n| (false, 1, n, regs(24, n))).collect();
    for k in 1..=LIST_FIELDS {
        for m in 1..=LIST_LAST {
            let mut parts: Vec<String> = (0..k - 1).map(|j| format!("v{}", 24 + 2 * j)).collect();
            parts.push(regs(40, m));
            v.push((true, k, m, format!("[{}]", parts.join(", "))));
        }
    }
    v
}

/// The bit of a list of `k` addresses whose last is `m` registers.
fn list_bit(k: u32, m: u32) -> u64 {
    1 << ((k - 1) * LIST_LAST + m - 1)
}

/// What llvm-mc takes for one opcode: the table row's fields.
struct Row {
    mnemonic: String,
    fixed: bool,
    flags: u8,
    ranges: [u32; 16],
    lists: [u64; 16],
    data: [u8; 64],
}

/// A modifier's place in llvm-mc's order (it reads `dim:` only after `dmask:`, as it prints).
fn rank(m: &str) -> usize {
    const ORDER: [&str; 8] = ["dmask:", "dim:", "unorm", "r128", "a16", "tfe", "lwe", "d16"];
    let at = |k: usize| ORDER.iter().position(|o| m.starts_with(o)).is_some_and(|p| p == k);
    // Cache policies (glc, slc, dlc, th:, scope:) come between unorm and r128.
    (0..ORDER.len()).find(|&k| at(k)).map_or(25, |k| if k >= 3 { k * 10 + 10 } else { k * 10 })
}

fn with_mods(l: &Line, ops: &[String], keep: &[&String], extra: &[String]) -> String {
    let mut mods: Vec<&str> = keep.iter().map(|s| s.as_str()).chain(extra.iter().map(String::as_str)).collect();
    mods.sort_by_key(|m| rank(m));
    format!("{} {} {}", l.mnemonic, ops.join(", "), mods.join(" ")).trim_end().to_string()
}

/// Whether a modifier is one of the probed flags or a cache policy.
fn is_flag(m: &str) -> bool {
    FLAGS.iter().any(|f| f.split(':').next() == m.split(':').next()) || m.starts_with("th:")
}

/// The probe lines of one baseline: the baseline, the address probes (a16, dim, form), then the
/// data probes (tfe, d16, dmask, size).
fn probe_lines(l: &Line, forms: &[(bool, u32, u32, String)]) -> Vec<String> {
    let mut out = vec![with_mods(l, &l.ops, &l.mods.iter().collect::<Vec<_>>(), &[])];
    // Each flag on the baseline without the flags (and cache policies) it has.
    let plain: Vec<&String> = l.mods.iter().filter(|m| !is_flag(m)).collect();
    out.extend(FLAGS.iter().map(|f| with_mods(l, &l.ops, &plain, &[f.to_string()])));
    if !l.mods.iter().any(|m| m.starts_with("dim:")) {
        return out;
    }
    let keep_a: Vec<&String> = l.mods.iter().filter(|m| !m.starts_with("dim:") && *m != "a16").collect();
    for a16 in 0..2 {
        for dim in DIMS {
            let mut extra = vec![format!("dim:SQ_RSRC_IMG_{dim}")];
            if a16 == 1 {
                extra.push("a16".to_string());
            }
            for (_, _, _, text) in forms {
                let mut ops = l.ops.clone();
                ops[1] = text.clone();
                out.push(with_mods(l, &ops, &keep_a, &extra));
            }
        }
    }
    let keep_d: Vec<&String> =
        l.mods.iter().filter(|m| !m.starts_with("dmask:") && *m != "d16" && *m != "tfe").collect();
    for k in 0..64u32 {
        let mut extra = vec![format!("dmask:0x{:x}", k % 16)];
        if k / 16 % 2 == 1 {
            extra.push("d16".to_string());
        }
        if k / 32 == 1 {
            extra.push("tfe".to_string());
        }
        for n in 1..=DATA {
            let mut ops = l.ops.clone();
            ops[0] = regs(8, n);
            out.push(with_mods(l, &ops, &keep_d, &extra));
        }
    }
    out
}

fn probe_arch(arch: &str) -> Result<Vec<Row>, String> {
    let mut baselines: Vec<Line> = Vec::new();
    for t in golden::read_texts(arch)? {
        let Some(l) = split(&t) else { continue };
        let is_new = !baselines.iter().any(|b| b.mnemonic == l.mnemonic);
        if l.mnemonic.starts_with("image_") && is_new {
            baselines.push(l);
        }
    }
    let forms = addr_forms();
    let per: Vec<Vec<String>> = baselines.iter().map(|l| probe_lines(l, &forms)).collect();
    let lines: Vec<String> = per.iter().flatten().cloned().collect();
    let res = llvm::assemble(arch, &lines)?;
    let (mut rows, mut errors, mut at) = (Vec::new(), Vec::new(), 0);
    for (l, p) in baselines.iter().zip(&per) {
        let r = &res[at..at + p.len()];
        at += p.len();
        if r[0].is_none() {
            errors.push(format!("`{}`: the baseline is refused", p[0]));
            continue;
        }
        let fixed = !l.mods.iter().any(|m| m.starts_with("dim:"));
        let mut row =
            Row { mnemonic: l.mnemonic.clone(), fixed, flags: 0, ranges: [0; 16], lists: [0; 16], data: [0; 64] };
        for (k, f) in r[1..1 + FLAGS.len()].iter().enumerate() {
            row.flags |= u8::from(f.is_some()) << k;
        }
        if fixed {
            rows.push(row);
            continue;
        }
        let (addr, data) = r[1 + FLAGS.len()..].split_at(16 * forms.len());
        for (j, a) in addr.iter().enumerate() {
            let (k, (list, fields, last, _)) = (j / forms.len(), &forms[j % forms.len()]);
            match (a.is_some(), list) {
                (false, _) => {}
                (true, false) => row.ranges[k] |= 1 << last,
                (true, true) => row.lists[k] |= list_bit(*fields, *last),
            }
        }
        for k in 0..64 {
            let taken: Vec<u32> = (1..=DATA).filter(|&n| data[k * DATA as usize + n as usize - 1].is_some()).collect();
            match taken[..] {
                [] => {}
                [n] => row.data[k] = n as u8,
                _ => errors.push(format!("`{}` index {k}: data sizes {taken:?} all taken", p[0])),
            }
        }
        if let Some(e) = baseline_unexplained(l, &row) {
            errors.push(e);
        }
        rows.push(row);
    }
    llvm::found(arch, &errors, rows)
}

/// The baseline's own address form must be among what its dim and a16 take.
fn baseline_unexplained(l: &Line, row: &Row) -> Option<String> {
    let dim = l.mods.iter().find_map(|m| m.strip_prefix("dim:SQ_RSRC_IMG_"))?;
    let k = usize::from(l.mods.iter().any(|m| m == "a16")) * 8 + DIMS.iter().position(|d| *d == dim)?;
    let a = &l.ops[1];
    let count = |t: &str| super::reg(t).map_or(0, |r| r.2 - r.1 + 1);
    let ok = match a.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        None => row.ranges[k] & (1 << count(a)) != 0,
        Some(inner) => {
            let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
            let last = count(parts.last().copied().unwrap_or(""));
            (1..=LIST_LAST).contains(&last) && row.lists[k] & list_bit(parts.len() as u32, last) != 0
        }
    };
    (!ok).then(|| format!("{}: its golden address `{a}` is not among what its dim takes", l.mnemonic))
}

fn emit(rows: &[Vec<Row>]) -> String {
    let mut s = banner("isa_image_asm", &[&LLVM_INPUT]);
    s.push_str(
        "//! What llvm-mc 22's assembler takes per image opcode of gfx1100 and gfx1201: address\n\
         //! ranges and lists per dim and a16, data registers per dmask, d16 and tfe (`ImageAsm`,\n\
         //! autogen/src/isa/mod.rs), and the flags it takes. Found by assembling each opcode's first\n\
         //! golden line with each (generator autogen/gen/src/isa/image_asm.rs).\n",
    );
    for (arch, rows) in ARCHS.iter().zip(rows) {
        let _ = writeln!(s, "\n/// {} image opcodes of {arch}.", rows.len());
        let _ = writeln!(s, "pub static {}: &[ImageAsm] = &[", arch.to_uppercase());
        for r in rows {
            let hex32: Vec<String> = r.ranges.iter().map(|v| format!("0x{v:x}")).collect();
            let hex64: Vec<String> = r.lists.iter().map(|v| format!("0x{v:x}")).collect();
            let data: Vec<String> = r.data.iter().map(u8::to_string).collect();
            let _ = writeln!(s, "    ImageAsm {{");
            let _ = writeln!(s, "        mnemonic: {:?},", r.mnemonic);
            let _ = writeln!(s, "        fixed: {},", r.fixed);
            let _ = writeln!(s, "        flags: 0x{:x},", r.flags);
            let _ = writeln!(s, "        ranges: [{}],", hex32.join(", "));
            let _ = writeln!(s, "        lists: [{}],", hex64.join(", "));
            let _ = writeln!(s, "        data: [{}],", data.join(", "));
            let _ = writeln!(s, "    }},");
        }
        s.push_str("];\n");
    }
    s.insert_str(s.find("\n/// ").unwrap_or(s.len()), "\nuse super::ImageAsm;\n");
    s
}

pub fn generate(_inputs: &Inputs) -> Result<Vec<Generated>, String> {
    llvm::check_version()?;
    let rows = llvm::per_arch("isa_image_asm", &ARCHS, |_, a| probe_arch(a))?;
    let text = super::emit::rustfmt(&emit(&rows))?;
    Ok(vec![Generated { path: PathBuf::from("src/isa/image_asm.rs"), text }])
}
