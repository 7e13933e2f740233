//! Register tables from `include/asic_reg/<ip>/<ip>_<ver>_offset.h` and `_sh_mask.h`, filtered by
//! name rules per block: what a compute driver, a KFD emulator and a userspace PCI driver (MEC/HQD
//! setup, IH, SDMA ring bring-up, HDP flush, doorbells, VM faults) touch.

use super::cdefs;
use super::{const_item, doc, file, glob, kernel, list, module_head};
use crate::inputs::{Input, Inputs};
use crate::Generated;
use std::collections::BTreeMap;

const R: &str = "drivers/gpu/drm/amd/include/asic_reg";

macro_rules! reg_input {
    ($path:literal, $sha:literal) => {
        kernel(concat!("drivers/gpu/drm/amd/include/asic_reg/", $path), $sha)
    };
}

const GC_9_4_3_OFF: Input =
    reg_input!("gc/gc_9_4_3_offset.h", "dd6b804a3c5ff085201d26a21ad7eee181b4a77c34467936785f875f6df173dd");
const GC_9_4_3_SH: Input =
    reg_input!("gc/gc_9_4_3_sh_mask.h", "e5b931d70ecd47c6506ba1b5533dccb652105b3521173aebd940c8bca77fa828");
const GC_11_0_0_OFF: Input =
    reg_input!("gc/gc_11_0_0_offset.h", "a2394677509a3415a9e6307d876cae9cd654a99275ab40b3027d983da26801f2");
const GC_11_0_0_SH: Input =
    reg_input!("gc/gc_11_0_0_sh_mask.h", "83dd0060886da2927e3f722b992af208e4d41999b0740123a770a6561f060c94");
const GC_12_0_0_OFF: Input =
    reg_input!("gc/gc_12_0_0_offset.h", "f8d6635bda0624f5c4d5a2690c41cbd17ae92e24cde1203d69cc314860011e93");
const GC_12_0_0_SH: Input =
    reg_input!("gc/gc_12_0_0_sh_mask.h", "571b966b6b65668522cceab66ea4addab6ed5c6599e3dbfbc1ea6308b9cee339");
const NBIO_7_9_0_OFF: Input =
    reg_input!("nbio/nbio_7_9_0_offset.h", "6e79be98995e520ac42926107b46c6a7efe9368d897159b433238035808fc547");
const NBIO_7_9_0_SH: Input =
    reg_input!("nbio/nbio_7_9_0_sh_mask.h", "f149487f229828d7191f7b8a07625cef8e801df85454e73fa51803638d94506a");
const NBIO_4_3_0_OFF: Input =
    reg_input!("nbio/nbio_4_3_0_offset.h", "8d76c511512e3a8e82ef527b6f528fba819dd00b351a9892dde61c8537247ca6");
const NBIO_4_3_0_SH: Input =
    reg_input!("nbio/nbio_4_3_0_sh_mask.h", "18df5043b0a75e29054a87b709236dbbf9002b9b28c459d468c8e465fd03f1db");
const NBIF_6_3_1_OFF: Input =
    reg_input!("nbif/nbif_6_3_1_offset.h", "ab0c94329d8a3f5d0ffe3ddaab61889f9ae8ceb5b0faa2256c5891ad5fc8b6c2");
const NBIF_6_3_1_SH: Input =
    reg_input!("nbif/nbif_6_3_1_sh_mask.h", "91f42e3c371dec7700f8915590ba72ae64beccd199754573ceb11fc4a48095a0");
const OSSSYS_4_4_2_OFF: Input =
    reg_input!("oss/osssys_4_4_2_offset.h", "fc725af35e5d6b718f43a2fb6384db2fdc7b50fe463b2a1ea20b6cd4c840286f");
const OSSSYS_4_4_2_SH: Input =
    reg_input!("oss/osssys_4_4_2_sh_mask.h", "9b307f5d4a2ec61c9e6716940edab4acc85a0412a95513802bc4f97e7930ea73");
const OSSSYS_6_0_0_OFF: Input =
    reg_input!("oss/osssys_6_0_0_offset.h", "f10bdeaba9c30c062b96e34cd0af04d9e234b3822e2f175153a70e2bd2503307");
const OSSSYS_6_0_0_SH: Input =
    reg_input!("oss/osssys_6_0_0_sh_mask.h", "68167e52369e0a00b30dd3bae62f7ffcf6bd1bd859aadc84b30c21b6b1ce7a16");
const OSSSYS_7_0_0_OFF: Input =
    reg_input!("oss/osssys_7_0_0_offset.h", "450c3fb837c7a7150b79821b7258bcf9f7c53685a5ea7532c1d55cf9baecd7a5");
const OSSSYS_7_0_0_SH: Input =
    reg_input!("oss/osssys_7_0_0_sh_mask.h", "f0e34a47158375862f1e4a7f4e23f6353d618884cc3ddff24dac3ee01b47494a");
const SDMA_4_4_2_OFF: Input =
    reg_input!("sdma/sdma_4_4_2_offset.h", "407529bb901c09c91ba048902b4b830071dd87b5aa2275e9eec5b615d2732d8c");
const SDMA_4_4_2_SH: Input =
    reg_input!("sdma/sdma_4_4_2_sh_mask.h", "4b5f41ff64639a5554ce380a40e7a872bab2a67505d8fca442d11ec09f153803");

const MMHUB_3_0_0_OFF: Input =
    reg_input!("mmhub/mmhub_3_0_0_offset.h", "b0ddff6c2f9f36ce4708d5a6ad3e66c4b8ce565cb68a141323f4556ce6f5315c");
const MMHUB_3_0_0_SH: Input =
    reg_input!("mmhub/mmhub_3_0_0_sh_mask.h", "698478e5ecacad56385ccb1206ded5496f5983d28ce2f637e94fd84e757760c2");
const MMHUB_1_8_0_OFF: Input =
    reg_input!("mmhub/mmhub_1_8_0_offset.h", "0bdedfa154fbcc4302051314e9c2feb36cc8c05201f6e5643a3951ee406bc503");
const MMHUB_1_8_0_SH: Input =
    reg_input!("mmhub/mmhub_1_8_0_sh_mask.h", "0163a0413e0d0044586c59a8006b5af1d42fbf6904678732ce5aff8abd06fa8e");
const MP_13_0_0_OFF: Input =
    reg_input!("mp/mp_13_0_0_offset.h", "4a13a703b649d4f323928c00e57de91571f4aea087c60c93d90353054a513d51");
const MP_13_0_0_SH: Input =
    reg_input!("mp/mp_13_0_0_sh_mask.h", "2d14c396ade643b421dd1d8918bc5eaf46f01a61bf502c92d0c003398f5c7d7e");
const MP_13_0_6_OFF: Input =
    reg_input!("mp/mp_13_0_6_offset.h", "675f2a13b15d420a7b06a30f6efbbfb89f46c50381c6b70076f15ae01ce95663");
const MP_13_0_6_SH: Input =
    reg_input!("mp/mp_13_0_6_sh_mask.h", "db65b5b30445b40bdd56bdc16cfc4ef308dbd5420ad44f2531350c87f46ecca8");
const HDP_6_0_0_OFF: Input =
    reg_input!("hdp/hdp_6_0_0_offset.h", "806a2c1cc80813d22b9ec25da9af8ca9d4a7eb7c0fc5ec0f62d1ea25ae256c72");
const HDP_6_0_0_SH: Input =
    reg_input!("hdp/hdp_6_0_0_sh_mask.h", "c54f8f680b68941ee74445dbb438c2958ba97629e3be7d630219cac6b9067fd6");
const HDP_4_4_2_OFF: Input =
    reg_input!("hdp/hdp_4_4_2_offset.h", "30fd681586b3b09e10683c72c9a6334d384791cc64c92945555da0afe76dfbbf");
const HDP_4_4_2_SH: Input =
    reg_input!("hdp/hdp_4_4_2_sh_mask.h", "2ae5a0f2f430c03b695500e3437e46378e96c27eec4ef9c516b692ad1bf6c763");

/// GC registers a compute driver, KFD emulator and AM-style PCI driver use.
const GC_INCLUDE: &[&str] = &[
    "COMPUTE_*",
    // CP: compute queues (HQD/MQD), MEC/ME/PFP microengines, status and interrupt controls.
    "CP_HQD_*",
    "CP_MQD_*",
    "CP_MEC_*",
    "CP_MEC1_*",
    "CP_MEC2_*",
    "CP_ME1_*",
    "CP_ME2_*",
    "CP_ME_*",
    "CP_PFP_*",
    "CP_CPC_*",
    "CP_CPF_*",
    "CP_STAT",
    "CP_BUSY_STAT",
    "CP_INT_CNTL*",
    "CP_INT_STATUS*",
    "CP_EOP_*",
    "CP_PQ_*",
    "CP_IQ_*",
    "CP_HYP_*",
    "CP_COHER_*",
    "CP_RB_WPTR_POLL_*",
    "CP_SOFT_RESET_CNTL",
    "CP_DEVICE_ID",
    "CPC_*",
    "CPF_*",
    "CPG_*",
    "GRBM_*",
    "SH_MEM_*",
    // SPI: compute dispatch configuration and debug.
    "SPI_GDBG_*",
    "SPI_CONFIG_*",
    "SPI_COMPUTE_*",
    "SPI_WCL_*",
    "SPI_ARB_*",
    "SPI_CSQ_*",
    "SPI_DEBUG_*",
    "SQ_*",
    // RLC: run control, clock/power gating, GPU clock counter, bootload status.
    "RLC_CNTL",
    "RLC_STAT",
    "RLC_SAFE_MODE",
    "RLC_SRM_CNTL",
    "RLC_SPM_MC_CNTL",
    "RLC_RLCS_BOOTLOAD_STATUS",
    "RLC_CP_SCHEDULERS",
    "RLC_CGCG_*",
    "RLC_CGTT_*",
    "RLC_PG_*",
    "RLC_GPM_UCODE_*",
    "RLC_GPM_STAT",
    "RLC_GPM_THREAD_*",
    "RLC_LB_*",
    "RLC_GPU_CLOCK_*",
    "RLC_CAPTURE_GPU_CLOCK_COUNT*",
    "RLC_REFCLOCK_TIMESTAMP_*",
    // GPU virtual memory (GCVM_/GCMC_ on gfx10+, VM_/MC_VM_ on gfx9).
    "GCVM_*",
    "GCMC_*",
    "VM_*",
    "MC_VM_*",
    // SDMA engine 0 (gfx11/gfx12 keep it in GC), first queue.
    "SDMA0_*",
    "SCRATCH_REG*",
    "GB_ADDR_CONFIG*",
    "TCP_CNTL*",
    "TCP_UTCL1_CNTL*",
    "GCUTCL2_*",
    "UTCL1_*",
];

/// Performance counters, error-correction reporting, the ISA encodings that the gfx9 headers list
/// as SQ registers, and the SDMA queues that only the firmware scheduler uses.
const GC_EXCLUDE: &[&str] = &[
    "*PERFCOUNTER*",
    "*PERFMON*",
    "*_PERF_*",
    "*_EDC_*",
    "*_DSM_*",
    "*_UE_ERR_*",
    "*_CE_ERR_*",
    "SQ_THREAD_TRACE_*",
    "SQ_TT_*",
    "SQ_VOP*",
    "SQ_SOP*",
    "SQ_SMEM*",
    "SQ_SMRD*",
    "SQ_FLAT*",
    "SQ_MIMG*",
    "SQ_MTBUF*",
    "SQ_MUBUF*",
    "SQ_DS*",
    "SQ_EXP*",
    "SQ_VINTRP*",
    "SQ_INST_*",
    "SQ_IMG_*",
    "SQ_LB_*",
    "SDMA0_QUEUE1_*",
    "SDMA0_QUEUE2_*",
    "SDMA0_QUEUE3_*",
    "SDMA0_QUEUE4_*",
    "SDMA0_QUEUE5_*",
    "SDMA0_QUEUE6_*",
    "SDMA0_QUEUE7_*",
];

const NBIO_INCLUDE: &[&str] = &[
    "BIF_BX_PF*_GPU_HDP_FLUSH_*",
    "BIF_BX_DEV0_EPF0_VF0_GPU_HDP_FLUSH_*",
    "BIF_BX_PF*_HDP_MEM_COHERENCY_FLUSH_CNTL",
    "BIF_BX_DEV0_EPF0_VF0_HDP_MEM_COHERENCY_FLUSH_CNTL",
    "BIF_BX0_REMAP_HDP_*",
    "BIF_BX_PF*_MM_INDEX*",
    "BIF_BX_PF*_MM_DATA",
    "BIF_BX_PF*_RSMU_*",
    "BIF_BX_PF*_DOORBELL_SELFRING_*",
    "BIF_BX_PF*_PARTITION_*",
    "BIF_BX0_BIF_DOORBELL_INT_CNTL",
    "BIF_BX0_BIF_FB_EN",
    "BIF_BX0_INTERRUPT_CNTL*",
    "BIF_BX0_PCIE_INDEX2*",
    "BIF_BX0_PCIE_DATA2",
    "BIF_BX0_BACO_CNTL",
    "BIFC_DOORBELL_ACCESS_EN_PF",
    "BIFC_GFX_INT_MONITOR_MASK",
    "RCC_DEV0_EPF0_RCC_CONFIG_MEMSIZE",
    "RCC_DEV0_EPF0_RCC_DOORBELL_APER_EN",
    "RCC_DEV0_EPF2_STRAP2",
    "RCC_STRAP0_RCC_DEV0_EPF0_STRAP0",
    "DOORBELL0_CTRL_ENTRY_*",
    "S2A_DOORBELL_ENTRY_*",
    "GDC_S2A0_S2A_DOORBELL_ENTRY_*",
    "XCC_DOORBELL_FENCE",
];

/// OSSSYS: the IH (interrupt handler) rings and their controls.
const IH_INCLUDE: &[&str] = &["IH_*"];
const IH_EXCLUDE: &[&str] = &["*PERFCOUNTER*", "*PERFMON*", "IH_DSM_*", "IH_*_EDC_*"];

/// SDMA 4.4.2 (MI300): the engine-0 instance names, GFX ring and page queue, controls.
const SDMA_INCLUDE: &[&str] = &["SDMA_*"];
const SDMA_EXCLUDE: &[&str] =
    &["*PERFCOUNTER*", "*PERFMON*", "*_PERF_*", "SDMA_RLC*", "*_EDC_*", "SDMA_UE_*", "SDMA_CE_*"];

/// MMHUB: the multimedia hub's VM (context0 page tables, L2, invalidation engines, apertures,
/// fault status) — `MMVM_`/`MMMC_VM_` on MMHUB 3.x, `VM_`/`MC_VM_` on MMHUB 1.8.
const MMHUB_INCLUDE: &[&str] =
    &["MMVM_*", "MMMC_VM_*", "MMUTCL2_*", "MMVML2_*", "VM_*", "MC_VM_*", "UTCL2_*", "VML2_*"];
const MMHUB_EXCLUDE: &[&str] = &["*PERFCOUNTER*", "*PERFMON*", "*_PERF_*", "*_EDC_*", "*_DSM_*"];

/// MP0 (PSP: bootloader and KM ring mailboxes) and MP1 (SMU message mailbox, firmware flags).
const MP_INCLUDE: &[&str] = &["MP0_SMN_C2PMSG_*", "MP1_SMN_C2PMSG_*", "MP1_FIRMWARE_FLAGS"];

/// HDP: the host data path (read-cache invalidate, memory coherency flush, controls).
const HDP_INCLUDE: &[&str] = &["HDP_*"];
const HDP_EXCLUDE: &[&str] = &["*PERFCOUNTER*", "*PERFMON*", "*_EDC_*", "HDP_XDP_D2H_RSVD_*"];

struct Block {
    module: &'static str,
    title: &'static str,
    offset: &'static Input,
    sh_mask: &'static Input,
    include: &'static [&'static str],
    exclude: &'static [&'static str],
}

const BLOCKS: &[Block] = &[
    Block {
        module: "gc_9_4_3",
        title: "GC 9.4.3 (gfx942, MI300): graphics/compute core",
        offset: &GC_9_4_3_OFF,
        sh_mask: &GC_9_4_3_SH,
        include: GC_INCLUDE,
        exclude: GC_EXCLUDE,
    },
    Block {
        module: "gc_11_0_0",
        title: "GC 11.0.0 (gfx1100, RDNA3): graphics/compute core, including the SDMA0 registers",
        offset: &GC_11_0_0_OFF,
        sh_mask: &GC_11_0_0_SH,
        include: GC_INCLUDE,
        exclude: GC_EXCLUDE,
    },
    Block {
        module: "gc_12_0_0",
        title: "GC 12.0.0 (gfx1200, RDNA4): graphics/compute core, including the SDMA0 registers",
        offset: &GC_12_0_0_OFF,
        sh_mask: &GC_12_0_0_SH,
        include: GC_INCLUDE,
        exclude: GC_EXCLUDE,
    },
    Block {
        module: "nbio_7_9_0",
        title: "NBIO 7.9.0 (MI300 gfx942; gfx950): HDP flush, MMIO index/data, doorbell routing",
        offset: &NBIO_7_9_0_OFF,
        sh_mask: &NBIO_7_9_0_SH,
        include: NBIO_INCLUDE,
        exclude: &[],
    },
    Block {
        module: "nbio_4_3_0",
        title: "NBIO 4.3.0 (gfx11): HDP flush, MMIO index/data, doorbell routing",
        offset: &NBIO_4_3_0_OFF,
        sh_mask: &NBIO_4_3_0_SH,
        include: NBIO_INCLUDE,
        exclude: &[],
    },
    Block {
        module: "nbif_6_3_1",
        title: "NBIF 6.3.1 (gfx12): HDP flush, MMIO index/data, doorbell routing",
        offset: &NBIF_6_3_1_OFF,
        sh_mask: &NBIF_6_3_1_SH,
        include: NBIO_INCLUDE,
        exclude: &[],
    },
    Block {
        module: "osssys_4_4_2",
        title: "OSSSYS 4.4.2 (MI300 gfx942): interrupt handler (IH) rings",
        offset: &OSSSYS_4_4_2_OFF,
        sh_mask: &OSSSYS_4_4_2_SH,
        include: IH_INCLUDE,
        exclude: IH_EXCLUDE,
    },
    Block {
        module: "osssys_6_0_0",
        title: "OSSSYS 6.0.0 (gfx11): interrupt handler (IH) rings",
        offset: &OSSSYS_6_0_0_OFF,
        sh_mask: &OSSSYS_6_0_0_SH,
        include: IH_INCLUDE,
        exclude: IH_EXCLUDE,
    },
    Block {
        module: "osssys_7_0_0",
        title: "OSSSYS 7.0.0 (gfx12): interrupt handler (IH) rings",
        offset: &OSSSYS_7_0_0_OFF,
        sh_mask: &OSSSYS_7_0_0_SH,
        include: IH_INCLUDE,
        exclude: IH_EXCLUDE,
    },
    Block {
        module: "sdma_4_4_2",
        title: "SDMA 4.4.2 (MI300 gfx942): SDMA engine registers (per-instance bases from IP discovery)",
        offset: &SDMA_4_4_2_OFF,
        sh_mask: &SDMA_4_4_2_SH,
        include: SDMA_INCLUDE,
        exclude: SDMA_EXCLUDE,
    },
    Block {
        module: "mmhub_3_0_0",
        title: "MMHUB 3.0.0 (gfx1100): multimedia hub VM (page tables, L2, invalidation, faults)",
        offset: &MMHUB_3_0_0_OFF,
        sh_mask: &MMHUB_3_0_0_SH,
        include: MMHUB_INCLUDE,
        exclude: MMHUB_EXCLUDE,
    },
    Block {
        module: "mmhub_1_8_0",
        title: "MMHUB 1.8.0 (MI300 gfx942): multimedia hub VM (page tables, L2, invalidation, faults)",
        offset: &MMHUB_1_8_0_OFF,
        sh_mask: &MMHUB_1_8_0_SH,
        include: MMHUB_INCLUDE,
        exclude: MMHUB_EXCLUDE,
    },
    Block {
        module: "mp_13_0_0",
        title: "MP 13.0.0 (gfx1100): PSP (MP0) and SMU (MP1) mailboxes",
        offset: &MP_13_0_0_OFF,
        sh_mask: &MP_13_0_0_SH,
        include: MP_INCLUDE,
        exclude: &[],
    },
    Block {
        module: "mp_13_0_6",
        title: "MP 13.0.6 (MI300 gfx942): PSP (MP0) and SMU (MP1) mailboxes",
        offset: &MP_13_0_6_OFF,
        sh_mask: &MP_13_0_6_SH,
        include: MP_INCLUDE,
        exclude: &[],
    },
    Block {
        module: "hdp_6_0_0",
        title: "HDP 6.0.0 (gfx1100): host data path",
        offset: &HDP_6_0_0_OFF,
        sh_mask: &HDP_6_0_0_SH,
        include: HDP_INCLUDE,
        exclude: HDP_EXCLUDE,
    },
    Block {
        module: "hdp_4_4_2",
        title: "HDP 4.4.2 (MI300 gfx942): host data path",
        offset: &HDP_4_4_2_OFF,
        sh_mask: &HDP_4_4_2_SH,
        include: HDP_INCLUDE,
        exclude: HDP_EXCLUDE,
    },
];

struct Reg {
    name: String,
    offset: String,
    base_idx: u32,
    fields: Vec<(String, u32, u32)>,
}

pub fn generate(inputs: &Inputs) -> Result<Vec<Generated>, String> {
    let mut out = vec![file("src/amd/regs/mod.rs", mod_rs())];
    for b in BLOCKS {
        out.push(file(&format!("src/amd/regs/{}.rs", b.module), block(inputs, b)?));
    }
    out.push(file("src/amd/regs/gc_9_5_0.rs", gc_9_5_0()));
    Ok(out)
}

fn selected(b: &Block, name: &str) -> bool {
    b.include.iter().any(|p| glob(p, name)) && !b.exclude.iter().any(|p| glob(p, name))
}

fn block(inputs: &Inputs, b: &Block) -> Result<String, String> {
    let off_text = inputs.read(b.offset)?;
    let sh_text = inputs.read(b.sh_mask)?;
    let mut regs: Vec<Reg> = Vec::new();
    let mut base_idx: BTreeMap<String, u32> = BTreeMap::new();
    for d in cdefs::parse_defines(&off_text) {
        let Some(name) = d.name.strip_prefix("reg") else { continue };
        if d.params.is_some() || d.body.is_empty() {
            continue;
        }
        let v = cdefs::parse_int(&d.body).ok_or_else(|| format!("{}: `{}` is not a literal", b.offset.path, d.name))?;
        if let Some(reg) = name.strip_suffix("_BASE_IDX") {
            if base_idx.insert(reg.to_string(), v as u32).is_some() {
                return Err(format!("{}: `{}` twice", b.offset.path, d.name));
            }
        } else if selected(b, name) {
            let offset = format!("{v:#06x}");
            regs.push(Reg { name: name.to_string(), offset, base_idx: 0, fields: Vec::new() });
        }
    }
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for (i, r) in regs.iter_mut().enumerate() {
        r.base_idx = *base_idx.get(&r.name).ok_or_else(|| format!("{}: no BASE_IDX for {}", b.offset.path, r.name))?;
        if index.insert(r.name.clone(), i).is_some() {
            return Err(format!("{}: register {} twice", b.offset.path, r.name));
        }
    }
    // Fields: `REG__FIELD__SHIFT` and `REG__FIELD_MASK`, paired in header order.
    let mut shifts: BTreeMap<(String, String), u32> = BTreeMap::new();
    for d in cdefs::parse_defines(&sh_text) {
        let Some((reg, rest)) = d.name.split_once("__") else { continue };
        let Some(&ri) = index.get(reg) else { continue };
        let v =
            cdefs::parse_int(&d.body).ok_or_else(|| format!("{}: `{}` is not a literal", b.sh_mask.path, d.name))?;
        if let Some(field) = rest.strip_suffix("__SHIFT") {
            shifts.insert((reg.to_string(), field.to_string()), v as u32);
        } else if let Some(field) = rest.strip_suffix("_MASK") {
            let shift = *shifts
                .get(&(reg.to_string(), field.to_string()))
                .ok_or_else(|| format!("{}: {} without a __SHIFT", b.sh_mask.path, d.name))?;
            let mask = u32::try_from(v).map_err(|_| format!("{}: {} wider than 32 bits", b.sh_mask.path, d.name))?;
            if mask == 0 || (mask >> shift) << shift != mask || ((mask >> shift) & (mask >> shift).wrapping_add(1)) != 0
            {
                return Err(format!(
                    "{}: {} = {mask:#x} is not a contiguous field at bit {shift}",
                    b.sh_mask.path, d.name
                ));
            }
            let fields = &mut regs[ri].fields;
            if fields.iter().any(|f| f.0 == field) {
                return Err(format!("{}: field {} twice", b.sh_mask.path, d.name));
            }
            fields.push((field.to_string(), shift, mask));
        } else {
            return Err(format!("{}: `{}` is neither __SHIFT nor _MASK", b.sh_mask.path, d.name));
        }
    }
    let nfields: usize = regs.iter().map(|r| r.fields.len()).sum();
    let mut s = module_head(
        &[b.offset, b.sh_mask],
        &format!(
            "{}.\n\n\
Registers of `{}` and their fields from `{}`, selected by name: included\n\
`{}`{}.\n\n\
{} registers, {nfields} fields. Each register is a [`Reg`] constant `reg<NAME>` (dword offset within its\n\
segment, the segment `base_idx`, its fields) and a module `<NAME>` with one [`Field`] constant per field\n\
(a register whose fields equal an earlier register's, such as the per-VMID or per-queue copies, names\n\
that register's module through `pub use`); [`REGS`] lists them all for lookups by name.",
            b.title,
            b.offset.path.strip_prefix(R).unwrap_or(b.offset.path).trim_start_matches('/'),
            b.sh_mask.path.strip_prefix(R).unwrap_or(b.sh_mask.path).trim_start_matches('/'),
            b.include.join("`, `"),
            if b.exclude.is_empty() { String::new() } else { format!(", excluded `{}`", b.exclude.join("`, `")) },
            regs.len(),
        ),
    );
    s.push_str("\nuse super::{Field, Reg};\n");
    // Registers with the same fields as an earlier one (the per-VMID, per-queue, per-engine
    // copies) share its field module through a `pub use` alias.
    let mut first_with: BTreeMap<&[(String, u32, u32)], &str> = BTreeMap::new();
    for r in &regs {
        s.push('\n');
        let same = if r.fields.is_empty() { None } else { first_with.get(r.fields.as_slice()).copied() };
        let fields = match same {
            _ if r.fields.is_empty() => "&[]".to_string(),
            Some(orig) => format!("{orig}::FIELDS"),
            None => format!("{}::FIELDS", r.name),
        };
        const_item(
            &mut s,
            0,
            &format!("reg{}", r.name),
            "Reg",
            &format!("Reg::new(\"{}\", {}, {}, {fields})", r.name, r.offset, r.base_idx),
        );
        if r.fields.is_empty() {
            continue;
        }
        if let Some(orig) = same {
            s.push_str(&format!("pub use {orig} as {};\n", r.name));
            continue;
        }
        first_with.insert(r.fields.as_slice(), r.name.as_str());
        s.push_str(&format!("pub mod {} {{\n    use super::Field;\n", r.name));
        for (f, shift, mask) in &r.fields {
            if f == "FIELDS" {
                return Err(format!("{}: field named FIELDS", r.name));
            }
            const_item(&mut s, 4, f, "Field", &format!("Field::new(\"{f}\", {shift}, {mask:#010x})"));
        }
        let names: Vec<String> = r.fields.iter().map(|f| f.0.clone()).collect();
        list(&mut s, 4, "pub const FIELDS: &[Field] =", &names, ";");
        s.push_str("}\n");
    }
    s.push('\n');
    doc(&mut s, 0, "Every register of this block, in header order.");
    let names: Vec<String> = regs.iter().map(|r| format!("reg{}", r.name)).collect();
    list(&mut s, 0, "pub static REGS: &[Reg] =", &names, ";");
    Ok(s)
}

fn gc_9_5_0() -> String {
    let mut s = module_head(
        &[&GC_9_4_3_OFF, &GC_9_4_3_SH],
        "GC 9.5.0 (gfx950, MI350-class): the GC 9.4.3 registers.\n\n\
Linux 6.12 ships no `gc_9_5_0_offset.h`/`_sh_mask.h`, and its IP discovery binds no gfx block to\n\
GC 9.5.0 (`amdgpu_discovery.c` sends GC 9.4.3 and 9.4.4 to `gfx_v9_4_3_ip_block`; `gfx_v9_4_3.c` has no\n\
`IP_VERSION(9, 5, 0)` case). The only mention of 9.5.0 is in `soc15.c`, inside the GC 9.4.3/9.4.4\n\
(aqua_vanjaram) branch of `soc15_common_early_init`, where it only changes `external_rev_id`: the kernel\n\
treats 9.5.0 as a member of the 9.4.3 family. This module therefore re-exports [`super::gc_9_4_3`];\n\
registers or fields that differ on 9.5.0 hardware are not represented.",
    );
    s.push_str("\npub use super::gc_9_4_3::*;\n");
    s
}

fn mod_rs() -> String {
    let mut s = module_head(
        &[],
        "AMD register tables, one module per IP block and version, filtered from the kernel's\n\
`asic_reg` headers (see each module's doc for its selection rules).\n\n\
A register is addressed by a dword `offset` inside one of its IP's segments (`base_idx`); the absolute\n\
MMIO dword address is `base[base_idx] + offset`, where `base` is the IP instance's segment table: from IP\n\
discovery at run time, or the static tables in [`super::ip_base`] for the layouts they describe.",
    );
    s.push_str(
        r#"
pub mod gc_11_0_0;
pub mod gc_12_0_0;
pub mod gc_9_4_3;
pub mod gc_9_5_0;
pub mod hdp_4_4_2;
pub mod hdp_6_0_0;
pub mod mmhub_1_8_0;
pub mod mmhub_3_0_0;
pub mod mp_13_0_0;
pub mod mp_13_0_6;
pub mod nbif_6_3_1;
pub mod nbio_4_3_0;
pub mod nbio_7_9_0;
pub mod osssys_4_4_2;
pub mod osssys_6_0_0;
pub mod osssys_7_0_0;
pub mod sdma_4_4_2;

/// A register: its name, dword offset within segment `base_idx` of its IP, and its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reg {
    pub name: &'static str,
    pub offset: u32,
    pub base_idx: u32,
    pub fields: &'static [Field],
}

impl Reg {
    pub const fn new(name: &'static str, offset: u32, base_idx: u32, fields: &'static [Field]) -> Reg {
        Reg { name, offset, base_idx, fields }
    }

    /// Absolute MMIO dword address given the IP instance's segment bases; `None` if the table
    /// has no such segment.
    pub fn addr(&self, bases: &[u32]) -> Option<u32> {
        bases.get(self.base_idx as usize).map(|b| b + self.offset)
    }

    /// A field by name.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// A register field: `mask` is in place (already shifted), as in the `_MASK` macros.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub shift: u32,
    pub mask: u32,
}

impl Field {
    pub const fn new(name: &'static str, shift: u32, mask: u32) -> Field {
        Field { name, shift, mask }
    }

    /// The field's value in a register value.
    pub const fn get(&self, reg: u32) -> u32 {
        (reg & self.mask) >> self.shift
    }

    /// `value` placed in the field (bits outside the field dropped).
    pub const fn val(&self, value: u32) -> u32 {
        (value << self.shift) & self.mask
    }

    /// `reg` with the field replaced by `value`.
    pub const fn set(&self, reg: u32, value: u32) -> u32 {
        (reg & !self.mask) | self.val(value)
    }
}

/// Finds a register by name (without the `reg` prefix) in a block's `REGS`.
pub fn find(regs: &'static [Reg], name: &str) -> Option<&'static Reg> {
    regs.iter().find(|r| r.name == name)
}
"#,
    );
    s
}
