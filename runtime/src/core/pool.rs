//! The device's signal pool grows by pages: a page is allocated (the backend's `Mem::Signals`
//! placement, the one definition for every page) when the free slots run out, up to
//! [`MAX_SIGNAL_PAGES`]. Every page is mapped for each peer the signals are shared with
//! before any of its slots is handed out, so a peer's queue can wait on any signal.

use super::{Backend, Device, DeviceBuffer, Mem, State};
use crate::signal::{Signal, SignalPage, SIGNAL_BYTES};
use crate::Result;
use std::sync::{Arc, Mutex, Weak};

/// Bytes of one page of the pool.
pub(crate) const SIGNAL_PAGE: u64 = 0x1000;
/// The most pages a device's pool holds: 16,384 signals (256 KiB), far above what a program
/// keeps live (a compiled graph holds a few), low enough that a leak ends in an error.
pub(crate) const MAX_SIGNAL_PAGES: usize = 64;

/// A device's backend as its peers see it: set while the device is open and its signals are
/// shared with someone, cleared (under the lock) as it closes, so a peer's pool maps a new page
/// for it only while it is open.
pub(crate) type PeerCell<B> = Arc<Mutex<Option<Weak<B>>>>;

/// One page of the pool: its memory and the share of it that its signals hold.
pub(crate) struct PoolPage<B: Backend> {
    pub(crate) mem: B::Buffer,
    pub(crate) page: Arc<SignalPage>,
}

/// A device the pool's pages are mapped for.
pub(crate) struct Peer<B: Backend> {
    id: u64,
    label: String,
    backend: PeerCell<B>,
}

/// The pages of the pool and the peers they are mapped for (one lock: a page is added and
/// mapped, or a peer added and every page mapped for it, as one step).
pub(crate) struct Pages<B: Backend> {
    pub(crate) pages: Vec<PoolPage<B>>,
    peers: Vec<Peer<B>>,
}

impl<B: Backend> Pages<B> {
    pub(crate) fn new(first: PoolPage<B>) -> Self {
        Pages { pages: vec![first], peers: Vec::new() }
    }
}

/// A new page of signal memory from `backend`.
pub(crate) fn alloc_page<B: Backend>(backend: &B) -> Result<PoolPage<B>> {
    let mem = backend.alloc(SIGNAL_PAGE, Mem::Signals)?;
    // SAFETY: `mem` is at least SIGNAL_PAGE bytes, aligned to a page by the allocator, and the
    // device frees it only when no share of the page is left (close.rs), so it stays mapped
    // for as long as the page lives.
    let page = unsafe { SignalPage::new(mem.va() as usize, SIGNAL_PAGE as usize, backend.port().clone()) };
    Ok(PoolPage { mem, page })
}

/// Slots per page.
const SLOTS: usize = SIGNAL_PAGE as usize / SIGNAL_BYTES;

impl<B: Backend> Device<B> {
    pub(crate) fn pages(&self) -> std::sync::MutexGuard<'_, Pages<B>> {
        self.pages.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn take_signal(&self, st: &mut State) -> Result<Signal> {
        if st.free_signals.is_empty() {
            let mut slots = self.grow()?;
            slots.reverse(); // hand out the lowest slot first
            st.free_signals = slots;
        }
        let s = st.free_signals.pop().expect("the pool just grew");
        s.set(0);
        s.set_timestamp(0);
        Ok(s)
    }

    /// A new page, mapped for every open peer: its slots.
    fn grow(&self) -> Result<Vec<Signal>> {
        let mut pages = self.pages();
        if pages.pages.len() >= MAX_SIGNAL_PAGES {
            // Every slot is out: the free list is empty.
            return Err(self.err(format!(
                "out of signal slots: {} signals are live, the most a device holds ({MAX_SIGNAL_PAGES} pages \
                 of {SLOTS}); free signals or drop compiled graphs",
                pages.pages.len() * SLOTS
            )));
        }
        let new = alloc_page(&*self.backend)?;
        for p in &pages.peers {
            if let Err(e) = self.map_page_for(&new, p) {
                self.free_page(new);
                return Err(e);
            }
        }
        let slots = new.page.slots(B::WIDTH);
        pages.pages.push(new);
        Ok(slots)
    }

    /// Map `page` for `peer`, unless the peer closed.
    fn map_page_for(&self, page: &PoolPage<B>, peer: &Peer<B>) -> Result<()> {
        // Held while mapping: the peer's close waits for it (close.rs clears the cell first).
        let cell = peer.backend.lock().unwrap_or_else(|e| e.into_inner());
        match cell.as_ref().and_then(Weak::upgrade) {
            Some(b) => self.map_into(&page.mem, &b, peer.id, &peer.label),
            None => Ok(()),
        }
    }

    fn free_page(&self, p: PoolPage<B>) {
        drop(p.page);
        if let Err(e) = self.backend.free(p.mem) {
            log::warn!("{}: freeing a signal page: {e}", self.label);
        }
    }

    /// Map every page of this device's signal pool for `peer`'s GPU, and every page added
    /// later before any of its signals is handed out: `peer`'s queues can then wait for (and
    /// release) this device's signals.
    pub fn share_signals_with(&self, peer: &Device<B>) -> Result<()> {
        let mut pages = self.pages();
        for p in &pages.pages {
            self.map_into(&p.mem, &peer.backend, peer.id, &peer.label)?;
        }
        if !pages.peers.iter().any(|p| p.id == peer.id) {
            let cell = peer.peer_cell();
            pages.peers.push(Peer { id: peer.id, label: peer.label.clone(), backend: cell });
        }
        Ok(())
    }

    /// This device's backend for peers' pools (see [`PeerCell`]).
    fn peer_cell(&self) -> PeerCell<B> {
        let mut cell = self.as_peer.lock().unwrap_or_else(|e| e.into_inner());
        cell.get_or_insert_with(|| Arc::downgrade(&self.backend));
        self.as_peer.clone()
    }

    /// Signals handed out (pool capacity less the free slots); for tests and reports.
    pub fn live_signals(&self) -> usize {
        let free = self.state().free_signals.len();
        self.pages().pages.len() * SLOTS - free
    }

    /// Pages in the signal pool.
    pub fn signal_pages(&self) -> usize {
        self.pages().pages.len()
    }
}
