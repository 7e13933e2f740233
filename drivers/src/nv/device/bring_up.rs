//! Bring-up steps of [`NvDevice::open_gpu`](super::NvDevice::open_gpu) that stand alone: the GPU's
//! UUID and GR info, and its doorbell page.

use super::*;

pub(super) fn gpu_uuid(client: &RmClient, subdevice: Handle) -> Result<Uuid> {
    let mut gid: NV2080_CTRL_GPU_GET_GID_INFO_PARAMS = RmArg::zeroed();
    gid.flags = NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY;
    gid.length = 16;
    client.control_with(subdevice, NV2080_CTRL_CMD_GPU_GET_GID_INFO, &mut gid)?;
    if gid.length != 16 {
        return Err(Error::Protocol(format!(
            "NV2080_CTRL_CMD_GPU_GET_GID_INFO returned a {}-byte GID, not a 16-byte UUID",
            gid.length
        )));
    }
    Ok(gid.data[..16].try_into().expect("16 bytes"))
}

pub(super) fn gr_info(client: &RmClient, subdevice: Handle) -> Result<GrInfo> {
    let mut list = [
        NV2080_CTRL_GR_INFO { index: NV2080_CTRL_GR_INFO_INDEX_SM_VERSION, data: 0 },
        NV2080_CTRL_GR_INFO { index: NV2080_CTRL_GR_INFO_INDEX_MAX_WARPS_PER_SM, data: 0 },
        NV2080_CTRL_GR_INFO { index: NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS, data: 0 },
        NV2080_CTRL_GR_INFO { index: NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC, data: 0 },
        NV2080_CTRL_GR_INFO { index: NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC, data: 0 },
    ];
    let mut params = NV2080_CTRL_GR_GET_INFO_PARAMS {
        gr_info_list_size: list.len() as u32,
        gr_info_list: list.as_mut_ptr() as u64,
        ..Default::default()
    };
    client.control_with(subdevice, NV2080_CTRL_CMD_GR_GET_INFO, &mut params)?;
    Ok(GrInfo {
        sm_version: list[0].data,
        max_warps_per_sm: list[1].data,
        gpcs: list[2].data,
        tpc_per_gpc: list[3].data,
        sm_per_tpc: list[4].data,
    })
}

/// The doorbell page: the USERMODE object, mapped through a registered fd of its own.
pub(super) fn map_doorbell_page(
    os: &Arc<dyn Os>,
    client: &RmClient,
    minor: u32,
    device: Handle,
    subdevice: Handle,
    class: u32,
) -> Result<(Handle, CpuMapping, OwnedFd)> {
    let usermode = client.alloc(subdevice, None, class, None)?;
    let usermode_fd = OwnedFd::open(os, dev_path(minor))?;
    register_fd(&**os, &usermode_fd, client.ctl_fd())?;
    client.map_memory(device, usermode, USERMODE_SIZE as u64, NVOS33_FLAGS_ACCESS_WRITE_ONLY, usermode_fd.fd())?;
    let rw = Prot::READ | Prot::WRITE;
    let addr = os.mmap(0, USERMODE_SIZE, rw, MapFlags::SHARED, Some(usermode_fd.fd()), 0)?;
    let usermode_map = CpuMapping { os: os.clone(), addr, len: USERMODE_SIZE };
    Ok((usermode, usermode_map, usermode_fd))
}
