//! KFD events: the signal event whose mailbox slot the GPU writes to wake a sleeping host, and
//! the memory-fault and hardware-exception events that report a GPU's death.

use super::device::{Kfd, KfdDevice};
use super::ioctl::{kfd_call, IoctlArg};
use crate::{Error, Result};
use baregpu_autogen::amd::kfd as abi;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Signal,
    MemoryFault,
    HwException,
}

impl EventKind {
    fn abi(self) -> u32 {
        match self {
            EventKind::Signal => abi::KFD_IOC_EVENT_SIGNAL,
            EventKind::MemoryFault => abi::KFD_IOC_EVENT_MEMORY,
            EventKind::HwException => abi::KFD_IOC_EVENT_HW_EXCEPTION,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KfdEvent {
    pub id: u32,
    pub kind: EventKind,
    /// Index of the event's 8-byte slot in the event page (signal events).
    pub slot: u32,
}

/// A GPU page fault as KFD reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFault {
    pub gpu_id: u32,
    pub va: u64,
    pub not_present: bool,
    pub read_only: bool,
    pub no_execute: bool,
    pub imprecise: bool,
}

impl fmt::Display for MemoryFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut why = Vec::new();
        if self.not_present {
            why.push("page not present");
        }
        if self.read_only {
            why.push("write to a read-only page");
        }
        if self.no_execute {
            why.push("execute of a no-execute page");
        }
        if why.is_empty() {
            why.push("access violation");
        }
        write!(f, "memory fault at VA {:#x} ({})", self.va, why.join(", "))?;
        if self.imprecise {
            write!(f, " (imprecise address)")?;
        }
        Ok(())
    }
}

/// A hardware exception (reset) as KFD reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HwException {
    pub gpu_id: u32,
    pub whole_gpu_reset: bool,
    pub ecc: bool,
    pub memory_lost: bool,
}

impl fmt::Display for HwException {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "hardware exception: {} after {}{}",
            if self.whole_gpu_reset { "GPU reset" } else { "engine reset" },
            if self.ecc { "an ECC error" } else { "a hang" },
            if self.memory_lost { ", device memory lost" } else { "" }
        )
    }
}

/// What one WAIT_EVENTS call saw.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WaitOutcome {
    /// An event fired before the timeout.
    pub fired: bool,
    pub memory_fault: Option<MemoryFault>,
    pub hw_exception: Option<HwException>,
}

impl KfdDevice {
    /// Create an event. Signal events on the first call also need the event page:
    /// `event_page` is its allocation handle, given once per process.
    pub fn create_event(&self, kind: EventKind, auto_reset: bool, event_page: Option<u64>) -> Result<KfdEvent> {
        let mut a = abi::kfd_ioctl_create_event_args::zeroed();
        a.event_type = kind.abi();
        a.auto_reset = auto_reset as u32;
        a.node_id = self.gpu.node;
        a.event_page_offset = event_page.unwrap_or(0);
        kfd_call!(self.os(), self.kfd.fd, AMDKFD_IOC_CREATE_EVENT, &mut a)?;
        Ok(KfdEvent { id: a.event_id, kind, slot: a.event_slot_index })
    }

    pub fn destroy_event(&self, event: KfdEvent) -> Result<()> {
        let mut a = abi::kfd_ioctl_destroy_event_args { event_id: event.id, pad: 0 };
        kfd_call!(self.os(), self.kfd.fd, AMDKFD_IOC_DESTROY_EVENT, &mut a).map(|_| ())
    }
}

impl Kfd {
    /// Sleep until any of `events` fires or `timeout_ms` passes, and collect the fault reports
    /// carried by memory-fault and hardware-exception events.
    pub fn wait_events(&self, events: &[KfdEvent], timeout_ms: u32) -> Result<WaitOutcome> {
        let mut data: Vec<abi::kfd_event_data> = events
            .iter()
            .map(|e| {
                let mut d = abi::kfd_event_data::zeroed();
                d.event_id = e.id;
                d
            })
            .collect();
        let mut a = abi::kfd_ioctl_wait_events_args {
            events_ptr: data.as_mut_ptr() as u64,
            num_events: data.len() as u32,
            wait_for_all: 0,
            timeout: timeout_ms,
            wait_result: 0,
        };
        kfd_call!(self.os(), self.fd, AMDKFD_IOC_WAIT_EVENTS, &mut a)?;
        let mut out = WaitOutcome { fired: a.wait_result == abi::KFD_IOC_WAIT_RESULT_COMPLETE, ..Default::default() };
        if a.wait_result == abi::KFD_IOC_WAIT_RESULT_FAIL {
            return Err(Error::Protocol("AMDKFD_IOC_WAIT_EVENTS: the wait failed".into()));
        }
        for (e, d) in events.iter().zip(&data) {
            match e.kind {
                EventKind::MemoryFault => {
                    // SAFETY: KFD fills the memory_exception_data member for memory events.
                    let m = unsafe { d.__bindgen_anon_1.memory_exception_data };
                    if m.gpu_id != 0 {
                        out.memory_fault = Some(MemoryFault {
                            gpu_id: m.gpu_id,
                            va: m.va,
                            not_present: m.failure.NotPresent != 0,
                            read_only: m.failure.ReadOnly != 0,
                            no_execute: m.failure.NoExecute != 0,
                            imprecise: m.failure.imprecise != 0,
                        });
                    }
                }
                EventKind::HwException => {
                    // SAFETY: KFD fills the hw_exception_data member for hardware-exception events.
                    let h = unsafe { d.__bindgen_anon_1.hw_exception_data };
                    if h.gpu_id != 0 {
                        out.hw_exception = Some(HwException {
                            gpu_id: h.gpu_id,
                            whole_gpu_reset: h.reset_type == abi::KFD_HW_EXCEPTION_WHOLE_GPU_RESET,
                            ecc: h.reset_cause == abi::KFD_HW_EXCEPTION_ECC,
                            memory_lost: h.memory_lost != 0,
                        });
                    }
                }
                EventKind::Signal => {}
            }
        }
        Ok(out)
    }
}
