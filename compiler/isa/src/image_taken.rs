//! Which image lines llvm-mc 22's assembler takes (the generated `image_asm` table): the data
//! registers per dmask, d16 and tfe, the address ranges and lists per dim and a16, and the
//! flags (`glc`, `lwe`, gfx12 `scope:`, … of which the BVH forms take none). One
//! definition for the assembler (what it refuses), the verifier (a range it reads back) and the
//! disassembler (what it prints, and `.long` where no line writes the word). Its disassembler
//! prints other counts for some words (the `isa` table, `disasm::image::counts`): gfx1100
//! `image_sample_c_o … dim:SQ_RSRC_IMG_2D_MSAA_ARRAY` prints 3 addresses, its assembler takes 8.

use std::collections::HashMap;
use std::sync::OnceLock;

use baregpu_autogen::isa::{image_asm, ImageAsm};

use crate::inst::Instruction;
use crate::Arch;

/// The opcode's row, `None` for architectures without images.
pub fn row(i: &Instruction) -> Option<&'static ImageAsm> {
    by_opcode(i.arch).get(i.op as usize).copied().flatten()
}

/// The row of an opcode whose sizes follow dim, a16, dmask, d16 and tfe (not the BVH forms,
/// whose shapes are fixed: disasm::image::bvh_shape).
fn sized(i: &Instruction) -> Option<&'static ImageAsm> {
    row(i).filter(|r| !r.fixed)
}

/// The flags of `ImageAsm::flags`, by bit, as the fields they set (`scope_th`: gfx12's `th:` and
/// `scope:`).
const FLAGS: [&str; 7] = ["unorm", "glc", "slc", "dlc", "r128", "lwe", "scope_th"];

/// Whether llvm-mc refuses the flag modifier `name` (`th`/`scope` for gfx12's cache policies) on
/// the opcode whatever its value (the BVH forms take none).
pub fn flag_refused(i: &Instruction, name: &str) -> bool {
    let field = if matches!(name, "th" | "scope") { "scope_th" } else { name };
    let k = FLAGS.iter().position(|f| *f == field);
    matches!((row(i), k), (Some(r), Some(k)) if r.flags >> k & 1 == 0)
}

/// Whether the word sets a cache-policy or `lwe` bit llvm-mc refuses on the opcode (`unorm` and
/// `r128` are written by the BVH forms themselves).
pub fn flag_bits_refused(i: &Instruction) -> bool {
    let r = row(i);
    FLAGS
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, f)| **f != "r128")
        .any(|(k, f)| r.is_some_and(|r| r.flags >> k & 1 == 0) && i.field(f).is_some_and(|v| v != 0))
}

/// Per opcode index, its row, found once (the table is keyed by mnemonic).
fn by_opcode(arch: Arch) -> &'static [Option<&'static ImageAsm>] {
    static BY_OP: [OnceLock<Vec<Option<&'static ImageAsm>>>; 4] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
    BY_OP[arch as usize].get_or_init(|| {
        let rows: &[ImageAsm] = match arch {
            Arch::Gfx1100 => image_asm::GFX1100,
            Arch::Gfx1201 => image_asm::GFX1201,
            _ => &[],
        };
        let by_name: HashMap<&str, &'static ImageAsm> = rows.iter().map(|r| (r.mnemonic, r)).collect();
        let t = crate::tables::Tables::get(arch);
        t.table.opcodes.iter().map(|o| by_name.get(o.mnemonic).copied()).collect()
    })
}

fn data_index(i: &Instruction) -> usize {
    (i.f("tfe") * 32 + i.f("d16") * 16 + (i.f("dmask") & 0xf)) as usize
}

fn addr_index(i: &Instruction) -> usize {
    (i.f("a16") * 8 + (i.f("dim") & 7)) as usize
}

/// The data registers llvm-mc takes for the dmask, d16 and tfe: `Some(0)` where it takes none,
/// `None` where the opcode has no row.
pub fn data(i: &Instruction) -> Option<u32> {
    sized(i).map(|r| u32::from(r.data[data_index(i)]))
}

/// Why llvm-mc takes no data registers here, for the assembler's message; `None` where it takes
/// some (or the opcode has no row).
pub fn data_refusal(i: &Instruction) -> Option<String> {
    let r = sized(i)?;
    if r.data[data_index(i)] != 0 {
        return None;
    }
    let m = i.mnemonic();
    // d16 refused whatever the dmask: llvm-mc 22 has no d16 operand for the opcode.
    let d16_never = (0..64).filter(|k| k / 16 % 2 == 1).all(|k| r.data[k] == 0);
    if i.f("d16") == 1 && d16_never {
        return Some(format!("d16 is not valid for {m} (llvm-mc 22 refuses it)"));
    }
    let mut s = format!("{m}: llvm-mc 22 takes no data registers with dmask:0x{:x}", i.f("dmask") & 0xf);
    for f in ["d16", "tfe"] {
        if i.f(f) == 1 {
            s.push(' ');
            s.push_str(f);
        }
    }
    if crate::substr::has(m, "_gather4") {
        s.push_str(" (a gather4 dmask has one bit set)");
    } else if m.starts_with("image_atomic") {
        s.push_str(" (an atomic's dmask is 0x1, 0x3 or 0xf, and its data 1 to 3 registers, cmpswap's 2 to 5)");
    }
    Some(s)
}

/// Whether a range of `n` registers is taken as the address for the dim and a16; `None` where
/// the opcode has no row.
pub fn range(i: &Instruction, n: u32) -> Option<bool> {
    sized(i).map(|r| n < 32 && r.ranges[addr_index(i)] >> n & 1 != 0)
}

/// The smallest address range taken for the dim and a16, if any.
pub fn smallest_range(i: &Instruction) -> Option<u32> {
    let bits = sized(i)?.ranges[addr_index(i)];
    (bits != 0).then(|| bits.trailing_zeros())
}

/// Whether a list of `k` addresses whose last is `m` registers is taken for the dim and a16;
/// `None` where the opcode has no row.
pub fn list(i: &Instruction, k: u32, m: u32) -> Option<bool> {
    let r = sized(i)?;
    let ok = (1..=5).contains(&k) && (1..=12).contains(&m);
    Some(ok && r.lists[addr_index(i)] >> ((k - 1) * 12 + m - 1) & 1 != 0)
}

/// Whether llvm-mc takes some address form for the dim and a16.
pub fn any_address(i: &Instruction) -> bool {
    sized(i).is_none_or(|r| r.ranges[addr_index(i)] != 0 || r.lists[addr_index(i)] != 0)
}

#[cfg(test)]
mod tests {
    use crate::{assemble_line, Arch};

    /// Data sizes llvm-mc 22 has no register for (the atomics') are refused, and such words print as `.long`;
    /// the bytes are llvm-mc 22's.
    #[test]
    fn atomic_data_sizes() {
        for (arch, line) in [
            (Arch::Gfx1100, "image_atomic_cmpswap v[8:9], v24, s[16:23] dmask:0x1 dim:SQ_RSRC_IMG_1D"),
            (Arch::Gfx1201, "image_atomic_cmpswap v8, v24, s[16:23] dmask:0x1 dim:SQ_RSRC_IMG_1D"),
            (Arch::Gfx1100, "image_atomic_and v[8:11], v24, s[16:23] dmask:0xf dim:SQ_RSRC_IMG_1D"),
            (Arch::Gfx1201, "image_atomic_and v8, v24, s[16:23] dmask:0xf dim:SQ_RSRC_IMG_1D a16"),
        ] {
            assert!(assemble_line(arch, line).is_err(), "{line}");
        }
        let tfe = "image_atomic_cmpswap v[8:9], v24, s[16:23] dmask:0x1 dim:SQ_RSRC_IMG_1D tfe";
        let want = [0x00, 0xc0, 0x42, 0xd0, 0x08, 0x20, 0x80, 0x00, 0x18, 0x00, 0x00, 0x00];
        assert_eq!(assemble_line(Arch::Gfx1201, tfe).ok(), Some(want.to_vec()));
        let text = |b: &[u8]| crate::disassemble(&crate::decode::decode(Arch::Gfx1100, b).expect("decodes"));
        assert!(text(&[0x04, 0x01, 0x2c, 0xf0, 0x02, 0x00, 0x00, 0x00]).starts_with(".long"));
        assert!(text(&[0x04, 0x0f, 0x48, 0xf0, 0x02, 0x00, 0x00, 0x00]).starts_with(".long"));
        assert!(text(&[0x04, 0x03, 0x2c, 0xf0, 0x02, 0x00, 0x00, 0x00]).starts_with("image_atomic_cmpswap v[0:1]"));
    }
}
