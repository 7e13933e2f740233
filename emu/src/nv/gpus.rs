//! The NVIDIA boards the emulated RM models: what NV_ESC_CARD_INFO, /proc/driver/nvidia, the
//! class list and the GR/MC controls report for each. Figures are the real boards' (SM counts,
//! memory, PCI ids); the GR "litter" values are the full die's, as RM reports them.

use baregpu_drivers::nv::cbank0;
use baregpu_drivers::nv::rm::classes::*;
use baregpu_drivers::nv::rm::ctrl::*;

/// One emulated board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvGpuSpec {
    /// `sm_90`, `sm_89`, `sm_120`.
    pub arch: &'static str,
    pub model: &'static str,
    pub pci_device_id: u16,
    /// NV2080_CTRL_CMD_MC_GET_ARCH_INFO.
    pub architecture: u32,
    pub implementation: u32,
    /// NV2080_CTRL_GR_INFO_INDEX_SM_VERSION (0x900; GB20x reports 0xa04).
    pub sm_version: u32,
    pub sm_count: u32,
    pub gpcs: u32,
    pub tpc_per_gpc: u32,
    pub sm_per_tpc: u32,
    pub max_warps_per_sm: u32,
    pub memory_bytes: u64,
    /// What NV0080_CTRL_CMD_GPU_GET_CLASSLIST lists.
    pub classes: &'static [u32],
    /// The compute class: decides the QMD layout and the constant-bank parameter offset.
    pub compute_class: u32,
}

const GIB: u64 = 1 << 30;

/// Classes every supported chip lists (g_gpu_class_list.c lists many more; these are the ones
/// a compute client meets).
const COMMON: [u32; 13] = [
    NV01_ROOT,
    NV01_ROOT_CLIENT,
    NV01_DEVICE_0,
    NV20_SUBDEVICE_0,
    NV01_MEMORY_SYSTEM,
    NV01_MEMORY_LOCAL_USER,
    NV01_MEMORY_VIRTUAL,
    NV01_MEMORY_SYSTEM_OS_DESCRIPTOR,
    FERMI_CONTEXT_SHARE_A,
    FERMI_VASPACE_A,
    GT200_DEBUGGER,
    KEPLER_CHANNEL_GROUP_A,
    baregpu_drivers::nv::rm::event::NV01_EVENT_OS_EVENT,
];

macro_rules! class_list {
    ($($c:expr),* $(,)?) => {{
        const EXTRA: &[u32] = &[$($c),*];
        const N: usize = COMMON.len() + EXTRA.len();
        const fn join() -> [u32; N] {
            let mut out = [0u32; N];
            let mut i = 0;
            while i < COMMON.len() {
                out[i] = COMMON[i];
                i += 1;
            }
            let mut j = 0;
            while j < EXTRA.len() {
                out[i + j] = EXTRA[j];
                j += 1;
            }
            out
        }
        const LIST: [u32; N] = join();
        &LIST
    }};
}

const GH100: &[u32] = class_list!(
    VOLTA_USERMODE_A,
    TURING_USERMODE_A,
    AMPERE_USERMODE_A,
    HOPPER_USERMODE_A,
    VOLTA_CHANNEL_GPFIFO_A,
    TURING_CHANNEL_GPFIFO_A,
    AMPERE_CHANNEL_GPFIFO_A,
    HOPPER_CHANNEL_GPFIFO_A,
    HOPPER_COMPUTE_A,
    HOPPER_DMA_COPY_A,
);
const AD102: &[u32] = class_list!(
    VOLTA_USERMODE_A,
    TURING_USERMODE_A,
    AMPERE_USERMODE_A,
    VOLTA_CHANNEL_GPFIFO_A,
    TURING_CHANNEL_GPFIFO_A,
    AMPERE_CHANNEL_GPFIFO_A,
    ADA_COMPUTE_A,
    AMPERE_DMA_COPY_A,
    AMPERE_DMA_COPY_B,
);
const GB202: &[u32] = class_list!(
    VOLTA_USERMODE_A,
    TURING_USERMODE_A,
    AMPERE_USERMODE_A,
    HOPPER_USERMODE_A,
    BLACKWELL_USERMODE_A,
    AMPERE_CHANNEL_GPFIFO_A,
    HOPPER_CHANNEL_GPFIFO_A,
    BLACKWELL_CHANNEL_GPFIFO_A,
    BLACKWELL_CHANNEL_GPFIFO_B,
    BLACKWELL_COMPUTE_B,
    BLACKWELL_DMA_COPY_A,
    BLACKWELL_DMA_COPY_B,
);

impl NvGpuSpec {
    /// The board of an architecture (`sm_90`, `sm_89`, `sm_120`; `emu-nv:` prefix accepted).
    pub fn for_arch(arch: &str) -> Option<NvGpuSpec> {
        let arch = arch.strip_prefix("emu-nv:").unwrap_or(arch);
        Some(match arch {
            "sm_90" => NvGpuSpec {
                arch: "sm_90",
                model: "NVIDIA H200",
                pci_device_id: 0x2335,
                architecture: NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GH100,
                implementation: 0,
                sm_version: 0x900,
                sm_count: 132,
                gpcs: 8,
                tpc_per_gpc: 9,
                sm_per_tpc: 2,
                max_warps_per_sm: 64,
                memory_bytes: 141 * GIB,
                classes: GH100,
                compute_class: HOPPER_COMPUTE_A,
            },
            "sm_89" => NvGpuSpec {
                arch: "sm_89",
                model: "NVIDIA GeForce RTX 4090",
                pci_device_id: 0x2684,
                architecture: NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_AD100,
                implementation: 2,
                sm_version: 0x809,
                sm_count: 128,
                gpcs: 12,
                tpc_per_gpc: 6,
                sm_per_tpc: 2,
                max_warps_per_sm: 48,
                memory_bytes: 24 * GIB,
                classes: AD102,
                compute_class: ADA_COMPUTE_A,
            },
            "sm_120" => NvGpuSpec {
                arch: "sm_120",
                model: "NVIDIA GeForce RTX 5090",
                pci_device_id: 0x2b85,
                architecture: NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GB200,
                implementation: 2,
                sm_version: 0xa04,
                sm_count: 170,
                gpcs: 12,
                tpc_per_gpc: 8,
                sm_per_tpc: 2,
                max_warps_per_sm: 48,
                memory_bytes: 32 * GIB,
                classes: GB202,
                compute_class: BLACKWELL_COMPUTE_B,
            },
            _ => return None,
        })
    }

    /// The QMD major version its compute class takes (3 Ampere/Ada, 4 Hopper, 5 Blackwell).
    pub fn qmd_version(&self) -> u32 {
        match self.compute_class {
            c if c >= BLACKWELL_COMPUTE_A => 5,
            HOPPER_COMPUTE_A => 4,
            _ => 3,
        }
    }

    /// Where the kernel parameters start in constant bank 0 (`EIATTR_PARAM_CBANK`): 0x160 on
    /// sm_8x, 0x210 on sm_90, 0x380 on Blackwell.
    pub fn cbank_param_offset(&self) -> u64 {
        cbank0::bank0(self.sm()).params as u64
    }

    /// The XY of `sm_XY`.
    pub fn sm(&self) -> u32 {
        self.arch.strip_prefix("sm_").and_then(|n| n.parse().ok()).unwrap_or(0)
    }
}
