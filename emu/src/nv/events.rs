//! RM events delivered to OS files, as `drivers::nv::rm::event` describes them: NV_ESC_ALLOC_OS_EVENT
//! makes a /dev/nvidiactl file an event file, NV01_EVENT_OS_EVENT objects under a subdevice tie
//! an engine's non-stall interrupt to it, NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION arms the
//! notifier, and a channel's non-stall interrupt marks the file ready, waking a poll(2) on it.
//! Only dataless events are kept (NV01_EVENT_WITHOUT_EVENT_DATA): the poll that reports one
//! consumes it, as `nvidia_poll` clears `dataless_event_pending`.

use super::rm::{NV_ERR_INVALID_EVENT, NV_ERR_INVALID_OBJECT_PARENT, NV_ERR_INVALID_PARAM_STRUCT};
use super::{Inner, ObjKind, State};
use baregpu_drivers::nv::rm::common::Handle;
use baregpu_drivers::nv::rm::event::*;
use baregpu_drivers::nv::rm::ioctl::RmArg;
use baregpu_drivers::nv::rm::status::*;
use std::collections::HashMap;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Which engine raised a non-stall interrupt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    Graphics,
    Copy,
}

impl Engine {
    fn raises(self, index: u32) -> bool {
        match self {
            Engine::Graphics => index == NV2080_NOTIFIERS_GRAPHICS,
            Engine::Copy => (NV2080_NOTIFIERS_CE0..=NV2080_NOTIFIERS_CE9).contains(&index),
        }
    }
}

#[derive(Debug, Default)]
struct Files {
    /// Event files (by fd) and whether an event is pending on each.
    pending: HashMap<i32, bool>,
    /// Armed notifiers: (subdevice, index) → SET_NOTIFICATION action (SINGLE or REPEAT).
    armed: HashMap<(Handle, u32), u32>,
}

/// The machine's event files.
#[derive(Debug, Default)]
pub(crate) struct Events {
    files: Mutex<Files>,
    ready: Condvar,
    /// Events posted to a file so far.
    pub posted: std::sync::atomic::AtomicU64,
}

impl Events {
    fn files(&self) -> std::sync::MutexGuard<'_, Files> {
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// NV_ESC_ALLOC_OS_EVENT (`alloc`) or NV_ESC_FREE_OS_EVENT on file `fd`: the argument must
    /// name the file it is issued on.
    pub fn escape(&self, fd: i32, alloc: bool, a: &mut nv_ioctl_alloc_os_event_t) {
        let mut f = self.files();
        a.status = if a.fd as i32 != fd {
            NV_ERR_INVALID_ARGUMENT
        } else if alloc {
            f.pending.entry(fd).or_insert(false);
            NV_OK
        } else if f.pending.remove(&fd).is_some() {
            NV_OK
        } else {
            NV_ERR_INVALID_EVENT
        };
    }

    pub fn closed(&self, fd: i32) {
        self.files().pending.remove(&fd);
    }

    /// The object an NV01_EVENT_OS_EVENT allocation under `parent` makes.
    pub fn alloc(&self, parent: &ObjKind, p: &[u8]) -> Result<ObjKind, u32> {
        let ObjKind::Subdevice { gpu } = *parent else { return Err(NV_ERR_INVALID_OBJECT_PARENT) };
        if p.len() != std::mem::size_of::<NV0005_ALLOC_PARAMETERS>() {
            return Err(NV_ERR_INVALID_PARAM_STRUCT);
        }
        let a: NV0005_ALLOC_PARAMETERS = baregpu_drivers::nv::rm::ioctl::from_bytes(p).unwrap_or_else(RmArg::zeroed);
        let fd = a.data as i32;
        if a.h_class != NV01_EVENT_OS_EVENT || !self.files().pending.contains_key(&fd) {
            return Err(NV_ERR_INVALID_ARGUMENT);
        }
        // Only what the host's wait needs is modelled: dataless non-stall events.
        let flags = a.notify_index & !NOTIFY_INDEX_MASK;
        if flags != NV01_EVENT_NONSTALL_INTR | NV01_EVENT_WITHOUT_EVENT_DATA {
            return Err(NV_ERR_NOT_SUPPORTED);
        }
        Ok(ObjKind::OsEvent { gpu, index: a.notify_index & NOTIFY_INDEX_MASK, fd })
    }

    /// NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION on `subdevice`.
    pub fn set_notification(
        &self,
        subdevice: Handle,
        q: &NV2080_CTRL_EVENT_SET_NOTIFICATION_PARAMS,
    ) -> Result<(), u32> {
        let mut f = self.files();
        match q.action {
            NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_DISABLE => {
                f.armed.remove(&(subdevice, q.event));
            }
            NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_SINGLE | NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_REPEAT => {
                f.armed.insert((subdevice, q.event), q.action);
            }
            _ => return Err(NV_ERR_INVALID_ARGUMENT),
        }
        Ok(())
    }

    /// A non-stall interrupt of `engine` on GPU `gpu`: every armed OS event for it marks its
    /// file ready.
    pub fn post(&self, st: &State, gpu: usize, engine: Engine) {
        let mut f = self.files();
        let mut woke = false;
        for o in st.objects.values() {
            let ObjKind::OsEvent { gpu: g, index, fd } = o.kind else { continue };
            let key = (o.parent, index);
            if g != gpu || !engine.raises(index) || !f.armed.contains_key(&key) || !f.pending.contains_key(&fd) {
                continue;
            }
            if f.armed[&key] == NV2080_CTRL_EVENT_SET_NOTIFICATION_ACTION_SINGLE {
                f.armed.remove(&key);
            }
            f.pending.insert(fd, true);
            woke = true;
        }
        if woke {
            self.posted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.ready.notify_all();
        }
    }

    /// poll(2) of file `fd` for input: an event file becomes ready when an event is posted
    /// (and the poll consumes it); any other file never does.
    pub fn poll(&self, fd: i32, timeout: Duration) -> bool {
        let end = Instant::now() + timeout;
        let mut f = self.files();
        loop {
            if let Some(p) = f.pending.get_mut(&fd) {
                if *p {
                    *p = false;
                    return true;
                }
            }
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            f = self.ready.wait_timeout(f, left).unwrap_or_else(|e| e.into_inner()).0;
        }
    }
}

impl Inner {
    /// A channel of GPU `gpu` raised a non-stall interrupt (counted, and posted to OS events).
    pub(crate) fn nonstall_interrupt(&self, gpu: usize, engine: Engine) {
        self.nonstall.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        let st = self.lock();
        self.events.post(&st, gpu, engine);
    }
}
