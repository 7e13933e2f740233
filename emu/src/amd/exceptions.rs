//! Queue exceptions: what a wave raised (a trap, an illegal instruction), recorded per queue as
//! the SQ interrupt handler records them for the runtime (KFD_EC_MASK bits of the queue's
//! exception status), and the AMDKFD_IOC_DBG_TRAP query that reads them back.

use super::EmuKfd;
use baregpu_autogen::amd::kfd as abi;

/// KFD_EC_MASK(code).
pub fn ec_mask(code: u32) -> u64 {
    1u64 << (code - 1)
}

impl EmuKfd {
    /// A wave of `queue_id` raised exception `code` (`EC_QUEUE_WAVE_*`).
    pub fn report_queue_exception(&self, queue_id: u32, code: u32) {
        *self.lock().proc.queue_exceptions.entry(queue_id).or_default() |= ec_mask(code);
    }

    /// AMDKFD_IOC_DBG_TRAP: QUERY_EXCEPTION_INFO of a queue exception (no info follows one),
    /// ENODATA when the queue did not raise it; the other operations are not emulated.
    pub(crate) fn dbg_trap(&self, a: &mut abi::kfd_ioctl_dbg_trap_args) -> Result<(), i32> {
        if a.op != abi::KFD_IOC_DBG_TRAP_QUERY_EXCEPTION_INFO {
            return Err(libc::EINVAL);
        }
        // SAFETY: every member of the union is plain data; the op says which one the caller filled.
        let q = unsafe { &mut a.__bindgen_anon_1.query_exception_info };
        if !(abi::EC_QUEUE_WAVE_ABORT..=abi::EC_QUEUE_PACKET_VENDOR_UNSUPPORTED).contains(&q.exception_code) {
            return Err(libc::EINVAL);
        }
        let mut st = self.lock();
        let status = st.proc.queue_exceptions.entry(q.source_id).or_default();
        let bit = ec_mask(q.exception_code);
        if *status & bit == 0 {
            return Err(libc::ENODATA);
        }
        if q.clear_exception != 0 {
            *status &= !bit;
        }
        q.info_size = 0;
        Ok(())
    }
}
