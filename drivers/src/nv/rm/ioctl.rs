//! How RM escapes and UVM requests reach the kernel: request numbers, the plain-data marker for
//! argument structs, and one `call` that names the request in errors.
//!
//! RM escapes (`nv_escape.h`, `nv-ioctl-numbers.h`) are `_IOWR(NV_IOCTL_MAGIC, esc, size)`: the
//! escape number itself is the `_IOC_NR` — `NV_IOCTL_BASE` (200) only offsets the second family
//! (CARD_INFO, REGISTER_FD, ...). The kernel (`kernel-open/nvidia/nv.c`, `nvidia_ioctl`) reads
//! only `_IOC_NR` and `_IOC_SIZE`, and `escape.c` rejects a size that differs from the struct it
//! expects with NV_ERR_INVALID_ARGUMENT (-EINVAL from the ioctl), which is why every layout here
//! has its size asserted. UVM requests (`uvm_ioctl.h`, `uvm_linux_ioctl.h`) are plain numbers.

use crate::os::{Fd, Os};
use crate::Result;

/// `NV_IOCTL_MAGIC` ('F'), `nv-ioctl-numbers.h`.
pub const NV_IOCTL_MAGIC: u32 = b'F' as u32;
/// `NV_IOCTL_BASE`, `nv-ioctl-numbers.h`.
pub const NV_IOCTL_BASE: u32 = 200;

// Escapes of `nv_escape.h` (580.65.06; identical in 570.195.03 and 595.45.04).
pub const NV_ESC_RM_ALLOC_MEMORY: u32 = 0x27;
pub const NV_ESC_RM_ALLOC_OBJECT: u32 = 0x28;
pub const NV_ESC_RM_FREE: u32 = 0x29;
pub const NV_ESC_RM_CONTROL: u32 = 0x2A;
pub const NV_ESC_RM_ALLOC: u32 = 0x2B;
pub const NV_ESC_RM_DUP_OBJECT: u32 = 0x34;
pub const NV_ESC_RM_SHARE: u32 = 0x35;
pub const NV_ESC_RM_VID_HEAP_CONTROL: u32 = 0x4A;
pub const NV_ESC_RM_MAP_MEMORY: u32 = 0x4E;
pub const NV_ESC_RM_UNMAP_MEMORY: u32 = 0x4F;
pub const NV_ESC_RM_MAP_MEMORY_DMA: u32 = 0x57;
pub const NV_ESC_RM_UNMAP_MEMORY_DMA: u32 = 0x58;
pub const NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO: u32 = 0x5E;

// Escapes of `nv-ioctl-numbers.h`: NV_IOCTL_BASE + n.
pub const NV_ESC_CARD_INFO: u32 = NV_IOCTL_BASE;
pub const NV_ESC_REGISTER_FD: u32 = NV_IOCTL_BASE + 1;
pub const NV_ESC_ALLOC_OS_EVENT: u32 = NV_IOCTL_BASE + 6;
pub const NV_ESC_FREE_OS_EVENT: u32 = NV_IOCTL_BASE + 7;
pub const NV_ESC_STATUS_CODE: u32 = NV_IOCTL_BASE + 9;
pub const NV_ESC_CHECK_VERSION_STR: u32 = NV_IOCTL_BASE + 10;
pub const NV_ESC_IOCTL_XFER_CMD: u32 = NV_IOCTL_BASE + 11;
pub const NV_ESC_ATTACH_GPUS_TO_FD: u32 = NV_IOCTL_BASE + 12;
pub const NV_ESC_QUERY_DEVICE_INTR: u32 = NV_IOCTL_BASE + 13;
pub const NV_ESC_SYS_PARAMS: u32 = NV_IOCTL_BASE + 14;
pub const NV_ESC_EXPORT_TO_DMABUF_FD: u32 = NV_IOCTL_BASE + 17;
pub const NV_ESC_WAIT_OPEN_COMPLETE: u32 = NV_IOCTL_BASE + 18;

/// Names of the escapes, for errors and traces.
pub const ESCAPES: &[(&str, u32)] = &[
    ("NV_ESC_RM_ALLOC_MEMORY", NV_ESC_RM_ALLOC_MEMORY),
    ("NV_ESC_RM_ALLOC_OBJECT", NV_ESC_RM_ALLOC_OBJECT),
    ("NV_ESC_RM_FREE", NV_ESC_RM_FREE),
    ("NV_ESC_RM_CONTROL", NV_ESC_RM_CONTROL),
    ("NV_ESC_RM_ALLOC", NV_ESC_RM_ALLOC),
    ("NV_ESC_RM_DUP_OBJECT", NV_ESC_RM_DUP_OBJECT),
    ("NV_ESC_RM_SHARE", NV_ESC_RM_SHARE),
    ("NV_ESC_RM_VID_HEAP_CONTROL", NV_ESC_RM_VID_HEAP_CONTROL),
    ("NV_ESC_RM_MAP_MEMORY", NV_ESC_RM_MAP_MEMORY),
    ("NV_ESC_RM_UNMAP_MEMORY", NV_ESC_RM_UNMAP_MEMORY),
    ("NV_ESC_RM_MAP_MEMORY_DMA", NV_ESC_RM_MAP_MEMORY_DMA),
    ("NV_ESC_RM_UNMAP_MEMORY_DMA", NV_ESC_RM_UNMAP_MEMORY_DMA),
    ("NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO", NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO),
    ("NV_ESC_CARD_INFO", NV_ESC_CARD_INFO),
    ("NV_ESC_REGISTER_FD", NV_ESC_REGISTER_FD),
    ("NV_ESC_ALLOC_OS_EVENT", NV_ESC_ALLOC_OS_EVENT),
    ("NV_ESC_FREE_OS_EVENT", NV_ESC_FREE_OS_EVENT),
    ("NV_ESC_STATUS_CODE", NV_ESC_STATUS_CODE),
    ("NV_ESC_CHECK_VERSION_STR", NV_ESC_CHECK_VERSION_STR),
    ("NV_ESC_IOCTL_XFER_CMD", NV_ESC_IOCTL_XFER_CMD),
    ("NV_ESC_ATTACH_GPUS_TO_FD", NV_ESC_ATTACH_GPUS_TO_FD),
    ("NV_ESC_QUERY_DEVICE_INTR", NV_ESC_QUERY_DEVICE_INTR),
    ("NV_ESC_SYS_PARAMS", NV_ESC_SYS_PARAMS),
    ("NV_ESC_EXPORT_TO_DMABUF_FD", NV_ESC_EXPORT_TO_DMABUF_FD),
    ("NV_ESC_WAIT_OPEN_COMPLETE", NV_ESC_WAIT_OPEN_COMPLETE),
];

/// The largest argument `_IOC_SIZE` can carry (14 bits); bigger ones need NV_ESC_IOCTL_XFER_CMD.
pub const IOC_SIZE_MAX: usize = (1 << 14) - 1;

/// `_IOWR(NV_IOCTL_MAGIC, esc, size)`: direction read|write (3) in 31:30, size in 29:16, type
/// in 15:8, number in 7:0 (the Linux generic `_IOC` layout used on x86-64 and arm64).
pub const fn nv_iowr(esc: u32, size: usize) -> u32 {
    assert!(size <= IOC_SIZE_MAX, "argument too large for _IOC_SIZE");
    (3 << 30) | ((size as u32) << 16) | (NV_IOCTL_MAGIC << 8) | (esc & 0xff)
}

/// The escape (`_IOC_NR`) and argument size (`_IOC_SIZE`) of an RM request.
pub const fn decode_request(request: u32) -> (u32, usize) {
    (request & 0xff, ((request >> 16) & 0x3fff) as usize)
}

/// Name of an escape number.
pub fn escape_name(esc: u32) -> Option<&'static str> {
    ESCAPES.iter().find(|e| e.1 == esc).map(|e| e.0)
}

/// Argument and parameter structs that the kernel reads and rewrites as raw bytes.
///
/// # Safety
/// Implementors are `#[repr(C)]` plain data — integers and arrays of them, no padding that
/// matters — for which every bit pattern (all zeroes included) is a valid value.
pub unsafe trait RmArg: Copy + 'static {
    /// The all-zero value, which is how every argument starts.
    fn zeroed() -> Self {
        // SAFETY: the trait's contract makes all-zero a valid value.
        unsafe { std::mem::zeroed() }
    }
}

macro_rules! rm_args {
    ($($t:ty),* $(,)?) => { $(
        // SAFETY: #[repr(C)] structs of integer fields and arrays of them (asserted layouts).
        unsafe impl $crate::nv::rm::ioctl::RmArg for $t {}
    )* };
}
pub(crate) use rm_args;

/// View of an argument as the bytes the kernel sees.
pub fn bytes_of_mut<T: RmArg>(arg: &mut T) -> &mut [u8] {
    // SAFETY: T is plain data (RmArg), so its storage is size_of::<T>() initialised bytes
    // (the all-zero start value initialises padding too, and it is never read as anything else).
    unsafe { std::slice::from_raw_parts_mut(arg as *mut T as *mut u8, std::mem::size_of::<T>()) }
}

/// The bytes of an argument (tests and the emulated kernel).
pub fn bytes_of<T: RmArg>(arg: &T) -> &[u8] {
    // SAFETY: as in bytes_of_mut.
    unsafe { std::slice::from_raw_parts(arg as *const T as *const u8, std::mem::size_of::<T>()) }
}

/// Read a `T` back from bytes (the emulated kernel's side, and tests).
pub fn from_bytes<T: RmArg>(bytes: &[u8]) -> Option<T> {
    (bytes.len() >= std::mem::size_of::<T>()).then(|| {
        // SAFETY: enough bytes; T is plain data, valid for any bit pattern; unaligned read
        // because the buffer has no alignment guarantee.
        unsafe { std::ptr::read_unaligned(bytes.as_ptr() as *const T) }
    })
}

/// Parameters whose layout depends on the driver branch, held as bytes in 8-byte aligned
/// storage (RM reads them through a user pointer, as it would a C struct).
#[derive(Clone, PartialEq, Eq)]
pub struct ParamBuf {
    words: Vec<u64>,
    len: usize,
}

impl std::fmt::Debug for ParamBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ParamBuf({} bytes)", self.len)
    }
}

impl ParamBuf {
    pub fn of<T: RmArg>(value: &T) -> ParamBuf {
        let len = std::mem::size_of::<T>();
        let mut buf = ParamBuf { words: vec![0; len.div_ceil(8)], len };
        buf.bytes_mut().copy_from_slice(bytes_of(value));
        buf
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the Vec<u64> holds at least len initialised bytes.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr() as *const u8, self.len) }
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in bytes(), and we hold the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr() as *mut u8, self.len) }
    }

    pub fn read<T: RmArg>(&self) -> Option<T> {
        from_bytes(self.bytes())
    }

    /// A little-endian u32 at a byte offset (fields read back by offset: statuses, tokens).
    pub fn u32_at(&self, offset: usize) -> u32 {
        u32::from_ne_bytes(self.bytes()[offset..offset + 4].try_into().expect("4 bytes"))
    }

    pub fn u64_at(&self, offset: usize) -> u64 {
        u64::from_ne_bytes(self.bytes()[offset..offset + 8].try_into().expect("8 bytes"))
    }
}

/// Issue `request` (named `name` in errors and traces) with `arg`.
pub fn call_bytes(os: &dyn Os, fd: Fd, request: u32, name: &'static str, arg: &mut [u8]) -> Result<i32> {
    log::trace!("{name} ({request:#010x}, {} bytes)", arg.len());
    os.ioctl(fd, request, arg).map_err(|e| e.with_ioctl_name(name))
}

/// Issue `request` with a typed argument.
pub fn call<T: RmArg>(os: &dyn Os, fd: Fd, request: u32, name: &'static str, arg: &mut T) -> Result<i32> {
    call_bytes(os, fd, request, name, bytes_of_mut(arg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_encoding_matches_iowr() {
        // _IOWR('F', 0x2B, 32): the RM_ALLOC request every RM client issues.
        assert_eq!(nv_iowr(NV_ESC_RM_ALLOC, 32), 0xC020_462B);
        assert_eq!(nv_iowr(NV_ESC_RM_CONTROL, 32), 0xC020_462A);
        assert_eq!(nv_iowr(NV_ESC_RM_FREE, 16), 0xC010_4629);
        assert_eq!(nv_iowr(NV_ESC_REGISTER_FD, 4), 0xC004_46C9);
        assert_eq!(nv_iowr(NV_ESC_CARD_INFO, 72 * 32), 0xC900_46C8);
        assert_eq!(decode_request(0xC040_4657), (NV_ESC_RM_MAP_MEMORY_DMA, 64));
        assert_eq!(escape_name(0x2B), Some("NV_ESC_RM_ALLOC"));
        assert_eq!(escape_name(0x99), None);
    }

    #[test]
    fn param_buf_is_aligned_and_round_trips() {
        #[repr(C)]
        #[derive(Clone, Copy)]
        struct P {
            a: u32,
            pad: u32,
            b: u64,
        }
        rm_args!(P);
        let buf = ParamBuf::of(&P { a: 7, pad: 0, b: 0x1122_3344_5566_7788 });
        assert_eq!(buf.len(), 16);
        assert_eq!(buf.bytes().as_ptr() as usize % 8, 0);
        assert_eq!(buf.u32_at(0), 7);
        assert_eq!(buf.u64_at(8), 0x1122_3344_5566_7788);
        assert_eq!(buf.read::<P>().unwrap().b, 0x1122_3344_5566_7788);
    }
}
