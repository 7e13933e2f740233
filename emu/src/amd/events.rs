//! KFD events: signal events backed by 8-byte slots of the event page, and the memory-fault and
//! hardware-exception events through which the kernel reports a GPU's death. Waiting follows
//! kfd_wait_on_events: per-waiter "activated" flags, auto-reset consumed by a waiter, event ages.

use super::Process;
use baregpu_autogen::amd::kfd as abi;

/// What the kernel writes into a free slot of the event page.
pub const UNSIGNALED_EVENT_SLOT: u64 = u64::MAX;
/// Ids at and above this are not signal events.
pub const FIRST_NONSIGNAL_EVENT_ID: u32 = (i32::MAX as u32 >> 1) + 1;

#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub id: u32,
    pub kind: u32,
    pub auto_reset: bool,
    pub signaled: bool,
    pub age: u64,
    /// (waiter, index in its event list) of the waiters sleeping on it.
    pub waiters: Vec<(u64, usize)>,
    pub memory: abi::kfd_hsa_memory_exception_data,
    pub hw: abi::kfd_hsa_hw_exception_data,
}

impl Event {
    pub fn is_signal(&self) -> bool {
        self.kind == abi::KFD_IOC_EVENT_SIGNAL || self.kind == abi::KFD_IOC_EVENT_DEBUG_EVENT
    }
}

/// The page of signal slots: a GTT allocation the process handed over, or the kernel's own.
#[derive(Debug, Clone)]
pub(crate) struct SignalPage {
    /// The allocation handle when the process supplied it.
    pub handle: Option<u64>,
    /// The emulator's address of slot 0.
    pub host: usize,
    /// Bytes of slots the process can see (slot ids stay below `mapped_size / 8`).
    pub mapped_size: u64,
    /// Range of the backing file (for the /dev/kfd events mmap).
    pub backing: u64,
    /// A kernel-allocated page: its view and backing are ours to drop.
    pub owned: bool,
}

impl SignalPage {
    pub fn slot_addr(&self, id: u32) -> usize {
        self.host + id as usize * 8
    }
}

/// One WAIT_EVENTS call in progress.
#[derive(Debug, Clone)]
pub(crate) struct Waiter {
    pub activated: Vec<bool>,
    /// The event each entry waits on; `None` once it was destroyed under the waiter.
    pub events: Vec<Option<u32>>,
    pub age_enabled: Vec<bool>,
}

impl Process {
    /// set_event: fire `id`, waking its waiters; an auto-reset event with a waiter stays reset.
    pub(crate) fn set_event(&mut self, id: u32) -> bool {
        let Some(ev) = self.events.get_mut(&id) else { return false };
        ev.signaled = !ev.auto_reset || ev.waiters.is_empty();
        ev.age = ev.age.wrapping_add(1);
        if ev.age == 0 {
            ev.age = 2; // 0 and 1 are reserved ages
        }
        for &(w, i) in &ev.waiters {
            if let Some(waiter) = self.waiters.get_mut(&w) {
                waiter.activated[i] = true;
            }
        }
        true
    }

    /// An event of the process fired by the GPU through its slot: acknowledge (reset) the slot,
    /// then set the event.
    pub(crate) fn set_event_from_interrupt(&mut self, id: u32) {
        if let Some(page) = &self.signal_page {
            if id as u64 * 8 < page.mapped_size {
                // SAFETY: the slot lies inside the live event page view.
                unsafe { super::memory::write_u64(page.slot_addr(id), UNSIGNALED_EVENT_SLOT) };
            }
        }
        self.set_event(id);
    }

    /// Fire every signal event whose slot the GPU wrote (kfd_signal_event_interrupt's search).
    pub(crate) fn scan_signal_slots(&mut self) -> usize {
        let Some(page) = self.signal_page.clone() else { return 0 };
        let fired: Vec<u32> = self
            .events
            .values()
            .filter(|e| e.is_signal() && (e.id as u64) * 8 < page.mapped_size)
            // SAFETY: the slot lies inside the live event page view.
            .filter(|e| unsafe { super::memory::read_u64(page.slot_addr(e.id)) } != UNSIGNALED_EVENT_SLOT)
            .map(|e| e.id)
            .collect();
        for &id in &fired {
            self.set_event_from_interrupt(id);
        }
        fired.len()
    }

    /// Remove an event, detaching the waiters that sleep on it (their wait fails).
    pub(crate) fn destroy_event(&mut self, id: u32) -> bool {
        let Some(ev) = self.events.remove(&id) else { return false };
        for &(w, i) in &ev.waiters {
            if let Some(waiter) = self.waiters.get_mut(&w) {
                waiter.events[i] = None;
            }
        }
        if ev.is_signal() {
            self.signal_event_count = self.signal_event_count.saturating_sub(1);
        }
        true
    }

    /// Register a waiter on `ids` (init_event_waiter for each); EINVAL for an unknown id.
    pub(crate) fn add_waiter(&mut self, data: &[abi::kfd_event_data]) -> Result<u64, i32> {
        if data.iter().any(|d| !self.events.contains_key(&d.event_id)) {
            return Err(libc::EINVAL);
        }
        let wid = self.next_waiter;
        self.next_waiter += 1;
        let mut w = Waiter { activated: Vec::new(), events: Vec::new(), age_enabled: Vec::new() };
        for (i, d) in data.iter().enumerate() {
            let ev = self.events.get_mut(&d.event_id).expect("checked above");
            let mut activated = ev.signaled;
            ev.signaled = ev.signaled && !ev.auto_reset;
            // SAFETY: every member of the union is plain data.
            let last_age = unsafe { d.__bindgen_anon_1.signal_event_data.last_event_age };
            let age_enabled = ev.kind == abi::KFD_IOC_EVENT_SIGNAL && last_age != 0;
            if age_enabled && ev.age != last_age {
                activated = true;
            }
            if !activated {
                ev.waiters.push((wid, i));
            }
            w.activated.push(activated);
            w.events.push(Some(d.event_id));
            w.age_enabled.push(age_enabled);
        }
        self.waiters.insert(wid, w);
        Ok(wid)
    }

    /// test_event_condition.
    pub(crate) fn wait_result(&self, wid: u64, all: bool) -> u32 {
        let Some(w) = self.waiters.get(&wid) else { return abi::KFD_IOC_WAIT_RESULT_FAIL };
        let n = w.activated.len();
        let activated = w.activated.iter().filter(|a| **a).count();
        if (all && activated == n) || (!all && activated > 0) {
            return abi::KFD_IOC_WAIT_RESULT_COMPLETE;
        }
        if w.events.iter().any(Option::is_none) {
            return abi::KFD_IOC_WAIT_RESULT_FAIL;
        }
        abi::KFD_IOC_WAIT_RESULT_TIMEOUT
    }

    /// copy_signaled_event_data: (index, offset in the entry, bytes) to write back, or EINVAL
    /// when an event went away.
    pub(crate) fn signaled_data(&self, wid: u64) -> Result<Vec<(usize, Vec<u8>)>, i32> {
        let w = self.waiters.get(&wid).ok_or(libc::EINVAL)?;
        let mut out = Vec::new();
        for i in 0..w.activated.len() {
            let Some(id) = w.events[i] else { return Err(libc::EINVAL) };
            if !w.activated[i] {
                continue;
            }
            let Some(ev) = self.events.get(&id) else { return Err(libc::EINVAL) };
            let bytes = match ev.kind {
                abi::KFD_IOC_EVENT_MEMORY => pod_bytes(&ev.memory),
                abi::KFD_IOC_EVENT_HW_EXCEPTION => pod_bytes(&ev.hw),
                abi::KFD_IOC_EVENT_SIGNAL if w.age_enabled[i] => ev.age.to_ne_bytes().to_vec(),
                _ => continue,
            };
            out.push((i, bytes));
        }
        Ok(out)
    }

    pub(crate) fn remove_waiter(&mut self, wid: u64) {
        let Some(w) = self.waiters.remove(&wid) else { return };
        for id in w.events.into_iter().flatten() {
            if let Some(ev) = self.events.get_mut(&id) {
                ev.waiters.retain(|&(x, _)| x != wid);
            }
        }
    }
}

fn pod_bytes<T: super::user::Pod>(v: &T) -> Vec<u8> {
    let mut b = vec![0u8; std::mem::size_of::<T>()];
    super::user::write(&mut b, v);
    b
}

/// A GPU page fault to report, as the interrupt handler decodes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryFaultReport {
    /// The faulting address; the kernel reports its page.
    pub va: u64,
    pub not_present: bool,
    pub read_only: bool,
    pub no_execute: bool,
    pub imprecise: bool,
    /// `KFD_MEM_ERR_*`.
    pub error_type: u32,
}

/// A GPU reset to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HwExceptionReport {
    pub whole_gpu_reset: bool,
    /// An ECC error rather than a hang.
    pub ecc: bool,
    pub memory_lost: bool,
}
