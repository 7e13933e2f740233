//! RM events delivered to an OS file: how the host sleeps until the GPU raises an interrupt.
//! A file of /dev/nvidiactl is made an event file with NV_ESC_ALLOC_OS_EVENT (on that file,
//! naming its own fd); an NV01_EVENT_OS_EVENT object under the subdevice ties a notifier index
//! (with NV01_EVENT_NONSTALL_INTR: the engine's non-stall interrupt) to that fd, and
//! NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION arms the notifier. Each event then marks the file
//! ready: poll(2) reports POLLIN | POLLPRI, and an event allocated with
//! NV01_EVENT_WITHOUT_EVENT_DATA leaves nothing to read (the poll itself consumes it:
//! `nvidia_poll` clears `dataless_event_pending`). Facts from open-gpu-kernel-modules:
//! `nv-ioctl.h`, `cl0005.h`, `nvos.h`, `cl2080_notification.h`, `ctrl2080event.h`, `nv.c`.

use super::common::Handle;
use super::ioctl::rm_args;
use super::layout;

/// `NV01_EVENT_OS_EVENT` (`cl0079.h`): an event delivered to an OS file.
pub const NV01_EVENT_OS_EVENT: u32 = 0x79;

/// `nv_ioctl_alloc_os_event_t` and `nv_ioctl_free_os_event_t` (`nv-ioctl.h`), one layout.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct nv_ioctl_alloc_os_event_t {
    pub h_client: Handle,
    pub h_device: Handle,
    pub fd: u32,
    pub status: u32,
}
layout!(nv_ioctl_alloc_os_event_t, 16, { h_client: 0, h_device: 4, fd: 8, status: 12 });

/// `NV0005_ALLOC_PARAMETERS` (`cl0005.h`): `notify_index` carries the notifier index in bits
/// 15:0 and `NV01_EVENT_*` flags in 31:24; `data` is the event file's fd for an OS event.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV0005_ALLOC_PARAMETERS {
    pub h_parent_client: Handle,
    pub h_src_resource: Handle,
    pub h_class: u32,
    pub notify_index: u32,
    pub data: u64,
}
layout!(NV0005_ALLOC_PARAMETERS, 24, { h_parent_client: 0, h_src_resource: 4, h_class: 8, notify_index: 12, data: 16 });

/// `NV0005_NOTIFY_INDEX_INDEX` (15:0).
pub const NOTIFY_INDEX_MASK: u32 = 0xffff;
/// `nvos.h`: RM signals the event but keeps no data for it.
pub const NV01_EVENT_WITHOUT_EVENT_DATA: u32 = 0x1000_0000;
/// `nvos.h`: only the engine's non-stall interrupt triggers the event.
pub const NV01_EVENT_NONSTALL_INTR: u32 = 0x0800_0000;

/// `cl2080_notification.h`: the graphics (compute) engine's notifier, GR0.
pub const NV2080_NOTIFIERS_GRAPHICS: u32 = 12;
/// `cl2080_notification.h`: copy engines 0 to 9 (10 to 19 are 166 onwards).
pub const NV2080_NOTIFIERS_CE0: u32 = 23;
pub const NV2080_NOTIFIERS_CE9: u32 = 32;

/// `ctrl2080event.h`.
pub const NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION: u32 = 0x2080_0301;
pub const NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_DISABLE: u32 = 0;
pub const NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_SINGLE: u32 = 1;
pub const NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_REPEAT: u32 = 2;

#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV2080_CTRL_EVENT_SET_NOTIFICATION_PARAMS {
    pub event: u32,
    pub action: u32,
    pub b_notify_state: u8,
    pub info32: u32,
    pub info16: u16,
}
layout!(NV2080_CTRL_EVENT_SET_NOTIFICATION_PARAMS, 20, { event: 0, action: 4, b_notify_state: 8, info32: 12, info16: 16 });

rm_args!(nv_ioctl_alloc_os_event_t, NV0005_ALLOC_PARAMETERS, NV2080_CTRL_EVENT_SET_NOTIFICATION_PARAMS);
