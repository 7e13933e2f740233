//! The emulated SMU's mailbox (MP1 C2PMSG_66 message, C2PMSG_82 argument, C2PMSG_90
//! response): every message is answered at once with OK, the argument register left as the
//! answer (the emulator has no clocks to report); a message written before the driver cleared
//! the previous response is answered "busy", as a driver that skips the handshake would see.
//! The debug mailbox (C2PMSG_75/53/54) answers the same way. A mode-1 reset request, as the
//! drivers' [`Mode1Reset`] for the chip's MP1 version spells it, is answered OK and reported to
//! the caller, which resets the chip.

/// C2PMSG numbers of the mailbox.
pub const MSG: u32 = 66;
pub const ARG: u32 = 82;
pub const RESP: u32 = 90;

/// `PPSMC_Result_OK` and `PPSMC_Result_CmdRejectedBusy` (smu_v13_0_0_ppsmc.h).
pub const RESULT_OK: u32 = 0x1;
pub const RESULT_BUSY: u32 = 0xfc;

pub use baregpu_drivers::amd::am::smu::{Mode1Reset, DEBUG_ARG, DEBUG_MSG, DEBUG_RESP};

#[derive(Debug, Default)]
pub struct Smu {
    /// (message, argument) of every message answered OK, in order.
    pub messages: Vec<(u32, u32)>,
    /// How this SMU's firmware takes a mode-1 reset (by its MP1 version).
    pub mode1: Option<Mode1Reset>,
}

impl Smu {
    /// Power-on: the mailbox has answered (RESP 1), ready for a message.
    pub fn reset(&mut self, set: &mut dyn FnMut(u32, u32)) {
        self.messages.clear();
        set(RESP, RESULT_OK);
    }

    /// A write of C2PMSG_`n` (already stored); `get` reads the mailbox as it was before.
    /// Returns whether the message asks for a mode-1 reset.
    pub fn written(&mut self, n: u32, v: u32, get: &dyn Fn(u32) -> u32, set: &mut dyn FnMut(u32, u32)) -> bool {
        let (resp, arg) = match n {
            MSG => (RESP, ARG),
            DEBUG_MSG => (DEBUG_RESP, DEBUG_ARG),
            _ => return false,
        };
        if get(resp) != 0 {
            log::debug!("emulated SMU: message {v:#x} without clearing the previous response");
            set(resp, RESULT_BUSY);
            return false;
        }
        let a = get(arg);
        self.messages.push((v, a));
        set(resp, RESULT_OK);
        match self.mode1 {
            Some(Mode1Reset::Debug(m)) => n == DEBUG_MSG && v == m,
            Some(Mode1Reset::Message { msg, arg }) => n == MSG && v == msg && a == arg,
            None => false,
        }
    }
}
