//! The HDP flush registers of the GPU's NBIO/NBIF block: a WAIT_REG_MEM that writes the request
//! register and polls the done register makes CPU writes through the PCI BAR visible to the GPU
//! before it reads them. Their absolute address is the block's IP-discovery base (published in
//! sysfs) plus the generated register offset.

use baregpu_autogen::amd::regs::{nbif_6_3_1, nbio_4_3_0, nbio_7_9_0, Reg};
use baregpu_drivers::os::Os;
use std::path::Path;

/// Absolute dword addresses of BIF_BX_PF0_GPU_HDP_FLUSH_REQ and _DONE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HdpFlush {
    pub req: u32,
    pub done: u32,
}

fn version(os: &dyn Os, dir: &Path) -> Option<(u32, u32, u32)> {
    let read = |f: &str| os.read_to_string(&dir.join(f)).ok()?.trim().parse().ok();
    Some((read("major")?, read("minor")?, read("revision")?))
}

fn bases(os: &dyn Os, dir: &Path) -> Option<Vec<u32>> {
    let text = os.read_to_string(&dir.join("base_addr")).ok()?;
    text.lines()
        .map(|l| u32::from_str_radix(l.trim().trim_start_matches("0x").trim_start_matches("0X"), 16).ok())
        .collect()
}

/// The HDP flush pair of the GPU behind render node `minor`, from its IP discovery in sysfs;
/// `None` where the block or its version is unknown (the memory barrier then relies on
/// cache invalidation alone).
pub fn discover(os: &dyn Os, render_minor: u32) -> Option<HdpFlush> {
    let die = format!("/sys/class/drm/renderD{render_minor}/device/ip_discovery/die/0");
    for block in ["NBIO", "NBIF"] {
        let dir = Path::new(&die).join(block).join("0");
        let Some(v) = version(os, &dir) else { continue };
        if registers(v).is_none() {
            continue;
        }
        return for_block(v, &bases(os, &dir)?);
    }
    None
}

/// The flush pair of an NBIO/NBIF block of `version` whose segment bases are `bases` (from
/// sysfs, or from the IP discovery table the AM driver reads); `None` for an unknown version.
pub fn for_block(version: (u32, u32, u32), bases: &[u32]) -> Option<HdpFlush> {
    let (req, done) = registers(version)?;
    Some(HdpFlush { req: req.addr(bases)?, done: done.addr(bases)? })
}

/// BIF_BX_PF0_GPU_HDP_FLUSH_REQ and _DONE of each NBIO/NBIF version the runtime knows.
fn registers(version: (u32, u32, u32)) -> Option<(Reg, Reg)> {
    Some(match version {
        (4, 3, _) => (nbio_4_3_0::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ, nbio_4_3_0::regBIF_BX_PF0_GPU_HDP_FLUSH_DONE),
        (6, 3, _) => (nbif_6_3_1::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ, nbif_6_3_1::regBIF_BX_PF0_GPU_HDP_FLUSH_DONE),
        (7, 9, _) => (nbio_7_9_0::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ, nbio_7_9_0::regBIF_BX_PF0_GPU_HDP_FLUSH_DONE),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use baregpu_drivers::os::recording::RecordingOs;

    #[test]
    fn reads_the_nbio_block_and_adds_the_segment_base() {
        let dir = "/sys/class/drm/renderD128/device/ip_discovery/die/0/NBIO/0";
        let os = RecordingOs::new()
            .with_file(format!("{dir}/major"), "4\n")
            .with_file(format!("{dir}/minor"), "3\n")
            .with_file(format!("{dir}/revision"), "0\n")
            .with_file(format!("{dir}/base_addr"), "0x00000000\n0x00000014\n0x00000D20\n0x00010400\n");
        let h = discover(&os, 128).unwrap();
        let req = nbio_4_3_0::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ;
        assert_eq!(h.req, [0, 0x14, 0xd20, 0x10400][req.base_idx as usize] + req.offset);
        assert_eq!(h.done, h.req + 1);
        assert_eq!(discover(&os, 129), None);
    }

    #[test]
    fn a_block_from_a_discovery_table_gives_the_same_pair() {
        let bases = [0, 0x14, 0xd20, 0x10400];
        for (v, req) in [
            ((4, 3, 0), nbio_4_3_0::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ),
            ((6, 3, 1), nbif_6_3_1::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ),
            ((7, 9, 0), nbio_7_9_0::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ),
        ] {
            let h = for_block(v, &bases).unwrap_or_else(|| panic!("{v:?}"));
            assert_eq!(h.req, bases[req.base_idx as usize] + req.offset, "{v:?}");
        }
        assert_eq!(for_block((2, 1, 0), &bases), None);
        assert_eq!(for_block((4, 3, 0), &[]), None, "a base the block lacks");
    }
}
