//! The process's one KFD event page. KFD takes one event page per process (a second
//! CREATE_EVENT with a page is EINVAL), so the devices opened on one KFD share it: the first
//! allocates it and hands it over with its signal event; later ones create their signal events
//! without a page and find their mailboxes in the same page, which each maps for its own GPU
//! (the GPU that raises an event writes its mailbox slot).

use super::device::KfdDevice;
use super::events::{EventKind, KfdEvent};
use super::memory::{KfdMemory, MemKind};
use crate::os::Os;
use crate::Result;
use std::sync::{Arc, Mutex, Weak};

/// The event page of the KFD process behind one `Os` (never freed: KFD refuses while the
/// process lives), and the GPUs it is mapped on.
struct EventPage {
    os: Weak<dyn Os>,
    mem: KfdMemory,
    gpus: Vec<u32>,
}

/// Every live KFD process's event page (one per `Os`: the real one, or each emulated machine).
static PAGES: Mutex<Vec<EventPage>> = Mutex::new(Vec::new());

impl KfdDevice {
    /// A signal event (auto-reset) whose mailbox lies in the process's event page of `bytes`
    /// (allocated by the first device of the process), mapped for this GPU; and the mailbox's
    /// address.
    pub fn create_mailbox_event(&self, bytes: u64) -> Result<(KfdEvent, u64)> {
        let mut pages = PAGES.lock().unwrap_or_else(|e| e.into_inner());
        pages.retain(|p| p.os.strong_count() > 0);
        let os = &self.kfd().os;
        let mine = |p: &&mut EventPage| p.os.upgrade().is_some_and(|o| Arc::ptr_eq(&o, os));
        if let Some(p) = pages.iter_mut().find(mine) {
            if !p.gpus.contains(&self.gpu.gpu_id) {
                self.map_to(&p.mem, &[self.gpu.gpu_id])?;
                p.gpus.push(self.gpu.gpu_id);
            }
            let ev = self.create_event(EventKind::Signal, true, None)?;
            let mailbox = p.mem.va + ev.slot as u64 * 8;
            return Ok((ev, mailbox));
        }
        let mem = self.alloc_internal(bytes, MemKind::Uncached)?;
        let ev = match self.create_event(EventKind::Signal, true, Some(mem.handle)) {
            Ok(ev) => ev,
            Err(e) => {
                let _ = self.free(mem);
                return Err(e);
            }
        };
        let mailbox = mem.va + ev.slot as u64 * 8;
        pages.push(EventPage { os: Arc::downgrade(os), mem, gpus: vec![self.gpu.gpu_id] });
        Ok((ev, mailbox))
    }
}
