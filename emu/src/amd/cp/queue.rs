//! The thread of one queue: watch the write pointer, take what was written since the read
//! pointer as one batch, run it, publish the read pointer after every packet, and go idle
//! (until the doorbell rings, see [`crate::doorbell`]) when the queue is empty.

use super::mem::GpuView;
use super::pm4::Pm4Exec;
use super::sdma::SdmaExec;
use super::{Ctl, Cx, Executor, Loc, Stop};
use crate::amd::dispatch::WaveEngine;
use crate::amd::{memory, EmuQueue};
use crate::doorbell::Idle;
use std::sync::Arc;

/// Which XCC of how many a queue's CP is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Xcc {
    pub index: u32,
    pub count: u32,
}

pub(crate) fn run(
    ctl: Arc<Ctl>,
    q: EmuQueue,
    engine: Arc<dyn WaveEngine>,
    arch: &'static str,
    xcc: Xcc,
    label: String,
) {
    let mut exec: Box<dyn Executor> = if q.kind.is_sdma() {
        match SdmaExec::new(arch) {
            Some(e) => Box::new(e),
            None => return log::error!("{label}: no SDMA generation for {arch}"),
        }
    } else {
        match Pm4Exec::new(arch, engine, xcc.index, xcc.count) {
            Some(e) => Box::new(e),
            None => return log::error!("{label}: no PM4 generation for {arch}"),
        }
    };
    // Pointer units: PM4 counts dwords, SDMA bytes.
    let unit: u64 = if q.kind.is_sdma() { 4 } else { 1 };
    let ring_dwords = q.ring_size / 4;
    // The read position in dwords, monotonic.
    let mut read: u64 = 0;
    // SAFETY: the pointer page lives as long as the queue, which outlives this thread.
    let publish = |dw: u64| unsafe { memory::write_u64(q.read_ptr_host, dw * unit) };
    publish(0);
    let mut view: Option<GpuView> = None;
    let mut idle = Idle::default();
    ctl.bell.attach_current();
    loop {
        if ctl.should_stop(false) {
            return;
        }
        // SAFETY: as above.
        let wptr = unsafe { memory::read_u64(q.write_ptr_host) };
        if wptr / unit == read && wptr % unit == 0 {
            idle.wait(&ctl.bell);
            continue;
        }
        idle.reset();
        let Some(host) = ctl.host.upgrade() else { return };
        let write = wptr / unit;
        if wptr % unit != 0 || write < read || write - read > ring_dwords {
            let why = format!(
                "write pointer {wptr:#x} is not valid with the read pointer at {:#x} and a ring of {:#x} {}",
                read * unit,
                ring_dwords * unit,
                if unit == 1 { "dwords" } else { "bytes" }
            );
            return host.stopped(&q, &label, Stop::Bad(why));
        }
        let words: Vec<u32> = (read..write)
            // SAFETY: inside the ring, which lives as long as the queue; volatile reads of what
            // the host wrote before publishing the write pointer.
            .map(|i| unsafe { std::ptr::read_volatile((q.ring_host + ((i % ring_dwords) * 4) as usize) as *const u32) })
            .collect();
        let view = match &mut view {
            Some(v) => {
                v.refresh(&*host);
                v
            }
            None => view.insert(GpuView::new(&*host, q.gpu_id, ctl.writes.clone())),
        };
        let mut cx = Cx { host: &*host, q: &q, ctl: &ctl, mem: view };
        let first = read;
        let r = exec.run(&mut cx, &words, Loc::Ring { first, ring_dwords }, 0, &mut |n| publish(first + n as u64));
        match r {
            Ok(()) => read = write,
            Err(why) => return host.stopped(&q, &label, why),
        }
    }
}
