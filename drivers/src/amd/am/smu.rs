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
}
