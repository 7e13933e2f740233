//! The AMDGPU code-object (HSACO) writer: kernels (machine code + resources + argument list) in,
//! an ELF64 shared object out, loadable by ROCr/CLR and by baregpu's runtime loader like a
//! `clang -target amdgcn-amd-amdhsa` + `ld.lld -shared` output (code object v5).
//!
//! What is produced (see the sub-modules for each part):
//! - ELF header: `EM_AMDGPU`, `ELFOSABI_AMDGPU_HSA`, ABI version 3 (code object v5), `ET_DYN`,
//!   `e_flags` = EF_AMDGPU_MACH | xnack/sramecc target-ID bits ([`e_flags`]);
//! - `.text` (256-byte aligned, each kernel entry 256-byte aligned, padded like LLVM), `.rodata`
//!   with one 64-byte kernel descriptor per kernel ([`descriptor`]);
//! - symbols `NAME` (STT_FUNC) and `NAME.kd` (STT_OBJECT, 64 bytes) in `.dynsym` and `.symtab`,
//!   with `.hash`, `.dynstr` and `.dynamic` so that loaders can look them up ([`elf`]);
//! - a `.note` with the NT_AMDGPU_METADATA msgpack map ([`metadata`]).
//!
//! ```
//! use baregpu_compiler::codeobj::{write_code_object, Kernel, KernelArg};
//! use baregpu_compiler::isa::Arch;
//! // s_endpgm
//! let mut k = Kernel::new(Arch::Gfx1100, "nop", vec![0x00, 0x00, 0xb0, 0xbf])
//!     .with_args(vec![KernelArg::global_buffer("out", 0)]);
//! k.resources.vgpr_count = 1;
//! let elf = write_code_object(Arch::Gfx1100, &[k]).unwrap();
//! assert_eq!(&elf[..4], b"\x7fELF");
//! ```

mod arch;
pub mod descriptor;
pub mod elf;
mod error;
pub mod metadata;
mod validate;

pub use crate::isa::Arch;
pub use descriptor::KernelDescriptor;
pub use error::CodeObjectError;

/// ELF constants of AMDGPU code objects.
pub const EM_AMDGPU: u16 = 224;
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `EI_ABIVERSION` of code object v5.
pub const ELFABIVERSION_AMDGPU_HSA_V5: u8 = 3;
/// Note type of the msgpack metadata note (owner "AMDGPU").
pub const NT_AMDGPU_METADATA: u32 = 32;
/// Alignment of kernel entry points and of `.text`.
pub const KERNEL_CODE_ALIGN: u64 = 256;
/// Size and alignment of a kernel descriptor.
pub const KERNEL_DESCRIPTOR_SIZE: usize = 64;

/// A target-ID feature (`xnack`, `sramecc`) setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TargetFeature {
    /// Code that runs either way (no suffix in the target ID). LLVM's default.
    #[default]
    Any,
    /// `:feature+`
    On,
    /// `:feature-`
    Off,
}

/// Code-object-wide options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CodeObjectOptions {
    /// XNACK (gfx942, gfx950 only; must be `Any` elsewhere).
    pub xnack: TargetFeature,
    /// SRAMECC (gfx942, gfx950 only; must be `Any` elsewhere).
    pub sramecc: TargetFeature,
}

/// Wavefront size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaveSize {
    Wave32,
    Wave64,
}

impl WaveSize {
    pub fn lanes(self) -> u32 {
        match self {
            WaveSize::Wave32 => 32,
            WaveSize::Wave64 => 64,
        }
    }
}

/// FP rounding mode (COMPUTE_PGM_RSRC1.FLOAT_MODE round fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RoundMode {
    #[default]
    NearestEven = 0,
    PlusInfinity = 1,
    MinusInfinity = 2,
    Zero = 3,
}

/// FP denormal mode (COMPUTE_PGM_RSRC1.FLOAT_MODE denorm fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DenormMode {
    FlushSrcDst = 0,
    FlushDst = 1,
    FlushSrc = 2,
    /// Denormals preserved (clang's default for OpenCL and HIP).
    #[default]
    FlushNone = 3,
}

/// The FLOAT_MODE byte of COMPUTE_PGM_RSRC1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FloatMode {
    pub round_32: RoundMode,
    pub round_16_64: RoundMode,
    pub denorm_32: DenormMode,
    pub denorm_16_64: DenormMode,
}

impl FloatMode {
    /// The 8-bit FLOAT_MODE field value.
    pub fn bits(&self) -> u32 {
        (self.round_32 as u32)
            | (self.round_16_64 as u32) << 2
            | (self.denorm_32 as u32) << 4
            | (self.denorm_16_64 as u32) << 6
    }
}

/// User SGPR inputs, in the order the hardware loads them into s0, s1, ...
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UserSgprs {
    /// 4 SGPRs. Not supported with architected flat scratch (all four targets): rejected.
    pub private_segment_buffer: bool,
    /// 2 SGPRs: the AQL dispatch packet address.
    pub dispatch_ptr: bool,
    /// 2 SGPRs: the AQL queue address.
    pub queue_ptr: bool,
    /// 2 SGPRs: the kernarg segment address.
    pub kernarg_segment_ptr: bool,
    /// 2 SGPRs: the 64-bit dispatch id.
    pub dispatch_id: bool,
    /// 2 SGPRs. Not supported with architected flat scratch (all four targets): rejected.
    pub flat_scratch_init: bool,
    /// 1 SGPR: the private segment size per work-item.
    pub private_segment_size: bool,
}

impl UserSgprs {
    /// Number of user SGPRs the enabled inputs occupy.
    pub fn count(&self) -> u32 {
        4 * u32::from(self.private_segment_buffer)
            + 2 * u32::from(self.dispatch_ptr)
            + 2 * u32::from(self.queue_ptr)
            + 2 * u32::from(self.kernarg_segment_ptr)
            + 2 * u32::from(self.dispatch_id)
            + 2 * u32::from(self.flat_scratch_init)
            + u32::from(self.private_segment_size)
    }
}

/// What a kernel needs from the hardware: registers, memory, inputs and modes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelResources {
    pub wave_size: WaveSize,
    /// Architectural VGPRs used (highest used VGPR + 1).
    pub vgpr_count: u32,
    /// AccVGPRs used (highest used AGPR + 1); gfx942/gfx950 only. The AGPRs start at
    /// `accum_offset` = `vgpr_count` rounded up to 4.
    pub agpr_count: u32,
    /// SGPRs as LLVM's `.sgpr_count` counts them: highest used SGPR + 1 plus VCC / FLAT_SCRATCH /
    /// XNACK_MASK; see [`KernelResources::sgpr_count_for`].
    pub sgpr_count: u32,
    /// Statically allocated LDS (group segment) bytes per workgroup.
    pub lds_bytes: u32,
    /// Private (scratch) bytes per work-item; non-zero enables the private segment.
    pub private_bytes: u32,
    pub user_sgprs: UserSgprs,
    /// Total user SGPRs to initialise (COMPUTE_PGM_RSRC2.USER_SGPR_COUNT); `None`: what LLVM
    /// uses, see [`Kernel::user_sgpr_count`].
    pub user_sgpr_count: Option<u32>,
    /// System SGPRs after the user SGPRs: workgroup id x, y, z ...
    pub workgroup_id: [bool; 3],
    /// ... and the workgroup info (TG_SIZE) SGPR.
    pub workgroup_info: bool,
    /// Work-item ids loaded into VGPRs: 1 = x, 2 = x and y, 3 = x, y and z (packed in v0 on all
    /// four targets).
    pub workitem_id_dims: u32,
    pub float_mode: FloatMode,
    /// RSRC1.ENABLE_IEEE_MODE (gfx942, gfx950, gfx1100; must be false on gfx1201).
    pub ieee_mode: bool,
    /// RSRC1.ENABLE_DX10_CLAMP (gfx942, gfx950, gfx1100; must be false on gfx1201).
    pub dx10_clamp: bool,
    /// RSRC1.FP16_OVFL.
    pub fp16_overflow: bool,
    /// RSRC1.WGP_MODE (gfx10+; LLVM's default is on).
    pub wgp_mode: bool,
    /// RSRC1.MEM_ORDERED (gfx10+; LLVM's default is on).
    pub mem_ordered: bool,
    /// RSRC1.FWD_PROGRESS (gfx10+; LLVM's default is on).
    pub fwd_progress: bool,
    /// RSRC3.TG_SPLIT (gfx942, gfx950).
    pub tg_split: bool,
    /// The kernel's stack is dynamically sized (kernel_code_properties.USES_DYNAMIC_STACK).
    pub uses_dynamic_stack: bool,
    /// RSRC3.INST_PREF_SIZE in 128-byte lines (gfx11+); `None`: LLVM's choice, the code size in
    /// lines, clamped to the field.
    pub inst_pref_size: Option<u32>,
    pub sgpr_spill_count: u32,
    pub vgpr_spill_count: u32,
}

impl KernelResources {
    /// clang/LLVM 22's defaults for a kernel on `arch`: wave32 on gfx11/gfx12 and wave64 on CDNA,
    /// kernarg pointer, workgroup id x, work-item id x, denormals preserved, IEEE + DX10 clamp where
    /// they exist, WGP mode + memory ordering + forward progress on gfx10+. No registers counted.
    pub fn for_arch(arch: Arch) -> KernelResources {
        let cdna = arch::is_cdna(arch);
        let gfx12 = arch::is_gfx12(arch);
        KernelResources {
            wave_size: if cdna { WaveSize::Wave64 } else { WaveSize::Wave32 },
            vgpr_count: 0,
            agpr_count: 0,
            sgpr_count: 0,
            lds_bytes: 0,
            private_bytes: 0,
            user_sgprs: UserSgprs { kernarg_segment_ptr: true, ..UserSgprs::default() },
            user_sgpr_count: None,
            workgroup_id: [true, false, false],
            workgroup_info: false,
            workitem_id_dims: 1,
            float_mode: FloatMode::default(),
            ieee_mode: !gfx12,
            dx10_clamp: !gfx12,
            fp16_overflow: false,
            wgp_mode: !cdna,
            mem_ordered: !cdna,
            fwd_progress: !cdna,
            tg_split: false,
            uses_dynamic_stack: false,
            inst_pref_size: None,
            sgpr_spill_count: 0,
            vgpr_spill_count: 0,
        }
    }

    /// The `.sgpr_count` LLVM reports for a kernel whose highest used SGPR is
    /// `next_free_sgpr - 1`: plus VCC when used (gfx11/gfx12), plus VCC, FLAT_SCRATCH and
    /// XNACK_MASK always on gfx942/gfx950.
    pub fn sgpr_count_for(arch: Arch, next_free_sgpr: u32, vcc_used: bool) -> u32 {
        next_free_sgpr + arch::extra_sgprs(arch, vcc_used)
    }

    /// VGPRs the wave allocates, as `.vgpr_count` reports them: on gfx942/gfx950 the arch VGPRs
    /// rounded to 4 plus the AGPRs (when there are AGPRs), elsewhere the arch VGPRs.
    pub fn total_vgprs(&self, arch: Arch) -> u32 {
        if arch::is_cdna(arch) && self.agpr_count > 0 {
            self.accum_offset() + self.agpr_count
        } else {
            self.vgpr_count.max(self.agpr_count)
        }
    }

    /// First AccVGPR index in the unified register file (gfx90a+): arch VGPRs rounded up to 4.
    pub fn accum_offset(&self) -> u32 {
        self.vgpr_count.max(1).div_ceil(4) * 4
    }
}

/// Access qualifier of a buffer argument (`.access`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgAccess {
    ReadOnly,
    WriteOnly,
    ReadWrite,
}

impl ArgAccess {
    pub fn as_str(self) -> &'static str {
        match self {
            ArgAccess::ReadOnly => "read_only",
            ArgAccess::WriteOnly => "write_only",
            ArgAccess::ReadWrite => "read_write",
        }
    }
}

/// Address space of a pointer argument (`.address_space`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressSpace {
    Private,
    Global,
    Constant,
    Local,
    Generic,
    Region,
}

impl AddressSpace {
    pub fn as_str(self) -> &'static str {
        match self {
            AddressSpace::Private => "private",
            AddressSpace::Global => "global",
            AddressSpace::Constant => "constant",
            AddressSpace::Local => "local",
            AddressSpace::Generic => "generic",
            AddressSpace::Region => "region",
        }
    }
}

/// Implicit ("hidden") kernel arguments that the runtime fills in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HiddenArg {
    BlockCountX,
    BlockCountY,
    BlockCountZ,
    GroupSizeX,
    GroupSizeY,
    GroupSizeZ,
    RemainderX,
    RemainderY,
    RemainderZ,
    GlobalOffsetX,
    GlobalOffsetY,
    GlobalOffsetZ,
    GridDims,
    PrintfBuffer,
    HostcallBuffer,
    DefaultQueue,
    CompletionAction,
    MultigridSyncArg,
    HeapV1,
    DynamicLdsSize,
    PrivateBase,
    SharedBase,
    QueuePtr,
    /// Padding that the runtime leaves alone.
    None,
}

impl HiddenArg {
    /// The `.value_kind` string.
    pub fn value_kind(self) -> &'static str {
        match self {
            HiddenArg::BlockCountX => "hidden_block_count_x",
            HiddenArg::BlockCountY => "hidden_block_count_y",
            HiddenArg::BlockCountZ => "hidden_block_count_z",
            HiddenArg::GroupSizeX => "hidden_group_size_x",
            HiddenArg::GroupSizeY => "hidden_group_size_y",
            HiddenArg::GroupSizeZ => "hidden_group_size_z",
            HiddenArg::RemainderX => "hidden_remainder_x",
            HiddenArg::RemainderY => "hidden_remainder_y",
            HiddenArg::RemainderZ => "hidden_remainder_z",
            HiddenArg::GlobalOffsetX => "hidden_global_offset_x",
            HiddenArg::GlobalOffsetY => "hidden_global_offset_y",
            HiddenArg::GlobalOffsetZ => "hidden_global_offset_z",
            HiddenArg::GridDims => "hidden_grid_dims",
            HiddenArg::PrintfBuffer => "hidden_printf_buffer",
            HiddenArg::HostcallBuffer => "hidden_hostcall_buffer",
            HiddenArg::DefaultQueue => "hidden_default_queue",
            HiddenArg::CompletionAction => "hidden_completion_action",
            HiddenArg::MultigridSyncArg => "hidden_multigrid_sync_arg",
            HiddenArg::HeapV1 => "hidden_heap_v1",
            HiddenArg::DynamicLdsSize => "hidden_dynamic_lds_size",
            HiddenArg::PrivateBase => "hidden_private_base",
            HiddenArg::SharedBase => "hidden_shared_base",
            HiddenArg::QueuePtr => "hidden_queue_ptr",
            HiddenArg::None => "hidden_none",
        }
    }

    /// Size in bytes in the code object v5 implicit-argument block.
    pub fn size(self) -> u32 {
        match self {
            HiddenArg::BlockCountX | HiddenArg::BlockCountY | HiddenArg::BlockCountZ => 4,
            HiddenArg::GroupSizeX | HiddenArg::GroupSizeY | HiddenArg::GroupSizeZ => 2,
            HiddenArg::RemainderX | HiddenArg::RemainderY | HiddenArg::RemainderZ => 2,
            HiddenArg::GridDims => 2,
            HiddenArg::DynamicLdsSize | HiddenArg::PrivateBase | HiddenArg::SharedBase => 4,
            _ => 8,
        }
    }
}

/// The `.value_kind` of an argument, with what that kind carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgKind {
    ByValue,
    GlobalBuffer { address_space: AddressSpace, access: Option<ArgAccess> },
    DynamicSharedPointer { pointee_align: Option<u32> },
    Hidden(HiddenArg),
}

impl ArgKind {
    pub fn value_kind(&self) -> &'static str {
        match self {
            ArgKind::ByValue => "by_value",
            ArgKind::GlobalBuffer { .. } => "global_buffer",
            ArgKind::DynamicSharedPointer { .. } => "dynamic_shared_pointer",
            ArgKind::Hidden(h) => h.value_kind(),
        }
    }
}

/// One kernel argument in the kernarg segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelArg {
    pub name: Option<String>,
    pub type_name: Option<String>,
    pub offset: u32,
    pub size: u32,
    pub kind: ArgKind,
    pub is_const: bool,
    pub is_restrict: bool,
    pub is_volatile: bool,
}

impl KernelArg {
    fn new(name: Option<String>, offset: u32, size: u32, kind: ArgKind) -> KernelArg {
        KernelArg { name, type_name: None, offset, size, kind, is_const: false, is_restrict: false, is_volatile: false }
    }

    /// A scalar or struct passed by value.
    pub fn by_value(name: &str, offset: u32, size: u32) -> KernelArg {
        KernelArg::new(Some(name.to_string()), offset, size, ArgKind::ByValue)
    }

    /// A 64-bit pointer to global memory.
    pub fn global_buffer(name: &str, offset: u32) -> KernelArg {
        let kind = ArgKind::GlobalBuffer { address_space: AddressSpace::Global, access: None };
        KernelArg::new(Some(name.to_string()), offset, 8, kind)
    }

    /// An implicit argument of its code object v5 size.
    pub fn hidden(kind: HiddenArg, offset: u32) -> KernelArg {
        KernelArg::new(None, offset, kind.size(), ArgKind::Hidden(kind))
    }

    pub fn with_type_name(mut self, type_name: &str) -> KernelArg {
        self.type_name = Some(type_name.to_string());
        self
    }

    pub fn with_const(mut self, is_const: bool) -> KernelArg {
        self.is_const = is_const;
        self
    }

    /// The argument's natural alignment, used for the kernarg segment alignment.
    fn align(&self) -> u32 {
        self.size.clamp(1, 16).next_power_of_two().min(16)
    }
}

/// The implicit arguments LLVM 22 appends (code object v5) when a kernel uses the implicit
/// argument pointer, starting at `base` (the explicit kernarg size rounded up to 8); the block
/// is 256 bytes long.
pub fn hidden_args_v5(base: u32) -> Vec<KernelArg> {
    use HiddenArg::*;
    [
        (BlockCountX, 0),
        (BlockCountY, 4),
        (BlockCountZ, 8),
        (GroupSizeX, 12),
        (GroupSizeY, 14),
        (GroupSizeZ, 16),
        (RemainderX, 18),
        (RemainderY, 20),
        (RemainderZ, 22),
        (GlobalOffsetX, 40),
        (GlobalOffsetY, 48),
        (GlobalOffsetZ, 56),
        (GridDims, 64),
        (QueuePtr, 200),
    ]
    .into_iter()
    .map(|(kind, off)| KernelArg::hidden(kind, base + off))
    .collect()
}

/// Size of the code object v5 implicit-argument block.
pub const HIDDEN_ARGS_V5_SIZE: u32 = 256;

/// One kernel of a code object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// Symbol name of the entry point; the descriptor is `NAME.kd`.
    pub name: String,
    /// Encoded instructions, entry point first.
    pub code: Vec<u8>,
    pub resources: KernelResources,
    pub args: Vec<KernelArg>,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_align: u32,
    pub max_flat_workgroup_size: u32,
    pub reqd_workgroup_size: Option<[u32; 3]>,
    /// Optional `.language` / `.language_version` (e.g. "OpenCL C", [2, 0]).
    pub language: Option<(String, [u32; 2])>,
}

impl Kernel {
    /// A kernel with [`KernelResources::for_arch`], no arguments, an empty kernarg segment
    /// (alignment 4) and a maximum flat workgroup size of 1024.
    pub fn new(arch: Arch, name: &str, code: Vec<u8>) -> Kernel {
        Kernel {
            name: name.to_string(),
            code,
            resources: KernelResources::for_arch(arch),
            args: Vec::new(),
            kernarg_segment_size: 0,
            kernarg_segment_align: 4,
            max_flat_workgroup_size: 1024,
            reqd_workgroup_size: None,
            language: None,
        }
    }

    /// Sets the arguments, the kernarg segment size (the end of the last argument rounded up to
    /// 4, as LLVM does) and alignment (the largest natural argument alignment, at least 4).
    pub fn with_args(mut self, args: Vec<KernelArg>) -> Kernel {
        let end = args.iter().map(|a| u64::from(a.offset) + u64::from(a.size)).max().unwrap_or(0);
        self.kernarg_segment_size = u32::try_from(end.div_ceil(4) * 4).unwrap_or(u32::MAX);
        self.kernarg_segment_align = args.iter().map(KernelArg::align).max().unwrap_or(4).max(4);
        self.args = args;
        self
    }

    /// The user SGPR count written to COMPUTE_PGM_RSRC2: the explicit one, or the SGPRs the enabled
    /// inputs take, padded on gfx1100 in wave32 so that user + system SGPRs reach 16 (the
    /// hardware's user-SGPR-init bug; LLVM pads the same way, so the workgroup ids then start at
    /// s[16 - system SGPRs]).
    pub fn user_sgpr_count(&self, arch: Arch) -> u32 {
        let r = &self.resources;
        if let Some(n) = r.user_sgpr_count {
            return n;
        }
        let implied = r.user_sgprs.count();
        if arch::has_user_sgpr_init16_bug(arch) && r.wave_size == WaveSize::Wave32 {
            let system = r.workgroup_id.iter().filter(|&&e| e).count() as u32 + u32::from(r.workgroup_info);
            implied.max(16u32.saturating_sub(system))
        } else {
            implied
        }
    }
}

/// The `e_flags` of a code object: EF_AMDGPU_MACH plus the v4+ xnack/sramecc feature bits
/// (any: 0x100/0x400, off: 0x200/0x800, on: 0x300/0xc00 where the target has the feature).
pub fn e_flags(arch: Arch, options: &CodeObjectOptions) -> u32 {
    let feature = |supported: bool, setting: TargetFeature, any: u32| {
        if !supported {
            return 0;
        }
        match setting {
            TargetFeature::Any => any,
            TargetFeature::Off => any * 2,
            TargetFeature::On => any * 3,
        }
    };
    arch::mach(arch)
        | feature(arch::supports_xnack(arch), options.xnack, 0x100)
        | feature(arch::supports_sramecc(arch), options.sramecc, 0x400)
}

/// The target ID of `amdhsa.target`, e.g. `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`.
pub fn target_id(arch: Arch, options: &CodeObjectOptions) -> String {
    let mut id = format!("amdgcn-amd-amdhsa--{}", arch.name());
    for (name, setting) in [("sramecc", options.sramecc), ("xnack", options.xnack)] {
        match setting {
            TargetFeature::Any => {}
            TargetFeature::On => id += &format!(":{name}+"),
            TargetFeature::Off => id += &format!(":{name}-"),
        }
    }
    id
}

/// Writes a code object with LLVM's default target features (xnack/sramecc "any").
pub fn write_code_object(arch: Arch, kernels: &[Kernel]) -> Result<Vec<u8>, CodeObjectError> {
    write_code_object_with(arch, &CodeObjectOptions::default(), kernels)
}

/// Writes a code object: validates every kernel, computes the descriptors and the metadata, and
/// lays out the ELF file.
pub fn write_code_object_with(
    arch: Arch,
    options: &CodeObjectOptions,
    kernels: &[Kernel],
) -> Result<Vec<u8>, CodeObjectError> {
    validate::code_object(arch, options, kernels)?;
    let note = metadata::metadata_note(arch, options, kernels);
    elf::write(arch, options, kernels, &note)
}
