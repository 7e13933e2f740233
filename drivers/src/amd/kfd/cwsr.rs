//! Sizes of the per-queue buffers KFD requires for a compute queue: the context save/restore
//! (CWSR) area, its control stack, the debugger area and the EOP buffer. Since Linux 6.12 the
//! kernel publishes them in the topology (`cwsr_size`, `ctl_stack_size`) and refuses a queue whose
//! control-stack size differs; older kernels do not, so the formulas of the kernel's
//! `kfd_queue_ctx_save_restore_size` (6.12) are mirrored here as the fallback.

use super::super::topology::Properties;

const PAGE: u64 = 4096;
const SGPR_SIZE_PER_CU: u64 = 0x4000;
const LDS_SIZE_PER_CU: u64 = 0x10000;
const HWREG_SIZE_PER_CU: u64 = 0x1000;
const DEBUGGER_BYTES_PER_WAVE: u64 = 32;
const DEBUGGER_BYTES_ALIGN: u64 = 64;
const CONTEXT_SAVE_AREA_HEADER: u64 = 40;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueBufferSizes {
    /// `ctx_save_restore_size` of CREATE_QUEUE: one XCC's save area.
    pub ctx_save_restore: u64,
    pub ctl_stack: u64,
    /// Debugger memory after each XCC's save area.
    pub debug_memory: u64,
    /// The whole CWSR allocation: (save area + debugger memory) per XCC, page-aligned.
    pub cwsr_alloc: u64,
    /// The EOP buffer: one per queue, the same size whatever the XCC count (the kernel
    /// requires exactly this size).
    pub eop: u64,
}

fn align(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

fn vgpr_size_per_cu(gfxv: u64) -> u64 {
    if gfxv / 100 * 100 == 90400 || gfxv == 90010 || gfxv == 90008 {
        0x80000
    } else if matches!(gfxv, 110000 | 110001 | 110501 | 120000 | 120001) {
        0x60000
    } else {
        0x40000
    }
}

/// The EOP buffer size KFD requires (`kfd_queue_ctx_save_restore_size`): 32 KiB on Tonga
/// (gfx 8.0.2), 4 KiB on every later GPU, gfx9.4.x (MI300) included.
fn eop_buffer_size(gfxv: u64) -> u64 {
    if gfxv == 80002 {
        0x8000
    } else {
        0x1000
    }
}

/// Buffer sizes for a compute queue on a GPU node with these topology properties.
/// `None` for a node that gives too little to compute them (no gfx_target_version, no SIMDs).
pub fn queue_buffer_sizes(props: &Properties) -> Option<QueueBufferSizes> {
    let gfxv = props.get("gfx_target_version")?;
    let simd_per_cu = props.get("simd_per_cu").filter(|&v| v > 0)?;
    let num_xcc = props.get("num_xcc").unwrap_or(1).max(1);
    let cu_num = props.get("simd_count")? / simd_per_cu / num_xcc;
    let wave_num = if gfxv < 100100 {
        let se =
            props.get("array_count").unwrap_or(0) / props.get("simd_arrays_per_engine").filter(|&v| v > 0).unwrap_or(1);
        (cu_num * 40).min(se * 512)
    } else {
        cu_num * 32
    };
    let wg_data =
        align(cu_num * (vgpr_size_per_cu(gfxv) + SGPR_SIZE_PER_CU + LDS_SIZE_PER_CU + HWREG_SIZE_PER_CU), PAGE);
    let bytes_per_wave = if gfxv >= 100100 { 12 } else { 8 };
    let mut ctl_stack = align(CONTEXT_SAVE_AREA_HEADER + wave_num * bytes_per_wave + 8, PAGE);
    if gfxv / 10000 * 10000 == 100000 {
        ctl_stack = ctl_stack.min(0x7000); // gfx10 hardware limit
    }
    let debug_memory = align(wave_num * DEBUGGER_BYTES_PER_WAVE, DEBUGGER_BYTES_ALIGN);
    // The kernel's own figures win where it publishes them.
    let ctl_stack = props.get("ctl_stack_size").filter(|&v| v > 0).unwrap_or(ctl_stack);
    let ctx_save_restore = props.get("cwsr_size").filter(|&v| v > 0).unwrap_or(ctl_stack + wg_data);
    Some(QueueBufferSizes {
        ctx_save_restore,
        ctl_stack,
        debug_memory,
        cwsr_alloc: align((ctx_save_restore + debug_memory) * num_xcc, PAGE),
        eop: eop_buffer_size(gfxv),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn props(text: &str) -> Properties {
        Properties::parse(Path::new("properties"), text).unwrap()
    }

    #[test]
    fn gfx1100_with_96_cus() {
        // 7900 XTX: 96 CUs, 2 SIMDs each. Worked by hand from kfd_queue.c:
        // waves = 96*32 = 3072; wg_data = 96 * (0x60000+0x4000+0x10000+0x1000) = 0x75000 * 96 = 0x2be0000;
        // ctl = align(40 + 3072*12 + 8 = 36912, 4096) = 0xa000; debug = 3072*32 = 0x18000.
        let s = queue_buffer_sizes(&props("gfx_target_version 110000\nsimd_count 192\nsimd_per_cu 2\n")).unwrap();
        assert_eq!(s.ctl_stack, 0xa000);
        assert_eq!(s.ctx_save_restore, 0xa000 + 0x2be_0000);
        assert_eq!(s.debug_memory, 0x18000);
        assert_eq!(s.cwsr_alloc, 0xa000 + 0x2be_0000 + 0x18000);
        assert_eq!(s.eop, 4096);
    }

    #[test]
    fn gfx942_per_xcc_and_wave_cap() {
        // MI300X: 304 CUs over 8 XCCs (38 each), 4 SIMDs per CU; 8 SEs... array_count 32, 4 arrays/SE.
        let s = queue_buffer_sizes(&props(
            "gfx_target_version 90402\nsimd_count 1216\nsimd_per_cu 4\nnum_xcc 8\narray_count 32\nsimd_arrays_per_engine 4\n",
        ))
        .unwrap();
        // 38 CUs per XCC: waves = min(38*40, 8*512) = 1520; ctl = align(40+1520*8+8, 4096) = 0x3000.
        assert_eq!(s.ctl_stack, 0x3000);
        let wg = (38 * (0x80000 + 0x4000 + 0x10000 + 0x1000) as u64).div_ceil(4096) * 4096;
        assert_eq!(s.ctx_save_restore, 0x3000 + wg);
        assert_eq!(s.debug_memory, 1520 * 32);
        assert_eq!(s.cwsr_alloc, ((0x3000 + wg + 1520 * 32) * 8).div_ceil(4096) * 4096);
    }

    #[test]
    fn published_sizes_win_and_gfx10_caps_the_control_stack() {
        let s = queue_buffer_sizes(&props(
            "gfx_target_version 110000\nsimd_count 192\nsimd_per_cu 2\nctl_stack_size 12288\ncwsr_size 999424\n",
        ))
        .unwrap();
        assert_eq!((s.ctl_stack, s.ctx_save_restore), (12288, 999424));
        let navi = queue_buffer_sizes(&props("gfx_target_version 100100\nsimd_count 160\nsimd_per_cu 2\n")).unwrap();
        assert_eq!(navi.ctl_stack, 0x7000);
        assert!(queue_buffer_sizes(&props("simd_count 4\n")).is_none());
    }

    #[test]
    fn eop_is_per_queue_not_per_xcc() {
        let tonga = queue_buffer_sizes(&props("gfx_target_version 80002\nsimd_count 128\nsimd_per_cu 4\n")).unwrap();
        assert_eq!(tonga.eop, 0x8000);
        let mi300 = props("gfx_target_version 90402\nsimd_count 1216\nsimd_per_cu 4\nnum_xcc 8\narray_count 32\n");
        assert_eq!(queue_buffer_sizes(&mi300).unwrap().eop, 0x1000);
    }
}
