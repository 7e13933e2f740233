//! Golden vectors (llvm-mc 22): decode -> disassemble must equal the text; encode must give the
//! bytes back; assembling the text must give the bytes. Formats not listed in
//! `tests/golden_allow.txt` must pass 100%.

mod common;

use std::collections::BTreeMap;

use baregpu_isa::{assemble_line, decode, disassemble, Arch};

#[derive(Default, Debug)]
struct Counts {
    total: usize,
    disasm: usize,
    encode: usize,
    asm: usize,
}

fn allow_list() -> Vec<(String, String, String)> {
    let src = include_str!("golden_allow.txt");
    src.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut it = l.split_whitespace();
            (it.next().unwrap().to_string(), it.next().unwrap().to_string(), it.next().unwrap().to_string())
        })
        .collect()
}

fn allowed(list: &[(String, String, String)], arch: Arch, fmt: &str, stage: &str) -> bool {
    list.iter().any(|(a, f, s)| a == arch.name() && (f == fmt || f == "*") && (s == stage || s == "all"))
}

fn run(arch: Arch) {
    let show = std::env::var("GOLDEN_SHOW").ok().and_then(|s| s.parse::<usize>().ok()).unwrap_or(0);
    let list = allow_list();
    let mut per: BTreeMap<String, Counts> = BTreeMap::new();
    let mut shown: BTreeMap<String, usize> = BTreeMap::new();
    let vectors = common::load(arch);
    for v in &vectors {
        let (fmt, dis, enc) = match decode(arch, &v.bytes) {
            Ok(i) => {
                let f = i.format().name.to_string();
                let d = disassemble(&i);
                (f, Some(d), i.encode())
            }
            Err(e) => ("<decode>".to_string(), Some(format!("<error {e}>")), Vec::new()),
        };
        let c = per.entry(fmt.clone()).or_default();
        c.total += 1;
        let dok = dis.as_deref() == Some(v.text.as_str());
        let eok = enc == v.bytes;
        c.disasm += dok as usize;
        c.encode += eok as usize;
        let a = assemble_line(arch, &v.text);
        let aok = matches!(&a, Ok(b) if *b == v.bytes);
        c.asm += aok as usize;
        let n = shown.entry(fmt.clone()).or_default();
        let want_asm = std::env::var("GOLDEN_SHOW_ASM").is_ok();
        if (!dok || want_asm && !aok) && *n < show {
            *n += 1;
            println!("  {fmt} line {}: want {:?}", v.line, v.text);
            if !dok {
                println!("      got  {:?}", dis.unwrap_or_default());
            }
            if want_asm && !aok {
                println!("      asm  {:?}", a.map(|b| format!("{b:02x?}")));
            }
        }
    }
    let mut bad = Vec::new();
    let tot: usize = per.values().map(|c| c.total).sum();
    let dis: usize = per.values().map(|c| c.disasm).sum();
    let asm: usize = per.values().map(|c| c.asm).sum();
    println!(
        "{}: {} vectors, disasm {} ({:.1}%), asm {} ({:.1}%)",
        arch.name(),
        tot,
        dis,
        100.0 * dis as f64 / tot as f64,
        asm,
        100.0 * asm as f64 / tot as f64
    );
    for (f, c) in &per {
        println!(
            "  {:<12} {:>6}  disasm {:>6.2}%  encode {:>6.2}%  asm {:>6.2}%",
            f,
            c.total,
            100.0 * c.disasm as f64 / c.total as f64,
            100.0 * c.encode as f64 / c.total as f64,
            100.0 * c.asm as f64 / c.total as f64
        );
        for (stage, ok) in [("disasm", c.disasm), ("encode", c.encode), ("asm", c.asm)] {
            if ok != c.total && !allowed(&list, arch, f, stage) {
                bad.push(format!("{} {f} {stage}: {}/{}", arch.name(), ok, c.total));
            }
        }
    }
    assert!(bad.is_empty(), "formats below 100% and not in tests/golden_allow.txt: {bad:#?}");
}

#[test]
fn golden_gfx1100() {
    run(Arch::Gfx1100);
}

#[test]
fn golden_gfx1201() {
    run(Arch::Gfx1201);
}

#[test]
fn golden_gfx942() {
    run(Arch::Gfx942);
}

#[test]
fn golden_gfx950() {
    run(Arch::Gfx950);
}
