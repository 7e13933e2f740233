//! AMD code objects (HSACO): ELF64 shared objects for EM_AMDGPU. The loader lays out the
//! PT_LOAD segments as one image, applies the dynamic relocations for a load address, finds every
//! kernel through its `<name>.kd` descriptor symbol, and pairs it with its metadata.

use super::metadata::{self, KernelMeta};
use baregpu_autogen::amd::elf as amdelf;
use baregpu_autogen::amd::kd::llvm_amdhsa_kernel_descriptor_t as KernelDescriptor;
use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, Rela, SectionHeader, Sym};
use object::Endianness;

/// One kernel of a code object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    pub name: String,
    /// Offset of the 64-byte kernel descriptor in the image.
    pub descriptor_offset: u64,
    /// Offset of the first instruction in the image.
    pub entry_offset: u64,
    pub descriptor: KernelDescriptor,
    pub meta: KernelMeta,
}

pub use super::Reloc;

#[derive(Debug, Clone)]
pub struct CodeObject {
    /// LLVM processor name from `e_flags` (`gfx1100`).
    pub arch: String,
    /// Code-object version (5, 6, ...).
    pub version: u32,
    /// The segments laid out at their virtual addresses, from 0.
    pub image: Vec<u8>,
    pub relocs: Vec<Reloc>,
    pub kernels: Vec<Kernel>,
    /// The metadata's target string (`amdgcn-amd-amdhsa--gfx1100`).
    pub target: String,
}

/// Largest image we accept: code objects are kilobytes to a few megabytes; a header claiming
/// more is garbage.
const MAX_IMAGE: u64 = 1 << 30;

fn err(msg: impl Into<String>) -> String {
    msg.into()
}

impl CodeObject {
    /// Parse a code object. Errors say what is wrong with the file, in one line.
    pub fn parse(data: &[u8]) -> Result<CodeObject, String> {
        let header = elf::FileHeader64::<Endianness>::parse(data).map_err(|e| format!("not an ELF64 file: {e}"))?;
        let endian = header.endian().map_err(|e| format!("bad ELF header: {e}"))?;
        if header.e_machine(endian) != elf::EM_AMDGPU {
            return Err(format!("not an AMDGPU code object (e_machine {})", header.e_machine(endian)));
        }
        let ident = header.e_ident();
        if ident.os_abi as u32 != amdelf::ELFOSABI_AMDGPU_HSA {
            return Err(format!("not an HSA code object (OS ABI {})", ident.os_abi));
        }
        if header.e_type(endian) == elf::ET_REL {
            return Err(err(
                "a relocatable object (ET_REL), not a loadable code object: link it first (ld.lld -shared k.o -o k.hsaco)",
            ));
        }
        let version = match ident.abi_version as u32 {
            amdelf::ELFABIVERSION_AMDGPU_HSA_V4 => 4,
            amdelf::ELFABIVERSION_AMDGPU_HSA_V5 => 5,
            amdelf::ELFABIVERSION_AMDGPU_HSA_V6 => 6,
            v => return Err(format!("code-object ABI version {v} is not supported (v4, v5 and v6 are)")),
        };
        let mach = header.e_flags(endian) & amdelf::EF_AMDGPU_MACH;
        let arch = amdelf::MACHS
            .iter()
            .find(|(_, m)| *m == mach)
            .map(|(n, _)| n.to_string())
            .ok_or_else(|| format!("unknown AMDGPU machine {mach:#x} in e_flags"))?;

        // The image: PT_LOAD segments at their addresses.
        let phdrs = header.program_headers(endian, data).map_err(|e| format!("bad program headers: {e}"))?;
        let mut image_size = 0u64;
        for ph in phdrs.iter().filter(|p| p.p_type(endian) == elf::PT_LOAD) {
            let end = ph.p_vaddr(endian).checked_add(ph.p_memsz(endian)).ok_or("segment end overflows")?;
            image_size = image_size.max(end);
        }
        if image_size == 0 || image_size > MAX_IMAGE {
            return Err(format!("implausible image size {image_size:#x}"));
        }
        let mut image = vec![0u8; image_size as usize];
        for ph in phdrs.iter().filter(|p| p.p_type(endian) == elf::PT_LOAD) {
            let bytes = ph.data(endian, data).map_err(|_| err("segment outside the file"))?;
            if bytes.len() as u64 > ph.p_memsz(endian) {
                return Err(err("segment file size exceeds its memory size"));
            }
            let at = ph.p_vaddr(endian) as usize;
            image[at..at + bytes.len()].copy_from_slice(bytes);
        }

        let sections = header.sections(endian, data).map_err(|e| format!("bad section headers: {e}"))?;
        // Symbols: the dynamic table names what a loader may use; fall back to .symtab.
        let symbols = match sections.symbols(endian, data, elf::SHT_DYNSYM) {
            Ok(s) if !s.is_empty() => s,
            _ => sections.symbols(endian, data, elf::SHT_SYMTAB).map_err(|e| format!("bad symbol table: {e}"))?,
        };
        let mut by_name = std::collections::HashMap::new();
        for sym in symbols.iter() {
            if let Ok(name) = sym.name(endian, symbols.strings()) {
                by_name.insert(String::from_utf8_lossy(name).into_owned(), sym.st_value(endian));
            }
        }

        // Dynamic relocations.
        let mut relocs = Vec::new();
        for sh in sections.iter() {
            if sh.sh_type(endian) != elf::SHT_RELA {
                continue;
            }
            let relas: &[elf::Rela64<Endianness>] =
                sh.data_as_array(endian, data).map_err(|_| err("relocation section outside the file"))?;
            let link = sections.symbol_table_by_index(endian, data, sh.link(endian)).ok();
            for r in relas {
                let sym_index = r.r_sym(endian, false);
                let symbol = match (&link, sym_index) {
                    (_, 0) => 0,
                    (Some(t), i) => t.symbol(object::SymbolIndex(i as usize)).map(|s| s.st_value(endian)).unwrap_or(0),
                    (None, _) => return Err(err("relocation without a symbol table")),
                };
                relocs.push(Reloc {
                    offset: r.r_offset(endian),
                    kind: r.r_type(endian, false),
                    symbol,
                    addend: r.r_addend(endian),
                });
            }
        }
        for r in &relocs {
            let width = reloc_width(r.kind).ok_or_else(|| format!("unsupported relocation type {}", r.kind))?;
            if r.offset.checked_add(width).is_none_or(|end| end > image_size) {
                return Err(format!("relocation at {:#x} outside the image", r.offset));
            }
        }

        // Metadata note.
        let mut meta = None;
        for sh in sections.iter() {
            if let Ok(Some(mut notes)) = sh.notes(endian, data) {
                while let Ok(Some(note)) = notes.next() {
                    if note.name() == b"AMDGPU" && note.n_type(endian) == amdelf::NT_AMDGPU_METADATA {
                        meta = Some(metadata::parse(note.desc())?);
                    }
                }
            }
        }
        let meta = meta.ok_or("no NT_AMDGPU_METADATA note")?;

        let mut kernels = Vec::new();
        for km in meta.kernels {
            let kd_offset = *by_name
                .get(&km.symbol)
                .ok_or_else(|| format!("kernel `{}`: descriptor symbol `{}` not found", km.name, km.symbol))?;
            let kd_end = kd_offset.checked_add(64).filter(|&e| e <= image_size);
            if kd_end.is_none() || kd_offset % 64 != 0 {
                return Err(format!("kernel `{}`: descriptor at {kd_offset:#x} misplaced", km.name));
            }
            // SAFETY: 64 in-bounds bytes; the descriptor is plain data valid for any bit pattern.
            let kd: KernelDescriptor =
                unsafe { std::ptr::read_unaligned(image[kd_offset as usize..].as_ptr() as *const KernelDescriptor) };
            let entry = (kd_offset as i64).checked_add(kd.kernel_code_entry_byte_offset);
            let entry = entry.filter(|&e| e >= 0 && (e as u64) < image_size && e % 256 == 0).ok_or_else(|| {
                format!("kernel `{}`: entry offset {} leaves the image", km.name, kd.kernel_code_entry_byte_offset)
            })?;
            agrees_with_descriptor(&km, &kd)?;
            kernels.push(Kernel {
                name: km.name.clone(),
                descriptor_offset: kd_offset,
                entry_offset: entry as u64,
                descriptor: kd,
                meta: km,
            });
        }
        if kernels.is_empty() {
            return Err(err("code object has no kernels"));
        }
        target_agrees(&meta.target, &arch)?;
        Ok(CodeObject { arch, version, image, relocs, kernels, target: meta.target })
    }

    pub fn kernel(&self, name: &str) -> Result<&Kernel, String> {
        self.kernels.iter().find(|k| k.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.kernels.iter().map(|k| k.name.as_str()).collect();
            format!("no kernel `{name}` in the code object (it has: {})", names.join(", "))
        })
    }

    /// The image as it must appear in memory at `base`, relocations applied.
    pub fn relocated(&self, base: u64) -> Vec<u8> {
        let mut img = self.image.clone();
        for r in &self.relocs {
            let s = base.wrapping_add(r.symbol);
            let p = base.wrapping_add(r.offset);
            let a = r.addend as u64;
            let at = r.offset as usize;
            match r.kind {
                amdelf::R_AMDGPU_ABS64 => img[at..at + 8].copy_from_slice(&s.wrapping_add(a).to_le_bytes()),
                amdelf::R_AMDGPU_RELATIVE64 => img[at..at + 8].copy_from_slice(&base.wrapping_add(a).to_le_bytes()),
                amdelf::R_AMDGPU_REL64 => {
                    img[at..at + 8].copy_from_slice(&s.wrapping_add(a).wrapping_sub(p).to_le_bytes())
                }
                amdelf::R_AMDGPU_ABS32 | amdelf::R_AMDGPU_ABS32_LO => {
                    img[at..at + 4].copy_from_slice(&(s.wrapping_add(a) as u32).to_le_bytes())
                }
                amdelf::R_AMDGPU_ABS32_HI => {
                    img[at..at + 4].copy_from_slice(&((s.wrapping_add(a) >> 32) as u32).to_le_bytes())
                }
                amdelf::R_AMDGPU_REL32 | amdelf::R_AMDGPU_REL32_LO => {
                    img[at..at + 4].copy_from_slice(&(s.wrapping_add(a).wrapping_sub(p) as u32).to_le_bytes())
                }
                amdelf::R_AMDGPU_REL32_HI => {
                    img[at..at + 4].copy_from_slice(&((s.wrapping_add(a).wrapping_sub(p) >> 32) as u32).to_le_bytes())
                }
                _ => {} // R_AMDGPU_NONE; others were refused by parse
            }
        }
        img
    }
}

/// Bytes a relocation writes, for the kinds the loader applies.
/// The metadata describes the kernel the descriptor launches: where they disagree, the runtime
/// would build kernargs or pick a wave size the code does not expect.
fn agrees_with_descriptor(km: &metadata::KernelMeta, kd: &KernelDescriptor) -> Result<(), String> {
    use baregpu_autogen::amd::kd::kernel_code_property as kcp;
    let wave32 = kd.kernel_code_properties as u32 & kcp::KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32 != 0;
    let kd_wave = if wave32 { 32 } else { 64 };
    if km.wavefront_size != kd_wave {
        return Err(format!(
            "kernel `{}`: the metadata's .wavefront_size {} contradicts the descriptor's wave{kd_wave}",
            km.name, km.wavefront_size
        ));
    }
    if kd.kernarg_size != km.kernarg_segment_size {
        return Err(format!(
            "kernel `{}`: the metadata's .kernarg_segment_size {} contradicts the descriptor's kernarg_size {}",
            km.name, km.kernarg_segment_size, kd.kernarg_size
        ));
    }
    Ok(())
}

/// `amdhsa.target` (`amdgcn-amd-amdhsa--gfx1100:xnack-`) names the processor e_flags does.
fn target_agrees(target: &str, arch: &str) -> Result<(), String> {
    if target.is_empty() {
        return Ok(());
    }
    let processor = target.rsplit_once("--").map_or(target, |(_, p)| p).split(':').next().unwrap_or("");
    if processor != arch {
        return Err(format!("the metadata's amdhsa.target `{target}` contradicts the ELF header's {arch}"));
    }
    Ok(())
}

fn reloc_width(kind: u32) -> Option<u64> {
    match kind {
        amdelf::R_AMDGPU_NONE => Some(0),
        amdelf::R_AMDGPU_ABS64 | amdelf::R_AMDGPU_REL64 | amdelf::R_AMDGPU_RELATIVE64 => Some(8),
        amdelf::R_AMDGPU_ABS32
        | amdelf::R_AMDGPU_ABS32_LO
        | amdelf::R_AMDGPU_ABS32_HI
        | amdelf::R_AMDGPU_REL32
        | amdelf::R_AMDGPU_REL32_LO
        | amdelf::R_AMDGPU_REL32_HI => Some(4),
        _ => None,
    }
}
