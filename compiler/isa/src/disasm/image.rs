//! Image formats (gfx11 MIMG, gfx12 VIMAGE and VSAMPLE) as llvm-mc 22 prints them: data,
//! address(es), resource and sampler, then `dmask`, `dim` and the flags. Register counts follow
//! the modifiers; the tables hold them per opcode as llvm-mc prints them (`images`).

use std::collections::HashMap;
use std::sync::OnceLock;

use baregpu_autogen::isa::Image;

use crate::inst::Instruction;
use crate::names::cpol as cp;
use crate::operand::{reg_range, sreg_text};

/// `dim` values by code.
pub const DIMS: [&str; 8] = [
    "SQ_RSRC_IMG_1D",
    "SQ_RSRC_IMG_2D",
    "SQ_RSRC_IMG_3D",
    "SQ_RSRC_IMG_CUBE",
    "SQ_RSRC_IMG_1D_ARRAY",
    "SQ_RSRC_IMG_2D_ARRAY",
    "SQ_RSRC_IMG_2D_MSAA",
    "SQ_RSRC_IMG_2D_MSAA_ARRAY",
];

/// The code of a `dim:` value: the full name or its short form (`2D_ARRAY`).
pub fn dim(name: &str) -> Option<u32> {
    let short = name.strip_prefix("SQ_RSRC_IMG_").unwrap_or(name);
    DIMS.iter().position(|d| d.strip_prefix("SQ_RSRC_IMG_") == Some(short)).map(|k| k as u32)
}

/// Whether a format is an image format.
pub fn is_image(format: &str) -> bool {
    matches!(format, "MIMG" | "MIMG_NSA" | "VIMAGE" | "VSAMPLE")
}

/// The register counts of an image instruction's opcode.
pub fn counts(i: &Instruction) -> Option<&'static Image> {
    by_opcode(i.arch).get(i.op as usize).copied().flatten()
}

/// Per opcode index, its entry of the architecture's image table, found once: the table is
/// keyed by mnemonic, and a search of it for every lookup cost several thousand host
/// instructions per image line the assembler reads back.
fn by_opcode(arch: crate::Arch) -> &'static [Option<&'static Image>] {
    static BY_OP: [OnceLock<Vec<Option<&'static Image>>>; 4] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
    BY_OP[arch as usize].get_or_init(|| {
        let t = crate::tables::Tables::get(arch);
        let by_name: HashMap<&str, &'static Image> = t.table.images.iter().rev().map(|x| (x.mnemonic, x)).collect();
        t.table.opcodes.iter().map(|o| by_name.get(o.mnemonic).copied()).collect()
    })
}

/// Data registers for the dmask, d16 and tfe: the count llvm-mc's assembler takes, else (BVH,
/// or none taken: such words print as `.long`) the count its disassembler prints.
pub fn data_regs(i: &Instruction) -> u32 {
    if let Some(n) = crate::image_taken::data(i).filter(|&n| n != 0) {
        return n;
    }
    let k = (i.f("tfe") * 32 + i.f("d16") * 16 + i.f("dmask")) as usize;
    counts(i).map_or(1, |c| u32::from(c.data[k]).max(1))
}

/// The registers of each address field of a BVH form (printed without `dim`), else `None`.
pub fn bvh_shape(i: &Instruction) -> Option<&'static [u8]> {
    let c = counts(i)?;
    let a = i.f("a16") as usize * 5;
    let shape = &c.shape[a..a + 5];
    let n = shape.iter().position(|&x| x == 0).unwrap_or(5);
    if c.shape[0] == 0 {
        return None;
    }
    if i.format().name == "MIMG_NSA" {
        // gfx11's non-sequential BVH form lists the node pointer (2 registers for bvh64), the
        // ray extent, origin, direction and inverse direction (a16: the two directions packed
        // into one group of 3); the table holds the sequential form's single range.
        let bvh64 = c.shape[0] == 12 || c.shape[5] == 9;
        return Some(match (bvh64, a != 0) {
            (false, false) => &[1, 1, 3, 3, 3],
            (true, false) => &[2, 1, 3, 3, 3],
            (false, true) => &[1, 1, 3, 3],
            (true, true) => &[2, 1, 3, 3],
        });
    }
    Some(&shape[..n])
}

/// llvm-mc writes these into the BVH forms, which print neither.
pub const BVH_DMASK: u32 = 0xf;

/// Address registers for the dim and a16, as llvm-mc's disassembler prints them.
pub fn addr_regs(i: &Instruction) -> u32 {
    let k = (i.f("a16") * 8 + i.f("dim")) as usize;
    counts(i).map_or(1, |c| u32::from(c.addrs[k]).max(1))
}

/// The registers of gfx11's sequential address range as printed: llvm-mc's disassembler's count
/// where its assembler takes that range, else the smallest range it takes. (Golden words are
/// never of the second kind: llvm-mc reads their text back, so its printed count is taken.)
fn range_regs(i: &Instruction) -> u32 {
    let n = addr_regs(i);
    match crate::image_taken::range(i, n) {
        Some(false) => crate::image_taken::smallest_range(i).unwrap_or(n),
        _ => n,
    }
}

/// The shape of a printed address list: the number of addresses and the registers of the last
/// (the others one each).
fn list_shape(i: &Instruction, fname: &str) -> (u32, u32) {
    let n = addr_regs(i);
    let used = n.min(addr_fields(fname).len() as u32);
    (used, n - (used - 1))
}

/// Whether llvm-mc's assembler takes no line for the word as printed: a flag it refuses on the
/// opcode, no data registers for its dmask, d16 and tfe, gfx11 NSA or gfx12 address fields past
/// the printed list that are not 0, gfx12 BVH flags llvm-mc does not write, or not the printed
/// address form for its dim and a16 (gfx11 NSA and gfx12 lists; a sequential range prints as one
/// it takes where there is one). Such words print as `.long` (disasm::unwritten).
pub(crate) fn unwritable(i: &Instruction) -> bool {
    use crate::image_taken as taken;
    if taken::flag_bits_refused(i) {
        return true;
    }
    let fname = i.format().name;
    // Address fields past the printed list (gfx11 NSA, gfx12; BVH forms: past their fixed
    // shape): llvm-mc writes them 0 (gfx12's vaddr4 set it refuses to decode; vaddr2 and vaddr3
    // it decodes and drops).
    let k = bvh_shape(i).map_or_else(|| list_shape(i, fname).0 as usize, <[u8]>::len);
    if fname != "MIMG" && addr_fields(fname).iter().skip(k).any(|f| i.f(f) != 0) {
        return true;
    }
    if gfx12_bvh_flags_unwritten(i, fname) {
        return true;
    }
    if taken::data(i).is_none() {
        return false;
    }
    let addr_ok = match fname {
        "MIMG" => taken::range(i, range_regs(i)),
        // A one-entry list is the sequential form (`[v24]` is `v24`), never an NSA word.
        "MIMG_NSA" if addr_regs(i) == 1 => Some(false),
        _ if addr_regs(i) == 1 => taken::range(i, 1),
        _ => {
            let (k, m) = list_shape(i, fname);
            taken::list(i, k, m)
        }
    };
    taken::data(i) == Some(0) || addr_ok == Some(false)
}

/// A gfx12 BVH word with a flag other than the one word llvm-mc 22's assembler writes (dim 0,
/// r128, dmask 0xf, no d16 or tfe): its disassembler calls every other such word invalid.
fn gfx12_bvh_flags_unwritten(i: &Instruction, fname: &str) -> bool {
    matches!(fname, "VIMAGE" | "VSAMPLE")
        && bvh_shape(i).is_some()
        && (i.f("dim") != 0 || i.f("r128") != 1 || i.f("dmask") != BVH_DMASK || i.f("d16") != 0 || i.f("tfe") != 0)
}

/// Whether an address range of `have` registers is taken where the instruction reads `want`:
/// llvm-mc takes gfx11's sequential (non-NSA) range at the next register-tuple size, 8
/// registers for 5 to 7 addresses and 16 for more than 12.
pub fn addr_range_ok(format: &str, have: u32, want: u32) -> bool {
    have == want || format == "MIMG" && (have == 8 && (5..=7).contains(&want) || have == 16 && want > 12)
}

/// Whether a written sequential address range of `have` registers reads back as the printed one
/// of `printed` (the same first register): where llvm-mc's assembler takes `have` registers
/// (crate::image_taken), else (BVH) by [`addr_range_ok`].
pub fn range_read_back(i: &Instruction, have: u32, printed: u32) -> bool {
    crate::image_taken::range(i, have).unwrap_or_else(|| addr_range_ok(i.format().name, have, printed))
}

/// The address fields of a gfx12 image format, in operand order.
pub fn addr_fields(format: &str) -> &'static [&'static str] {
    match format {
        "VIMAGE" => &["vaddr0", "vaddr1", "vaddr2", "vaddr3", "vaddr4"],
        "VSAMPLE" => &["vaddr0", "vaddr1", "vaddr2", "vaddr3"],
        "MIMG_NSA" => &["vaddr", "vaddr1", "vaddr2", "vaddr3", "vaddr4"],
        _ => &["vaddr"],
    }
}

/// gfx12's address list: one register per field, the last field taking the rest as a range
/// (BVH forms: each field its fixed count).
fn addr_text(i: &Instruction, fname: &str) -> String {
    if let Some(shape) = bvh_shape(i) {
        if fname == "MIMG" {
            // gfx11's sequential BVH form: one range.
            return reg_range("v", i.f("vaddr"), addr_regs(i));
        }
        let fields = addr_fields(fname);
        let parts: Vec<String> = shape.iter().zip(fields).map(|(&n, f)| reg_range("v", i.f(f), u32::from(n))).collect();
        return format!("[{}]", parts.join(", "));
    }
    let n = addr_regs(i);
    if fname == "MIMG" {
        return reg_range("v", i.f("vaddr"), range_regs(i));
    }
    let fields = addr_fields(fname);
    if n == 1 {
        return reg_range("v", i.f(fields[0]), 1);
    }
    let used = (n as usize).min(fields.len());
    let parts: Vec<String> = (0..used)
        .map(|k| {
            let count = if k + 1 == used { n - (used as u32 - 1) } else { 1 };
            reg_range("v", i.f(fields[k]), count)
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// The resource and sampler operands.
fn resources(i: &Instruction) -> impl Iterator<Item = &'static baregpu_autogen::isa::Operand> {
    i.operands().iter().filter(|o| matches!(o.name, "srsrc" | "rsrc" | "ssamp" | "samp"))
}

/// A resource or sampler field's register code (gfx11 MIMG counts in groups of 4 SGPRs).
fn resource_code(i: &Instruction, o: &baregpu_autogen::isa::Operand) -> u32 {
    if i.format().name.starts_with("MIMG") {
        i.f(o.name) * 4
    } else {
        i.f(o.name)
    }
}

/// The resource's SGPR tuple, `None` where no scalar register has that code (a gfx12 VGPR code).
fn resource_text(i: &Instruction, o: &baregpu_autogen::isa::Operand) -> Option<String> {
    sreg_text(i.arch, resource_code(i, o) as u16, u32::from(o.dwords.max(1)))
}

/// Whether a resource or sampler field names no SGPR tuple: its text is a number, which no
/// assembler reads as a register, so no line writes the word.
pub(crate) fn resource_unnamed(i: &Instruction) -> bool {
    resources(i).any(|o| resource_text(i, o).is_none())
}

pub fn text(i: &Instruction) -> String {
    let fname = i.format().name;
    let mut s = i.mnemonic().to_string();
    s.push(' ');
    if fname == "MIMG_NSA" && i.operands().iter().any(|o| o.name == "ssamp") {
        // llvm-mc 22 prints gfx11's non-sequential sampling forms with a second space.
        s.push(' ');
    }
    s.push_str(&reg_range("v", i.f("vdata"), data_regs(i)));
    s.push_str(", ");
    s.push_str(&addr_text(i, fname));
    for o in resources(i) {
        s.push_str(", ");
        s.push_str(&resource_text(i, o).unwrap_or_else(|| resource_code(i, o).to_string()));
    }
    let bvh = bvh_shape(i).is_some();
    let dmask = i.f("dmask");
    if dmask != 0 && !bvh {
        s.push_str(&format!(" dmask:0x{dmask:x}"));
    }
    if !bvh {
        s.push_str(" dim:");
        s.push_str(DIMS[i.f("dim") as usize & 7]);
    }
    if !bvh && i.field("unorm").unwrap_or(0) != 0 {
        // gfx11's BVH words carry unorm, which llvm-mc does not print.
        s.push_str(" unorm");
    }
    for n in cp::set(i) {
        s.push(' ');
        s.push_str(n);
    }
    if let Some(st) = i.field("scope_th") {
        cp::push_th_scope(cp::Access::of(i.mnemonic()), st, &mut s);
    }
    // Each field looked up by its literal name (a name from a list is hashed per instruction).
    let set = |v: Option<u32>| v.unwrap_or(0) != 0;
    let flags = [
        ("nv", set(i.field("nv"))),
        ("r128", set(i.field("r128")) && !bvh),
        ("a16", set(i.field("a16"))),
        ("tfe", set(i.field("tfe"))),
        ("lwe", set(i.field("lwe"))),
        ("d16", set(i.field("d16"))),
    ];
    for (n, _) in flags.iter().filter(|f| f.1) {
        s.push(' ');
        s.push_str(n);
    }
    s
}
