//! Discovery of AMD GPUs from the KFD topology that amdkfd publishes in sysfs.
//!
//! Each node under `nodes/` is a CPU or a GPU; GPU nodes have a non-zero `gpu_id`. The
//! `properties` file is `key value` lines; memory banks live in `mem_banks/M/properties`.

use crate::os::Os;
use crate::{Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where amdkfd publishes its topology.
pub const KFD_TOPOLOGY: &str = "/sys/devices/virtual/kfd/kfd/topology";

/// KFD memory heap types (`HSA_MEM_HEAP_TYPE_*` in kfd_crat.h): 1 and 2 are device memory.
const HEAP_FB_PUBLIC: u64 = 1;
const HEAP_FB_PRIVATE: u64 = 2;

/// One GPU node of the KFD topology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KfdGpu {
    /// Position among the GPU nodes: the `N` of the `amd:N` device spec.
    pub index: usize,
    /// The topology node number.
    pub node: u32,
    /// The id that KFD ioctls take.
    pub gpu_id: u32,
    /// LLVM target name, such as `gfx1100`.
    pub arch: String,
    pub compute_units: u32,
    /// XCCs (accelerated compute complexes) of the node: 8 on an MI300X in SPX mode, 1 on a GPU
    /// with one graphics core (or a topology without `num_xcc`).
    pub num_xcc: u32,
    /// Device-local memory across the node's frame-buffer heaps.
    pub vram_bytes: u64,
    /// `/dev/dri/renderD<minor>`: where buffers are mmapped.
    pub render_minor: u32,
    pub vendor_id: u32,
    pub device_id: u32,
    /// PCI location, `DDDD:BB:DD.F`.
    pub pci_bdf: String,
    pub name: String,
}

/// Parsed `properties` file of a node or memory bank.
#[derive(Debug, Clone, Default)]
pub struct Properties(HashMap<String, u64>);

impl Properties {
    pub fn parse(path: &Path, text: &str) -> Result<Self> {
        let mut map = HashMap::new();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let (key, value) = line
                .split_once(char::is_whitespace)
                .ok_or_else(|| Error::malformed(path, format!("line without a value: {line:?}")))?;
            let value = value
                .trim()
                .parse::<u64>()
                .map_err(|_| Error::malformed(path, format!("{key}: not an unsigned number: {:?}", value.trim())))?;
            map.insert(key.to_string(), value);
        }
        Ok(Properties(map))
    }

    pub fn get(&self, key: &str) -> Option<u64> {
        self.0.get(key).copied()
    }

    fn require(&self, path: &Path, key: &str) -> Result<u64> {
        self.get(key).ok_or_else(|| Error::malformed(path, format!("no `{key}` property")))
    }
}

/// LLVM target name from KFD's `gfx_target_version` (major*10000 + minor*100 + stepping; minor
/// and stepping are printed as hex digits, so 90010 is gfx90a).
pub fn arch_from_target_version(version: u64) -> Option<String> {
    let (major, minor, stepping) = (version / 10000, (version / 100) % 100, version % 100);
    (major > 0 && minor < 16 && stepping < 16).then(|| format!("gfx{major}{minor:x}{stepping:x}"))
}

/// The GPUs of the KFD topology, in node order. No topology (no amdkfd) is an empty list; one
/// malformed node is an error (see [`discover_each`] to list the others).
pub fn discover(os: &dyn Os) -> Result<Vec<KfdGpu>> {
    discover_each(os)?.into_iter().map(|n| n.gpu).collect()
}

/// A GPU node of the topology, read or not: a malformed node keeps its place (and GPU index) so
/// that a listing can show it as not ready beside the others.
#[derive(Debug)]
pub struct Node {
    pub node: u32,
    pub index: usize,
    pub gpu: Result<KfdGpu>,
}

/// Every GPU node, each read on its own; only an unreadable node list is an error.
pub fn discover_each(os: &dyn Os) -> Result<Vec<Node>> {
    let nodes_dir = Path::new(KFD_TOPOLOGY).join("nodes");
    let names = match os.read_dir(&nodes_dir) {
        Ok(names) => names,
        Err(e) if e.is_not_found() => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut nodes: Vec<u32> = names.iter().filter_map(|n| n.parse().ok()).collect();
    nodes.sort_unstable();
    let mut gpus = Vec::new();
    for node in nodes {
        let dir = nodes_dir.join(node.to_string());
        let index = gpus.len();
        let gpu = match gpu_id(os, &dir) {
            Ok(0) => continue, // a CPU node
            Ok(id) => read_gpu(os, &dir, node, id, index),
            Err(e) => Err(e),
        };
        gpus.push(Node { node, index, gpu });
    }
    Ok(gpus)
}

fn gpu_id(os: &dyn Os, dir: &Path) -> Result<u32> {
    let path = dir.join("gpu_id");
    let text = os.read_to_string(&path)?;
    text.trim().parse().map_err(|_| Error::malformed(&path, format!("not a number: {:?}", text.trim())))
}

fn read_gpu(os: &dyn Os, dir: &Path, node: u32, gpu_id: u32, index: usize) -> Result<KfdGpu> {
    let props_path = dir.join("properties");
    let props = Properties::parse(&props_path, &os.read_to_string(&props_path)?)?;
    let target = props.require(&props_path, "gfx_target_version")?;
    let arch = arch_from_target_version(target)
        .ok_or_else(|| Error::malformed(&props_path, format!("gfx_target_version {target} is not a gfx version")))?;
    let simd_per_cu = props.require(&props_path, "simd_per_cu")?.max(1);
    let compute_units = (props.require(&props_path, "simd_count")? / simd_per_cu) as u32;
    let num_xcc = props.get("num_xcc").unwrap_or(1).max(1);
    // PRED_EXEC selects XCCs with an 8-bit mask.
    if num_xcc > 8 {
        return Err(Error::malformed(&props_path, format!("num_xcc {num_xcc}: more than the 8 PRED_EXEC selects")));
    }
    let location = props.get("location_id").unwrap_or(0);
    let pci_bdf = format!(
        "{:04x}:{:02x}:{:02x}.{}",
        props.get("domain").unwrap_or(0),
        location >> 8,
        (location >> 3) & 0x1f,
        location & 7
    );
    let name = os.read_to_string(&dir.join("name")).map(|s| s.trim().to_string()).unwrap_or_default();
    Ok(KfdGpu {
        index,
        node,
        gpu_id,
        arch,
        compute_units,
        num_xcc: num_xcc as u32,
        vram_bytes: vram_bytes(os, dir)?,
        render_minor: props.require(&props_path, "drm_render_minor")? as u32,
        vendor_id: props.get("vendor_id").unwrap_or(0) as u32,
        device_id: props.get("device_id").unwrap_or(0) as u32,
        pci_bdf,
        name,
    })
}

fn vram_bytes(os: &dyn Os, node_dir: &Path) -> Result<u64> {
    let banks_dir: PathBuf = node_dir.join("mem_banks");
    let banks = match os.read_dir(&banks_dir) {
        Ok(b) => b,
        Err(e) if e.is_not_found() => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut total = 0u64;
    for bank in banks {
        let path = banks_dir.join(&bank).join("properties");
        let props = Properties::parse(&path, &os.read_to_string(&path)?)?;
        if matches!(props.get("heap_type"), Some(HEAP_FB_PUBLIC | HEAP_FB_PRIVATE)) {
            let size = props.get("size_in_bytes").unwrap_or(0);
            total = total
                .checked_add(size)
                .ok_or_else(|| Error::malformed(&path, "the memory banks' sizes add up past 2^64 bytes"))?;
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::HostOs;

    #[test]
    fn target_versions_map_to_llvm_names() {
        assert_eq!(arch_from_target_version(110000).as_deref(), Some("gfx1100"));
        assert_eq!(arch_from_target_version(120001).as_deref(), Some("gfx1201"));
        assert_eq!(arch_from_target_version(90402).as_deref(), Some("gfx942"));
        assert_eq!(arch_from_target_version(90500).as_deref(), Some("gfx950"));
        assert_eq!(arch_from_target_version(90010).as_deref(), Some("gfx90a"));
        assert_eq!(arch_from_target_version(0), None);
        assert_eq!(arch_from_target_version(91700), None);
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel.trim_start_matches('/'));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn discovers_gpu_nodes_and_skips_cpus() {
        let dir = tempfile::tempdir().unwrap();
        let t = KFD_TOPOLOGY;
        write(dir.path(), &format!("{t}/nodes/0/gpu_id"), "0\n");
        write(dir.path(), &format!("{t}/nodes/0/properties"), "cpu_cores_count 16\nsimd_count 0\n");
        write(dir.path(), &format!("{t}/nodes/1/gpu_id"), "45729\n");
        write(dir.path(), &format!("{t}/nodes/1/name"), "ip discovery\n");
        write(
            dir.path(),
            &format!("{t}/nodes/1/properties"),
            "cpu_cores_count 0\nsimd_count 192\nsimd_per_cu 2\ngfx_target_version 110000\n\
             vendor_id 4098\ndevice_id 29772\nlocation_id 768\ndomain 0\ndrm_render_minor 128\n",
        );
        write(dir.path(), &format!("{t}/nodes/1/mem_banks/0/properties"), "heap_type 1\nsize_in_bytes 25753026560\n");
        write(dir.path(), &format!("{t}/nodes/1/mem_banks/1/properties"), "heap_type 0\nsize_in_bytes 4096\n");
        let gpus = discover(&HostOs::with_root(dir.path())).unwrap();
        assert_eq!(gpus.len(), 1);
        let g = &gpus[0];
        assert_eq!((g.index, g.node, g.gpu_id), (0, 1, 45729));
        assert_eq!(g.arch, "gfx1100");
        assert_eq!(g.compute_units, 96);
        assert_eq!(g.vram_bytes, 25753026560);
        assert_eq!(g.render_minor, 128);
        assert_eq!(g.pci_bdf, "0000:03:00.0");
    }

    #[test]
    fn no_kfd_is_no_gpus_and_garbage_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        assert!(discover(&HostOs::with_root(dir.path())).unwrap().is_empty());
        let t = KFD_TOPOLOGY;
        write(dir.path(), &format!("{t}/nodes/1/gpu_id"), "7\n");
        write(dir.path(), &format!("{t}/nodes/1/properties"), "simd_count banana\n");
        let err = discover(&HostOs::with_root(dir.path())).unwrap_err().to_string();
        assert!(err.contains("nodes/1/properties") && err.contains("simd_count"), "{err}");
    }

    #[test]
    fn a_malformed_node_keeps_its_place_and_memory_sizes_do_not_wrap() {
        let dir = tempfile::tempdir().unwrap();
        let t = KFD_TOPOLOGY;
        write(dir.path(), &format!("{t}/nodes/1/gpu_id"), "x\n");
        write(dir.path(), &format!("{t}/nodes/2/gpu_id"), "9\n");
        write(
            dir.path(),
            &format!("{t}/nodes/2/properties"),
            "simd_count 96\nsimd_per_cu 2\ngfx_target_version 110000\ndrm_render_minor 128\n",
        );
        for b in 0..2 {
            let bank = format!("{t}/nodes/2/mem_banks/{b}/properties");
            write(dir.path(), &bank, "heap_type 1\nsize_in_bytes 18446744073709551615\n");
        }
        let nodes = discover_each(&HostOs::with_root(dir.path())).unwrap();
        assert_eq!(nodes.iter().map(|n| (n.node, n.index)).collect::<Vec<_>>(), [(1, 0), (2, 1)]);
        let e1 = nodes[0].gpu.as_ref().unwrap_err().to_string();
        assert!(e1.contains("nodes/1/gpu_id"), "{e1}");
        let e2 = nodes[1].gpu.as_ref().unwrap_err().to_string();
        assert!(e2.contains("mem_banks/1/properties") && e2.contains("past 2^64"), "{e2}");
    }
}
