//! ELF layout of the code object, written with `object::write::elf::Writer`.
//!
//! Like `ld.lld -shared` output, minus what a GPU code object does not use (no .gnu.hash,
//! .comment, relro padding): sections
//! `.note` `.dynsym` `.hash` `.dynstr` `.rodata` `.text` `.dynamic` `.symtab` `.strtab` `.shstrtab`,
//! segments PHDR, LOAD (R: headers, note, dynamic symbols, descriptors), LOAD (RX: .text),
//! LOAD (RW: .dynamic), DYNAMIC and NOTE. Virtual addresses equal file offsets, so the image a
//! loader builds from the LOAD segments is the file itself up to the end of `.dynamic`.
//! No relocations are needed: a descriptor refers to its code with a self-relative offset.

use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, Sym, Writer};
use object::write::StringId;
use object::Endianness;

use super::{arch, e_flags, Arch, CodeObjectError, CodeObjectOptions, Kernel, KernelDescriptor};
use super::{ELFABIVERSION_AMDGPU_HSA_V5, ELFOSABI_AMDGPU_HSA, EM_AMDGPU, KERNEL_CODE_ALIGN, KERNEL_DESCRIPTOR_SIZE};

const PAGE: u64 = 0x1000;
const NUM_PROGRAM_HEADERS: u32 = 6;

/// `.text` contents and each kernel's entry offset in it: every entry 256-byte aligned with
/// `s_nop 0` between kernels, and the end padded like LLVM's EmitCodeEnd.
pub fn layout_text(arch: Arch, kernels: &[Kernel]) -> (Vec<u8>, Vec<u64>) {
    // `align` is a power of two (256 or a cache line).
    let pad_to = |text: &mut Vec<u8>, align: usize, word: u32| {
        debug_assert!(align.is_power_of_two());
        while text.len() & (align - 1) != 0 {
            text.extend_from_slice(&word.to_le_bytes());
        }
    };
    let mut text = Vec::new();
    let mut entries = Vec::with_capacity(kernels.len());
    for k in kernels {
        pad_to(&mut text, KERNEL_CODE_ALIGN as usize, arch::S_NOP_0);
        entries.push(text.len() as u64);
        text.extend_from_slice(&k.code);
    }
    let (line, fill_lines, word) = arch::code_end_padding(arch);
    pad_to(&mut text, line as usize, word);
    for _ in 0..(line * fill_lines / 4) {
        text.extend_from_slice(&word.to_le_bytes());
    }
    (text, entries)
}

fn elf_error(e: object::write::Error) -> CodeObjectError {
    CodeObjectError::Elf(e.to_string())
}

/// Lays out and writes the whole file for validated kernels; `note` is the complete
/// NT_AMDGPU_METADATA note.
pub(super) fn write(
    arch: Arch,
    options: &CodeObjectOptions,
    kernels: &[Kernel],
    note: &[u8],
) -> Result<Vec<u8>, CodeObjectError> {
    let (text, entries) = layout_text(arch, kernels);
    // Symbol names, in symbol order: NAME, NAME.kd for each kernel.
    let kd_names: Vec<String> = kernels.iter().map(|k| format!("{}.kd", k.name)).collect();
    let sym_names: Vec<&[u8]> =
        kernels.iter().zip(&kd_names).flat_map(|(k, kd)| [k.name.as_bytes(), kd.as_bytes()]).collect();

    let mut buf = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut buf);

    // Section indices, in section header order.
    w.reserve_null_section_index();
    let note_name = w.add_section_name(b".note");
    w.reserve_section_index();
    w.reserve_dynsym_section_index();
    w.reserve_hash_section_index();
    w.reserve_dynstr_section_index();
    let rodata_name = w.add_section_name(b".rodata");
    let rodata_index = w.reserve_section_index();
    let text_name = w.add_section_name(b".text");
    let text_index = w.reserve_section_index();
    w.reserve_dynamic_section_index();
    w.reserve_symtab_section_index();
    w.reserve_strtab_section_index();
    w.reserve_shstrtab_section_index();

    // Symbols: the null symbol, then NAME (in .text) and NAME.kd (in .rodata) per kernel, all global.
    let section_of = |i: usize| if i % 2 == 1 { rodata_index } else { text_index };
    w.reserve_null_dynamic_symbol_index();
    w.reserve_null_symbol_index();
    let mut dyn_ids: Vec<StringId> = Vec::with_capacity(sym_names.len());
    let mut str_ids: Vec<StringId> = Vec::with_capacity(sym_names.len());
    for (i, name) in sym_names.iter().enumerate() {
        dyn_ids.push(w.add_dynamic_string(name));
        w.reserve_dynamic_symbol_index();
        str_ids.push(w.add_string(name));
        w.reserve_symbol_index(Some(section_of(i)));
    }
    let dynsym_count = sym_names.len() as u32 + 1;

    // File layout; virtual address == file offset.
    w.reserve_file_header();
    w.reserve_program_headers(NUM_PROGRAM_HEADERS);
    let note_offset = w.reserve(note.len(), 4) as u64;
    let dynsym_offset = w.reserve_dynsym() as u64;
    let hash_offset = w.reserve_hash(dynsym_count, dynsym_count) as u64;
    let dynstr_offset = w.reserve_dynstr() as u64;
    let dynstr_size = w.dynstr_len() as u64;
    let rodata_size = (kernels.len() * KERNEL_DESCRIPTOR_SIZE) as u64;
    let rodata_offset = w.reserve(rodata_size as usize, KERNEL_DESCRIPTOR_SIZE) as u64;
    let text_offset = w.reserve(text.len(), KERNEL_CODE_ALIGN as usize) as u64;
    let dynamic_entries = [elf::DT_HASH, elf::DT_SYMTAB, elf::DT_STRTAB, elf::DT_STRSZ, elf::DT_SYMENT, elf::DT_NULL];
    let dynamic_offset = w.reserve_dynamic(dynamic_entries.len()) as u64;
    let dynamic_size = (dynamic_entries.len() * 16) as u64;
    w.reserve_symtab();
    w.reserve_strtab();
    w.reserve_shstrtab();
    w.reserve_section_headers();

    // Descriptors: descriptor i at rodata_offset + 64 i, its code at text_offset + entries[i].
    let mut rodata = Vec::with_capacity(rodata_size as usize);
    for (i, k) in kernels.iter().enumerate() {
        let kd_addr = rodata_offset + (i * KERNEL_DESCRIPTOR_SIZE) as u64;
        let entry_addr = text_offset + entries[i];
        let offset = entry_addr as i64 - kd_addr as i64;
        rodata.extend_from_slice(&KernelDescriptor::for_kernel(arch, k, offset).to_bytes());
    }

    w.write_file_header(&FileHeader {
        os_abi: ELFOSABI_AMDGPU_HSA,
        abi_version: ELFABIVERSION_AMDGPU_HSA_V5,
        e_type: elf::ET_DYN,
        e_machine: EM_AMDGPU,
        e_entry: 0,
        e_flags: e_flags(arch, options),
    })
    .map_err(elf_error)?;

    w.write_align_program_headers();
    let phdr_size = u64::from(NUM_PROGRAM_HEADERS) * 56;
    let segment = |p_type, p_flags, offset: u64, size: u64, align| ProgramHeader {
        p_type,
        p_flags,
        p_offset: offset,
        p_vaddr: offset,
        p_paddr: offset,
        p_filesz: size,
        p_memsz: size,
        p_align: align,
    };
    for header in [
        segment(elf::PT_PHDR, elf::PF_R, 64, phdr_size, 8),
        segment(elf::PT_LOAD, elf::PF_R, 0, rodata_offset + rodata_size, PAGE),
        segment(elf::PT_LOAD, elf::PF_R | elf::PF_X, text_offset, text.len() as u64, PAGE),
        segment(elf::PT_LOAD, elf::PF_R | elf::PF_W, dynamic_offset, dynamic_size, PAGE),
        segment(elf::PT_DYNAMIC, elf::PF_R | elf::PF_W, dynamic_offset, dynamic_size, 8),
        segment(elf::PT_NOTE, elf::PF_R, note_offset, note.len() as u64, 4),
    ] {
        w.write_program_header(&header);
    }

    w.write_align(4);
    w.write(note);

    let symbol = |i: usize, name: StringId| {
        let k = &kernels[i / 2];
        let (st_type, value, size) = if i % 2 == 1 {
            (elf::STT_OBJECT, rodata_offset + (i / 2 * KERNEL_DESCRIPTOR_SIZE) as u64, KERNEL_DESCRIPTOR_SIZE as u64)
        } else {
            (elf::STT_FUNC, text_offset + entries[i / 2], k.code.len() as u64)
        };
        Sym {
            name: Some(name),
            section: Some(section_of(i)),
            st_info: (elf::STB_GLOBAL << 4) | st_type,
            st_other: elf::STV_PROTECTED,
            st_shndx: 0,
            st_value: value,
            st_size: size,
        }
    };
    w.write_null_dynamic_symbol();
    for (i, &id) in dyn_ids.iter().enumerate() {
        w.write_dynamic_symbol(&symbol(i, id));
    }
    w.write_hash(dynsym_count, dynsym_count, |i| i.checked_sub(1).map(|s| elf::hash(sym_names[s as usize])));
    w.write_dynstr();

    w.write_align(KERNEL_DESCRIPTOR_SIZE);
    w.write(&rodata);
    w.write_align(KERNEL_CODE_ALIGN as usize);
    w.write(&text);

    w.write_align_dynamic();
    for tag in dynamic_entries {
        let value = match tag {
            elf::DT_HASH => hash_offset,
            elf::DT_SYMTAB => dynsym_offset,
            elf::DT_STRTAB => dynstr_offset,
            elf::DT_STRSZ => dynstr_size,
            elf::DT_SYMENT => 24,
            _ => 0,
        };
        w.write_dynamic(tag, value);
    }

    w.write_null_symbol();
    for (i, &id) in str_ids.iter().enumerate() {
        w.write_symbol(&symbol(i, id));
    }
    w.write_strtab();
    w.write_shstrtab();

    w.write_null_section_header();
    let progbits = |name, flags: u32, offset: u64, size: u64, align: u64| SectionHeader {
        name: Some(name),
        sh_type: elf::SHT_PROGBITS,
        sh_flags: flags.into(),
        sh_addr: offset,
        sh_offset: offset,
        sh_size: size,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: align,
        sh_entsize: 0,
    };
    w.write_section_header(&SectionHeader {
        sh_type: elf::SHT_NOTE,
        ..progbits(note_name, elf::SHF_ALLOC, note_offset, note.len() as u64, 4)
    });
    w.write_dynsym_section_header(dynsym_offset, 1);
    w.write_hash_section_header(hash_offset);
    w.write_dynstr_section_header(dynstr_offset);
    w.write_section_header(&progbits(
        rodata_name,
        elf::SHF_ALLOC,
        rodata_offset,
        rodata_size,
        KERNEL_DESCRIPTOR_SIZE as u64,
    ));
    w.write_section_header(&progbits(
        text_name,
        elf::SHF_ALLOC | elf::SHF_EXECINSTR,
        text_offset,
        text.len() as u64,
        KERNEL_CODE_ALIGN,
    ));
    w.write_dynamic_section_header(dynamic_offset);
    w.write_symtab_section_header(1);
    w.write_strtab_section_header();
    w.write_shstrtab_section_header();

    debug_assert_eq!(w.reserved_len(), w.len());
    drop(w);
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_padding_like_llvm() {
        // gfx1100: 128-byte `add1` followed by 124 bytes ends at 252 -> 256 + 3 lines of s_code_end.
        let k = |n| Kernel::new(Arch::Gfx1100, "k", vec![0u8; n]);
        let (text, entries) = layout_text(Arch::Gfx1100, &[k(128), k(20)]);
        assert_eq!(entries, [0, 256]);
        assert_eq!(text.len(), 256 + 128 + 384);
        assert_eq!(&text[128..132], &arch::S_NOP_0.to_le_bytes());
        assert_eq!(&text[text.len() - 4..], &arch::S_CODE_END.to_le_bytes());
        // gfx942: 64-byte lines, 16 of them, s_nop 0.
        let (text, _) = layout_text(Arch::Gfx942, &[Kernel::new(Arch::Gfx942, "k", vec![0u8; 100])]);
        assert_eq!(text.len(), 128 + 1024);
        assert_eq!(&text[text.len() - 4..], &arch::S_NOP_0.to_le_bytes());
    }
}
