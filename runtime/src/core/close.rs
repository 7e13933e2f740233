//! Closing a device: stop peers mapping new signal pages for it, drain where the backend asks,
//! give back the backend's queues, then the argument ring and the signal pages, newest first.
//! A page whose signals outlive the device stays mapped, and the backend (driver objects and
//! files) open, until its last signal goes (logged), so that reading them stays valid.

use super::pool::PoolPage;
use super::{Backend, Device};
use std::sync::Arc;

impl<B: Backend> Drop for Device<B> {
    fn drop(&mut self) {
        // First, so no peer's pool maps a page for this device from here on: a peer mapping
        // one now holds the lock, and this waits for it. The backend has no other owner then.
        self.as_peer.lock().unwrap_or_else(|e| e.into_inner()).take();
        // Let the queues drain before their memory goes; a faulted one never will.
        if B::DRAIN_ON_CLOSE && self.state().broken.is_none() {
            if let Err(e) = self.synchronize() {
                log::warn!("{}: closing with work in flight: {e}", self.label);
            }
        }
        match Arc::get_mut(&mut self.backend) {
            Some(b) => b.close(),
            // Nothing else holds the backend before this drop hands it to signal pages.
            None => log::error!("{}: the backend is shared while the device closes; its queues stay", self.label),
        }
        // SAFETY: `state` is not used again: this is the device's drop, and nothing borrows it.
        unsafe { std::mem::ManuallyDrop::drop(&mut self.state) };
        if let Some(m) = self.args_mem.take() {
            if let Err(e) = self.backend.free(m) {
                log::warn!("{}: freeing the argument ring: {e}", self.label);
            }
        }
        let pages = std::mem::take(&mut self.pages().pages);
        for p in pages.into_iter().rev() {
            self.release_page(p);
        }
    }
}

impl<B: Backend> Device<B> {
    /// Free a signal page now, or, where signals of it outlive the device, when the last goes.
    fn release_page(&self, p: PoolPage<B>) {
        // The state's signals are gone: any other share is a handle the caller still holds,
        // and no new one can be made (the pool went with the state).
        let outside = Arc::strong_count(&p.page) - 1;
        if outside == 0 {
            free_signal_page(&*self.backend, p.mem, &self.label);
            return;
        }
        // Keep the page mapped (and the driver objects that map it) until the last handle goes;
        // if that happened since the count, dropping `p.page` below runs this at once.
        log::info!("{}: {outside} signals outlive the device; it stays open until they go", self.label);
        let (backend, label, mem) = (self.backend.clone(), self.label.clone(), p.mem);
        p.page.on_last_share(Box::new(move || free_signal_page(&*backend, mem, &label)));
    }
}

fn free_signal_page<B: Backend>(backend: &B, m: B::Buffer, label: &str) {
    if let Err(e) = backend.free(m) {
        log::warn!("{label}: freeing the signal page: {e}");
    }
}
