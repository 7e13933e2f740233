//! The SMU (MP1) message mailbox: `C2PMSG_66` message, `C2PMSG_82` argument (and result),
//! `C2PMSG_90` response (`smu_v13_0_set_smu_mailbox_registers`, `smu_cmn_send_smc_msg_with_param`:
//! clear the response, write the argument, write the message, wait for a non-zero response,
//! 1 = OK). Message ids differ per SMU version, so they are data: [`SmuMessages`].

use super::mmio::{Ip, Mmio};
use crate::{Error, Result};
use std::time::Duration;

const SMU_TIMEOUT: Duration = Duration::from_secs(2);
/// `PPSMC_Result_OK`.
pub const RESULT_OK: u32 = 1;

/// The messages the AM boot sends, for one SMU version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SmuMessages {
    pub set_driver_dram_addr_high: u32,
    pub set_driver_dram_addr_low: u32,
    pub enable_all_features: u32,
}

/// `pmfw_if/smu_v13_0_0_ppsmc.h` (MP1 13.0.0, gfx1100).
pub const SMU_13_0_0: SmuMessages =
    SmuMessages { set_driver_dram_addr_high: 0xE, set_driver_dram_addr_low: 0xF, enable_all_features: 0x6 };
/// `pmfw_if/smu_v13_0_6_ppsmc.h` (MP1 13.0.6, MI300).
pub const SMU_13_0_6: SmuMessages =
    SmuMessages { set_driver_dram_addr_high: 0xD, set_driver_dram_addr_low: 0xE, enable_all_features: 0x5 };

impl SmuMessages {
    pub fn for_mp1(major: u8, minor: u8, rev: u8) -> Result<SmuMessages> {
        match (major, minor, rev) {
            (13, 0, 6) | (13, 0, 14) => Ok(SMU_13_0_6),
            (13, 0, _) | (14, 0, _) => Ok(SMU_13_0_0),
            _ => Err(Error::Unsupported(format!("SMU (MP1) {major}.{minor}.{rev}: no message table"))),
        }
    }
}

/// How an SMU is asked for a mode-1 (whole-chip) reset, by MP1 version (the `mode1_reset`
/// callbacks of linux's swsmu `smu_v13_0_0_ppt.c`, `smu_v13_0_7_ppt.c`, `smu_v13_0_6_ppt.c`,
/// `smu_v14_0_2_ppt.c`; tinygrad's `AM_SMU.mode1_reset`, which keys on MP0 — the same version on
/// these chips).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode1Reset {
    /// The debug mailbox ([`DEBUG_MSG`], [`DEBUG_ARG`], [`DEBUG_RESP`]) with message `0`:
    /// `DEBUGSMC_MSG_Mode1Reset` = 2 (MP1 13.0.0/13.0.7/13.0.10 and 14.x).
    Debug(u32),
    /// A message of the regular mailbox with its argument: `PPSMC_MSG_GfxDriverReset` (0x3,
    /// `smu_v13_0_6_ppsmc.h`) with `SMU_RESET_MODE_1` = 1 on MP1 13.0.6/13.0.12/13.0.14,
    /// `PPSMC_MSG_Mode1Reset` (0x2F, `smu_v13_0_0_ppsmc.h`) on the others.
    Message { msg: u32, arg: u32 },
}

/// `DEBUGSMC_MSG_Mode1Reset`.
pub const DEBUGSMC_MODE1_RESET: u32 = 2;
/// The debug mailbox: `MP1_SMN_C2PMSG_75` message, `_53` argument, `_54` response
/// (`smu_cmn_send_debug_smc_msg`; tinygrad's `_smu_cmn_send_msg(debug=True)`).
pub const DEBUG_MSG: u32 = 75;
pub const DEBUG_ARG: u32 = 53;
pub const DEBUG_RESP: u32 = 54;

impl Mode1Reset {
    pub fn for_mp1(major: u8, minor: u8, rev: u8) -> Mode1Reset {
        match (major, minor, rev) {
            (13, 0, 0 | 7 | 10) | (14.., _, _) => Mode1Reset::Debug(DEBUGSMC_MODE1_RESET),
            (13, 0, 6 | 12 | 14) => Mode1Reset::Message { msg: 0x3, arg: 1 },
            _ => Mode1Reset::Message { msg: 0x2F, arg: 0 },
        }
    }
}

/// Asks the SMU for a mode-1 reset and waits for its answer (the chip then resets: the caller
/// waits before touching it).
pub fn mode1_reset(mmio: &Mmio, how: Mode1Reset) -> Result<()> {
    match how {
        Mode1Reset::Message { msg, arg } => send(mmio, "Mode1Reset", msg, arg).map(drop),
        Mode1Reset::Debug(msg) => {
            let r = |n: u32| mmio.reg(Ip::Mp1, 0, &format!("MP1_SMN_C2PMSG_{n}"));
            mmio.trace_note(&format!("SMU debug Mode1Reset ({msg:#x})"));
            mmio.write(r(DEBUG_RESP)?, 0)?;
            mmio.write(r(DEBUG_ARG)?, 0)?;
            mmio.write(r(DEBUG_MSG)?, msg)?;
            mmio.poll(r(DEBUG_RESP)?, u32::MAX, RESULT_OK, SMU_TIMEOUT, "the SMU to answer the debug Mode1Reset")?;
            Ok(())
        }
    }
}

/// Whether the SMU firmware is running (its response register holds a previous answer).
pub fn alive(mmio: &Mmio) -> Result<bool> {
    Ok(mmio.read(mmio.reg(Ip::Mp1, 0, "MP1_SMN_C2PMSG_90")?)? != 0)
}

/// Sends `msg` with `arg`; returns the argument register afterwards (the message's result).
pub fn send(mmio: &Mmio, what: &str, msg: u32, arg: u32) -> Result<u32> {
    let resp = mmio.reg(Ip::Mp1, 0, "MP1_SMN_C2PMSG_90")?;
    let param = mmio.reg(Ip::Mp1, 0, "MP1_SMN_C2PMSG_82")?;
    mmio.trace_note(&format!("SMU {what} ({msg:#x}) arg {arg:#x}"));
    mmio.write(resp, 0)?;
    mmio.write(param, arg)?;
    mmio.write(mmio.reg(Ip::Mp1, 0, "MP1_SMN_C2PMSG_66")?, msg)?;
    let r = mmio.poll(resp, u32::MAX, RESULT_OK, SMU_TIMEOUT, &format!("the SMU to answer {what}"));
    match r {
        Ok(_) => mmio.read(param),
        Err(e) => {
            let got = mmio.read(resp)?;
            if got != 0 {
                Err(Error::Protocol(format!(
                    "{}: SMU message {what} ({msg:#x}) failed with response {got:#x}",
                    mmio.pci().name()
                )))
            } else {
                Err(e)
            }
        }
    }
}

/// The boot's SMU steps: the driver table address, then every feature on.
pub fn init(mmio: &Mmio, msgs: &SmuMessages, driver_table_mc: u64) -> Result<()> {
    send(mmio, "SetDriverDramAddrHigh", msgs.set_driver_dram_addr_high, (driver_table_mc >> 32) as u32)?;
    send(mmio, "SetDriverDramAddrLow", msgs.set_driver_dram_addr_low, driver_table_mc as u32)?;
    send(mmio, "EnableAllSmuFeatures", msgs.enable_all_features, 0)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amd::am::chip::GFX11;
    use crate::amd::am::testing::bound;

    #[test]
    fn a_message_writes_arg_then_msg_and_reads_the_answer() {
        let (pci, mmio) = bound(GFX11, RESULT_OK);
        // The fake keeps the 0 the driver writes to the response register: no SMU answers, so
        // the message times out with an error naming the register and the message.
        let e = send(&mmio, "TestMessage", 1, 7).unwrap_err().to_string();
        assert!(e.contains("regMP1_SMN_C2PMSG_90") && e.contains("TestMessage"), "{e}");
        let msg = mmio.reg(Ip::Mp1, 0, "MP1_SMN_C2PMSG_66").unwrap();
        let param = mmio.reg(Ip::Mp1, 0, "MP1_SMN_C2PMSG_82").unwrap();
        assert_eq!((pci.reg(msg.addr), pci.reg(param.addr)), (Some(1), Some(7)));
        assert_eq!(SmuMessages::for_mp1(13, 0, 6).unwrap(), SMU_13_0_6);
        assert!(SmuMessages::for_mp1(11, 0, 0).is_err());
    }

    #[test]
    fn mode1_reset_goes_to_the_debug_mailbox_on_13_0_0_and_is_gfx_driver_reset_on_13_0_6() {
        assert_eq!(Mode1Reset::for_mp1(13, 0, 0), Mode1Reset::Debug(2));
        assert_eq!(Mode1Reset::for_mp1(14, 0, 2), Mode1Reset::Debug(2));
        assert_eq!(Mode1Reset::for_mp1(13, 0, 6), Mode1Reset::Message { msg: 3, arg: 1 });
        assert_eq!(Mode1Reset::for_mp1(13, 0, 4), Mode1Reset::Message { msg: 0x2F, arg: 0 });
        // The debug message lands in C2PMSG_75 with its argument in _53; nothing answers in the
        // fake, so the wait names the response register.
        let (pci, mmio) = bound(GFX11, 0);
        let e = mode1_reset(&mmio, Mode1Reset::Debug(2)).unwrap_err().to_string();
        assert!(e.contains("C2PMSG_54"), "{e}");
        let r = |n: &str| mmio.reg(Ip::Mp1, 0, n).unwrap().addr;
        assert_eq!((pci.reg(r("MP1_SMN_C2PMSG_75")), pci.reg(r("MP1_SMN_C2PMSG_53"))), (Some(2), Some(0)));
    }
}
