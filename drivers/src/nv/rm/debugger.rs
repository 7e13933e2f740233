//! GT200_DEBUGGER (0x83de): the SM debugger session object and the two controls that say where a
//! faulting kernel went wrong — NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES (per-SM error
//! status registers and whether the channel took an MMU fault) and
//! NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO (the recorded MMU faults: address, fault type,
//! access type).
//!
//! Layouts from `class/cl83de.h` and `ctrl/ctrl83de/ctrl83dedebug.h` of open-gpu-kernel-modules
//! 580.65.06; both files are byte-identical in 570.195.03, 590.44.01 and 595.45.04, so the
//! structs live here rather than in a branch module. 610 is not in the mirror read (see
//! [`super::v610`]); nothing suggests a change there, but it is unverified.
//!
//! RM's side (580.65.06): `ksmdbgssnConstruct` (`kernel_sm_debugger_session.c`) wants the
//! session under a Device (`resource_list.h`), `hDebuggerClient_Obsolete` zero, and
//! `hClass3dObject` a graphics/compute object of `hAppClient` (0 = the caller); the MMU fault
//! list is what `kgrctxRecordMmuFault` kept for that object's context (a ring of 4).

#![allow(non_camel_case_types)]

use super::common::Handle;
use super::ioctl::rm_args;
use super::layout;

/// `NV83DE_ALLOC_PARAMETERS` (`class/cl83de.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV83DE_ALLOC_PARAMETERS {
    /// Must be 0 (the old interface; RM answers NV_ERR_INVALID_ARGUMENT otherwise).
    pub h_debugger_client_obsolete: Handle,
    /// The client owning the object to debug; 0 means the allocating client.
    pub h_app_client: Handle,
    /// The compute (or 3D) object whose channel is debugged.
    pub h_class3d_object: Handle,
}
layout!(NV83DE_ALLOC_PARAMETERS, 12, { h_debugger_client_obsolete: 0, h_app_client: 4, h_class3d_object: 8 });

/// `NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES` (`ctrl83dedebug.h`: interface 0x03, message 0x0c).
pub const NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES: u32 = 0x83de_030c;
/// `NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO` (`ctrl83dedebug.h`: interface 0x03, message 0x28).
pub const NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO: u32 = 0x83de_0328;

/// `NV83DE_CTRL_DEBUG_MAX_SMS_PER_CALL`: SMs one READ_ALL_SM_ERROR_STATES returns (more
/// through `startingSM`).
pub const NV83DE_CTRL_DEBUG_MAX_SMS_PER_CALL: usize = 100;
/// `NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_MAX_ENTRIES`.
pub const NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_MAX_ENTRIES: usize = 4;

/// `NV83DE_SM_ERROR_STATE_REGISTERS`: one SM's error status registers.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV83DE_SM_ERROR_STATE_REGISTERS {
    /// The SM's global error status (HWW_GLOBAL_ESR).
    pub hww_global_esr: u32,
    /// The warp error status (HWW_WARP_ESR); the error code is in bits 15:0.
    pub hww_warp_esr: u32,
    /// Low 32 bits of `hww_warp_esr_pc64` (deprecated).
    pub hww_warp_esr_pc: u32,
    pub hww_global_esr_report_mask: u32,
    pub hww_warp_esr_report_mask: u32,
    pub _pad0: u32,
    /// The address a memory-access warp error was about.
    pub hww_esr_addr: u64,
    /// The PC of the faulting warp instruction.
    pub hww_warp_esr_pc64: u64,
    pub hww_cga_esr: u32,
    pub hww_cga_esr_report_mask: u32,
}
layout!(NV83DE_SM_ERROR_STATE_REGISTERS, 48, {
    hww_global_esr: 0, hww_warp_esr: 4, hww_warp_esr_pc: 8, hww_global_esr_report_mask: 12,
    hww_warp_esr_report_mask: 16, hww_esr_addr: 24, hww_warp_esr_pc64: 32, hww_cga_esr: 40,
    hww_cga_esr_report_mask: 44
});

/// `NV83DE_MMU_FAULT_INFO`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV83DE_MMU_FAULT_INFO {
    /// `NvBool`: the channel took an MMU fault since the error states were last cleared.
    pub valid: u8,
    pub _pad0: [u8; 3],
    /// The first NV_PFIFO_INTR_MMU_FAULT_INFO of that fault.
    pub fault_info: u32,
}
layout!(NV83DE_MMU_FAULT_INFO, 8, { valid: 0, fault_info: 4 });

/// `NV83DE_CTRL_DEBUG_READ_ALL_SM_ERROR_STATES_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NV83DE_CTRL_DEBUG_READ_ALL_SM_ERROR_STATES_PARAMS {
    /// In: the channel.
    pub h_target_channel: Handle,
    /// In: how many SMs, from `starting_sm` (at most [`NV83DE_CTRL_DEBUG_MAX_SMS_PER_CALL`]).
    pub num_sms_to_read: u32,
    pub sm_error_state_array: [NV83DE_SM_ERROR_STATE_REGISTERS; NV83DE_CTRL_DEBUG_MAX_SMS_PER_CALL],
    /// Deprecated: `mmu_fault.fault_info`.
    pub mmu_fault_info: u32,
    pub mmu_fault: NV83DE_MMU_FAULT_INFO,
    /// In: the first SM to read.
    pub starting_sm: u32,
}
layout!(NV83DE_CTRL_DEBUG_READ_ALL_SM_ERROR_STATES_PARAMS, 4824, {
    h_target_channel: 0, num_sms_to_read: 4, sm_error_state_array: 8, mmu_fault_info: 4808, mmu_fault: 4812,
    starting_sm: 4820
});

/// `NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_ENTRY`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_ENTRY {
    pub fault_address: u64,
    /// RM's `FAULT_TYPE` (see [`crate::nv::fault::fault_type_name`]).
    pub fault_type: u32,
    /// `NV_PFAULT_ACCESS_TYPE_*` (see [`crate::nv::fault::access_type_name`]).
    pub access_type: u32,
}
layout!(NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_ENTRY, 16, { fault_address: 0, fault_type: 8, access_type: 12 });

/// `NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_PARAMS {
    pub mmu_fault_info_list:
        [NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_ENTRY; NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_MAX_ENTRIES],
    /// Out: valid entries of the list, oldest first.
    pub count: u32,
    pub _pad0: u32,
}
layout!(NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_PARAMS, 72, { mmu_fault_info_list: 0, count: 64 });

rm_args!(
    NV83DE_ALLOC_PARAMETERS,
    NV83DE_SM_ERROR_STATE_REGISTERS,
    NV83DE_MMU_FAULT_INFO,
    NV83DE_CTRL_DEBUG_READ_ALL_SM_ERROR_STATES_PARAMS,
    NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_ENTRY,
    NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_PARAMS,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_ids_are_the_debug_interface_messages() {
        // (class << 16) | (FINN_GT200_DEBUGGER_DEBUG_INTERFACE_ID (3) << 8) | message id.
        let cmd = |msg: u32| (0x83de << 16) | (0x03 << 8) | msg;
        assert_eq!(NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES, cmd(0x0c));
        assert_eq!(NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO, cmd(0x28));
        assert_eq!(super::super::classes::GT200_DEBUGGER, NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO >> 16);
        assert_eq!(
            super::super::ctrl::command_name(NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES),
            Some("NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES")
        );
    }

    #[test]
    fn the_sm_array_holds_the_per_call_maximum() {
        let p: NV83DE_CTRL_DEBUG_READ_ALL_SM_ERROR_STATES_PARAMS = super::super::ioctl::RmArg::zeroed();
        assert_eq!(p.sm_error_state_array.len(), NV83DE_CTRL_DEBUG_MAX_SMS_PER_CALL);
        let q = NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_PARAMS::default();
        assert_eq!(q.mmu_fault_info_list.len(), NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_MAX_ENTRIES);
    }
}
