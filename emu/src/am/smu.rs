//! The emulated SMU's mailbox (MP1 C2PMSG_66 message, C2PMSG_82 argument, C2PMSG_90
//! response): every message is answered at once with OK, the argument register left as the
//! answer (the emulator has no clocks to report); a message written before the driver cleared
//! the previous response is answered "busy", as a driver that skips the handshake would see.

/// C2PMSG numbers of the mailbox.
pub const MSG: u32 = 66;
pub const ARG: u32 = 82;
pub const RESP: u32 = 90;

/// `PPSMC_Result_OK` and `PPSMC_Result_CmdRejectedBusy` (smu_v13_0_0_ppsmc.h).
pub const RESULT_OK: u32 = 0x1;
pub const RESULT_BUSY: u32 = 0xfc;

#[derive(Debug, Default)]
pub struct Smu {
    /// (message, argument) of every message answered OK, in order.
    pub messages: Vec<(u32, u32)>,
}

impl Smu {
    /// Power-on: the mailbox has answered (RESP 1), ready for a message.
    pub fn reset(&mut self, set: &mut dyn FnMut(u32, u32)) {
        self.messages.clear();
        set(RESP, RESULT_OK);
    }

    /// A write of C2PMSG_`n` (already stored; `resp_before` is C2PMSG_90 before it).
    pub fn written(&mut self, n: u32, v: u32, get: &dyn Fn(u32) -> u32, set: &mut dyn FnMut(u32, u32)) {
        if n != MSG {
            return;
        }
        if get(RESP) != 0 {
            log::debug!("emulated SMU: message {v:#x} without clearing the previous response");
            set(RESP, RESULT_BUSY);
            return;
        }
        self.messages.push((v, get(ARG)));
        set(RESP, RESULT_OK);
    }
}
