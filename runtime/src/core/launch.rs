//! Work ordered on the device timeline: launches (optionally bracketed by timestamps), markers
//! and copies. Each waits for the timeline's previous value and signals the next.

use super::{Backend, Device, DeviceBuffer};
use crate::program::{ArgValue, Launch};
use crate::signal::Signal;
use crate::Result;

/// The host-side record of a submitted launch. Give it back with [`Device::release`].
#[derive(Debug)]
pub struct Submitted {
    /// Timeline value that marks its completion.
    pub value: u64,
    start: Option<Signal>,
    end: Option<Signal>,
}

impl<B: Backend> Device<B> {
    /// Launch `kernel` of `prog`, ordered on the device timeline. With `profile` the launch is
    /// bracketed by GPU timestamps. On any error nothing is submitted and the timestamp signals
    /// go back to the pool.
    pub fn launch(
        &self,
        prog: &B::Program,
        kernel: &str,
        args: &[ArgValue],
        shape: &Launch,
        profile: bool,
    ) -> Result<Submitted> {
        let mut stamps = Vec::new();
        if profile {
            for _ in 0..2 {
                match self.new_signal() {
                    Ok(s) => stamps.push(s),
                    Err(e) => {
                        stamps.into_iter().for_each(|s| self.free_signal(s));
                        return Err(e);
                    }
                }
            }
        }
        match self.launch_on_timeline(prog, kernel, args, shape, &stamps) {
            Ok(value) => {
                let mut it = stamps.into_iter();
                Ok(Submitted { value, start: it.next(), end: it.next() })
            }
            Err(e) => {
                stamps.into_iter().for_each(|s| self.free_signal(s));
                Err(e)
            }
        }
    }

    fn launch_on_timeline(
        &self,
        prog: &B::Program,
        kernel: &str,
        args: &[ArgValue],
        shape: &Launch,
        stamps: &[Signal],
    ) -> Result<u64> {
        let mut q = self.compute_queue()?;
        let value = q.st.timeline.advance();
        let timeline = q.st.timeline.signal().clone();
        q.wait(&timeline, value - 1).memory_barrier();
        if let Some(s) = stamps.first() {
            q.timestamp(s);
        }
        if let Err(e) = q.exec(prog, kernel, args, shape) {
            // Nothing reached the ring: take the timeline value back.
            q.st.timeline.jump_to(value);
            return Err(e);
        }
        if let Some(s) = stamps.get(1) {
            q.timestamp(s);
        }
        q.signal(&timeline, value);
        q.submit()?;
        Ok(value)
    }

    /// A signal-only submission on the timeline (wait for the last value, release the next): its
    /// completion means everything before it is done. Returns its timeline value.
    pub fn marker(&self) -> Result<u64> {
        let mut q = self.compute_queue()?;
        let value = q.st.timeline.advance();
        let timeline = q.st.timeline.signal().clone();
        q.wait(&timeline, value - 1).signal(&timeline, value);
        q.submit()?;
        Ok(value)
    }

    /// Copy `bytes` between buffers on the copy engine (through the CPU where the device has
    /// none), ordered on the device timeline.
    pub fn copy(&self, dst: &B::Buffer, dst_off: u64, src: &B::Buffer, src_off: u64, bytes: u64) -> Result<()> {
        for (b, o) in [(dst, dst_off), (src, src_off)] {
            if o.checked_add(bytes).is_none_or(|e| e > b.size()) {
                return Err(self.err(format!("copy of {bytes} bytes at {o} exceeds a {}-byte buffer", b.size())));
            }
        }
        if self.backend.copy_encoder().is_none() {
            self.synchronize()?;
            let mut tmp = vec![0u8; bytes as usize];
            self.read(src, src_off, &mut tmp)?;
            return self.write(dst, dst_off, &tmp);
        }
        let mut q = self.copy_queue()?;
        let value = q.st.timeline.advance();
        let timeline = q.st.timeline.signal().clone();
        q.wait(&timeline, value - 1).copy(dst.va() + dst_off, src.va() + src_off, bytes).signal(&timeline, value);
        q.submit().map(|_| ())
    }

    /// GPU time of a profiled launch, in microseconds (after synchronize).
    pub fn elapsed_us(&self, s: &Submitted) -> Option<f64> {
        let (a, b) = (s.start.as_ref()?.timestamp(), s.end.as_ref()?.timestamp());
        (b >= a && a != 0).then(|| (b - a) as f64 * 1e6 / B::TIMESTAMP_HZ as f64)
    }

    /// Return a launch's timestamp signals to the pool.
    pub fn release(&self, s: Submitted) {
        let mut st = self.state();
        st.free_signals.extend(s.start);
        st.free_signals.extend(s.end);
    }
}
