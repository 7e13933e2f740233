//! Kernel-argument memory for one launch: the caller's arguments checked against the metadata,
//! and the implicit ("hidden") arguments filled as code-object v5/v6 code reads them.

use super::metadata::{ArgKind, HiddenArg, KernelMeta};

/// One explicit argument value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgValue {
    /// A device address (global buffers).
    Pointer(u64),
    /// The bytes of a by-value argument, little-endian, exactly the argument's size.
    Bytes(Vec<u8>),
}

impl ArgValue {
    pub fn u32(v: u32) -> Self {
        ArgValue::Bytes(v.to_le_bytes().to_vec())
    }
    pub fn u64(v: u64) -> Self {
        ArgValue::Bytes(v.to_le_bytes().to_vec())
    }
    pub fn f32(v: f32) -> Self {
        ArgValue::Bytes(v.to_le_bytes().to_vec())
    }
    pub fn f64(v: f64) -> Self {
        ArgValue::Bytes(v.to_le_bytes().to_vec())
    }
}

/// The shape of a launch: workgroups per dimension and work-items per workgroup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Dynamic LDS bytes on top of the kernel's fixed size.
    pub dynamic_lds: u32,
}

impl Launch {
    pub fn new(grid: [u32; 3], block: [u32; 3]) -> Self {
        Launch { grid, block, dynamic_lds: 0 }
    }

    /// 1, 2 or 3: the highest dimension with more than one work-item, at least 1.
    pub fn dims(&self) -> u16 {
        if self.grid[2] * self.block[2] > 1 {
            3
        } else if self.grid[1] * self.block[1] > 1 {
            2
        } else {
            1
        }
    }
}

/// The kernarg segment for `meta` with `args` (explicit arguments in order). Errors name the
/// argument that does not fit.
pub fn build(meta: &KernelMeta, args: &[ArgValue], launch: &Launch) -> Result<Vec<u8>, String> {
    let explicit: Vec<_> = meta.args.iter().filter(|a| a.is_explicit()).collect();
    if explicit.len() != args.len() {
        return Err(format!("kernel `{}` takes {} arguments, {} given", meta.name, explicit.len(), args.len()));
    }
    let size = meta.kernarg_segment_size as usize;
    let mut buf = vec![0u8; size];
    for (i, a) in meta.args.iter().enumerate() {
        let (start, end) = (a.offset as usize, a.offset as usize + a.size as usize);
        if end > size {
            return Err(format!(
                "kernel `{}`: argument {i} at {start}..{end} exceeds the {size}-byte segment",
                meta.name
            ));
        }
    }
    for (i, (a, v)) in explicit.iter().zip(args).enumerate() {
        let at = a.offset as usize;
        match (&a.kind, v) {
            (ArgKind::GlobalBuffer, ArgValue::Pointer(p)) if a.size == 8 => {
                buf[at..at + 8].copy_from_slice(&p.to_le_bytes())
            }
            (ArgKind::ByValue, ArgValue::Bytes(b)) if b.len() == a.size as usize => {
                buf[at..at + b.len()].copy_from_slice(b)
            }
            (ArgKind::DynamicSharedPointer, ArgValue::Bytes(b)) if b.len() == a.size as usize => {
                buf[at..at + b.len()].copy_from_slice(b)
            }
            (kind, v) => {
                let given = match v {
                    ArgValue::Pointer(_) => "a buffer".to_string(),
                    ArgValue::Bytes(b) => format!("a {}-byte value", b.len()),
                };
                let want = match kind {
                    ArgKind::GlobalBuffer => "a buffer".to_string(),
                    ArgKind::Other(k) => format!("`{k}` (not supported)"),
                    _ => format!("a {}-byte value ({})", a.size, a.describe()),
                };
                return Err(format!("kernel `{}`: argument {i} wants {want}, {given} given", meta.name));
            }
        }
    }
    let total = |d: usize| launch.grid[d] as u64 * launch.block[d] as u64;
    for a in &meta.args {
        let ArgKind::Hidden(h) = a.kind else { continue };
        let at = a.offset as usize;
        let value: u64 = match h {
            HiddenArg::BlockCount(d) => launch.grid[d] as u64,
            HiddenArg::GroupSize(d) => launch.block[d] as u64,
            // Work-items in the last, partial workgroup; the grid is whole workgroups, so 0
            // unless a caller launches a partial one.
            HiddenArg::Remainder(d) => total(d) % launch.block[d].max(1) as u64,
            HiddenArg::GlobalOffset(_) => 0,
            HiddenArg::GridDims => launch.dims() as u64,
            HiddenArg::DynamicLdsSize => launch.dynamic_lds as u64,
            HiddenArg::Zeroed => 0,
        };
        let bytes = value.to_le_bytes();
        let n = (a.size as usize).min(8);
        buf[at..at + n].copy_from_slice(&bytes[..n]);
    }
    Ok(buf)
}
