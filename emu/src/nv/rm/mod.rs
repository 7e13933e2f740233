//! The RM escapes of /dev/nvidiactl and /dev/nvidiaN: allocation, control, free, memory and
//! mappings, card info and fd registration, as `escape.c` and RM's resource server answer them.
//!
//! Sizes: an escape whose `_IOC_SIZE` differs from its struct fails with EINVAL (escape.c); RM
//! then answers in the struct's `status`: unknown handles NV_ERR_INVALID_OBJECT_HANDLE (or
//! _PARENT / _CLIENT), classes the GPU does not list NV_ERR_INVALID_CLASS, parameter blocks of
//! the wrong size NV_ERR_INVALID_PARAM_STRUCT, bad pointers NV_ERR_INVALID_POINTER, taken
//! handles NV_ERR_INSERT_DUPLICATE_NAME, controls on the wrong kind of object or unknown
//! controls NV_ERR_NOT_SUPPORTED, exhausted memory NV_ERR_NO_MEMORY.
//!
//! GT200_DEBUGGER sessions answer READ_ALL_SM_ERROR_STATES and READ_MMU_FAULT_INFO from what
//! the debugged channel recorded when its kernel faulted ([`super::fault`]).

mod alloc;
mod control;
mod escape;
mod free;
mod memory;

pub(crate) use escape::escape;

use super::teardown::{self, Freed, Retired};
use super::{channel, Backing, ChannelInfo, GpuMap, Inner, MmapContext, NvFile, Obj, ObjKind, State};
use super::{DOORBELL_IDLE, DOORBELL_OFFSET, USERMODE_SIZE};
use baregpu_drivers::nv::rm::classes::*;
use baregpu_drivers::nv::rm::common::*;
use baregpu_drivers::nv::rm::ctrl::*;
use baregpu_drivers::nv::rm::debugger::*;
use baregpu_drivers::nv::rm::event::*;
use baregpu_drivers::nv::rm::ioctl::{self, from_bytes, RmArg};
use baregpu_drivers::nv::rm::status::*;
use baregpu_drivers::nv::rm::{v570, v580, v610, Branch};
use baregpu_drivers::os::Fd;
use std::sync::atomic::Ordering;
use std::sync::Arc;

const NV_ERR_INVALID_CLIENT: u32 = 0x23;
pub(crate) const NV_ERR_INVALID_OBJECT_PARENT: u32 = 0x36;
pub(crate) const NV_ERR_INVALID_PARAM_STRUCT: u32 = 0x3a;
pub(crate) const NV_ERR_INVALID_EVENT: u32 = 0x28;
const NV_ERR_INVALID_POINTER: u32 = 0x3d;
const NV_ERR_INSERT_DUPLICATE_NAME: u32 = 0x19;
const NV_ERR_INVALID_LIMIT: u32 = 0x2e;
const NV_ERR_INVALID_OFFSET: u32 = 0x37;
const NV_ERR_INVALID_DEVICE: u32 = 0x26;
const NV_ERR_INVALID_DMA_SPECIFIER: u32 = 0x27;
const NV_ERR_OBJECT_NOT_FOUND: u32 = 0x57;

type Res<T> = std::result::Result<T, i32>;
/// An RM status failure.
type St<T> = std::result::Result<T, u32>;

fn put<T: RmArg>(arg: &mut [u8], v: &T) {
    let b = ioctl::bytes_of(v);
    arg[..b.len()].copy_from_slice(b);
}

/// The bytes a user pointer names, or None for a null pointer with a size.
///
/// SAFETY (of the callers' use): the driver runs in this process; its parameter pointers are
/// addresses of its live argument blocks, as RM's copyin assumes.
fn user<'a>(ptr: u64, len: u32) -> Option<&'a mut [u8]> {
    if len == 0 {
        return Some(&mut []);
    }
    if ptr == 0 {
        return None;
    }
    // SAFETY: see above.
    Some(unsafe { std::slice::from_raw_parts_mut(ptr as *mut u8, len as usize) })
}

fn ctl_only(is_ctl: bool) -> Res<()> {
    if is_ctl {
        Ok(())
    } else {
        Err(libc::EINVAL)
    }
}

/// The GPU an object belongs to (through its ancestors).
fn gpu_of(st: &State, mut h: Handle) -> Option<usize> {
    for _ in 0..64 {
        let o = st.objects.get(&h)?;
        match &o.kind {
            ObjKind::Device { gpu }
            | ObjKind::Subdevice { gpu }
            | ObjKind::Usermode { gpu, .. }
            | ObjKind::Memory { gpu, .. } => return Some(*gpu),
            ObjKind::Channel(c) => return Some(c.gpu),
            _ => h = o.parent,
        }
    }
    None
}

fn client_of(st: &State, mut h: Handle) -> Option<Handle> {
    for _ in 0..64 {
        let o = st.objects.get(&h)?;
        if matches!(o.kind, ObjKind::Client) {
            return Some(h);
        }
        h = o.parent;
    }
    None
}

fn new_handle(st: &mut State) -> Handle {
    loop {
        st.next_handle += 1;
        let h = 0xcaf0_0000 + st.next_handle;
        if !st.objects.contains_key(&h) {
            return h;
        }
    }
}

fn params<T: RmArg>(p: &[u8]) -> St<T> {
    if p.len() != std::mem::size_of::<T>() {
        return Err(NV_ERR_INVALID_PARAM_STRUCT);
    }
    from_bytes(p).ok_or(NV_ERR_INVALID_PARAM_STRUCT)
}
