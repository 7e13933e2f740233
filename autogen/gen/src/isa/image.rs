//! Image instructions: gfx11 MIMG (its non-NSA form) and gfx12 VIMAGE / VSAMPLE. Their register
//! counts are not fixed per opcode: the data register count follows `dmask` (and d16, tfe), the
//! address count follows `dim` and `a16`. The formats' fields come from AMD's ISA guides, checked
//! against llvm-mc like every other format; the register counts are read from llvm-mc per opcode,
//! dim/a16 and dmask/d16 (`counts`) and emitted as a table of their own.

use super::formats::{f, fmt, modifier, Family, Fmt, Role};
use super::{llvm, set, OpInfo, OperandOut};

/// Whether a format is an image format.
pub fn is_image(name: &str) -> bool {
    matches!(name, "MIMG" | "VIMAGE" | "VSAMPLE")
}

/// Golden candidates of gfx11's non-sequential address form: each MIMG opcode with the first
/// dim whose address count is 2 to 5, the addresses spread over the extra dword.
pub fn nsa_golden(fmts: &[Fmt], ops: &[OpInfo], counts: &[Option<Counts>]) -> Vec<(u128, usize)> {
    let mut out = Vec::new();
    for (o, c) in ops.iter().zip(counts) {
        let (Some(c), "MIMG") = (c, fmts[o.fmt].name) else { continue };
        let Some(dim) = (0..8).find(|&k| (2..=5).contains(&c.addrs[k])) else { continue };
        let mut w = set(set(o.word, 0, 0, 1), 2, 4, dim as u64);
        for k in 1..u32::from(c.addrs[dim]) {
            w = set(w, 56 + 8 * k, 63 + 8 * k, 24 + 2 * u64::from(k));
        }
        out.push((w, 12));
    }
    out
}

/// The image formats of a family (none on gfx9: gfx942/gfx950 have no image instructions).
pub fn formats(fam: Family) -> Vec<Fmt> {
    match fam {
        Family::Gfx9 => Vec::new(),
        Family::Gfx11 => {
            let fields = vec![
                f("dim", 2, 4, Role::Mod),
                f("unorm", 7, 7, Role::Mod),
                f("dmask", 8, 11, Role::Mod),
                f("slc", 12, 12, Role::Mod),
                f("dlc", 13, 13, Role::Mod),
                f("glc", 14, 14, Role::Mod),
                f("r128", 15, 15, Role::Mod),
                f("a16", 16, 16, Role::Mod),
                f("d16", 17, 17, Role::Mod),
                f("vaddr", 32, 39, Role::Vgpr),
                f("vdata", 40, 47, Role::Vgpr),
                f("srsrc", 48, 52, Role::SgprX4),
                f("tfe", 53, 53, Role::Mod),
                f("lwe", 54, 54, Role::Mod),
                f("ssamp", 58, 62, Role::SgprX4),
            ];
            // BVH instructions decode only with all four channels, a 128-bit resource and unorm.
            let t = vec![("vaddr", 24u64), ("vdata", 8), ("srsrc", 4), ("dmask", 1)];
            let bvh = vec![("vaddr", 24u64), ("vdata", 8), ("srsrc", 4), ("dmask", 0xF), ("r128", 1), ("unorm", 1)];
            let mimg = fmt("MIMG", 64, (0xFC00_0000, 0xF000_0000), Some((18, 25)), fields, vec![t, bvh], false);
            // The non-sequential address form: bit 0 set, one more dword with four more addresses.
            let nsa = (1..5).map(|k| {
                f(["vaddr1", "vaddr2", "vaddr3", "vaddr4"][k - 1], 56 + 8 * k as u32, 63 + 8 * k as u32, Role::Vgpr)
            });
            let nsa = modifier(&mimg, "MIMG_NSA", (0, 0), 1, nsa.collect());
            vec![mimg, nsa]
        }
        Family::Gfx12 => {
            let common = || {
                vec![
                    f("dim", 0, 2, Role::Mod),
                    f("r128", 4, 4, Role::Mod),
                    f("d16", 5, 5, Role::Mod),
                    f("a16", 6, 6, Role::Mod),
                    f("nv", 7, 7, Role::Mod),
                    f("dmask", 22, 25, Role::Mod),
                    f("vdata", 32, 39, Role::Vgpr),
                    f("rsrc", 41, 49, Role::Sgpr),
                    f("scope_th", 50, 54, Role::Mod),
                    f("vaddr0", 64, 71, Role::Vgpr),
                    f("vaddr1", 72, 79, Role::Vgpr),
                    f("vaddr2", 80, 87, Role::Vgpr),
                    f("vaddr3", 88, 95, Role::Vgpr),
                ]
            };
            let mut vimage = common();
            vimage.extend([f("tfe", 55, 55, Role::Mod), f("vaddr4", 56, 63, Role::Vgpr)]);
            let mut vsample = common();
            vsample.extend([
                f("tfe", 3, 3, Role::Mod),
                f("unorm", 13, 13, Role::Mod),
                f("lwe", 40, 40, Role::Mod),
                f("samp", 55, 63, Role::Sgpr),
            ]);
            let t = vec![("vaddr0", 24u64), ("vdata", 8), ("rsrc", 16), ("dmask", 1)];
            let bvh = vec![("vaddr0", 24u64), ("vdata", 8), ("rsrc", 16), ("dmask", 0xF), ("r128", 1)];
            let ts = vec![("vaddr0", 24u64), ("vdata", 8), ("rsrc", 16), ("samp", 40), ("dmask", 1)];
            vec![
                fmt("VIMAGE", 96, (0xFC00_0000, 0xD000_0000), Some((14, 21)), vimage, vec![t, bvh], false),
                fmt("VSAMPLE", 96, (0xFC00_0000, 0xE400_0000), Some((14, 21)), vsample, vec![ts], false),
            ]
        }
    }
}

/// Register count of an operand's text: `v4` 1, `v[4:6]` 3, `[v4, v5, v[6:7]]` 4.
fn count(t: &str) -> Option<u32> {
    let inner = t.trim().strip_prefix('[').and_then(|x| x.strip_suffix(']'));
    let parts: Vec<&str> = match inner {
        Some(i) => i.split(',').collect(),
        None => vec![t],
    };
    parts.iter().map(|p| super::reg(p).map(|r| r.2 - r.1 + 1)).sum()
}

/// Register counts of one image opcode as llvm-mc prints them: `addrs[a16 * 8 + dim]` address
/// registers, `data[tfe * 32 + d16 * 16 + dmask]` data registers (0 where llvm-mc decodes no
/// instruction); `shape[a16 * 5 + k]` the registers of address field `k` for the forms llvm-mc
/// prints without `dim` (BVH: fixed-size fields), all 0 for the others.
#[derive(Clone, Copy)]
pub struct Counts {
    pub addrs: [u8; 16],
    pub data: [u8; 64],
    pub shape: [u8; 10],
}

/// The register counts of every image opcode, read from llvm-mc's disassembly of its enumerated
/// word with `dmask`/`d16`/`tfe` (for the data) and then `dim`/`a16` (for the addresses, with a
/// dmask whose data count llvm-mc takes as is: it prints other forms with the opcode's default
/// address count).
pub fn counts(arch: &str, fmts: &[Fmt], ops: &[OpInfo]) -> Result<Vec<Option<Counts>>, String> {
    let image: Vec<usize> = (0..ops.len()).filter(|&i| is_image(fmts[ops[i].fmt].name)).collect();
    let fd = |oi: usize, n: &str| super::field(&fmts[ops[oi].fmt], n).expect("image field").clone();
    let bits = |oi: usize| fmts[ops[oi].fmt].bits;
    let mut out: Vec<Option<Counts>> = vec![None; ops.len()];
    // Data registers.
    let mut words = Vec::new();
    for &oi in &image {
        let (dmask, d16, tfe) = (fd(oi, "dmask"), fd(oi, "d16"), fd(oi, "tfe"));
        for k in 0..64u64 {
            let w = set(set(ops[oi].word, dmask.lo, dmask.hi, k % 16), d16.lo, d16.hi, k / 16 % 2);
            words.push(super::bytes_of(set(w, tfe.lo, tfe.hi, k / 32), bits(oi)));
        }
    }
    let res = llvm::disassemble(arch, &words)?;
    for (n, r) in res.into_iter().enumerate() {
        let (oi, k) = (image[n / 64], n % 64);
        let text = r.map(|i| i.text).unwrap_or_default();
        let c = out[oi].get_or_insert(Counts { addrs: [0; 16], data: [0; 64], shape: [0; 10] });
        c.data[k] = super::operands(&text, 0).first().and_then(|t| count(t)).unwrap_or(0).min(255) as u8;
    }
    // Address registers.
    let mut words = Vec::new();
    for &oi in &image {
        let c = out[oi].as_ref().expect("data counted");
        let natural = (1..16).find(|&k: &usize| u32::from(c.data[k]) == k.count_ones());
        let (dim, a16, dmask) = (fd(oi, "dim"), fd(oi, "a16"), fd(oi, "dmask"));
        let base = match natural {
            Some(k) => set(ops[oi].word, dmask.lo, dmask.hi, k as u64),
            None => ops[oi].word,
        };
        for k in 0..16u64 {
            let w = set(set(base, dim.lo, dim.hi, k % 8), a16.lo, a16.hi, k / 8);
            words.push(super::bytes_of(w, bits(oi)));
        }
    }
    let res = llvm::disassemble(arch, &words)?;
    for (n, r) in res.into_iter().enumerate() {
        let (oi, k) = (image[n / 16], n % 16);
        let text = r.map(|i| i.text).unwrap_or_default();
        let opnds = super::operands(&text, 0);
        let c = out[oi].as_mut().expect("data counted");
        c.addrs[k] = opnds.get(1).and_then(|t| count(t)).unwrap_or(0).min(255) as u8;
        if k % 8 == 0 && !text.is_empty() && !text.contains("dim:") {
            let t = opnds[1].trim();
            let list = t.strip_prefix('[').and_then(|x| x.strip_suffix(']')).unwrap_or(t);
            for (j, p) in list.split(',').enumerate().take(5) {
                c.shape[k / 8 * 5 + j] = count(p).unwrap_or(0).min(255) as u8;
            }
        }
    }
    Ok(out)
}

/// The operand list of an image opcode: data, address, resource and (sampling) sampler, sized as
/// llvm-mc printed the enumerated form (dmask 1, 1D, no a16; the BVH forms dmask 0xf).
pub fn operands(f: &Fmt, o: &OpInfo, c: &Counts) -> Vec<OperandOut> {
    let texts = super::operands(&o.text, 0);
    let n = |i: usize| texts.get(i).and_then(|t| count(t)).unwrap_or(1);
    let mut v = vec![
        OperandOut { name: "vdata".into(), kind: "Vgpr", dwords: n(0) },
        OperandOut {
            name: if f.name == "MIMG" { "vaddr" } else { "vaddr0" }.into(),
            kind: "Vgpr",
            dwords: u32::from(c.addrs[0]).max(1),
        },
        OperandOut { name: if f.name == "MIMG" { "srsrc" } else { "rsrc" }.into(), kind: "Sgpr", dwords: n(2) },
    ];
    if texts.len() > 3 && texts[3].starts_with('s') {
        let name = if f.name == "MIMG" { "ssamp" } else { "samp" };
        v.push(OperandOut { name: name.into(), kind: "Sgpr", dwords: n(3) });
    }
    v
}
