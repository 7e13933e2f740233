//! Checks the generated image table (`isa::image_asm`) against llvm-mc 22 where it is installed:
//! for every opcode, llvm-mc must take each flag, and (but the BVH forms) an address range of
//! each size, a list of 1 to 5 addresses (the last one or two registers) and 1 to 5 data
//! registers with some dmask/d16/tfe values, exactly where the table says it does. Lines are
//! written from the opcode's first golden line with other registers than the generator's.
//! Skipped, with a printed reason, without llvm-mc-22.

use baregpu_autogen::isa::{image_asm, ImageAsm};

#[path = "common/llvm_mc.rs"]
mod llvm_mc;
use llvm_mc::LLVM_MC;

const DIMS: [&str; 8] = ["1D", "2D", "3D", "CUBE", "1D_ARRAY", "2D_ARRAY", "2D_MSAA", "2D_MSAA_ARRAY"];

fn regs(base: u32, n: u32) -> String {
    if n == 1 {
        format!("v{base}")
    } else {
        format!("v[{base}:{}]", base + n - 1)
    }
}

/// The resource (and sampler) operands of the first golden line of `m` that has a `dim:`.
fn resources(golden: &str, m: &str) -> Option<String> {
    golden.lines().find_map(|l| {
        let text = l.split(" ; [").next()?;
        if text.split(' ').next() != Some(m) || !text.contains(" dim:") {
            return None;
        }
        let s = text[text.find(", s")? + 2..].split(" dmask:").next()?.split(" dim:").next()?;
        Some(s.to_string())
    })
}

/// (line, the table's verdict) for one opcode.
fn cases(r: &ImageAsm, res: &str) -> Vec<(String, bool)> {
    let mut v = Vec::new();
    let m = r.mnemonic;
    let line = |data: &str, addr: &str, mods: &str| format!("{m} {data}, {addr}, {res} {mods}");
    // Addresses: with the first dmask/d16/tfe that takes some data (cmpswap: 0x1 with tfe).
    let d = (0..64).find(|&k| r.data[k] != 0).unwrap_or(1);
    let flags = format!("{}{}", if d / 16 % 2 == 1 { " d16" } else { "" }, if d >= 32 { " tfe" } else { "" });
    let data = regs(4, u32::from(r.data[d]).max(1));
    for k in 0..16 {
        let a16 = if k >= 8 { " a16" } else { "" };
        let dim = format!("dmask:0x{:x} dim:SQ_RSRC_IMG_{}{a16}{flags}", d % 16, DIMS[k % 8]);
        for n in 1..=16 {
            v.push((line(&data, &regs(30, n), &dim), r.ranges[k] >> n & 1 != 0));
        }
        for fields in 1..=5u32 {
            for last in 1..=2u32 {
                let mut parts: Vec<String> = (0..fields - 1).map(|j| format!("v{}", 30 + 3 * j)).collect();
                parts.push(regs(50, last));
                let bit = r.lists[k] >> ((fields - 1) * 12 + last - 1) & 1 != 0;
                v.push((line(&data, &format!("[{}]", parts.join(", ")), &dim), bit));
            }
        }
    }
    // Data: the address of 1D without a16 in a form the table takes.
    let addr = if let Some(n) = (1..=16).find(|n| r.ranges[0] >> n & 1 != 0) {
        regs(30, n)
    } else {
        let b = r.lists[0].trailing_zeros();
        let (fields, last) = (b / 12 + 1, b % 12 + 1);
        let mut parts: Vec<String> = (0..fields - 1).map(|j| format!("v{}", 30 + 3 * j)).collect();
        parts.push(regs(50, last));
        format!("[{}]", parts.join(", "))
    };
    for k in [0x1usize, 0x3, 0x5, 0xf, 0x11, 0x13, 0x1f, 0x21, 0x23, 0x2f, 0x31, 0x3f] {
        let mut mods = format!("dmask:0x{:x} dim:SQ_RSRC_IMG_1D", k % 16);
        if k >= 32 {
            mods.push_str(" tfe");
        }
        if k / 16 % 2 == 1 {
            mods.push_str(" d16");
        }
        for n in 1..=5u8 {
            v.push((line(&regs(4, u32::from(n)), &addr, &mods), r.data[k] == n));
        }
    }
    v
}

/// The flags of `ImageAsm::flags`, as written on a line.
const FLAGS: [&str; 7] = ["unorm", "glc", "slc", "dlc", "r128", "lwe", "scope:SCOPE_SE"];

/// (line, the table's verdict) for each flag added to the opcode's first golden line without
/// flags.
fn flag_cases(r: &ImageAsm, golden: &str) -> Vec<(String, bool)> {
    let Some(line) = golden.lines().find_map(|l| {
        let text = l.split(" ; [").next()?;
        let plain = !text.split(' ').any(|w| FLAGS.iter().any(|f| f.split(':').next() == w.split(':').next()));
        (text.split(' ').next() == Some(r.mnemonic) && plain && !text.contains("th:")).then(|| text.to_string())
    }) else {
        panic!("no golden {} without flags", r.mnemonic)
    };
    // llvm-mc reads the flags in its printed order: before a16 and tfe (right after `dim:`), lwe
    // before d16.
    let at = |f: &str| match line.find(" dim:") {
        _ if f == "lwe" => line.find(" d16").unwrap_or(line.len()),
        Some(d) => line[d + 1..].find(' ').map_or(line.len(), |e| d + 1 + e),
        None => line.find(" a16").unwrap_or(line.len()),
    };
    let with = |f: &str| format!("{} {f}{}", &line[..at(f)], &line[at(f)..]);
    FLAGS.iter().enumerate().map(|(k, f)| (with(f), r.flags >> k & 1 != 0)).collect()
}

#[test]
fn image_table_agrees_with_llvm_mc() {
    if !std::path::Path::new(LLVM_MC).exists() {
        println!("skipped: {LLVM_MC} not installed");
        return;
    }
    for (arch, t) in [("gfx1100", image_asm::GFX1100), ("gfx1201", image_asm::GFX1201)] {
        assert!(t.len() > 70, "{arch}: only {} opcodes", t.len());
        let path = format!("{}/../tests/isa/golden/{arch}.txt", env!("CARGO_MANIFEST_DIR"));
        let golden = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut all: Vec<(String, bool)> = Vec::new();
        for r in t {
            all.extend(flag_cases(r, &golden));
            if r.fixed {
                continue;
            }
            let res = resources(&golden, r.mnemonic).unwrap_or_else(|| panic!("{arch}: no golden {}", r.mnemonic));
            all.extend(cases(r, &res));
        }
        let lines: Vec<String> = all.iter().map(|c| c.0.clone()).collect();
        let bad = llvm_mc::refused(arch, &lines, false);
        let wrong: Vec<String> = all
            .iter()
            .enumerate()
            .filter(|(k, c)| c.1 == bad.contains(k))
            .map(|(_, c)| format!("{arch}: `{}` (the table says {})", c.0, if c.1 { "taken" } else { "refused" }))
            .collect();
        let shown: Vec<&String> = wrong.iter().take(40).collect();
        assert!(wrong.is_empty(), "{} of {} disagree:\n{shown:#?}", wrong.len(), all.len());
        // The cases the table exists for: taken where llvm-mc prints another count, refused d16.
        let row = |m: &str| t.iter().find(|r| r.mnemonic == m).unwrap_or_else(|| panic!("{arch}: no {m}"));
        assert_eq!(row("image_load_mip").ranges[7], 0, "{arch}: load_mip takes no 2D_MSAA_ARRAY address");
        assert!(row("image_load_pck").data[16..32].iter().all(|&n| n == 0), "{arch}: load_pck takes no d16");
    }
    let r = image_asm::GFX1100.iter().find(|r| r.mnemonic == "image_sample_c_o").expect("sample_c_o");
    assert_eq!(r.ranges[7], 1 << 8, "gfx1100 image_sample_c_o 2D_MSAA_ARRAY takes 8 registers only");
}
