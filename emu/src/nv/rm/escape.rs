//! The escapes themselves: each checks its size and the fd it came on, then hands its
//! argument block to the code that answers it.

use super::alloc::alloc;
use super::control::control;
use super::free::free;
use super::memory::{alloc_memory, map_dma, map_memory, unmap_dma, unmap_memory};
use super::*;

pub(crate) fn escape(inner: &Arc<Inner>, fd: Fd, file: &NvFile, request: u32, arg: &mut [u8]) -> Res<i32> {
    let (esc, size) = ioctl::decode_request(request);
    if request != ioctl::nv_iowr(esc, size.min(ioctl::IOC_SIZE_MAX)) || size != arg.len() {
        return Err(libc::EINVAL);
    }
    let expect = |n: usize| if size == n { Ok(()) } else { Err(libc::EINVAL) };
    let is_ctl = matches!(file, NvFile::Ctl);
    match esc {
        ioctl::NV_ESC_RM_ALLOC => {
            expect(32)?;
            ctl_only(is_ctl)?;
            let mut a: NVOS21_PARAMETERS = from_bytes(arg).ok_or(libc::EINVAL)?;
            let (status, handle) = match alloc(inner, &a) {
                Ok(h) => (NV_OK, h),
                Err(s) => (s, a.h_object_new),
            };
            a.status = status;
            a.h_object_new = handle;
            put(arg, &a);
        }
        ioctl::NV_ESC_RM_CONTROL => {
            expect(32)?;
            ctl_only(is_ctl)?;
            let mut a: NVOS54_PARAMETERS = from_bytes(arg).ok_or(libc::EINVAL)?;
            let mut retired = Retired::default();
            a.status = control(inner, &a, &mut retired).err().unwrap_or(NV_OK);
            retired.join();
            put(arg, &a);
        }
        ioctl::NV_ESC_RM_FREE => {
            expect(16)?;
            ctl_only(is_ctl)?;
            let mut a: NVOS00_PARAMETERS = from_bytes(arg).ok_or(libc::EINVAL)?;
            let mut retired = Retired::default();
            a.status = free(inner, &a, &mut retired).err().unwrap_or(NV_OK);
            retired.join();
            put(arg, &a);
        }
        ioctl::NV_ESC_CARD_INFO => {
            card_info(inner, arg)?;
        }
        ioctl::NV_ESC_ALLOC_OS_EVENT | ioctl::NV_ESC_FREE_OS_EVENT => {
            expect(16)?;
            ctl_only(is_ctl)?;
            let mut a: nv_ioctl_alloc_os_event_t = from_bytes(arg).ok_or(libc::EINVAL)?;
            inner.events.escape(fd.0, esc == ioctl::NV_ESC_ALLOC_OS_EVENT, &mut a);
            put(arg, &a);
        }
        ioctl::NV_ESC_REGISTER_FD => {
            expect(4)?;
            register_fd(inner, fd, arg)?;
        }
        ioctl::NV_ESC_CHECK_VERSION_STR => {
            expect(72)?;
            check_version(inner, arg)?;
        }
        ioctl::NV_ESC_RM_ALLOC_MEMORY => {
            expect(56)?;
            // NV_ACTUAL_DEVICE_ONLY: refused on the control fd.
            if is_ctl {
                return Err(libc::EINVAL);
            }
            alloc_memory(inner, arg)?;
        }
        ioctl::NV_ESC_RM_MAP_MEMORY => {
            expect(56)?;
            ctl_only(is_ctl)?;
            map_memory(inner, arg)?;
        }
        ioctl::NV_ESC_RM_UNMAP_MEMORY => {
            expect(32)?;
            ctl_only(is_ctl)?;
            unmap_memory(inner, arg)?;
        }
        ioctl::NV_ESC_RM_MAP_MEMORY_DMA => {
            let want = if inner.branch == Branch::V570 { 56 } else { 64 };
            expect(want)?;
            ctl_only(is_ctl)?;
            map_dma(inner, arg);
        }
        ioctl::NV_ESC_RM_UNMAP_MEMORY_DMA => {
            expect(48)?;
            ctl_only(is_ctl)?;
            unmap_dma(inner, arg)?;
        }
        _ => return Err(libc::EINVAL),
    }
    Ok(0)
}

/// CARD_INFO: one `nv_ioctl_card_info_t` per GPU, as many as the buffer holds.
fn card_info(inner: &Inner, arg: &mut [u8]) -> Res<()> {
    let size = arg.len();
    if size == 0 || !size.is_multiple_of(72) {
        return Err(libc::EINVAL);
    }
    arg.fill(0);
    for (i, g) in inner.gpus.iter().enumerate().take(size / 72) {
        let mut c = nv_ioctl_card_info_t {
            valid: 1,
            gpu_id: g.gpu_id,
            minor_number: g.minor,
            reg_address: 0xfb00_0000 + ((i as u64) << 24),
            reg_size: 0x100_0000,
            fb_address: 0x38_0000_0000 + ((i as u64) << 36),
            fb_size: g.spec.memory_bytes,
            ..Default::default()
        };
        c.pci_info.bus = 0x19 + 0x10 * i as u8;
        c.pci_info.vendor_id = 0x10de;
        c.pci_info.device_id = g.spec.pci_device_id;
        put(&mut arg[i * 72..], &c);
    }
    Ok(())
}

/// REGISTER_FD: ties a /dev/nvidiaN fd to a control fd, once.
fn register_fd(inner: &Inner, fd: Fd, arg: &[u8]) -> Res<()> {
    let a: nv_ioctl_register_fd_t = from_bytes(arg).ok_or(libc::EINVAL)?;
    let mut st = inner.lock();
    if !matches!(st.files.get(&a.ctl_fd), Some(NvFile::Ctl)) {
        return Err(libc::EINVAL);
    }
    match st.files.get_mut(&fd.0) {
        Some(NvFile::Dev { registered, .. }) if !*registered => *registered = true,
        // Registering twice, or a non-device fd: escape.c refuses.
        _ => return Err(libc::EINVAL),
    }
    Ok(())
}

/// CHECK_VERSION_STR: answers with the emulated driver's version; a strict check of another fails.
fn check_version(inner: &Inner, arg: &mut [u8]) -> Res<()> {
    let mut a: nv_ioctl_rm_api_version_t = from_bytes(arg).ok_or(libc::EINVAL)?;
    let v = inner.version.as_bytes();
    let given = a.version_string.iter().position(|&b| b == 0).unwrap_or(64);
    let same = &a.version_string[..given] == v;
    a.version_string = [0; 64];
    a.version_string[..v.len().min(63)].copy_from_slice(&v[..v.len().min(63)]);
    a.reply = NV_RM_API_VERSION_REPLY_RECOGNIZED;
    if a.cmd == NV_RM_API_VERSION_CMD_STRICT && !same {
        a.reply = 0;
    }
    put(arg, &a);
    Ok(())
}
