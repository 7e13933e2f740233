//! NVIDIA cubins: ELF64 files for EM_CUDA (190) as ptxas and nvJitLink write them.
//!
//! The loader lays every allocated section (`.text.<kernel>`, `.nv.constantN`, `.nv.constant0.<kernel>`,
//! `.nv.global`) into one image, collects the relocations that patch it once its GPU address is
//! known, and describes each kernel from its sections and its `.nv.info` attributes: code offset
//! and size, registers, static shared memory, the parameter block in constant bank 0 (base offset,
//! size, and each parameter's offset and size), stack sizes, barriers and exit offsets.
//!
//! Formats, and where they were checked:
//! - `.nv.info` / `.nv.info.<kernel>` is a stream of records `{u8 format, u8 attribute, u16 v}`;
//!   format 4 (EIFMT_SVAL) is followed by `v` payload bytes, formats 1-3 (EIFMT_NVAL, _BVAL, _HVAL)
//!   carry `v` inline. The attribute numbers and names in [`eiattr_name`] are what NVIDIA's own
//!   `cuobjdump -elf` (CUDA 13.5.37) prints for each code (checked by feeding it every code from
//!   1 to 0x6d); the payload layouts below are as cuobjdump decodes them on ptxas 13.5 output.
//! - EIATTR_PARAM_CBANK: `u32 symbol (the .nv.constant0.<kernel> section symbol), u16 offset,
//!   u16 size` of the parameter block in bank 0. EIATTR_KPARAM_INFO: `u32 index, u16 ordinal,
//!   u16 offset, u32 {log_align 7:0, space 11:8, cbank 16:12, is_smem 17, size 31:18}`.
//!   EIATTR_REGCOUNT / FRAME_SIZE / MIN_STACK_SIZE / MAX_STACK_SIZE in the global `.nv.info`:
//!   `u32 function symbol, u32 value`.
//! - e_flags: the SM in bits 15:8 (0x59 sm_89, 0x5a sm_90, 0x78 sm_120 with ELF ABI version 8,
//!   OS ABI 0x41, as ptxas 13.5 writes); older ABIs (< 8) keep it in bits 7:0.
//! - Relocations: R_CUDA_32 (1) and R_CUDA_64 (2) on data (ptxas puts the address of a `.global`
//!   into `.nv.constant4` through R_CUDA_64), and R_CUDA_ABS32_LO_32 (0x38) / R_CUDA_ABS32_HI_32
//!   (0x39), the 32-bit immediate of a 128-bit SASS instruction at offset + 4 (tinygrad handles these
//!   three kinds, [3rd-party]; the names follow `cuobjdump`'s R_CUDA_* scheme). Relocations of
//!   sections that are not loaded (`.debug_frame`) are ignored; any other kind is an error.

use object::elf;
use object::read::elf::{FileHeader, Rel, Rela, SectionHeader, Sym};
use object::Endianness;

/// `EM_CUDA`.
pub const EM_CUDA: u16 = 190;

pub const R_CUDA_NONE: u32 = 0;
pub const R_CUDA_32: u32 = 1;
pub const R_CUDA_64: u32 = 2;
pub const R_CUDA_ABS32_LO_32: u32 = 0x38;
pub const R_CUDA_ABS32_HI_32: u32 = 0x39;

/// Section alignment in the image: at least 128 bytes (instruction fetch; the V4/V5 QMD takes
/// constant-buffer addresses in 64-byte units).
pub const SECTION_ALIGN: u64 = 128;

// Attribute codes (see the module comment for provenance).
pub const EIATTR_MAX_THREADS: u8 = 0x05;
pub const EIATTR_PARAM_CBANK: u8 = 0x0a;
pub const EIATTR_REQNTID: u8 = 0x10;
pub const EIATTR_FRAME_SIZE: u8 = 0x11;
pub const EIATTR_MIN_STACK_SIZE: u8 = 0x12;
pub const EIATTR_KPARAM_INFO: u8 = 0x17;
pub const EIATTR_CBANK_PARAM_SIZE: u8 = 0x19;
pub const EIATTR_MAXREG_COUNT: u8 = 0x1b;
pub const EIATTR_EXIT_INSTR_OFFSETS: u8 = 0x1c;
pub const EIATTR_CRS_STACK_SIZE: u8 = 0x1e;
pub const EIATTR_MAX_STACK_SIZE: u8 = 0x23;
pub const EIATTR_REGCOUNT: u8 = 0x2f;
pub const EIATTR_CUDA_API_VERSION: u8 = 0x37;
pub const EIATTR_NUM_BARRIERS: u8 = 0x4c;
pub const EIATTR_LANGUAGE: u8 = 0x66;

/// `EIFMT_*`: how a record carries its value.
pub const EIFMT_NVAL: u8 = 1;
pub const EIFMT_BVAL: u8 = 2;
pub const EIFMT_HVAL: u8 = 3;
pub const EIFMT_SVAL: u8 = 4;

/// The name `cuobjdump -elf` (CUDA 13.5.37) prints for an attribute code.
pub fn eiattr_name(code: u8) -> Option<&'static str> {
    const NAMES: [&str; 0x6e] = [
        "",
        "EIATTR_PAD",
        "EIATTR_IMAGE_SLOT",
        "EIATTR_JUMPTABLE_RELOCS",
        "EIATTR_CTAIDZ_USED",
        "EIATTR_MAX_THREADS",
        "EIATTR_IMAGE_OFFSET",
        "EIATTR_IMAGE_SIZE",
        "EIATTR_TEXTURE_NORMALIZED",
        "EIATTR_SAMPLER_INIT",
        "EIATTR_PARAM_CBANK",
        "EIATTR_SMEM_PARAM_OFFSETS",
        "EIATTR_CBANK_PARAM_OFFSETS",
        "EIATTR_SYNC_STACK",
        "EIATTR_TEXID_SAMPID_MAP",
        "EIATTR_EXTERNS",
        "EIATTR_REQNTID",
        "EIATTR_FRAME_SIZE",
        "EIATTR_MIN_STACK_SIZE",
        "EIATTR_SAMPLER_FORCE_UNNORMALIZED",
        "EIATTR_BINDLESS_IMAGE_OFFSETS",
        "EIATTR_BINDLESS_TEXTURE_BANK",
        "EIATTR_BINDLESS_SURFACE_BANK",
        "EIATTR_KPARAM_INFO",
        "EIATTR_SMEM_PARAM_SIZE",
        "EIATTR_CBANK_PARAM_SIZE",
        "EIATTR_QUERY_NUMATTRIB",
        "EIATTR_MAXREG_COUNT",
        "EIATTR_EXIT_INSTR_OFFSETS",
        "EIATTR_S2RCTAID_INSTR_OFFSETS",
        "EIATTR_CRS_STACK_SIZE",
        "EIATTR_NEED_CNP_WRAPPER",
        "EIATTR_NEED_CNP_PATCH",
        "EIATTR_EXPLICIT_CACHING",
        "EIATTR_ISTYPEP_USED",
        "EIATTR_MAX_STACK_SIZE",
        "EIATTR_SUQ_USED",
        "EIATTR_LD_CACHEMOD_INSTR_OFFSETS",
        "EIATTR_LOAD_CACHE_REQUEST",
        "EIATTR_ATOM_SYS_INSTR_OFFSETS",
        "EIATTR_COOP_GROUP_INSTR_OFFSETS",
        "EIATTR_COOP_GROUP_MASK_REGIDS",
        "",
        "EIATTR_WMMA_USED",
        "EIATTR_HAS_PRE_V10_OBJECT",
        "EIATTR_ATOMF16_EMUL_INSTR_OFFSETS",
        "EIATTR_ATOM16_EMUL_INSTR_REG_MAP",
        "EIATTR_REGCOUNT",
        "",
        "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS",
        "EIATTR_SHARED_SCRATCH",
        "EIATTR_STATISTICS",
        "EIATTR_INDIRECT_BRANCH_TARGETS",
        "",
        "EIATTR_SW_WAR",
        "EIATTR_CUDA_API_VERSION",
        "EIATTR_NUM_MBARRIERS",
        "EIATTR_MBARRIER_INSTR_OFFSETS",
        "EIATTR_COROUTINE_RESUME_ID_OFFSETS",
        "EIATTR_SAM_REGION_STACK_SIZE",
        "EIATTR_PER_REG_TARGET_PERF_STATS",
        "EIATTR_CTA_PER_CLUSTER",
        "EIATTR_EXPLICIT_CLUSTER",
        "EIATTR_MAX_CLUSTER_RANK",
        "EIATTR_INSTR_REG_MAP",
        "EIATTR_RESERVED_SMEM_USED",
        "EIATTR_RESERVED_SMEM_0_SIZE",
        "EIATTR_UCODE_SECTION_DATA",
        "EIATTR_UNUSED_LOAD_BYTE_OFFSET",
        "EIATTR_KPARAM_INFO_V2",
        "EIATTR_SYSCALL_OFFSETS",
        "",
        "EIATTR_GRAPHICS_GLOBAL_CBANK",
        "EIATTR_SHADER_TYPE",
        "EIATTR_VRC_CTA_INIT_COUNT",
        "EIATTR_TOOLS_PATCH_FUNC",
        "EIATTR_NUM_BARRIERS",
        "EIATTR_TEXMODE_INDEPENDENT",
        "EIATTR_PERF_STATISTICS",
        "EIATTR_AT_ENTRY_FRAGMENTS",
        "EIATTR_SPARSE_MMA_MASK",
        "EIATTR_TCGEN05_1CTA_USED",
        "EIATTR_TCGEN05_2CTA_USED",
        "EIATTR_GEN_ERRBAR_AT_EXIT",
        "EIATTR_REG_RECONFIG",
        "EIATTR_ANNOTATIONS",
        "",
        "EIATTR_STACK_CANARY_TRAP_OFFSETS",
        "EIATTR_STUB_FUNCTION_KIND",
        "EIATTR_LOCAL_CTA_ASYNC_STORE_OFFSETS",
        "",
        "EIATTR_BLOCKS_ARE_CLUSTERS",
        "EIATTR_SANITIZE",
        "EIATTR_SYSCALLS_FALLBACK",
        "EIATTR_CUDA_REQ",
        "",
        "",
        "EIATTR_RTCORE_ENTRY",
        "EIATTR_CLUSTER_LAUNCH_CONTROL_USED",
        "",
        "EIATTR_MIN_PER_CTA_MEMORY_SIZE",
        "EIATTR_IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS",
        "EIATTR_LANGUAGE",
        "",
        "EIATTR_GRID_ATTRIBUTES",
        "EIATTR_STACK_OFFSET",
        "EIATTR_RT_LIVESTATE_SASS_MAP",
        "EIATTR_NVSAL_SW_WAR",
        "EIATTR_INSTR_OFFSETS",
        "EIATTR_PREEXIT_USED",
    ];
    NAMES.get(code as usize).copied().filter(|n| !n.is_empty())
}

/// Offset of the parameter block in constant bank 0 for `sm_XY`, as ptxas lays it out: 0x160 on
/// Volta to Ada (sm_70..sm_89), 0x210 on Hopper (sm_90), 0x380 on Blackwell (sm_100, sm_120).
/// Seen in the fixtures' EIATTR_PARAM_CBANK for sm_89, sm_90 and sm_120; the loader always takes
/// the attribute itself, this is for checks and for code that has no cubin.
pub fn cb0_param_base(sm: u32) -> u32 {
    baregpu_drivers::nv::cbank0::bank0(sm).params as u32
}

/// One `.nv.info` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute {
    pub format: u8,
    pub code: u8,
    /// The inline value (formats 1-3) or the payload size (format 4).
    pub value: u16,
    /// The payload (format 4 only).
    pub data: Vec<u8>,
}

impl Attribute {
    pub fn name(&self) -> Option<&'static str> {
        eiattr_name(self.code)
    }

    fn u32_at(&self, at: usize) -> Option<u32> {
        self.data.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    }

    fn u16_at(&self, at: usize) -> Option<u16> {
        self.data.get(at..at + 2).map(|b| u16::from_le_bytes(b.try_into().unwrap()))
    }
}

/// Decode a `.nv.info` section. Truncated records are errors.
pub fn parse_attributes(data: &[u8]) -> Result<Vec<Attribute>, String> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < data.len() {
        let head = data.get(at..at + 4).ok_or_else(|| format!("attribute record at {at:#x} is truncated"))?;
        let (format, code, value) = (head[0], head[1], u16::from_le_bytes([head[2], head[3]]));
        at += 4;
        let payload = match format {
            EIFMT_SVAL => {
                let end = at + value as usize;
                let d = data.get(at..end).ok_or_else(|| {
                    format!("attribute {:#x} at {:#x}: {value} payload bytes run past the section", code, at - 4)
                })?;
                at = end;
                d.to_vec()
            }
            EIFMT_NVAL | EIFMT_BVAL | EIFMT_HVAL => Vec::new(),
            f => return Err(format!("attribute {code:#x} at {:#x}: unknown format {f}", at - 4)),
        };
        out.push(Attribute { format, code, value, data: payload });
    }
    Ok(out)
}

/// A kernel parameter from EIATTR_KPARAM_INFO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    pub ordinal: u16,
    /// Offset within the parameter block (add [`Kernel::param_base`] for the bank-0 offset).
    pub offset: u16,
    pub size: u16,
    /// The raw flags word (log alignment 7:0, space 11:8, cbank 16:12, 17 set for shared-memory
    /// parameters, size 31:18).
    pub flags: u32,
}

/// One kernel of a cubin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    pub name: String,
    /// Offset of `.text.<name>` in the image, and its size.
    pub text_offset: u64,
    pub text_size: u64,
    /// EIATTR_REGCOUNT.
    pub registers: u32,
    /// Static shared memory (`.nv.shared.<name>` size).
    pub shared_size: u64,
    /// Offset of `.nv.constant0.<name>` in the image and its size: the bank-0 template, parameters
    /// included (driver slots, then the parameters at `param_base`).
    pub cb0_offset: u64,
    pub cb0_size: u32,
    /// EIATTR_PARAM_CBANK offset and size: where the parameters start in bank 0.
    pub param_base: u32,
    pub param_size: u32,
    /// EIATTR_KPARAM_INFO, sorted by ordinal.
    pub params: Vec<Param>,
    pub frame_size: u32,
    pub min_stack_size: u32,
    pub max_stack_size: Option<u32>,
    pub crs_stack_size: Option<u32>,
    /// EIATTR_NUM_BARRIERS (0 when absent).
    pub barriers: u32,
    /// EIATTR_MAXREG_COUNT.
    pub max_registers: Option<u32>,
    /// EIATTR_REQNTID / EIATTR_MAX_THREADS (`.reqntid` / `.maxntid`).
    pub required_block: Option<[u32; 3]>,
    pub max_block: Option<[u32; 3]>,
    /// EIATTR_EXIT_INSTR_OFFSETS (offsets in `.text.<name>`).
    pub exit_offsets: Vec<u32>,
    /// Every record of `.nv.info.<name>`, as found.
    pub attributes: Vec<Attribute>,
}

/// A loaded section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub offset: u64,
    pub size: u64,
}

pub use super::Reloc;

#[derive(Debug, Clone)]
pub struct Cubin {
    /// `sm_XY` as XY (89, 90, 120).
    pub sm: u32,
    /// The ELF ABI version (8 for CUDA 12.8+ ptxas output).
    pub abi_version: u8,
    /// Every allocated section laid out from 0, each aligned to [`SECTION_ALIGN`].
    pub image: Vec<u8>,
    pub sections: Vec<Section>,
    pub relocs: Vec<Reloc>,
    pub kernels: Vec<Kernel>,
    /// Module constant banks other than 0 (`.nv.constant<N>`): (bank, image offset, size).
    pub constant_banks: Vec<(u8, u64, u64)>,
    /// The global `.nv.info` records.
    pub attributes: Vec<Attribute>,
}

/// Largest image accepted: cubins are kilobytes to megabytes.
const MAX_IMAGE: u64 = 1 << 30;

fn align_up(v: u64, a: u64) -> Option<u64> {
    v.checked_add(a - 1).map(|x| x / a * a)
}

impl Cubin {
    /// Parse a cubin. Errors say what is wrong with the file, in one line.
    pub fn parse(data: &[u8]) -> Result<Cubin, String> {
        let header = elf::FileHeader64::<Endianness>::parse(data).map_err(|e| format!("not an ELF64 file: {e}"))?;
        let endian = header.endian().map_err(|e| format!("bad ELF header: {e}"))?;
        if header.e_machine(endian) != EM_CUDA {
            return Err(format!("not a cubin (e_machine {}, EM_CUDA is {EM_CUDA})", header.e_machine(endian)));
        }
        let abi_version = header.e_ident().abi_version;
        let flags = header.e_flags(endian);
        let sm = if abi_version >= 8 { (flags >> 8) & 0xff } else { flags & 0xff };
        if sm < 30 {
            return Err(format!("e_flags {flags:#x} names no SM architecture"));
        }

        let sections = header.sections(endian, data).map_err(|e| format!("bad section headers: {e}"))?;
        let symbols = sections.symbols(endian, data, elf::SHT_SYMTAB).map_err(|e| format!("bad symbol table: {e}"))?;
        let name_of = |sh: &elf::SectionHeader64<Endianness>| -> Result<String, String> {
            let n = sections.section_name(endian, sh).map_err(|e| format!("bad section name: {e}"))?;
            Ok(String::from_utf8_lossy(n).into_owned())
        };

        // Lay out the allocated sections (PROGBITS and NOBITS such as .nv.global; not shared memory).
        let mut image_size = 0u64;
        let mut placed: Vec<Option<u64>> = vec![None; sections.len()];
        let mut loaded = Vec::new();
        for (i, sh) in sections.iter().enumerate() {
            let name = name_of(sh)?;
            let ty = sh.sh_type(endian);
            let alloc = sh.sh_flags(endian) & elf::SHF_ALLOC as u64 != 0;
            if !alloc || name.starts_with(".nv.shared.") || !(ty == elf::SHT_PROGBITS || ty == elf::SHT_NOBITS) {
                continue;
            }
            let align = sh.sh_addralign(endian).clamp(1, 1 << 16).max(SECTION_ALIGN);
            let at = align_up(image_size, align).ok_or("image size overflows")?;
            let end = at.checked_add(sh.sh_size(endian)).filter(|&e| e <= MAX_IMAGE);
            let end = end.ok_or_else(|| format!("{name}: implausible size {:#x}", sh.sh_size(endian)))?;
            placed[i] = Some(at);
            loaded.push((i, at, name));
            image_size = end;
        }
        let mut image = vec![0u8; image_size as usize];
        let mut out_sections = Vec::new();
        for (i, at, name) in loaded {
            let sh = sections.section(object::SectionIndex(i)).map_err(|e| format!("{name}: {e}"))?;
            if sh.sh_type(endian) == elf::SHT_PROGBITS {
                let bytes = sh.data(endian, data).map_err(|_| format!("{name}: data outside the file"))?;
                image[at as usize..at as usize + bytes.len()].copy_from_slice(bytes);
            }
            out_sections.push(Section { name, offset: at, size: sh.sh_size(endian) });
        }

        // Symbols: image offset (for loaded sections), name.
        let sym_offset = |index: usize| -> Result<Option<u64>, String> {
            let sym = symbols.symbol(object::SymbolIndex(index)).map_err(|e| format!("symbol {index}: {e}"))?;
            let shndx = sym.st_shndx(endian) as usize;
            if shndx == elf::SHN_UNDEF as usize || shndx >= placed.len() {
                return Ok(None);
            }
            Ok(placed[shndx].map(|base| base.wrapping_add(sym.st_value(endian))))
        };

        // Relocations of loaded sections.
        let mut relocs = Vec::new();
        for sh in sections.iter() {
            let ty = sh.sh_type(endian);
            if ty != elf::SHT_REL && ty != elf::SHT_RELA {
                continue;
            }
            let name = name_of(sh)?;
            let target = sh.sh_info(endian) as usize;
            let Some(Some(base)) = placed.get(target).copied() else { continue };
            let target_size = sections.section(object::SectionIndex(target)).map(|s| s.sh_size(endian)).unwrap_or(0);
            let mut entries: Vec<(u64, u32, u32, Option<i64>)> = Vec::new();
            if ty == elf::SHT_RELA {
                let relas: &[elf::Rela64<Endianness>] =
                    sh.data_as_array(endian, data).map_err(|_| format!("{name}: outside the file"))?;
                for r in relas {
                    entries.push((
                        r.r_offset(endian),
                        r.r_type(endian, false),
                        r.r_sym(endian, false),
                        Some(r.r_addend(endian)),
                    ));
                }
            } else {
                let rels: &[elf::Rel64<Endianness>] =
                    sh.data_as_array(endian, data).map_err(|_| format!("{name}: outside the file"))?;
                for r in rels {
                    entries.push((r.r_offset(endian), r.r_type(endian), r.r_sym(endian), None));
                }
            }
            for (offset, kind, sym, addend) in entries {
                if kind == R_CUDA_NONE {
                    continue;
                }
                let (width, at) = match kind {
                    R_CUDA_32 => (4, 0),
                    R_CUDA_64 => (8, 0),
                    R_CUDA_ABS32_LO_32 | R_CUDA_ABS32_HI_32 => (4, 4),
                    k => return Err(format!("{name}: unsupported relocation type {k:#x} at {offset:#x}")),
                };
                if offset.checked_add(at + width).is_none_or(|e| e > target_size) {
                    return Err(format!("{name}: relocation at {offset:#x} outside its section"));
                }
                let symbol = sym_offset(sym as usize)?
                    .ok_or_else(|| format!("{name}: relocation at {offset:#x} against an unloaded symbol {sym}"))?;
                let image_at = base + offset;
                // REL: the addend is what the location holds.
                let addend = match addend {
                    Some(a) => a,
                    None => {
                        let p = (image_at + at) as usize;
                        match width {
                            8 => i64::from_le_bytes(image[p..p + 8].try_into().unwrap()),
                            _ => u32::from_le_bytes(image[p..p + 4].try_into().unwrap()) as i64,
                        }
                    }
                };
                relocs.push(Reloc { offset: image_at, kind, symbol, addend });
            }
        }

        // Global attributes: per-function values keyed by symbol index.
        let mut attributes = Vec::new();
        let mut info_by_kernel: std::collections::HashMap<String, Vec<Attribute>> = Default::default();
        for sh in sections.iter() {
            let name = name_of(sh)?;
            if name == ".nv.info" || name.starts_with(".nv.info.") {
                let bytes = sh.data(endian, data).map_err(|_| format!("{name}: data outside the file"))?;
                let attrs = parse_attributes(bytes).map_err(|e| format!("{name}: {e}"))?;
                match name.strip_prefix(".nv.info.") {
                    Some(k) => {
                        info_by_kernel.insert(k.to_string(), attrs);
                    }
                    None => attributes.extend(attrs),
                }
            }
        }
        let sym_name = |index: u32| -> Option<String> {
            let sym = symbols.symbol(object::SymbolIndex(index as usize)).ok()?;
            sym.name(endian, symbols.strings()).ok().map(|n| String::from_utf8_lossy(n).into_owned())
        };
        let per_function = |code: u8, kernel: &str| -> Result<Option<u32>, String> {
            let mut found = None;
            for a in attributes.iter().filter(|a| a.code == code) {
                let (Some(sym), Some(v)) = (a.u32_at(0), a.u32_at(4)) else {
                    return Err(format!(".nv.info: {} record too short", eiattr_name(code).unwrap_or("attribute")));
                };
                if sym_name(sym).as_deref() == Some(kernel) {
                    found = Some(v);
                }
            }
            Ok(found)
        };

        let section_by_name = |n: &str| out_sections.iter().find(|s| s.name == n);
        let shared_size = |k: &str| -> u64 {
            sections
                .iter()
                .find(|sh| name_of(sh).ok().as_deref() == Some(&format!(".nv.shared.{k}")))
                .map(|sh| sh.sh_size(endian))
                .unwrap_or(0)
        };

        let mut kernels = Vec::new();
        let mut names: Vec<&String> = info_by_kernel.keys().collect();
        names.sort();
        for kname in names {
            let attrs = &info_by_kernel[kname];
            let text = section_by_name(&format!(".text.{kname}"))
                .ok_or_else(|| format!("kernel `{kname}`: .nv.info.{kname} without .text.{kname}"))?;
            let cb0 = section_by_name(&format!(".nv.constant0.{kname}"));
            let mut k = Kernel {
                name: kname.clone(),
                text_offset: text.offset,
                text_size: text.size,
                registers: per_function(EIATTR_REGCOUNT, kname)?
                    .ok_or_else(|| format!("kernel `{kname}`: no EIATTR_REGCOUNT"))?,
                shared_size: shared_size(kname),
                cb0_offset: cb0.map(|s| s.offset).unwrap_or(0),
                cb0_size: cb0.map(|s| s.size as u32).unwrap_or(0),
                param_base: 0,
                param_size: 0,
                params: Vec::new(),
                frame_size: per_function(EIATTR_FRAME_SIZE, kname)?.unwrap_or(0),
                min_stack_size: per_function(EIATTR_MIN_STACK_SIZE, kname)?.unwrap_or(0),
                max_stack_size: per_function(EIATTR_MAX_STACK_SIZE, kname)?,
                crs_stack_size: None,
                barriers: 0,
                max_registers: None,
                required_block: None,
                max_block: None,
                exit_offsets: Vec::new(),
                attributes: attrs.clone(),
            };
            let short =
                |a: &Attribute| format!("kernel `{kname}`: {} record too short", a.name().unwrap_or("attribute"));
            let mut have_cbank = false;
            for a in attrs {
                match a.code {
                    EIATTR_PARAM_CBANK => {
                        let (Some(off), Some(size)) = (a.u16_at(4), a.u16_at(6)) else { return Err(short(a)) };
                        k.param_base = off as u32;
                        k.param_size = size as u32;
                        have_cbank = true;
                    }
                    EIATTR_KPARAM_INFO => {
                        let (Some(ordinal), Some(offset), Some(flags)) = (a.u16_at(4), a.u16_at(6), a.u32_at(8)) else {
                            return Err(short(a));
                        };
                        k.params.push(Param { ordinal, offset, size: (flags >> 18) as u16, flags });
                    }
                    EIATTR_CBANK_PARAM_SIZE if !have_cbank => k.param_size = a.value as u32,
                    EIATTR_NUM_BARRIERS => k.barriers = a.value as u32,
                    EIATTR_MAXREG_COUNT => k.max_registers = Some(a.value as u32),
                    EIATTR_CRS_STACK_SIZE => k.crs_stack_size = a.u32_at(0).or(Some(a.value as u32)),
                    EIATTR_EXIT_INSTR_OFFSETS => {
                        k.exit_offsets =
                            a.data.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
                    }
                    EIATTR_REQNTID | EIATTR_MAX_THREADS => {
                        let (Some(x), Some(y), Some(z)) = (a.u32_at(0), a.u32_at(4), a.u32_at(8)) else {
                            return Err(short(a));
                        };
                        if a.code == EIATTR_REQNTID {
                            k.required_block = Some([x, y, z]);
                        } else {
                            k.max_block = Some([x, y, z]);
                        }
                    }
                    _ => {}
                }
            }
            k.params.sort_by_key(|p| p.ordinal);
            for w in k.params.windows(2) {
                if w[0].ordinal == w[1].ordinal {
                    return Err(format!("kernel `{kname}`: parameter {} described twice", w[0].ordinal));
                }
            }
            for p in &k.params {
                if p.offset as u32 + p.size as u32 > k.param_size {
                    return Err(format!(
                        "kernel `{kname}`: parameter {} ({} bytes at {:#x}) outside the {:#x}-byte parameter block",
                        p.ordinal, p.size, p.offset, k.param_size
                    ));
                }
            }
            if k.param_size > 0 && cb0.is_some() && k.param_base + k.param_size > k.cb0_size {
                return Err(format!(
                    "kernel `{kname}`: parameter block {:#x}+{:#x} beyond .nv.constant0 ({:#x} bytes)",
                    k.param_base, k.param_size, k.cb0_size
                ));
            }
            kernels.push(k);
        }
        if kernels.is_empty() {
            return Err("cubin has no kernels (no .nv.info.<kernel> sections)".into());
        }

        let mut constant_banks = Vec::new();
        for s in &out_sections {
            if let Some(n) = s.name.strip_prefix(".nv.constant") {
                if let Ok(bank) = n.parse::<u8>() {
                    constant_banks.push((bank, s.offset, s.size));
                }
            }
        }

        Ok(Cubin { sm, abi_version, image, sections: out_sections, relocs, kernels, constant_banks, attributes })
    }

    pub fn kernel(&self, name: &str) -> Result<&Kernel, String> {
        self.kernels.iter().find(|k| k.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.kernels.iter().map(|k| k.name.as_str()).collect();
            format!("no kernel `{name}` in the cubin (it has: {})", names.join(", "))
        })
    }

    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The image as it must appear in GPU memory at `base`, relocations applied.
    pub fn relocated(&self, base: u64) -> Vec<u8> {
        let mut img = self.image.clone();
        for r in &self.relocs {
            let v = base.wrapping_add(r.symbol).wrapping_add(r.addend as u64);
            let at = r.offset as usize;
            match r.kind {
                R_CUDA_64 => img[at..at + 8].copy_from_slice(&v.to_le_bytes()),
                R_CUDA_32 => img[at..at + 4].copy_from_slice(&(v as u32).to_le_bytes()),
                R_CUDA_ABS32_LO_32 => img[at + 4..at + 8].copy_from_slice(&(v as u32).to_le_bytes()),
                R_CUDA_ABS32_HI_32 => img[at + 4..at + 8].copy_from_slice(&((v >> 32) as u32).to_le_bytes()),
                _ => {} // refused by parse
            }
        }
        img
    }

    /// A bank-0 image for a launch of `kernel`: the `.nv.constant0.<kernel>` template with `args`
    /// (the parameter block, laid out as [`Kernel::params`] says) copied to `param_base`. The
    /// driver slots below `param_base` (shared/local windows, stack) are the caller's to fill.
    pub fn constant_bank0(&self, kernel: &Kernel, args: &[u8]) -> Result<Vec<u8>, String> {
        if args.len() as u32 != kernel.param_size {
            return Err(format!(
                "kernel `{}` takes {} bytes of parameters, got {}",
                kernel.name,
                kernel.param_size,
                args.len()
            ));
        }
        let size = (kernel.cb0_size.max(kernel.param_base + kernel.param_size)) as usize;
        let mut cb0 = vec![0u8; size];
        let start = kernel.cb0_offset as usize;
        if let Some(t) = self.image.get(start..start + kernel.cb0_size as usize) {
            cb0[..t.len()].copy_from_slice(t);
        }
        let at = kernel.param_base as usize;
        cb0[at..at + args.len()].copy_from_slice(args);
        Ok(cb0)
    }
}
