//! Queue exceptions: what a queue's waves raised (a trap, an illegal instruction), which KFD
//! records per queue from the SQ's interrupt and answers through AMDKFD_IOC_DBG_TRAP's
//! QUERY_EXCEPTION_INFO. A hardware-exception event says only that the engine was reset; this
//! says why the queue stopped. A kernel that refuses the query (no debugger attached) leaves
//! the cause unknown.

use super::device::KfdDevice;
use super::ioctl::{kfd_call, IoctlArg};
use baregpu_autogen::amd::kfd as abi;
use std::fmt;

/// The wave exceptions a runtime can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueException {
    Trap,
    IllegalInstruction,
    MathError,
    Abort,
}

impl QueueException {
    const ALL: [QueueException; 4] =
        [QueueException::IllegalInstruction, QueueException::Trap, QueueException::MathError, QueueException::Abort];

    fn code(self) -> u32 {
        match self {
            QueueException::Trap => abi::EC_QUEUE_WAVE_TRAP,
            QueueException::IllegalInstruction => abi::EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION,
            QueueException::MathError => abi::EC_QUEUE_WAVE_MATH_ERROR,
            QueueException::Abort => abi::EC_QUEUE_WAVE_ABORT,
        }
    }
}

impl fmt::Display for QueueException {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QueueException::Trap => "a wave trapped (s_trap: __builtin_trap or a failed assert)",
            QueueException::IllegalInstruction => "a wave executed an illegal instruction",
            QueueException::MathError => "a wave raised a math exception",
            QueueException::Abort => "a wave aborted",
        })
    }
}

impl KfdDevice {
    /// The exception queue `queue_id` raised, if the kernel says (and clears it).
    pub fn queue_exception(&self, queue_id: u32) -> Option<QueueException> {
        QueueException::ALL.into_iter().find(|e| {
            let mut a = abi::kfd_ioctl_dbg_trap_args::zeroed();
            a.pid = std::process::id();
            a.op = abi::KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO;
            a.__bindgen_anon_1.query_exception_info = abi::kfd_ioctl_dbg_trap_query_exception_info_args {
                info_ptr: 0,
                info_size: 0,
                source_id: queue_id,
                exception_code: e.code(),
                clear_exception: 1,
            };
            kfd_call!(self.os(), self.kfd.fd, AMDKFD_IOC_DBG_TRAP, &mut a).is_ok()
        })
    }
}
