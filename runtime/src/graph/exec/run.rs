//! A run: check the bindings, wait for the previous run's epoch (never rewrite words the GPU
//! may still read), re-encode nodes whose launch sizes or copy slots changed, patch the per-run
//! words, then per device, under its lock, advance the timeline once and submit each queue's
//! buffer (ring writes, release fence, write pointer, fence, doorbell: the backend's order).

use super::bindings::{Bindings, Bound};
use super::lower::{arg_values, launch_of, Enc};
use super::patch::{Class, Source};
use super::{fault, GraphExec};
use crate::core::{Backend, DeviceBuffer};
use crate::graph::{BufRef, NodeKind, SlotKind};
use crate::signal::Width;
use crate::timeline::WRAP_AT;
use crate::{Error, Result};
use std::sync::atomic::{fence, Ordering};

pub(super) fn run<B: Backend>(x: &mut GraphExec<'_, B>, b: &Bindings) -> Result<()> {
    let inputs = check_bindings(x, b)?;
    if x.faulted.swap(false, Ordering::Relaxed) {
        // The queues were rebuilt: nothing reads the buffers, and the signals start over.
        reset(x);
    } else if x.epoch > 0 && x.completed.load(Ordering::Relaxed) != x.epoch {
        wait(x)?;
    }
    advance_epoch(x);
    reencode(x, b)?;
    submit(x, &inputs)
}

/// Wait until the last run completed on every device (straight into the device's wait, which
/// checks the signal first: over a link one round trip, not a read and then a wait).
pub(super) fn wait<B: Backend>(x: &GraphExec<'_, B>) -> Result<()> {
    if x.faulted.load(Ordering::Relaxed) {
        return Err(Error::Graph("the graph's last run failed (its error was returned); run it again".into()));
    }
    if x.epoch == 0 || x.completed.load(Ordering::Relaxed) == x.epoch {
        return Ok(());
    }
    for (d, r) in x.devs.iter().enumerate() {
        if r.used {
            x.devices[d].wait(&r.epoch, x.epoch).map_err(|e| fault::node_error(x, d, e))?;
        }
    }
    x.completed.store(x.epoch, Ordering::Relaxed);
    Ok(())
}

/// Every signal of the exec back to 0 and the run count with it (the GPU uses none of them).
fn reset<B: Backend>(x: &mut GraphExec<'_, B>) {
    for s in &mut x.signals {
        s.signal.set(0);
        s.base = 0;
    }
    for r in &x.devs {
        r.epoch.set(0);
        if let Some(s) = &r.copy_end {
            s.set(0);
        }
    }
    x.epoch = 0;
    x.completed.store(0, Ordering::Relaxed);
}

/// This run's epoch and graph-signal bases; 32-bit signals rebase before a value would pass
/// 2^31 (the previous run is complete, so nothing waits on the old values).
fn advance_epoch<B: Backend>(x: &mut GraphExec<'_, B>) {
    let wraps = B::WIDTH == Width::Bits32
        && (x.epoch + 1 >= WRAP_AT || x.signals.iter().any(|s| s.base + 2 * s.last >= WRAP_AT));
    if wraps {
        reset(x);
    }
    if x.epoch > 0 {
        for s in &mut x.signals {
            s.base += s.last;
        }
    }
    x.epoch += 1;
    x.runs += 1;
}

/// The value of each slot for the patches (buffer address, scalar bytes as a number, size),
/// after checking every slot is bound, of its kind, big enough, and buffers apart.
fn check_bindings<B: Backend>(x: &GraphExec<'_, B>, b: &Bindings) -> Result<Vec<u64>> {
    let mut out = Vec::with_capacity(x.slots.len());
    let mut spans: Vec<(u64, u64, usize)> = Vec::new();
    for (i, s) in x.slots.iter().enumerate() {
        let bad = |m: String| Err(Error::Graph(format!("slot `{}`: {m}", s.name)));
        let v = match (&s.kind, b.get(crate::graph::SlotId(i))) {
            (_, None) => return bad("not bound".into()),
            (SlotKind::Buffer { bytes, .. }, Some(Bound::Buffer { va, bytes: have })) => {
                if have < bytes {
                    return bad(format!("bound to {have} bytes; the graph uses {bytes}"));
                }
                spans.push((*va, *bytes, i));
                *va
            }
            (SlotKind::Scalar { bytes }, Some(Bound::Scalar(v))) => {
                if v.len() != *bytes as usize {
                    return bad(format!("bound to {} bytes; it has {bytes}", v.len()));
                }
                let mut w = [0u8; 8];
                w[..v.len()].copy_from_slice(v);
                u64::from_le_bytes(w)
            }
            (SlotKind::LaunchSize, Some(Bound::Size(g))) if *g > 0 => *g as u64,
            (k, Some(_)) => return bad(format!("bound to something other than {}", k.describe())),
        };
        out.push(v);
    }
    for p in &x.peer_slots {
        let va = out[p.slot] + p.offset;
        let (owner, copier) = (x.devices[p.peer], x.devices[p.copier]);
        if !owner.mapped_for_peer(va, p.bytes, copier) {
            let why = super::lower::unmapped_peer_memory(owner, va, copier);
            return Err(Error::Graph(format!("slot `{}`: {why}", x.slots[p.slot].name)));
        }
    }
    for (k, &(va, bytes, i)) in spans.iter().enumerate() {
        let overlaps = |a: u64, n: u64| n > 0 && bytes > 0 && va < a + n && a < va + bytes;
        if let Some(&(_, _, j)) = spans[..k].iter().find(|&&(a, n, _)| overlaps(a, n)) {
            return Err(Error::Graph(format!(
                "slots `{}` and `{}` are bound to overlapping memory",
                x.slots[j].name, x.slots[i].name
            )));
        }
        if let Some(&(a, _)) = x.fixed.iter().find(|&&(a, n)| overlaps(a, n)) {
            return Err(Error::Graph(format!(
                "slot `{}` is bound to memory that overlaps the graph's buffer at {a:#x}",
                x.slots[i].name
            )));
        }
    }
    Ok(out)
}

fn bound_bytes(b: &Bindings, slot: usize) -> Option<Vec<u8>> {
    match b.get(crate::graph::SlotId(slot))? {
        Bound::Buffer { va, .. } => Some(va.to_le_bytes().to_vec()),
        Bound::Scalar(v) => Some(v.clone()),
        Bound::Size(g) => Some(g.to_le_bytes().to_vec()),
    }
}

fn bound_size(b: &Bindings, slot: usize) -> Option<u32> {
    match b.get(crate::graph::SlotId(slot))? {
        Bound::Size(g) => Some(*g),
        _ => None,
    }
}

/// Re-encode the nodes whose words depend on a launch size or a copy slot that changed.
fn reencode<B: Backend>(x: &mut GraphExec<'_, B>, b: &Bindings) -> Result<()> {
    for i in 0..x.reencode.len() {
        let n = x.reencode[i].node;
        let key: Vec<u64> = x
            .plan
            .feeds
            .iter()
            .filter(|f| f.node.0 == n)
            .map(|f| bound_bytes(b, f.slot.0).map_or(0, |v| v.iter().rev().fold(0, |a, &c| a << 8 | c as u64)))
            .collect();
        if x.reencode[i].key.as_ref() == Some(&key) {
            continue;
        }
        let words = encode_bound(x, i, b)?;
        let r = &x.reencode[i];
        if words.len() != r.len {
            return Err(Error::Graph(format!("{}: re-encoded to {} dwords, not {}", x.names[n], words.len(), r.len)));
        }
        let q = &x.queues[r.queue];
        let base = q.mem.va() + 4 * r.start as u64;
        // SAFETY: inside the queue's command buffer (the node's words), reached through its
        // device's port; the previous run completed (the epoch fence), so the GPU does not read it.
        unsafe { x.devices[q.at.device].port().write_words(base, &words)? };
        x.reencode[i].key = Some(key);
    }
    Ok(())
}

/// The words of re-encoded node `i` with the run's bindings (a kernel's argument block, which
/// the backend also writes its dispatch tail into, is rewritten first).
fn encode_bound<B: Backend>(x: &GraphExec<'_, B>, i: usize, b: &Bindings) -> Result<Vec<u32>> {
    let r = &x.reencode[i];
    let node = &x.nodes[r.node];
    let dev = x.devices[node.at.device];
    let mut enc = Enc::<B>::new(dev.backend(), node.at.queue)?;
    let named = |e: Error| Error::Graph(format!("{}: {e}", x.names[r.node]));
    match (&node.kind, &mut enc) {
        (NodeKind::Kernel(k), Enc::Compute(c)) => {
            let args = arg_values(k, &x.slots, &|s| bound_bytes(b, s));
            let shape = launch_of(k, &|s| bound_size(b, s));
            let block = dev.backend().args_block(k.program, &k.kernel, &args, &shape).map_err(named)?;
            let (va, reserved) = r.args.expect("a kernel node has an argument block");
            if block.size > reserved {
                return Err(named(Error::Graph(format!("{} bytes of arguments, {reserved} reserved", block.size))));
            }
            // SAFETY: the node's argument block (reserved at compile), reached through the
            // device's port; the previous run completed, so the GPU does not read it.
            unsafe { dev.port().write(va, &block.bytes).map_err(named)? };
            let mut drain = || dev.synchronize();
            dev.backend().encode_dispatch(c, k.program, &k.kernel, &shape, va, &mut drain).map_err(named)?;
        }
        (NodeKind::Copy { dst, src }, Enc::Copy(c)) => {
            let addr = |r: &crate::graph::Range| match r.buf {
                BufRef::Fixed(f) => f.va + r.offset,
                BufRef::Slot(s) => {
                    bound_bytes(b, s.0).map_or(0, |v| u64::from_le_bytes(v[..8].try_into().unwrap_or([0; 8])))
                        + r.offset
                }
            };
            crate::core::CopyEncoder::copy(c, addr(dst), addr(src), dst.bytes);
        }
        _ => return Err(named(Error::Graph("not a node its queue runs".into()))),
    }
    enc.e().finish()?;
    Ok(enc.e().words().to_vec())
}

/// Patch and submit, holding each device's lock from its timeline advance to its submissions.
fn submit<B: Backend>(x: &mut GraphExec<'_, B>, inputs: &[u64]) -> Result<()> {
    let mut guards = Vec::new();
    let mut timeline = vec![(0u64, 0u64); x.devices.len()];
    for (d, dev) in x.devices.iter().enumerate() {
        if !x.devs[d].used {
            continue;
        }
        let mut st = dev.state();
        dev.usable(&st)?;
        let v = st.timeline.advance();
        timeline[d] = (v, st.timeline.signal().value_addr() as u64);
        x.released[d] = v;
        guards.push((d, st));
    }
    let mut traced = Vec::new();
    let tracing = x.devices.iter().any(|d| d.trace().is_some());
    for s in x.table.sites.iter_mut() {
        let Class::PerRun(src) = s.class else { continue };
        let v = match src {
            Source::TimelineWait(d) => timeline[d].0 - 1,
            Source::TimelineSignal(d) => timeline[d].0,
            Source::TimelineAddr(d) => timeline[d].1,
            Source::Epoch => x.epoch,
            Source::Sync { signal, value } => x.signals[signal].base + value,
            Source::Input { slot, offset } => inputs[slot.0] + offset,
        };
        if s.last != Some(v) {
            // SAFETY: a site of the exec's command buffers or argument memory of device
            // `s.device` (reached through its port, 4-byte aligned); the previous run completed
            // (the epoch fence) or the queues were rebuilt after a fault, so the GPU does not read it.
            if let Err(e) = unsafe { s.word.store(x.devices[s.device].port(), v) } {
                x.faulted.store(true, Ordering::Relaxed);
                return Err(e);
            }
            s.last = Some(v);
            if tracing {
                traced.push(format!("{:#x} = {v:#x} ({src:?})", s.word.addr));
            }
        }
    }
    for q in &x.queues {
        q.progress.set(0);
    }
    // The patches are visible before any ring write that makes the GPU read them.
    fence(Ordering::SeqCst);
    if let Some(t) = x.devices.iter().find_map(|d| d.trace()) {
        t.lines(&format!("graph run {}: {} words patched", x.runs, traced.len()), traced);
    }
    for (d, mut st) in guards {
        let dev = x.devices[d];
        for q in x.queues.iter().filter(|q| q.at.device == d) {
            if let Err(e) = dev.submit_indirect_locked(&mut st, GraphExec::<B>::hw(q.at), q.mem.va(), q.dwords) {
                x.faulted.store(true, Ordering::Relaxed);
                return Err(e);
            }
        }
    }
    Ok(())
}
