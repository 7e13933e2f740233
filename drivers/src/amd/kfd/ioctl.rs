//! Issuing KFD ioctls: argument structs go through the OS boundary as their bytes, and errors
//! carry the request's name.

use crate::os::{Fd, Os};
use crate::Result;
use baregpu_autogen::amd::kfd as abi;

/// Argument structs the kernel reads and rewrites as raw bytes.
///
/// # Safety
/// Implementors are `#[repr(C)]` plain data: integers, arrays and unions of them, for which
/// every bit pattern (all zeroes included) is a valid value.
pub unsafe trait IoctlArg: Copy + 'static {
    /// The all-zero value, which is how every argument starts.
    fn zeroed() -> Self {
        // SAFETY: the trait's contract makes all-zero a valid value.
        unsafe { std::mem::zeroed() }
    }
}

macro_rules! ioctl_args {
    ($($t:ident),* $(,)?) => { $(
        // SAFETY: generated #[repr(C)] structs of the kernel's uapi with integer fields only.
        unsafe impl IoctlArg for abi::$t {}
    )* };
}

ioctl_args!(
    kfd_ioctl_get_version_args,
    kfd_ioctl_acquire_vm_args,
    kfd_ioctl_runtime_enable_args,
    kfd_ioctl_alloc_memory_of_gpu_args,
    kfd_ioctl_free_memory_of_gpu_args,
    kfd_ioctl_map_memory_to_gpu_args,
    kfd_ioctl_unmap_memory_from_gpu_args,
    kfd_ioctl_create_event_args,
    kfd_ioctl_destroy_event_args,
    kfd_ioctl_set_event_args,
    kfd_ioctl_wait_events_args,
    kfd_ioctl_create_queue_args,
    kfd_ioctl_destroy_queue_args,
    kfd_ioctl_dbg_trap_args,
    kfd_event_data,
);

/// View of an argument as the bytes the kernel sees.
pub fn bytes_of_mut<T: IoctlArg>(arg: &mut T) -> &mut [u8] {
    // SAFETY: T is plain data (IoctlArg), so its storage is size_of::<T>() initialised bytes.
    unsafe { std::slice::from_raw_parts_mut(arg as *mut T as *mut u8, std::mem::size_of::<T>()) }
}

/// Read a `T` back from bytes (the emulated kernel's side, and tests).
pub fn from_bytes<T: IoctlArg>(bytes: &[u8]) -> Option<T> {
    (bytes.len() >= std::mem::size_of::<T>()).then(|| {
        // SAFETY: enough bytes; T is plain data, valid for any bit pattern; read_unaligned
        // because the buffer has no alignment guarantee.
        unsafe { std::ptr::read_unaligned(bytes.as_ptr() as *const T) }
    })
}

/// Issue `request` (named `name` in errors and traces) with `arg`.
pub fn call<T: IoctlArg>(os: &dyn Os, fd: Fd, request: u32, name: &'static str, arg: &mut T) -> Result<i32> {
    log::trace!("{name} ({request:#010x})");
    os.ioctl(fd, request, bytes_of_mut(arg)).map_err(|e| e.with_ioctl_name(name))
}

/// `kfd_call!(os, fd, AMDKFD_IOC_X, &mut args)`: the request number and its name in one go.
macro_rules! kfd_call {
    ($os:expr, $fd:expr, $req:ident, $arg:expr) => {
        $crate::amd::kfd::ioctl::call($os, $fd, baregpu_autogen::amd::kfd::$req, stringify!($req), $arg)
    };
}
pub(crate) use kfd_call;

#[cfg(test)]
mod tests {
    use super::*;

    /// The argument struct of every request used here has the size the request encodes.
    #[test]
    fn request_sizes_match_the_argument_structs() {
        fn check<T: IoctlArg>(request: u32) {
            assert_eq!(((request >> 16) & 0x3fff) as usize, std::mem::size_of::<T>(), "{request:#x}");
        }
        check::<abi::kfd_ioctl_get_version_args>(abi::AMDKFD_IOC_GET_VERSION);
        check::<abi::kfd_ioctl_acquire_vm_args>(abi::AMDKFD_IOC_ACQUIRE_VM);
        check::<abi::kfd_ioctl_runtime_enable_args>(abi::AMDKFD_IOC_RUNTIME_ENABLE);
        check::<abi::kfd_ioctl_alloc_memory_of_gpu_args>(abi::AMDKFD_IOC_ALLOC_MEMORY_OF_GPU);
        check::<abi::kfd_ioctl_free_memory_of_gpu_args>(abi::AMDKFD_IOC_FREE_MEMORY_OF_GPU);
        check::<abi::kfd_ioctl_map_memory_to_gpu_args>(abi::AMDKFD_IOC_MAP_MEMORY_TO_GPU);
        check::<abi::kfd_ioctl_unmap_memory_from_gpu_args>(abi::AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU);
        check::<abi::kfd_ioctl_create_event_args>(abi::AMDKFD_IOC_CREATE_EVENT);
        check::<abi::kfd_ioctl_destroy_event_args>(abi::AMDKFD_IOC_DESTROY_EVENT);
        check::<abi::kfd_ioctl_set_event_args>(abi::AMDKFD_IOC_SET_EVENT);
        check::<abi::kfd_ioctl_wait_events_args>(abi::AMDKFD_IOC_WAIT_EVENTS);
        check::<abi::kfd_ioctl_create_queue_args>(abi::AMDKFD_IOC_CREATE_QUEUE);
        check::<abi::kfd_ioctl_destroy_queue_args>(abi::AMDKFD_IOC_DESTROY_QUEUE);
        check::<abi::kfd_ioctl_dbg_trap_args>(abi::AMDKFD_IOC_DBG_TRAP);
    }

    #[test]
    fn bytes_round_trip() {
        let mut a = abi::kfd_ioctl_get_version_args { major_version: 1, minor_version: 17 };
        let bytes = bytes_of_mut(&mut a).to_vec();
        assert_eq!(bytes, [1, 0, 0, 0, 17, 0, 0, 0]);
        let b: abi::kfd_ioctl_get_version_args = from_bytes(&bytes).unwrap();
        assert_eq!((b.major_version, b.minor_version), (1, 17));
        assert!(from_bytes::<abi::kfd_ioctl_get_version_args>(&bytes[..7]).is_none());
    }
}
