//! The signal-only submission `bench launch` (a) measures, on every vendor: a one-node graph
//! (one release of a signal on the compute queue), compiled once and run again and again. It
//! is the same mechanism as every other graph: patched words, one doorbell per queue.

use super::generic::{Hcq, VendorDevice};
use super::SignalOnly;
use crate::Result;
use baregpu_runtime::core::{Backend, Device};
use baregpu_runtime::graph::{ExecOptions, GraphBuilder, GraphExec, QueueKey};
use baregpu_runtime::signal::Signal;

struct OneNode<'d, B: Backend> {
    dev: &'d Device<B>,
    exec: Option<GraphExec<'d, B>>,
    signal: Option<Signal>,
}

impl<B: Backend> SignalOnly for OneNode<'_, B> {
    fn how(&self) -> &'static str {
        "graph"
    }
    fn submit(&mut self) -> Result<()> {
        match &mut self.exec {
            Some(e) => Ok(e.run(&Default::default())?),
            None => Err(crate::Error::Usage("the signal-only graph is closed".into())),
        }
    }
    fn wait(&self) -> Result<()> {
        match &self.exec {
            Some(e) => Ok(e.wait()?),
            None => Ok(()),
        }
    }
    fn close(mut self: Box<Self>) -> Result<()> {
        let r = self.wait();
        drop(self.exec.take());
        if let Some(s) = self.signal.take() {
            self.dev.free_signal(s);
        }
        r
    }
}

/// A one-node graph that releases a signal of the device's own on its compute queue.
pub(super) fn one_node<B: Backend>(h: &Hcq<B>) -> Result<Box<dyn SignalOnly + '_>>
where
    Device<B>: VendorDevice,
{
    let dev = &h.dev;
    let signal = dev.new_signal()?;
    let mut g = GraphBuilder::<&B::Program>::new();
    let ext = g.external("signal-only");
    g.signal_external(QueueKey::compute(0), ext, 1, vec![]);
    match GraphExec::compile_with(&g.build(), &[dev], &[&signal], ExecOptions::default()) {
        Ok(exec) => Ok(Box::new(OneNode { dev, exec: Some(exec), signal: Some(signal) })),
        Err(e) => {
            dev.free_signal(signal);
            Err(e.into())
        }
    }
}
