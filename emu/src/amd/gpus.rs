//! The emulated AMD boards as amdkfd and amdgpu describe them: the KFD topology properties, the
//! IP versions of the discovery table, and the queue-buffer sizes the 6.12 kernel derives from
//! them (`kfd_queue_ctx_save_restore_size`).

use crate::catalog::{self, Vendor};

/// An IP block version (major, minor, revision) as the discovery table gives it.
pub type IpVersion = (u8, u8, u8);

/// One emulated board, with the figures its KFD topology node publishes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuSpec {
    /// `gfx1100`, ...
    pub arch: &'static str,
    pub board: &'static str,
    /// `gfx_target_version`: major*10000 + minor*100 + stepping.
    pub gfx_target_version: u32,
    /// PCI device id of the real board.
    pub device_id: u32,
    pub compute_units: u32,
    pub simd_per_cu: u32,
    /// Shader arrays of the whole device (the topology multiplies the per-XCC count by num_xcc).
    pub array_count: u32,
    pub simd_arrays_per_engine: u32,
    pub cu_per_simd_array: u32,
    pub max_waves_per_simd: u32,
    pub lds_size_in_kb: u32,
    pub wave_front_size: u32,
    pub num_xcc: u32,
    pub max_slots_scratch_cu: u32,
    pub num_sdma_engines: u32,
    pub num_sdma_xgmi_engines: u32,
    pub num_sdma_queues_per_engine: u32,
    pub num_cp_queues: u32,
    pub max_engine_clk_fcompute: u32,
    pub mem_clk_max: u32,
    pub vram_width: u32,
    pub vram_bytes: u64,
    pub gc: IpVersion,
    pub sdma: IpVersion,
    pub nbio: IpVersion,
}

/// Sizes KFD derives for the per-queue CWSR buffers (`kfd_queue_ctx_save_restore_size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CwsrSizes {
    /// `ctl_stack_size` in the topology: CREATE_QUEUE must pass exactly this.
    pub ctl_stack_size: u64,
    /// `cwsr_size` in the topology: the least `ctx_save_restore_size` CREATE_QUEUE accepts.
    pub cwsr_size: u64,
    /// Not published; added per XCC to the CWSR allocation the kernel expects.
    pub debug_memory_size: u64,
    /// The least EOP buffer size.
    pub eop_buffer_size: u64,
}

const PAGE: u64 = 4096;

fn align(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

impl GpuSpec {
    /// The board of an architecture the emulator models.
    pub fn for_arch(arch: &str) -> Option<GpuSpec> {
        let m = catalog::model(Vendor::Amd, arch)?;
        let base = |gfx, device_id, simd_per_cu, waves, lds, wave, xcc| GpuSpec {
            arch: m.arch,
            board: m.board,
            gfx_target_version: gfx,
            device_id,
            compute_units: m.compute_units,
            simd_per_cu,
            array_count: 0,
            simd_arrays_per_engine: 0,
            cu_per_simd_array: 0,
            max_waves_per_simd: waves,
            lds_size_in_kb: lds,
            wave_front_size: wave,
            num_xcc: xcc,
            max_slots_scratch_cu: 32,
            num_sdma_engines: 2,
            num_sdma_xgmi_engines: 0,
            num_sdma_queues_per_engine: 8,
            num_cp_queues: 24,
            max_engine_clk_fcompute: 2500,
            mem_clk_max: 1250,
            vram_width: 384,
            vram_bytes: m.memory_bytes,
            gc: (0, 0, 0),
            sdma: (0, 0, 0),
            nbio: (0, 0, 0),
        };
        let spec = match arch {
            // Navi 31: 6 SEs x 2 SAs x 8 CUs.
            "gfx1100" => GpuSpec {
                array_count: 12,
                simd_arrays_per_engine: 2,
                cu_per_simd_array: 8,
                gc: (11, 0, 0),
                sdma: (6, 0, 0),
                nbio: (4, 3, 0),
                ..base(110000, 0x744c, 2, 16, 64, 32, 1)
            },
            // Navi 48: 4 SEs x 2 SAs x 8 CUs.
            "gfx1201" => GpuSpec {
                array_count: 8,
                simd_arrays_per_engine: 2,
                cu_per_simd_array: 8,
                max_engine_clk_fcompute: 2970,
                vram_width: 256,
                gc: (12, 0, 1),
                sdma: (7, 0, 1),
                nbio: (6, 3, 1),
                ..base(120001, 0x7550, 2, 16, 64, 32, 1)
            },
            // MI300X: 8 XCCs of 38 CUs, 4 shader arrays each.
            "gfx942" => GpuSpec {
                array_count: 32,
                simd_arrays_per_engine: 1,
                cu_per_simd_array: 10,
                num_sdma_xgmi_engines: 14,
                num_cp_queues: 120,
                max_engine_clk_fcompute: 2100,
                mem_clk_max: 1300,
                vram_width: 8192,
                gc: (9, 4, 3),
                sdma: (4, 4, 2),
                nbio: (7, 9, 0),
                ..base(90402, 0x74a1, 4, 8, 64, 64, 8)
            },
            // MI355X: 8 XCCs of 32 CUs, 160 KiB of LDS.
            "gfx950" => GpuSpec {
                array_count: 32,
                simd_arrays_per_engine: 1,
                cu_per_simd_array: 8,
                num_sdma_xgmi_engines: 14,
                num_cp_queues: 120,
                max_engine_clk_fcompute: 2400,
                mem_clk_max: 1600,
                vram_width: 8192,
                gc: (9, 5, 0),
                sdma: (4, 4, 5),
                nbio: (7, 9, 1),
                ..base(90500, 0x75a3, 4, 8, 160, 64, 8)
            },
            _ => return None,
        };
        Some(spec)
    }

    pub fn simd_count(&self) -> u32 {
        self.compute_units * self.simd_per_cu
    }

    /// The kernel's `kfd_queue_ctx_save_restore_size` (Linux 6.12), from its internal per-XCC
    /// figures.
    pub fn cwsr_sizes(&self) -> CwsrSizes {
        let gfxv = self.gfx_target_version as u64;
        let xcc = self.num_xcc.max(1) as u64;
        let cu_num = self.simd_count() as u64 / self.simd_per_cu as u64 / xcc;
        let arrays_per_xcc = self.array_count as u64 / xcc;
        let wave_num = if gfxv < 100100 {
            (cu_num * 40).min(arrays_per_xcc / self.simd_arrays_per_engine.max(1) as u64 * 512)
        } else {
            cu_num * 32
        };
        let vgpr = if gfxv / 100 * 100 == 90400 || gfxv == 90010 || gfxv == 90008 {
            0x80000
        } else if matches!(gfxv, 110000 | 110001 | 110501 | 120000 | 120001) {
            0x60000
        } else {
            0x40000
        };
        let wg_data = align(cu_num * (vgpr + 0x4000 + 0x10000 + 0x1000), PAGE);
        let per_wave = if gfxv >= 100100 { 12 } else { 8 };
        let mut ctl = align(40 + wave_num * per_wave + 8, PAGE);
        if gfxv / 10000 * 10000 == 100000 {
            ctl = ctl.min(0x7000);
        }
        CwsrSizes {
            ctl_stack_size: ctl,
            cwsr_size: ctl + wg_data,
            debug_memory_size: align(wave_num * 32, 64),
            eop_buffer_size: 4096,
        }
    }

    /// The bytes of CWSR memory a queue needs: (save area + debugger memory) per XCC.
    pub fn cwsr_total(&self, ctx_save_restore_size: u64) -> u64 {
        align((ctx_save_restore_size + self.cwsr_sizes().debug_memory_size) * self.num_xcc.max(1) as u64, PAGE)
    }

    /// Whether the GC is a gfx9 (SOC15 with 64-bit doorbells, like all of these).
    pub fn is_gfx9(&self) -> bool {
        self.gfx_target_version < 100000
    }
}

/// One emulated device of an [`super::EmuKfd`]: its board and where it sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmuGpu {
    pub spec: GpuSpec,
    /// Position among the GPUs (the `N` of `emu:<arch>:N` counting all GPUs).
    pub index: usize,
    /// Topology node (0 is the CPU).
    pub node: u32,
    pub gpu_id: u32,
    pub render_minor: u32,
    /// PCI `location_id` (bus << 8 | device << 3 | function).
    pub location_id: u32,
    pub domain: u32,
}

impl EmuGpu {
    pub(crate) fn new(spec: GpuSpec, index: usize, taken: &[u32]) -> EmuGpu {
        let location_id = ((0x03 + 0x20 * index as u32) & 0xff) << 8;
        // KFD hashes PCI location and ids down to 16 bits; any stable non-zero unique value works.
        let mut h: u32 = 0x811c_9dc5;
        for b in [location_id, spec.device_id, index as u32, spec.gfx_target_version] {
            h = (h ^ b).wrapping_mul(0x0100_0193);
        }
        let mut gpu_id = (h ^ (h >> 16)) & 0xffff;
        while gpu_id == 0 || taken.contains(&gpu_id) {
            gpu_id = (gpu_id + 1) & 0xffff;
        }
        EmuGpu { spec, index, node: index as u32 + 1, gpu_id, render_minor: 128 + index as u32, location_id, domain: 0 }
    }

    /// The KFD topology `properties` file, keys in the order node_show prints them.
    pub fn properties(&self) -> String {
        let s = &self.spec;
        let cw = s.cwsr_sizes();
        let caps: u64 = 0x2a08_0280; // watch points, doorbell type 2 (SOC15), ...
        let rows: Vec<(&str, u64)> = vec![
            ("cpu_cores_count", 0),
            ("simd_count", s.simd_count() as u64),
            ("mem_banks_count", 1),
            ("caches_count", 0),
            ("io_links_count", 0),
            ("p2p_links_count", 0),
            ("cpu_core_id_base", 0),
            ("simd_id_base", 0x8000_0000 + 0x1000 * self.index as u64),
            ("max_waves_per_simd", s.max_waves_per_simd as u64),
            ("lds_size_in_kb", s.lds_size_in_kb as u64),
            ("gds_size_in_kb", 0),
            ("num_gws", 64),
            ("wave_front_size", s.wave_front_size as u64),
            ("array_count", s.array_count as u64),
            ("simd_arrays_per_engine", s.simd_arrays_per_engine as u64),
            ("cu_per_simd_array", s.cu_per_simd_array as u64),
            ("simd_per_cu", s.simd_per_cu as u64),
            ("max_slots_scratch_cu", s.max_slots_scratch_cu as u64),
            ("gfx_target_version", s.gfx_target_version as u64),
            ("vendor_id", 0x1002),
            ("device_id", s.device_id as u64),
            ("location_id", self.location_id as u64),
            ("domain", self.domain as u64),
            ("drm_render_minor", self.render_minor as u64),
            ("hive_id", 0),
            ("num_sdma_engines", s.num_sdma_engines as u64),
            ("num_sdma_xgmi_engines", s.num_sdma_xgmi_engines as u64),
            ("num_sdma_queues_per_engine", s.num_sdma_queues_per_engine as u64),
            ("num_cp_queues", s.num_cp_queues as u64),
            ("cwsr_size", cw.cwsr_size),
            ("ctl_stack_size", cw.ctl_stack_size),
            ("max_engine_clk_fcompute", s.max_engine_clk_fcompute as u64),
            ("local_mem_size", 0),
            ("fw_version", 2230),
            ("capability", caps),
            ("debug_prop", 0),
            ("sdma_fw_version", 21),
            ("unique_id", 0x4d9f_1c2a_0000_0000 | self.gpu_id as u64),
            ("num_xcc", s.num_xcc as u64),
            ("max_engine_clk_ccompute", 3000),
        ];
        rows.iter().map(|(k, v)| format!("{k} {v}\n")).collect()
    }

    /// `mem_banks/0/properties`: all of VRAM, CPU-visible (a large BAR).
    pub fn mem_bank_properties(&self) -> String {
        format!(
            "heap_type 1\nsize_in_bytes {}\nflags 0\nwidth {}\nmem_clk_max {}\n",
            self.spec.vram_bytes, self.spec.vram_width, self.spec.mem_clk_max
        )
    }

    /// The IP blocks of the discovery table: (hw id, name, instances, version).
    pub fn ip_blocks(&self) -> Vec<(u32, &'static str, u32, IpVersion)> {
        let s = &self.spec;
        let gc_instances = if s.is_gfx9() { s.num_xcc } else { 1 };
        let sdma_per_id = if s.is_gfx9() { (s.num_sdma_engines + s.num_sdma_xgmi_engines) / 2 } else { 1 };
        vec![
            (GC_HWID, "GC", gc_instances, s.gc),
            (SDMA0_HWID, "SDMA0", sdma_per_id, s.sdma),
            (SDMA1_HWID, "SDMA1", sdma_per_id, s.sdma),
            (NBIF_HWID, "NBIF", 1, s.nbio),
        ]
    }
}

/// Hardware ids of soc15_hw_ip.h.
pub const GC_HWID: u32 = 11;
pub const SDMA0_HWID: u32 = 42;
pub const SDMA1_HWID: u32 = 43;
pub const NBIF_HWID: u32 = 108;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx1100_sizes_match_the_hand_computation() {
        // Worked by hand from kfd_queue.c (see drivers' cwsr.rs): 96 CUs, 3072 waves.
        let s = GpuSpec::for_arch("gfx1100").unwrap().cwsr_sizes();
        assert_eq!(s.ctl_stack_size, 0xa000);
        assert_eq!(s.cwsr_size, 0xa000 + 0x2be_0000);
        assert_eq!(s.debug_memory_size, 0x18000);
    }

    #[test]
    fn gfx942_wave_count_is_per_xcc() {
        // 38 CUs per XCC, 4 arrays per XCC: min(38*40, 4*512) = 1520 waves.
        let g = GpuSpec::for_arch("gfx942").unwrap();
        let s = g.cwsr_sizes();
        assert_eq!(s.ctl_stack_size, 0x3000);
        assert_eq!(s.debug_memory_size, 1520 * 32);
        assert_eq!(g.simd_count(), 1216);
    }

    #[test]
    fn every_amd_model_has_a_spec_and_unique_ids() {
        let mut ids = Vec::new();
        for (i, m) in catalog::MODELS.iter().filter(|m| m.vendor == Vendor::Amd).enumerate() {
            let spec = GpuSpec::for_arch(m.arch).unwrap();
            assert!(spec.array_count * spec.cu_per_simd_array >= spec.compute_units, "{}", m.arch);
            let g = EmuGpu::new(spec, i, &ids);
            assert_ne!(g.gpu_id, 0);
            ids.push(g.gpu_id);
        }
        assert!(GpuSpec::for_arch("sm_90").is_none());
    }
}
