//! The scripted fake kernel of `nv_sequence`: a small model of RM and UVM behind the recording
//! OS double, which records each call and answers with handles, tokens, UUIDs and class lists.

use baregpu_drivers::nv::device::NvDevice;
use baregpu_drivers::nv::rm::classes::{self, *};
use baregpu_drivers::nv::rm::common::*;
use baregpu_drivers::nv::rm::ctrl::*;
use baregpu_drivers::nv::rm::debugger::*;
use baregpu_drivers::nv::rm::ioctl::{self, decode_request, from_bytes, nv_iowr, RmArg};
use baregpu_drivers::nv::rm::status::*;
use baregpu_drivers::nv::rm::uvm;
use baregpu_drivers::nv::rm::Branch;
use baregpu_drivers::os::recording::{Call, RecordingOs};
use baregpu_drivers::os::MapFlags;
use baregpu_drivers::Error;
use std::path::Path;
use std::sync::{Arc, Mutex};

pub const UUID: [u8; 16] = *b"GPU-h200-uuid-00";
pub const CLIENT: u32 = 0xc1d0_0001;
pub const GPU_ID: u32 = 0x1900;
/// The SM the fake RM's debugger reports an error on (in the second READ_ALL_SM_ERROR_STATES).
pub const FAULT_SM: u32 = 120;

/// How the fake kernel should fail.
#[derive(Clone, Copy, Debug)]
pub enum Fail {
    /// RM_ALLOC of this class answers with this status.
    Alloc(u32, u32),
    /// This UVM request answers with this rmStatus.
    Uvm(u32, u32),
    /// This RM escape fails with this errno.
    Errno(u32, i32),
    /// This RM control answers with this status.
    Control(u32, u32),
}

/// One RM/UVM call as the fake decoded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ev {
    Alloc { parent: u32, class: u32, handle: u32, params: Vec<u8> },
    Control { object: u32, cmd: u32, params: Vec<u8> },
    Free { handle: u32 },
    Other { path: String, name: String, arg: Vec<u8> },
}

pub struct Fake {
    pub branch: Branch,
    pub arch: (u32, u32),
    pub classes: Vec<u32>,
    pub fail: Option<Fail>,
    pub next_handle: u32,
    pub next_token: u32,
    pub events: Vec<Ev>,
}

pub fn errno(path: &Path, request: u32, e: i32) -> Error {
    Error::Ioctl { path: path.into(), request, name: None, source: std::io::Error::from_raw_os_error(e) }
}

pub fn put<T: RmArg>(arg: &mut [u8], v: &T) {
    let b = ioctl::bytes_of(v);
    arg[..b.len()].copy_from_slice(b);
}

/// SAFETY: ptr/len come from the driver's own live parameter block (an RM user pointer).
unsafe fn user_bytes<'a>(ptr: u64, len: u32) -> &'a mut [u8] {
    if ptr == 0 || len == 0 {
        return &mut [];
    }
    std::slice::from_raw_parts_mut(ptr as *mut u8, len as usize)
}

impl Fake {
    pub fn expected_size(&self, esc: u32) -> Option<usize> {
        Some(match esc {
            ioctl::NV_ESC_RM_ALLOC | ioctl::NV_ESC_RM_CONTROL => 32,
            ioctl::NV_ESC_RM_FREE => 16,
            ioctl::NV_ESC_RM_MAP_MEMORY | ioctl::NV_ESC_RM_ALLOC_MEMORY => 56,
            ioctl::NV_ESC_RM_UNMAP_MEMORY => 32,
            ioctl::NV_ESC_RM_MAP_MEMORY_DMA => {
                if self.branch == Branch::V570 {
                    56
                } else {
                    64
                }
            }
            ioctl::NV_ESC_RM_UNMAP_MEMORY_DMA => 48,
            ioctl::NV_ESC_REGISTER_FD => 4,
            ioctl::NV_ESC_CARD_INFO => return None, // any multiple of 72
            _ => return None,
        })
    }

    pub fn uvm(&mut self, path: &Path, request: u32, arg: &mut [u8]) -> baregpu_drivers::Result<i32> {
        let free_size = if matches!(self.branch, Branch::V570 | Branch::V580) { 24 } else { 16 };
        let (size, status_at) = match request {
            uvm::UVM_INITIALIZE => (16, 8),
            uvm::UVM_MM_INITIALIZE => (8, 4),
            uvm::UVM_REGISTER_GPU => (40, 36),
            uvm::UVM_REGISTER_GPU_VASPACE => (32, 28),
            uvm::UVM_REGISTER_CHANNEL => (56, 48),
            uvm::UVM_CREATE_EXTERNAL_RANGE => (24, 16),
            uvm::UVM_MAP_EXTERNAL_ALLOCATION => (9264, 9260),
            uvm::UVM_FREE => (free_size, free_size - 8),
            _ => return Err(errno(path, request, libc::ENOTTY)),
        };
        assert_eq!(arg.len(), size, "{} argument size", uvm::request_name(request).unwrap());
        self.events.push(Ev::Other {
            path: path.display().to_string(),
            name: uvm::request_name(request).unwrap().into(),
            arg: arg.to_vec(),
        });
        let status = match self.fail {
            Some(Fail::Uvm(r, s)) if r == request => s,
            _ => NV_OK,
        };
        arg[status_at..status_at + 4].copy_from_slice(&status.to_ne_bytes());
        Ok(0)
    }

    pub fn handle(&mut self) -> u32 {
        self.next_handle += 1;
        0xcaf0_0000 + self.next_handle
    }

    pub fn rm(&mut self, path: &Path, request: u32, arg: &mut [u8]) -> baregpu_drivers::Result<i32> {
        let (esc, size) = decode_request(request);
        assert_eq!(request, nv_iowr(esc, size), "not an _IOWR('F', ..) request: {request:#x}");
        assert_eq!(size, arg.len());
        if let Some(Fail::Errno(e, n)) = self.fail {
            if e == esc {
                return Err(errno(path, request, n));
            }
        }
        if self.expected_size(esc).is_some_and(|s| s != size) {
            return Err(errno(path, request, libc::EINVAL)); // escape.c: dataSize != sizeof
        }
        match esc {
            ioctl::NV_ESC_RM_ALLOC => {
                let mut a: NVOS21_PARAMETERS = from_bytes(arg).unwrap();
                // SAFETY: the driver's parameter block.
                let params = unsafe { user_bytes(a.p_alloc_parms, a.params_size) }.to_vec();
                a.h_object_new = if a.h_class == NV01_ROOT_CLIENT { CLIENT } else { self.handle() };
                a.status = match self.fail {
                    Some(Fail::Alloc(c, s)) if c == a.h_class => s,
                    _ => NV_OK,
                };
                if a.h_class != NV01_ROOT_CLIENT {
                    assert_eq!(a.h_root, CLIENT);
                }
                self.events.push(Ev::Alloc {
                    parent: a.h_object_parent,
                    class: a.h_class,
                    handle: a.h_object_new,
                    params,
                });
                put(arg, &a);
            }
            ioctl::NV_ESC_RM_CONTROL => {
                let mut a: NVOS54_PARAMETERS = from_bytes(arg).unwrap();
                assert_eq!(a.h_client, CLIENT);
                // SAFETY: the driver's parameter block.
                let p = unsafe { user_bytes(a.params, a.params_size) };
                match a.cmd {
                    NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2 => {
                        let mut q: NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS = from_bytes(p).unwrap();
                        assert_eq!(q.gpu_id, GPU_ID);
                        q.device_instance = 0;
                        put(p, &q);
                    }
                    NV2080_CTRL_CMD_MC_GET_ARCH_INFO => {
                        let q = NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS {
                            architecture: self.arch.0,
                            implementation: self.arch.1,
                            ..Default::default()
                        };
                        put(p, &q);
                    }
                    NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2 => {
                        let max = if self.branch == Branch::V570 { 100 } else { 200 };
                        if p.len() != 4 + 4 * max {
                            a.status = NV_ERR_INVALID_ARGUMENT;
                        } else {
                            p[0..4].copy_from_slice(&(self.classes.len() as u32).to_ne_bytes());
                            for (i, c) in self.classes.iter().enumerate() {
                                p[4 + 4 * i..8 + 4 * i].copy_from_slice(&c.to_ne_bytes());
                            }
                        }
                    }
                    NV2080_CTRL_CMD_GPU_GET_GID_INFO => {
                        let mut q: NV2080_CTRL_GPU_GET_GID_INFO_PARAMS = from_bytes(p).unwrap();
                        assert_eq!(q.flags, 2);
                        q.length = 16;
                        q.data[..16].copy_from_slice(&UUID);
                        put(p, &q);
                    }
                    NV2080_CTRL_CMD_GR_GET_INFO => {
                        let q: NV2080_CTRL_GR_GET_INFO_PARAMS = from_bytes(p).unwrap();
                        // SAFETY: the driver's list of q.gr_info_list_size entries.
                        let list = unsafe {
                            std::slice::from_raw_parts_mut(
                                q.gr_info_list as *mut NV2080_CTRL_GR_INFO,
                                q.gr_info_list_size as usize,
                            )
                        };
                        for e in list {
                            e.data = match e.index {
                                NV2080_CTRL_GR_INFO_INDEX_SM_VERSION => 0x900,
                                NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS => 8,
                                NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC => 9,
                                _ => 2,
                            };
                        }
                    }
                    NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN => {
                        assert_eq!(p, u32::MAX.to_ne_bytes());
                        self.next_token += 1;
                        p.copy_from_slice(&(0x40 + self.next_token).to_ne_bytes());
                    }
                    NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES => {
                        assert_eq!(p.len(), 4824);
                        let mut q: NV83DE_CTRL_DEBUG_READ_ALL_SM_ERROR_STATES_PARAMS = from_bytes(p).unwrap();
                        // The scripted fault: SM 120 hit an illegal instruction, and the
                        // context took an MMU fault.
                        let (start, n) = (q.starting_sm, q.num_sms_to_read);
                        assert!(n as usize <= NV83DE_CTRL_DEBUG_MAX_SMS_PER_CALL);
                        if (start..start + n).contains(&FAULT_SM) {
                            let e = &mut q.sm_error_state_array[(FAULT_SM - start) as usize];
                            e.hww_warp_esr = 0x9;
                            e.hww_warp_esr_pc = 0x1c;
                            e.hww_warp_esr_pc64 = 0x1c;
                        }
                        q.mmu_fault.valid = 1;
                        put(p, &q);
                    }
                    NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO => {
                        let mut q: NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_PARAMS = from_bytes(p).unwrap();
                        q.mmu_fault_info_list[0] = NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_ENTRY {
                            fault_address: 0x100,
                            fault_type: 0,
                            access_type: 1,
                        };
                        q.count = 1;
                        put(p, &q);
                    }
                    _ => {}
                }
                if let Some(Fail::Control(cmd, status)) = self.fail {
                    if cmd == a.cmd {
                        a.status = status;
                    }
                }
                self.events.push(Ev::Control { object: a.h_object, cmd: a.cmd, params: p.to_vec() });
                put(arg, &a);
            }
            ioctl::NV_ESC_RM_FREE => {
                let a: NVOS00_PARAMETERS = from_bytes(arg).unwrap();
                self.events.push(Ev::Free { handle: a.h_object_old });
            }
            ioctl::NV_ESC_CARD_INFO => {
                assert_eq!(size % 72, 0);
                let mut c = nv_ioctl_card_info_t { valid: 1, gpu_id: GPU_ID, minor_number: 0, ..Default::default() };
                c.pci_info.device_id = 0x2335;
                put(arg, &c);
                self.record(path, esc, arg);
            }
            ioctl::NV_ESC_RM_MAP_MEMORY => {
                let mut a: nv_ioctl_nvos33_parameters_with_fd = from_bytes(arg).unwrap();
                self.record(path, esc, arg);
                a.params.p_linear_address = 0xdead_0000 + self.next_handle as u64;
                put(arg, &a);
            }
            ioctl::NV_ESC_RM_ALLOC_MEMORY => {
                // The client names an OS descriptor itself (RM chooses no handle for it).
                let a: nv_ioctl_nvos02_parameters_with_fd = from_bytes(arg).unwrap();
                assert_ne!(a.params.h_object_new, 0, "ALLOC_MEMORY without a client-chosen handle");
                self.record(path, esc, arg);
            }
            _ => self.record(path, esc, arg),
        }
        Ok(0)
    }

    pub fn record(&mut self, path: &Path, esc: u32, arg: &[u8]) {
        self.events.push(Ev::Other {
            path: path.display().to_string(),
            name: ioctl::escape_name(esc).unwrap_or("?").into(),
            arg: arg.to_vec(),
        });
    }
}

pub fn hopper_classes() -> Vec<u32> {
    vec![
        TURING_USERMODE_A,
        AMPERE_USERMODE_A,
        HOPPER_USERMODE_A,
        AMPERE_CHANNEL_GPFIFO_A,
        HOPPER_CHANNEL_GPFIFO_A,
        HOPPER_COMPUTE_A,
        HOPPER_DMA_COPY_A,
    ]
}

pub struct Rig {
    pub os: Arc<RecordingOs>,
    pub fake: Arc<Mutex<Fake>>,
}

pub fn rig(version: &str, arch: (u32, u32), classes: Vec<u32>, fail: Option<Fail>) -> Rig {
    let branch = Branch::from_version(version).unwrap();
    let fake =
        Arc::new(Mutex::new(Fake { branch, arch, classes, fail, next_handle: 0, next_token: 0, events: Vec::new() }));
    let f = fake.clone();
    let os = RecordingOs::new()
        .with_file(
            "/proc/driver/nvidia/version",
            format!("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  {version}  Release Build\n"),
        )
        .with_file(
            "/proc/driver/nvidia/gpus/0000:19:00.0/information",
            "Model: \t\t NVIDIA H200\nBus Location: \t 0000:19:00.0\nDevice Minor: \t 0\n",
        )
        .with_file("/sys/bus/pci/devices/0000:19:00.0/device", "0x2335\n")
        .with_file("/dev/nvidiactl", "")
        .with_file("/dev/nvidia0", "")
        .with_file("/dev/nvidia-uvm", "")
        .on_ioctl(move |path, request, arg| {
            let mut f = f.lock().unwrap();
            if path == Path::new("/dev/nvidia-uvm") {
                f.uvm(path, request, arg)
            } else {
                f.rm(path, request, arg)
            }
        });
    Rig { os: Arc::new(os), fake }
}

impl Rig {
    pub fn open(&self) -> baregpu_drivers::Result<NvDevice> {
        NvDevice::open(self.os.clone(), 0)
    }

    pub fn events(&self) -> Vec<Ev> {
        self.fake.lock().unwrap().events.clone()
    }

    /// Each RM/UVM call as a short name: `ALLOC HOPPER_COMPUTE_A`, `CONTROL NV2080_...`, `UVM_FREE`.
    pub fn names(&self) -> Vec<String> {
        self.events()
            .iter()
            .map(|e| match e {
                Ev::Alloc { class, .. } => format!("ALLOC {}", classes::class_name(*class).unwrap_or("?")),
                Ev::Control { cmd, .. } => format!("CONTROL {}", command_name(*cmd).unwrap_or("?")),
                Ev::Free { .. } => "FREE".into(),
                Ev::Other { path, name, .. } => format!("{name} {path}"),
            })
            .collect()
    }

    pub fn allocs(&self, class: u32) -> Vec<(u32, u32, Vec<u8>)> {
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                Ev::Alloc { parent, class: c, handle, params } if c == class => Some((parent, handle, params)),
                _ => None,
            })
            .collect()
    }

    pub fn others(&self, name: &str) -> Vec<Vec<u8>> {
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                Ev::Other { name: n, arg, .. } if n == name => Some(arg),
                _ => None,
            })
            .collect()
    }

    /// Every fd opened was closed, every mapping unmapped (window and usermode), and the RM
    /// client was freed.
    pub fn assert_all_undone(&self) {
        let calls = self.os.calls();
        let opens = calls.iter().filter(|c| matches!(c, Call::Open { .. })).count();
        let closes = calls.iter().filter(|c| matches!(c, Call::Close { .. })).count();
        assert_eq!(opens, closes, "fds left open: {calls:#?}");
        let maps =
            calls.iter().filter(|c| matches!(c, Call::Mmap { flags, .. } if !flags.contains(MapFlags::FIXED))).count();
        let unmaps = calls.iter().filter(|c| matches!(c, Call::Munmap { .. })).count();
        assert_eq!(maps, unmaps, "mappings left: {calls:#?}");
        assert_eq!(self.events().last(), Some(&Ev::Free { handle: CLIENT }), "the client is freed last");
    }
}
