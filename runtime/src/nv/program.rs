//! NVIDIA programs: what a launch needs from a code object, whether a cubin (SASS for a real GPU)
//! or a PTX module (what the emulated GPU executes, uploaded as `drivers::nv::ptx_image`).
//! Either way a kernel becomes: a program address in the uploaded image, a constant-bank-0
//! template with the parameters' offsets in it, and the resources the QMD declares.

use crate::program::cubin::{self, Cubin};
use crate::program::ptx::{PtxModule, PtxParamKind};
use crate::program::ArgValue;
use baregpu_drivers::nv::ptx_image;

/// A code object for an NVIDIA device.
#[derive(Debug, Clone)]
pub enum NvCode {
    Cubin(Cubin),
    Ptx(PtxModule),
}

impl NvCode {
    /// A cubin (ELF) or PTX text, told apart by their first bytes.
    pub fn parse(bytes: &[u8]) -> Result<NvCode, String> {
        if bytes.starts_with(b"\x7fELF") {
            return Cubin::parse(bytes).map(NvCode::Cubin);
        }
        let text = std::str::from_utf8(bytes).map_err(|_| "neither an ELF cubin nor PTX text (not UTF-8)")?;
        PtxModule::parse(text).map(NvCode::Ptx)
    }

    /// `sm_XY` as XY.
    pub fn sm(&self) -> u32 {
        match self {
            NvCode::Cubin(c) => c.sm,
            NvCode::Ptx(p) => p.sm,
        }
    }

    pub fn kernel_names(&self) -> Vec<&str> {
        match self {
            NvCode::Cubin(c) => c.kernels.iter().map(|k| k.name.as_str()).collect(),
            NvCode::Ptx(p) => p.entries.iter().map(|e| e.name.as_str()).collect(),
        }
    }
}

/// What a parameter slot takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvParamKind {
    /// A buffer address (PTX `.ptr .global`).
    Pointer,
    /// A value; `float` when the declaration says so (PTX `.f32`), `None` when it says nothing
    /// (a cubin records sizes only).
    Value { float: Option<bool> },
    /// Either: a cubin's 8-byte parameter may be a pointer or a 64-bit value.
    PointerOrValue,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NvParam {
    /// Offset within the parameter block.
    pub offset: u32,
    pub size: u32,
    pub kind: NvParamKind,
}

impl NvParam {
    pub fn describe(&self) -> String {
        match self.kind {
            NvParamKind::Pointer => "a buffer".into(),
            NvParamKind::Value { float: Some(true) } => format!("a {}-byte float", self.size),
            NvParamKind::Value { float: Some(false) } => format!("a {}-byte integer", self.size),
            NvParamKind::Value { float: None } => format!("a {}-byte value", self.size),
            NvParamKind::PointerOrValue => "a buffer or an 8-byte value".into(),
        }
    }
}

/// One kernel, ready to launch from an image uploaded at some base address.
#[derive(Debug, Clone)]
pub struct NvKernel {
    pub name: String,
    /// Offset of the kernel's code (or its PTX image) in the uploaded image, and its size.
    pub code_offset: u64,
    pub code_size: u64,
    pub registers: u32,
    pub barriers: u32,
    /// Static shared memory in bytes.
    pub static_shared: u32,
    /// Per-thread local memory (stack) the kernel needs, in bytes.
    pub local_bytes: u32,
    /// The constant-bank-0 image without parameters (driver slots are filled per launch).
    pub cb0_template: Vec<u8>,
    /// Where the parameters start in bank 0.
    pub param_base: u32,
    pub param_size: u32,
    pub params: Vec<NvParam>,
    /// Other constant banks: (bank, image offset, size).
    pub banks: Vec<(u8, u64, u32)>,
    pub required_block: Option<[u32; 3]>,
    pub max_block: Option<[u32; 3]>,
}

impl NvKernel {
    /// The parameter block for `args`, checked against the parameter list.
    pub fn param_block(&self, args: &[ArgValue]) -> Result<Vec<u8>, String> {
        if args.len() != self.params.len() {
            return Err(format!("kernel `{}` takes {} arguments, {} given", self.name, self.params.len(), args.len()));
        }
        let mut block = vec![0u8; self.param_size as usize];
        for (i, (p, a)) in self.params.iter().zip(args).enumerate() {
            let at = p.offset as usize;
            let bytes: Vec<u8> = match (p.kind, a) {
                (NvParamKind::Pointer | NvParamKind::PointerOrValue, ArgValue::Pointer(va)) if p.size == 8 => {
                    va.to_le_bytes().to_vec()
                }
                (NvParamKind::Value { .. } | NvParamKind::PointerOrValue, ArgValue::Bytes(b))
                    if b.len() == p.size as usize =>
                {
                    b.clone()
                }
                (_, given) => {
                    let given = match given {
                        ArgValue::Pointer(_) => "a buffer".to_string(),
                        ArgValue::Bytes(b) => format!("a {}-byte value", b.len()),
                    };
                    return Err(format!("kernel `{}`: argument {i} wants {}, {given} given", self.name, p.describe()));
                }
            };
            block[at..at + bytes.len()].copy_from_slice(&bytes);
        }
        Ok(block)
    }
}

/// Where ptxas puts the parameters in bank 0 for `sm_XY` when there is no cubin to say so.
pub fn param_base(sm: u32) -> u32 {
    cubin::cb0_param_base(sm)
}

/// Extra per-thread local memory the driver adds to a kernel's stack (tinygrad: `+ 0x240`,
/// [3rd-party]): room for the ABI's call frames and trap handler.
const LOCAL_RESERVE: u32 = 0x240;

/// The uploaded image and the kernels of `code` for a device of `sm_XY`: a cubin's image as the
/// loader laid it out, or for PTX one [`ptx_image`] per entry, each 256-byte aligned, with the
/// parameters where that device's constant bank 0 has them.
pub fn layout(code: &NvCode, sm: u32) -> Result<(Vec<u8>, Vec<NvKernel>), String> {
    match code {
        NvCode::Cubin(c) => {
            let kernels = c
                .kernels
                .iter()
                .map(|k| {
                    let params = k
                        .params
                        .iter()
                        .map(|p| NvParam {
                            offset: p.offset as u32,
                            size: p.size as u32,
                            kind: if p.size == 8 {
                                NvParamKind::PointerOrValue
                            } else {
                                NvParamKind::Value { float: None }
                            },
                        })
                        .collect();
                    let start = k.cb0_offset as usize;
                    let template =
                        c.image.get(start..start + k.cb0_size as usize).map(<[u8]>::to_vec).unwrap_or_default();
                    let stack = k.min_stack_size.max(k.frame_size);
                    NvKernel {
                        name: k.name.clone(),
                        code_offset: k.text_offset,
                        code_size: k.text_size,
                        registers: k.registers,
                        barriers: k.barriers,
                        static_shared: k.shared_size as u32,
                        local_bytes: (stack + LOCAL_RESERVE).div_ceil(32) * 32,
                        cb0_template: template,
                        param_base: k.param_base,
                        param_size: k.param_size,
                        params,
                        banks: c.constant_banks.iter().map(|&(b, off, size)| (b, off, size as u32)).collect(),
                        required_block: k.required_block,
                        max_block: k.max_block,
                    }
                })
                .collect();
            Ok((c.image.clone(), kernels))
        }
        NvCode::Ptx(m) => {
            let mut image = Vec::new();
            let mut kernels = Vec::new();
            let base = param_base(sm);
            for e in &m.entries {
                let at = image.len().div_ceil(256) * 256;
                image.resize(at, 0);
                let img = ptx_image::image(&e.name, &m.text);
                image.extend_from_slice(&img);
                let params = e
                    .params
                    .iter()
                    .map(|p| NvParam {
                        offset: p.offset,
                        size: p.size,
                        kind: match p.kind {
                            PtxParamKind::GlobalPointer => NvParamKind::Pointer,
                            // nvcc declares pointers as plain `.u64`: any 64-bit integer may
                            // hold a buffer's address.
                            PtxParamKind::Integer if p.size == 8 => NvParamKind::PointerOrValue,
                            PtxParamKind::OtherPointer | PtxParamKind::Integer => {
                                NvParamKind::Value { float: Some(false) }
                            }
                            PtxParamKind::Float => NvParamKind::Value { float: Some(true) },
                        },
                    })
                    .collect();
                kernels.push(NvKernel {
                    name: e.name.clone(),
                    code_offset: at as u64,
                    code_size: img.len() as u64,
                    // The interpreter has no register file limit; what a QMD must declare.
                    registers: 32,
                    barriers: 1,
                    // The interpreter sizes static shared and local memory from the PTX itself.
                    static_shared: 0,
                    local_bytes: 0,
                    cb0_template: vec![0; base as usize],
                    param_base: base,
                    param_size: e.param_size,
                    params,
                    banks: Vec::new(),
                    required_block: e.required_block,
                    max_block: e.max_block,
                });
            }
            Ok((image, kernels))
        }
    }
}
