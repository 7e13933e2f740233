//! The firmware types of the PSP's `LOAD_IP_FW` command (`enum psp_gfx_fw_type`, `psp_gfx_if.h`,
//! linux-source-6.12): what each payload becomes once the PSP has it.

/// `GFX_FW_TYPE_*` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GfxFwType(pub u32);

macro_rules! fw_types {
    ($($name:ident = $v:expr),* $(,)?) => {
        impl GfxFwType {
            $(pub const $name: GfxFwType = GfxFwType($v);)*

            /// The name after `GFX_FW_TYPE_`, for traces and errors.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $($v => Some(stringify!($name)),)*
                    _ => None,
                }
            }
        }
    };
}

fw_types! {
    CP_ME = 1,
    CP_PFP = 2,
    CP_CE = 3,
    CP_MEC = 4,
    CP_MEC_ME1 = 5,
    CP_MEC_ME2 = 6,
    RLC_V = 7,
    RLC_G = 8,
    SDMA0 = 9,
    SDMA1 = 10,
    SMU = 18,
    RLC_RESTORE_LIST_GPM_MEM = 20,
    RLC_RESTORE_LIST_SRM_MEM = 21,
    RLC_RESTORE_LIST_SRM_CNTL = 22,
    TOC = 24,
    RLC_P = 25,
    RLC_IRAM = 26,
    GLOBAL_TAP_DELAYS = 27,
    SE0_TAP_DELAYS = 28,
    SE1_TAP_DELAYS = 29,
    RLC_DRAM_BOOT = 48,
    SDMA2 = 52,
    SDMA3 = 53,
    SDMA4 = 54,
    SDMA5 = 55,
    SDMA6 = 56,
    SDMA7 = 57,
    SE2_TAP_DELAYS = 65,
    SE3_TAP_DELAYS = 66,
    REG_LIST = 67,
    IMU_I = 68,
    IMU_D = 69,
    SDMA_UCODE_TH0 = 71,
    SDMA_UCODE_TH1 = 72,
    PPTABLE = 73,
    RS64_PFP = 87,
    RS64_ME = 88,
    RS64_MEC = 89,
    RS64_PFP_P0_STACK = 90,
    RS64_PFP_P1_STACK = 91,
    RS64_ME_P0_STACK = 92,
    RS64_ME_P1_STACK = 93,
    RS64_MEC_P0_STACK = 94,
    RS64_MEC_P1_STACK = 95,
    RS64_MEC_P2_STACK = 96,
    RS64_MEC_P3_STACK = 97,
    P2S_TABLE = 129,
}

impl std::fmt::Display for GfxFwType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name() {
            Some(n) => write!(f, "GFX_FW_TYPE_{n}"),
            None => write!(f, "GFX_FW_TYPE {}", self.0),
        }
    }
}
