//! The sysfs files amdkfd and amdgpu publish for the emulated GPUs: the KFD topology and each
//! render node's IP discovery tree (`die/<die>/<hw id>/<instance>/...`, with the hardware
//! block's name, such as `GC`, as a second name of its hw-id directory, as the kernel's
//! symlinks make it).

use super::gpus::EmuGpu;
use baregpu_drivers::amd::topology::KFD_TOPOLOGY;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A read-only tree of text files.
#[derive(Debug, Default)]
pub(crate) struct Sysfs {
    files: BTreeMap<PathBuf, String>,
    dirs: BTreeMap<PathBuf, BTreeSet<String>>,
}

impl Sysfs {
    fn add(&mut self, path: impl Into<PathBuf>, text: impl Into<String>) {
        let path = path.into();
        let mut child = path.clone();
        while let Some(parent) = child.parent() {
            if let Some(name) = child.file_name() {
                self.dirs.entry(parent.to_path_buf()).or_default().insert(name.to_string_lossy().into_owned());
            }
            child = parent.to_path_buf();
        }
        self.files.insert(path, text.into());
    }

    pub(crate) fn file(&self, path: &Path) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }

    pub(crate) fn dir(&self, path: &Path) -> Option<Vec<String>> {
        self.dirs.get(path).map(|names| names.iter().cloned().collect())
    }

    pub(crate) fn build(gpus: &[EmuGpu]) -> Sysfs {
        let mut fs = Sysfs::default();
        let topo = Path::new(KFD_TOPOLOGY);
        fs.add(topo.join("generation_id"), "1\n");
        fs.add(topo.join("system_properties"), "platform_oem 0\nplatform_id 0\nplatform_rev 0\n");
        // Node 0: the CPU.
        let cpu = topo.join("nodes/0");
        let cores = crate::host_cores::host_cores();
        fs.add(cpu.join("gpu_id"), "0\n");
        fs.add(cpu.join("name"), "\n");
        fs.add(
            cpu.join("properties"),
            format!(
                "cpu_cores_count {cores}\nsimd_count 0\nmem_banks_count 1\ncaches_count 0\nio_links_count 0\n\
                 p2p_links_count 0\ncpu_core_id_base 0\nsimd_id_base 0\nmax_waves_per_simd 0\nlds_size_in_kb 0\n\
                 gds_size_in_kb 0\nnum_gws 0\nwave_front_size 0\narray_count 0\nsimd_arrays_per_engine 0\n\
                 cu_per_simd_array 0\nsimd_per_cu 0\nmax_slots_scratch_cu 0\ngfx_target_version 0\nvendor_id 0\n\
                 device_id 0\nlocation_id 0\ndomain 0\ndrm_render_minor 0\nhive_id 0\nnum_sdma_engines 0\n\
                 num_sdma_xgmi_engines 0\nnum_sdma_queues_per_engine 0\nnum_cp_queues 0\ncwsr_size 0\n\
                 ctl_stack_size 0\nmax_engine_clk_ccompute 3000\n"
            ),
        );
        fs.add(
            cpu.join("mem_banks/0/properties"),
            format!("heap_type 0\nsize_in_bytes {}\nflags 0\nwidth 64\nmem_clk_max 0\n", host_memory()),
        );
        for g in gpus {
            let node = topo.join("nodes").join(g.node.to_string());
            fs.add(node.join("gpu_id"), format!("{}\n", g.gpu_id));
            fs.add(node.join("name"), "ip discovery\n");
            fs.add(node.join("properties"), g.properties());
            fs.add(node.join("mem_banks/0/properties"), g.mem_bank_properties());
            let dev = PathBuf::from(format!("/sys/class/drm/renderD{}/device", g.render_minor));
            fs.add(dev.join("vendor"), "0x1002\n");
            fs.add(dev.join("device"), format!("{:#06x}\n", g.spec.device_id));
            let die = dev.join("ip_discovery/die/0");
            let blocks = g.ip_blocks();
            fs.add(die.join("num_ips"), format!("{}\n", blocks.iter().map(|b| b.2).sum::<u32>()));
            for (hw_id, name, instances, (major, minor, rev)) in blocks {
                for dir in [hw_id.to_string(), name.to_string()] {
                    for inst in 0..instances {
                        let d = die.join(&dir).join(inst.to_string());
                        fs.add(d.join("hw_id"), format!("{hw_id}\n"));
                        fs.add(d.join("num_instance"), format!("{inst}\n"));
                        fs.add(d.join("major"), format!("{major}\n"));
                        fs.add(d.join("minor"), format!("{minor}\n"));
                        fs.add(d.join("revision"), format!("{rev}\n"));
                        fs.add(d.join("harvest"), "0x0\n");
                        fs.add(d.join("num_base_addresses"), "0\n");
                        fs.add(d.join("base_addr"), "");
                    }
                }
            }
        }
        fs
    }
}

fn host_memory() -> u64 {
    // SAFETY: sysconf has no memory-safety preconditions.
    let (pages, size) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    (pages.max(0) as u64) * (size.max(0) as u64)
}

pub(crate) fn host_memory_bytes() -> u64 {
    host_memory()
}
