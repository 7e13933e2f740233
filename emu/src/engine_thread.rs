//! The threads that play GPU engines (an AMD queue's command processor, an NVIDIA channel's
//! GPFIFO unit) run under SCHED_BATCH. A real engine woken by a doorbell takes no CPU time from
//! the thread that rang it; an emulated one is a host thread, and a freshly woken thread
//! normally preempts the one that woke it (Linux wakeup preemption), so on a host with few cores
//! a submission would pay for the engine's work before it returns. SCHED_BATCH threads never
//! preempt on wakeup and keep their fair share of the CPU otherwise; an unprivileged process
//! may choose it.

use std::io;
use std::thread::JoinHandle;

/// Spawns an engine thread named `name` running `f`.
pub(crate) fn spawn<F, T>(name: String, f: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    std::thread::Builder::new().name(name).spawn(move || {
        no_wakeup_preemption();
        f()
    })
}

#[cfg(target_os = "linux")]
fn no_wakeup_preemption() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `param` is a valid sched_param that outlives the call; pid 0 names the calling
    // thread, so only this engine thread's policy changes.
    let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) };
    if rc != 0 {
        // Only a cost on few-core hosts, never a failure: the engine runs under the default policy.
        log::debug!("emulated engine thread: SCHED_BATCH refused: {}", io::Error::last_os_error());
    }
}

#[cfg(not(target_os = "linux"))]
fn no_wakeup_preemption() {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// An engine thread runs under SCHED_BATCH (the default would preempt the thread that rang
    /// its doorbell on a few-core host: a graph run on emu:gfx1100 cost 0.15-0.29 us per node on
    /// a quiet 2-core VM that way, 0.05-0.09 us under SCHED_BATCH).
    #[test]
    fn engine_threads_do_not_preempt_on_wakeup() {
        // SAFETY: sched_getscheduler(0) only reads the calling thread's policy.
        let policy =
            super::spawn("policy probe".into(), || unsafe { libc::sched_getscheduler(0) }).unwrap().join().unwrap();
        assert_eq!(policy, libc::SCHED_BATCH);
    }
}
