//! The RM ABI: the escapes of NVIDIA's kernel modules (/dev/nvidiactl, /dev/nvidiaN), the UVM
//! requests (/dev/nvidia-uvm), the allocation and control parameter structs, class ids and
//! status codes — and [`client::RmClient`], which issues them.
//!
//! The ABI changes between driver branches; the escape checks every argument's size. Layouts
//! that never changed are in [`common`], [`uvm`], [`ctrl`] and [`debugger`]; the ones that did
//! are in one module per branch ([`v570`], [`v580`], [`v610`]), and [`Branch`] picks them from
//! the running driver's version. Facts come from NVIDIA's open-gpu-kernel-modules (tags 570.195.03,
//! 580.65.06, 590.44.01, 595.45.04; header names are cited on each item) — the Rust is our own.

pub mod classes;
pub mod client;
pub mod common;
pub mod ctrl;
pub mod debugger;
pub mod event;
pub mod ioctl;
pub mod status;
pub mod uvm;
pub mod v570;
pub mod v580;
pub mod v610;

use crate::{Error, Result};
use ioctl::ParamBuf;

/// `layout!(T, size, { field: offset, ... })`: compile-time size and offset assertions.
macro_rules! layout {
    ($t:ty, $size:expr, { $($f:ident : $off:expr),* $(,)? }) => {
        const _: () = {
            assert!(::std::mem::size_of::<$t>() == $size);
            $( assert!(::std::mem::offset_of!($t, $f) == $off); )*
        };
    };
}
pub(crate) use layout;

/// The driver branches whose RM ABI this crate speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Branch {
    /// 570.x and 575.x: 56-byte NVOS46, 48-byte VA-space params, 100-entry class list.
    V570,
    /// 580.x: 64-byte NVOS46, 56-byte VA-space params (`pasid`), 200-entry class list.
    V580,
    /// 590.x and 595.x: the 580 layouts, but `UVM_FREE_PARAMS` without `length` (as 610).
    V590,
    /// 610.x: the 590 layouts plus `hHandleVASpace` in NV_CHANNEL_ALLOC_PARAMS.
    V610,
}

/// Major versions we accept, for error messages.
pub const SUPPORTED_BRANCHES: &str = "570, 575, 580, 590, 595, 610";

impl Branch {
    /// The branch of a driver version string such as `580.65.06`.
    pub fn from_version(version: &str) -> Result<Branch> {
        let major: Option<u32> = version.split('.').next().and_then(|m| m.trim().parse().ok());
        match major {
            Some(570 | 575) => Ok(Branch::V570),
            Some(580) => Ok(Branch::V580),
            Some(590 | 595) => Ok(Branch::V590),
            Some(610) => Ok(Branch::V610),
            _ => Err(Error::Unsupported(format!(
                "NVIDIA driver {version}: its RM ABI branch is not supported (supported branches: {SUPPORTED_BRANCHES})"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Branch::V570 => "570",
            Branch::V580 => "580",
            Branch::V590 => "590",
            Branch::V610 => "610",
        }
    }

    /// FERMI_VASPACE_A parameters in this branch's layout (`pasid` is dropped before 580).
    pub fn vaspace_params(self, p: &v580::NV_VASPACE_ALLOCATION_PARAMETERS) -> ParamBuf {
        match self {
            Branch::V570 => ParamBuf::of(&v570::NV_VASPACE_ALLOCATION_PARAMETERS {
                index: p.index,
                flags: p.flags,
                va_size: p.va_size,
                va_start_internal: p.va_start_internal,
                va_limit_internal: p.va_limit_internal,
                big_page_size: p.big_page_size,
                _pad0: 0,
                va_base: p.va_base,
            }),
            _ => ParamBuf::of(p),
        }
    }

    /// GPFIFO channel parameters in this branch's layout (the 610 `hHandleVASpace` is 0).
    pub fn channel_params(self, p: &v580::NV_CHANNEL_ALLOC_PARAMS) -> ParamBuf {
        match self {
            Branch::V610 => ParamBuf::of(&v610::NV_CHANNEL_ALLOC_PARAMS {
                h_object_error: p.h_object_error,
                h_object_buffer: p.h_object_buffer,
                gp_fifo_offset: p.gp_fifo_offset,
                gp_fifo_entries: p.gp_fifo_entries,
                flags: p.flags,
                h_context_share: p.h_context_share,
                h_va_space: p.h_va_space,
                h_handle_va_space: 0,
                h_userd_memory: p.h_userd_memory,
                _pad0: 0,
                userd_offset: p.userd_offset,
                engine_type: p.engine_type,
                cid: p.cid,
                sub_device_id: p.sub_device_id,
                h_object_ecc_error: p.h_object_ecc_error,
                instance_mem: p.instance_mem,
                userd_mem: p.userd_mem,
                ramfc_mem: p.ramfc_mem,
                mthdbuf_mem: p.mthdbuf_mem,
                h_phys_channel_group: p.h_phys_channel_group,
                internal_flags: p.internal_flags,
                error_notifier_mem: p.error_notifier_mem,
                ecc_error_notifier_mem: p.ecc_error_notifier_mem,
                process_id: p.process_id,
                sub_process_id: p.sub_process_id,
                encrypt_iv: p.encrypt_iv,
                decrypt_iv: p.decrypt_iv,
                hmac_nonce: p.hmac_nonce,
                tpc_config_id: p.tpc_config_id,
                _pad1: 0,
            }),
            _ => ParamBuf::of(p),
        }
    }

    /// NV_ESC_RM_MAP_MEMORY_DMA arguments in this branch's layout (`flags2` and
    /// `kindOverride` do not exist before 580 and must be 0 there).
    pub fn map_dma_args(self, p: &v580::NVOS46_PARAMETERS) -> ParamBuf {
        match self {
            Branch::V570 => {
                debug_assert!(p.flags2 == 0 && p.kind_override == 0, "no flags2/kindOverride before 580");
                ParamBuf::of(&v570::NVOS46_PARAMETERS {
                    h_client: p.h_client,
                    h_device: p.h_device,
                    h_dma: p.h_dma,
                    h_memory: p.h_memory,
                    offset: p.offset,
                    length: p.length,
                    flags: p.flags,
                    _pad0: 0,
                    dma_offset: p.dma_offset,
                    status: p.status,
                    _pad1: 0,
                })
            }
            _ => ParamBuf::of(p),
        }
    }

    /// `(dma_offset, status)` from NV_ESC_RM_MAP_MEMORY_DMA arguments the kernel returned.
    pub fn map_dma_result(self, args: &ParamBuf) -> (u64, u32) {
        match self {
            Branch::V570 => (args.u64_at(std::mem::offset_of!(v570::NVOS46_PARAMETERS, dma_offset)), args.u32_at(48)),
            _ => (args.u64_at(std::mem::offset_of!(v580::NVOS46_PARAMETERS, dma_offset)), args.u32_at(56)),
        }
    }

    /// UVM_FREE parameters (`length` is gone from 590 on).
    pub fn uvm_free_params(self, base: u64, length: u64) -> (ParamBuf, usize) {
        match self {
            Branch::V570 | Branch::V580 => (
                ParamBuf::of(&v580::UVM_FREE_PARAMS { base, length, rm_status: 0, _pad0: 0 }),
                std::mem::offset_of!(v580::UVM_FREE_PARAMS, rm_status),
            ),
            Branch::V590 | Branch::V610 => (
                ParamBuf::of(&v610::UVM_FREE_PARAMS { base, rm_status: 0, _pad0: 0 }),
                std::mem::offset_of!(v610::UVM_FREE_PARAMS, rm_status),
            ),
        }
    }

    /// An empty NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2 parameter block of this branch's size.
    pub fn classlist_v2_params(self) -> ParamBuf {
        match self {
            Branch::V570 => ParamBuf::of(&<v570::NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS as ioctl::RmArg>::zeroed()),
            _ => ParamBuf::of(&<v580::NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS as ioctl::RmArg>::zeroed()),
        }
    }

    /// The classes from a returned class-list V2 block.
    pub fn classlist_v2_result(self, params: &ParamBuf) -> Result<Vec<u32>> {
        let max = (params.len() - 4) / 4;
        let n = params.u32_at(0) as usize;
        if n > max {
            return Err(Error::Protocol(format!(
                "NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2 reported {n} classes, more than the {max} of the {} layout",
                self.name()
            )));
        }
        Ok((0..n).map(|i| params.u32_at(4 + 4 * i)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_select_branches() {
        assert_eq!(Branch::from_version("580.65.06").unwrap(), Branch::V580);
        assert_eq!(Branch::from_version("580.159.04").unwrap(), Branch::V580);
        assert_eq!(Branch::from_version("570.144").unwrap(), Branch::V570);
        assert_eq!(Branch::from_version("575.64.05").unwrap(), Branch::V570);
        assert_eq!(Branch::from_version("595.45.04").unwrap(), Branch::V590);
        assert_eq!(Branch::from_version("610.43.03").unwrap(), Branch::V610);
        let err = Branch::from_version("535.183.01").unwrap_err().to_string();
        assert!(err.contains("535.183.01") && err.contains(SUPPORTED_BRANCHES), "{err}");
        assert!(Branch::from_version("garbage").is_err());
    }

    #[test]
    fn branch_layouts_differ_where_the_headers_do() {
        let vas = v580::NV_VASPACE_ALLOCATION_PARAMETERS { va_base: 0x1000, flags: 0x48, ..Default::default() };
        assert_eq!(Branch::V570.vaspace_params(&vas).len(), 48);
        assert_eq!(Branch::V580.vaspace_params(&vas).len(), 56);
        assert_eq!(Branch::V570.vaspace_params(&vas).u64_at(40), 0x1000);

        let mut ch: v580::NV_CHANNEL_ALLOC_PARAMS = ioctl::RmArg::zeroed();
        ch.engine_type = 7;
        ch.userd_offset[0] = 0x8000;
        ch.h_userd_memory[0] = 0xabc;
        assert_eq!(Branch::V580.channel_params(&ch).len(), 368);
        assert_eq!(Branch::V580.channel_params(&ch).u32_at(128), 7);
        let b610 = Branch::V610.channel_params(&ch);
        assert_eq!((b610.len(), b610.u32_at(136), b610.u64_at(72), b610.u32_at(36)), (376, 7, 0x8000, 0xabc));

        let dma = v580::NVOS46_PARAMETERS { dma_offset: 0x20_0000, flags: 0x8110, ..Default::default() };
        let a570 = Branch::V570.map_dma_args(&dma);
        assert_eq!((a570.len(), a570.u32_at(32), a570.u64_at(40)), (56, 0x8110, 0x20_0000));
        assert_eq!(Branch::V570.map_dma_result(&a570), (0x20_0000, 0));
        assert_eq!(Branch::V590.map_dma_args(&dma).len(), 64);

        assert_eq!(Branch::V580.uvm_free_params(1, 2).0.len(), 24);
        assert_eq!(
            Branch::V590.uvm_free_params(1, 2),
            (ParamBuf::of(&v610::UVM_FREE_PARAMS { base: 1, ..Default::default() }), 8)
        );
        assert_eq!(Branch::V570.classlist_v2_params().len(), 404);
        assert_eq!(Branch::V610.classlist_v2_params().len(), 804);
    }
}
