//! The emulated bridge's bulk queues and its latency knob. A queued transfer has already taken
//! effect on the firmware (in submission order, as the wire would deliver it); what waits here
//! is its outcome, released one latency after it was queued. Synchronous transfers each wait a
//! whole latency.

use baregpu_drivers::usb::{UsbError, UsbResult};
use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A queued transfer's outcome and when it may be taken back.
struct Queued {
    ready_at: Instant,
    outcome: UsbResult<Vec<u8>>,
}

#[derive(Default)]
struct State {
    latency: Duration,
    endpoints: HashMap<u8, VecDeque<Queued>>,
    most_in_flight: usize,
}

#[derive(Default)]
pub(super) struct Queues {
    state: Mutex<State>,
}

impl Queues {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn set_latency(&self, latency: Duration) {
        self.state().latency = latency;
    }

    pub fn most_in_flight(&self) -> usize {
        self.state().most_in_flight
    }

    /// A synchronous transfer's wait (outside every lock: other threads go on meanwhile).
    pub fn round_trip(&self) {
        let latency = self.state().latency;
        if !latency.is_zero() {
            std::thread::sleep(latency);
        }
    }

    /// A synchronous transfer on an endpoint with transfers queued would overtake them.
    pub fn check_empty(&self, endpoint: u8) -> UsbResult<()> {
        match self.pending(endpoint) {
            0 => Ok(()),
            n => Err(UsbError::Invalid(format!("a synchronous transfer on {endpoint:#04x} with {n} queued"))),
        }
    }

    pub fn push(&self, endpoint: u8, outcome: UsbResult<Vec<u8>>) {
        let mut st = self.state();
        let ready_at = Instant::now() + st.latency;
        let q = st.endpoints.entry(endpoint).or_default();
        q.push_back(Queued { ready_at, outcome });
        let n = q.len();
        st.most_in_flight = st.most_in_flight.max(n);
    }

    /// The oldest queued outcome of `endpoint`, once its latency has passed.
    pub fn complete(&self, endpoint: u8) -> UsbResult<Vec<u8>> {
        let q = self.state().endpoints.get_mut(&endpoint).and_then(VecDeque::pop_front);
        let Some(q) = q else {
            return Err(UsbError::Invalid(format!("no transfer queued on {endpoint:#04x}")));
        };
        let now = Instant::now();
        if q.ready_at > now {
            std::thread::sleep(q.ready_at - now);
        }
        q.outcome
    }

    pub fn pending(&self, endpoint: u8) -> usize {
        self.state().endpoints.get(&endpoint).map_or(0, VecDeque::len)
    }

    pub fn cancel(&self, endpoint: u8) {
        self.state().endpoints.remove(&endpoint);
    }
}
