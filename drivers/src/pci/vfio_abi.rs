//! The VFIO ABI this crate speaks: request numbers, flags and argument structs of
//! include/uapi/linux/vfio.h (Linux 6.12; the numbers and layouts are stable since 3.6), with
//! compile-time size and offset checks. Every request is `_IO(VFIO_TYPE, VFIO_BASE + n)`: the
//! size bits are zero and `argsz` in each struct says how much the kernel may read and write.
//! Names are the header's; flags we do not use yet are kept beside the ones we do.

#![allow(non_camel_case_types, non_upper_case_globals, dead_code)]

use crate::amd::kfd::ioctl::IoctlArg;

/// `_IO(type, nr)`: no direction, no size (include/uapi/asm-generic/ioctl.h).
const fn io(ty: u8, nr: u32) -> u32 {
    ((ty as u32) << 8) | nr
}

pub const VFIO_API_VERSION: i32 = 0;
pub const VFIO_TYPE1_IOMMU: u64 = 1;
pub const VFIO_TYPE1v2_IOMMU: u64 = 3;
pub const VFIO_NOIOMMU_IOMMU: u64 = 8;

const VFIO_TYPE: u8 = b';';
const VFIO_BASE: u32 = 100;
pub const VFIO_GET_API_VERSION: u32 = io(VFIO_TYPE, VFIO_BASE);
pub const VFIO_CHECK_EXTENSION: u32 = io(VFIO_TYPE, VFIO_BASE + 1);
pub const VFIO_SET_IOMMU: u32 = io(VFIO_TYPE, VFIO_BASE + 2);
pub const VFIO_GROUP_GET_STATUS: u32 = io(VFIO_TYPE, VFIO_BASE + 3);
pub const VFIO_GROUP_SET_CONTAINER: u32 = io(VFIO_TYPE, VFIO_BASE + 4);
pub const VFIO_GROUP_GET_DEVICE_FD: u32 = io(VFIO_TYPE, VFIO_BASE + 6);
pub const VFIO_DEVICE_GET_INFO: u32 = io(VFIO_TYPE, VFIO_BASE + 7);
pub const VFIO_DEVICE_GET_REGION_INFO: u32 = io(VFIO_TYPE, VFIO_BASE + 8);
pub const VFIO_DEVICE_GET_IRQ_INFO: u32 = io(VFIO_TYPE, VFIO_BASE + 9);
pub const VFIO_DEVICE_SET_IRQS: u32 = io(VFIO_TYPE, VFIO_BASE + 10);
pub const VFIO_DEVICE_RESET: u32 = io(VFIO_TYPE, VFIO_BASE + 11);
pub const VFIO_IOMMU_MAP_DMA: u32 = io(VFIO_TYPE, VFIO_BASE + 13);
pub const VFIO_IOMMU_UNMAP_DMA: u32 = io(VFIO_TYPE, VFIO_BASE + 14);

pub const VFIO_GROUP_FLAGS_VIABLE: u32 = 1 << 0;
pub const VFIO_DEVICE_FLAGS_RESET: u32 = 1 << 0;
pub const VFIO_DEVICE_FLAGS_PCI: u32 = 1 << 1;
pub const VFIO_REGION_INFO_FLAG_READ: u32 = 1 << 0;
pub const VFIO_REGION_INFO_FLAG_WRITE: u32 = 1 << 1;
pub const VFIO_REGION_INFO_FLAG_MMAP: u32 = 1 << 2;
pub const VFIO_IRQ_INFO_EVENTFD: u32 = 1 << 0;
pub const VFIO_IRQ_SET_DATA_EVENTFD: u32 = 1 << 2;
pub const VFIO_IRQ_SET_ACTION_TRIGGER: u32 = 1 << 5;
pub const VFIO_DMA_MAP_FLAG_READ: u32 = 1 << 0;
pub const VFIO_DMA_MAP_FLAG_WRITE: u32 = 1 << 1;

/// vfio-pci's region and IRQ indices (`enum { VFIO_PCI_BAR0_REGION_INDEX, ... }`).
pub const VFIO_PCI_CONFIG_REGION_INDEX: u32 = 7;
pub const VFIO_PCI_MSI_IRQ_INDEX: u32 = 1;

/// `struct vfio_group_status`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct vfio_group_status {
    pub argsz: u32,
    pub flags: u32,
}

/// `struct vfio_device_info`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct vfio_device_info {
    pub argsz: u32,
    pub flags: u32,
    pub num_regions: u32,
    pub num_irqs: u32,
    pub cap_offset: u32,
    pub pad: u32,
}

/// `struct vfio_region_info`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct vfio_region_info {
    pub argsz: u32,
    pub flags: u32,
    pub index: u32,
    pub cap_offset: u32,
    pub size: u64,
    pub offset: u64,
}

/// `struct vfio_irq_info`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct vfio_irq_info {
    pub argsz: u32,
    pub flags: u32,
    pub index: u32,
    pub count: u32,
}

/// `struct vfio_irq_set` with its flexible `data[]` as one eventfd (`DATA_EVENTFD`, count 1).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct vfio_irq_set_eventfd {
    pub argsz: u32,
    pub flags: u32,
    pub index: u32,
    pub start: u32,
    pub count: u32,
    pub eventfd: i32,
}

/// `struct vfio_iommu_type1_dma_map`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct vfio_iommu_type1_dma_map {
    pub argsz: u32,
    pub flags: u32,
    pub vaddr: u64,
    pub iova: u64,
    pub size: u64,
}

/// `struct vfio_iommu_type1_dma_unmap` without the dirty-bitmap `data[]`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct vfio_iommu_type1_dma_unmap {
    pub argsz: u32,
    pub flags: u32,
    pub iova: u64,
    pub size: u64,
}

macro_rules! layout {
    ($t:ty, $size:expr, { $($f:ident : $off:expr),* $(,)? }) => {
        const _: () = {
            assert!(::std::mem::size_of::<$t>() == $size);
            $( assert!(::std::mem::offset_of!($t, $f) == $off); )*
        };
        // SAFETY: #[repr(C)] structs of u32/i32/u64 fields: every bit pattern is valid.
        unsafe impl IoctlArg for $t {}
    };
}

layout!(vfio_group_status, 8, { argsz: 0, flags: 4 });
layout!(vfio_device_info, 24, { argsz: 0, flags: 4, num_regions: 8, num_irqs: 12, cap_offset: 16 });
layout!(vfio_region_info, 32, { argsz: 0, flags: 4, index: 8, cap_offset: 12, size: 16, offset: 24 });
layout!(vfio_irq_info, 16, { argsz: 0, flags: 4, index: 8, count: 12 });
layout!(vfio_irq_set_eventfd, 24, { argsz: 0, flags: 4, index: 8, start: 12, count: 16, eventfd: 20 });
layout!(vfio_iommu_type1_dma_map, 32, { argsz: 0, flags: 4, vaddr: 8, iova: 16, size: 24 });
layout!(vfio_iommu_type1_dma_unmap, 24, { argsz: 0, flags: 4, iova: 8, size: 16 });

/// A struct with `argsz` set to its size, as every VFIO call starts.
pub fn with_argsz<T: IoctlArg>(set: impl FnOnce(&mut T, u32)) -> T {
    let mut v = T::zeroed();
    set(&mut v, std::mem::size_of::<T>() as u32);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_numbers_are_the_headers() {
        // _IO(';', 100 + n) from include/uapi/linux/vfio.h.
        assert_eq!(VFIO_GET_API_VERSION, 0x3b64);
        assert_eq!(VFIO_SET_IOMMU, 0x3b66);
        assert_eq!(VFIO_GROUP_GET_DEVICE_FD, 0x3b6a);
        assert_eq!(VFIO_DEVICE_GET_REGION_INFO, 0x3b6c);
        assert_eq!(VFIO_DEVICE_SET_IRQS, 0x3b6e);
        assert_eq!(VFIO_IOMMU_MAP_DMA, 0x3b71);
        assert_eq!(VFIO_IOMMU_UNMAP_DMA, 0x3b72);
    }
}
