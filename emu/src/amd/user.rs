//! The caller's memory as the kernel sees it: argument structs decoded from bytes, and pointers
//! inside them (event arrays, device-id arrays, USERPTR ranges) read and written the way
//! copy_from_user/copy_to_user do it, so a bad pointer becomes EFAULT instead of a crash.

use baregpu_autogen::amd::kfd as abi;

/// Plain-data argument structs.
///
/// # Safety
/// Implementors are `#[repr(C)]` structs of integers (and unions of them), valid for any bits.
pub(crate) unsafe trait Pod: Copy + 'static {
    fn zeroed() -> Self {
        // SAFETY: the trait's contract makes all-zero a valid value.
        unsafe { std::mem::zeroed() }
    }
}

macro_rules! pod {
    ($($t:ident),* $(,)?) => { $(
        // SAFETY: generated #[repr(C)] uapi structs with integer fields only.
        unsafe impl Pod for abi::$t {}
    )* };
}

pod!(
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
    kfd_ioctl_reset_event_args,
    kfd_ioctl_wait_events_args,
    kfd_ioctl_create_queue_args,
    kfd_ioctl_destroy_queue_args,
    kfd_ioctl_get_clock_counters_args,
    kfd_ioctl_get_available_memory_args,
    kfd_ioctl_set_memory_policy_args,
    kfd_ioctl_set_scratch_backing_va_args,
    kfd_ioctl_set_trap_handler_args,
    kfd_ioctl_dbg_trap_args,
    kfd_event_data,
    kfd_hsa_memory_exception_data,
    kfd_hsa_hw_exception_data,
);

/// A struct from the front of `bytes`, zero-extended when `bytes` is shorter (an older, smaller
/// version of the struct), as kfd_ioctl does.
pub(crate) fn read<T: Pod>(bytes: &[u8]) -> T {
    let mut v = T::zeroed();
    let n = bytes.len().min(std::mem::size_of::<T>());
    // SAFETY: T is plain data; we write at most size_of::<T>() bytes into it.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), &mut v as *mut T as *mut u8, n) };
    v
}

/// Write `v` over the front of `bytes` (as much as fits).
pub(crate) fn write<T: Pod>(bytes: &mut [u8], v: &T) {
    let n = bytes.len().min(std::mem::size_of::<T>());
    // SAFETY: T is plain data, readable as size_of::<T>() bytes.
    let src = unsafe { std::slice::from_raw_parts(v as *const T as *const u8, std::mem::size_of::<T>()) };
    bytes[..n].copy_from_slice(&src[..n]);
}

fn self_vm(local: &mut [u8], remote: u64, write: bool) -> Result<(), i32> {
    if local.is_empty() {
        return Ok(());
    }
    if remote == 0 || remote.checked_add(local.len() as u64).is_none() {
        return Err(libc::EFAULT);
    }
    let l = libc::iovec { iov_base: local.as_mut_ptr() as *mut libc::c_void, iov_len: local.len() };
    let r = libc::iovec { iov_base: remote as *mut libc::c_void, iov_len: local.len() };
    // SAFETY: process_vm_readv/writev on our own pid checks the remote range like
    // copy_from_user does (EFAULT for unmapped memory); the local iovec is a live slice.
    let n = unsafe {
        if write {
            libc::process_vm_writev(libc::getpid(), &l, 1, &r, 1, 0)
        } else {
            libc::process_vm_readv(libc::getpid(), &l, 1, &r, 1, 0)
        }
    };
    if n == local.len() as isize {
        return Ok(());
    }
    match std::io::Error::last_os_error().raw_os_error() {
        // A sandbox without the system call: fall back to a plain copy of memory the caller says
        // it owns.
        Some(libc::ENOSYS) | Some(libc::EPERM) if n < 0 => {
            // SAFETY: best effort where the kernel gives us no checked copy; the caller passed
            // the pointer as live memory of this process.
            unsafe {
                if write {
                    std::ptr::copy_nonoverlapping(local.as_ptr(), remote as *mut u8, local.len());
                } else {
                    std::ptr::copy_nonoverlapping(remote as *const u8, local.as_mut_ptr(), local.len());
                }
            }
            Ok(())
        }
        _ => Err(libc::EFAULT),
    }
}

/// copy_from_user: `len` bytes at `addr` of this process, or EFAULT.
pub(crate) fn copy_from_user(addr: u64, len: usize) -> Result<Vec<u8>, i32> {
    let mut buf = vec![0u8; len];
    self_vm(&mut buf, addr, false)?;
    Ok(buf)
}

/// copy_to_user: `data` to `addr` of this process, or EFAULT.
pub(crate) fn copy_to_user(addr: u64, data: &[u8]) -> Result<(), i32> {
    let mut buf = data.to_vec();
    self_vm(&mut buf, addr, true)
}

/// Whether every page of `addr..addr+len` is mapped readable in this process (what pinning a
/// USERPTR range needs).
pub(crate) fn range_is_mapped(addr: u64, len: u64) -> bool {
    const PAGE: u64 = 4096;
    if len == 0 || addr.checked_add(len).is_none() {
        return false;
    }
    let mut page = addr & !(PAGE - 1);
    while page < addr + len {
        if copy_from_user(page.max(addr), 1).is_err() {
            return false;
        }
        page += PAGE;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_pointers_are_efault_and_good_ones_copy() {
        assert_eq!(copy_from_user(16, 8), Err(libc::EFAULT));
        assert_eq!(copy_to_user(0, &[1]), Err(libc::EFAULT));
        let mut x = [1u8, 2, 3, 4];
        let got = copy_from_user(x.as_ptr() as u64, 4).unwrap();
        assert_eq!(got, [1, 2, 3, 4]);
        copy_to_user(x.as_mut_ptr() as u64, &[9, 9]).unwrap();
        assert_eq!(std::hint::black_box(x), [9, 9, 3, 4]);
        assert!(range_is_mapped(x.as_ptr() as u64, 4));
        assert!(!range_is_mapped(4096, 4096));
    }

    #[test]
    fn short_argument_bytes_zero_extend() {
        let v: abi::kfd_ioctl_get_version_args = read(&[7, 0, 0, 0]);
        assert_eq!((v.major_version, v.minor_version), (7, 0));
        let mut out = [0u8; 6];
        write(&mut out, &abi::kfd_ioctl_get_version_args { major_version: 1, minor_version: 17 });
        assert_eq!(out, [1, 0, 0, 0, 17, 0]);
    }
}
