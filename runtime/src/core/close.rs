//! Closing a device: drain where the backend asks, give back the backend's queues, then the
//! argument ring and the signal page — unless signals outlive the device, in which case the
//! page stays mapped, and the backend (driver objects and files) open, until the last signal
//! goes (logged), so that reading them stays valid.

use super::{Backend, Device};
use std::mem::ManuallyDrop;
use std::sync::Arc;

impl<B: Backend> Drop for Device<B> {
    fn drop(&mut self) {
        // Let the queues drain before their memory goes; a faulted one never will.
        if B::DRAIN_ON_CLOSE && self.state().broken.is_none() {
            if let Err(e) = self.synchronize() {
                log::warn!("{}: closing with work in flight: {e}", self.label);
            }
        }
        self.backend_mut().close();
        // SAFETY: `state` is not used again: this is the device's drop, and nothing borrows it.
        unsafe { std::mem::ManuallyDrop::drop(&mut self.state) };
        if let Some(m) = self.args_mem.take() {
            if let Err(e) = self.backend.free(m) {
                log::warn!("{}: freeing the argument ring: {e}", self.label);
            }
        }
        let Some(m) = self.signal_mem.take() else {
            // SAFETY: the backend is not used again (this is the device's drop).
            unsafe { ManuallyDrop::drop(&mut self.backend) };
            return;
        };
        // The state's signals are gone: any other share is a handle the caller still holds,
        // and no new one can be made (the pool went with the state).
        let outside = Arc::strong_count(&self.page) - 1;
        // SAFETY: the backend is not used again (this is the device's drop); it is moved out
        // once, here.
        let backend = unsafe { ManuallyDrop::take(&mut self.backend) };
        if outside == 0 {
            free_signal_page(&*backend, m, &self.label);
            return;
        }
        // Keep the page mapped (and the driver objects that map it) until the last handle goes.
        log::info!("{}: {outside} signals outlive the device; it stays open until they go", self.label);
        let label = self.label.clone();
        self.page.on_last_share(Box::new(move || free_signal_page(&*backend, m, &label)));
    }
}

fn free_signal_page<B: Backend>(backend: &B, m: B::Buffer, label: &str) {
    if let Err(e) = backend.free(m) {
        log::warn!("{label}: freeing the signal page: {e}");
    }
}
