//! Sleeping until the GPU raises a non-stall interrupt, the way RM offers it on Linux (see
//! [`crate::nv::rm::event`]): a /dev/nvidiactl file made an event file, NV01_EVENT_OS_EVENT
//! objects for the graphics engine's and the copy engines' non-stall notifiers posting to it
//! without data, armed to repeat; a wait is a poll(2) of the file, which the next interrupt
//! (or one that came since the last wait) ends. A push buffer asks for the interrupt with the
//! host method NON_STALL_INTERRUPT (or a copy's INTERRUPT_TYPE) after its release.

use crate::nv::rm::client::{rm_error, OwnedFd, RmClient, NVIDIACTL};
use crate::nv::rm::common::Handle;
use crate::nv::rm::event::*;
use crate::nv::rm::ioctl::{self, call, nv_iowr};
use crate::nv::rm::status::NV_OK;
use crate::Result;
use std::time::Duration;

/// An event file that the GPU's non-stall interrupts make ready.
#[derive(Debug)]
pub struct NonstallEvent {
    file: OwnedFd,
}

impl NonstallEvent {
    /// Register for the non-stall interrupts of `subdevice` (of `device`): the graphics engine
    /// must be offered; the copy engines are taken where RM has them.
    pub fn open(client: &RmClient, device: Handle, subdevice: Handle) -> Result<NonstallEvent> {
        let file = OwnedFd::open(client.os_arc(), NVIDIACTL)?;
        let fd = file.fd();
        let mut a =
            nv_ioctl_alloc_os_event_t { h_client: client.handle(), h_device: device, fd: fd.0 as u32, status: 0 };
        call(client.os(), fd, nv_iowr(ioctl::NV_ESC_ALLOC_OS_EVENT, 16), "NV_ESC_ALLOC_OS_EVENT", &mut a)?;
        if a.status != NV_OK {
            return Err(rm_error(format!("NV_ESC_ALLOC_OS_EVENT on {NVIDIACTL}"), a.status));
        }
        let event = NonstallEvent { file };
        event.listen(client, subdevice, NV2080_NOTIFIERS_GRAPHICS)?;
        for ce in NV2080_NOTIFIERS_CE0..=NV2080_NOTIFIERS_CE9 {
            if let Err(e) = event.listen(client, subdevice, ce) {
                log::debug!("no non-stall event for copy engine notifier {ce}: {e}");
            }
        }
        Ok(event)
    }

    fn listen(&self, client: &RmClient, subdevice: Handle, index: u32) -> Result<()> {
        let mut p = NV0005_ALLOC_PARAMETERS {
            h_parent_client: client.handle(),
            h_src_resource: subdevice,
            h_class: NV01_EVENT_OS_EVENT,
            notify_index: index | NV01_EVENT_NONSTALL_INTR | NV01_EVENT_WITHOUT_EVENT_DATA,
            data: self.file.fd().0 as u64,
        };
        client.alloc_with(subdevice, NV01_EVENT_OS_EVENT, &mut p)?;
        let mut arm = NV2080_CTRL_EVENT_SET_NOTIFICATION_PARAMS {
            event: index,
            action: NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_REPEAT,
            ..Default::default()
        };
        client.control_with(subdevice, NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION, &mut arm)
    }

    /// Block until a non-stall interrupt (one since the last wait counts) or `timeout`:
    /// whether one came. The caller looks at its signal again either way.
    pub fn wait(&self, client: &RmClient, timeout: Duration) -> Result<bool> {
        client.os().poll_in(self.file.fd(), timeout)
    }
}
