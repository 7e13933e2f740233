//! RM class ids (`src/nvidia/generated/g_allclasses.h`, 580.65.06) and the choice of the
//! usermode, channel, compute and copy classes for a GPU generation.
//!
//! Which chip lists which class is `src/nvidia/generated/g_gpu_class_list.c`: every chip also
//! lists the older usermode and GPFIFO classes, so the choice is a per-generation preference
//! list checked against what NV0080_CTRL_CMD_GPU_GET_CLASSLIST reports, never "the highest".

use super::ctrl;
use crate::{Error, Result};

pub const NV01_ROOT: u32 = 0x0;
pub const NV01_ROOT_CLIENT: u32 = 0x41;
pub const NV01_DEVICE_0: u32 = 0x80;
pub const NV20_SUBDEVICE_0: u32 = 0x2080;
pub const NV01_MEMORY_SYSTEM: u32 = 0x3e;
pub const NV01_MEMORY_LOCAL_USER: u32 = 0x40;
pub const NV01_MEMORY_VIRTUAL: u32 = 0x70;
pub const NV01_MEMORY_SYSTEM_OS_DESCRIPTOR: u32 = 0x71;
pub const FERMI_CONTEXT_SHARE_A: u32 = 0x9067;
pub const FERMI_VASPACE_A: u32 = 0x90f1;
pub const GT200_DEBUGGER: u32 = 0x83de;
pub const KEPLER_CHANNEL_GROUP_A: u32 = 0xa06c;

pub const VOLTA_USERMODE_A: u32 = 0xc361;
pub const TURING_USERMODE_A: u32 = 0xc461;
pub const AMPERE_USERMODE_A: u32 = 0xc561;
pub const HOPPER_USERMODE_A: u32 = 0xc661;
pub const BLACKWELL_USERMODE_A: u32 = 0xc761;

pub const VOLTA_CHANNEL_GPFIFO_A: u32 = 0xc36f;
pub const TURING_CHANNEL_GPFIFO_A: u32 = 0xc46f;
pub const AMPERE_CHANNEL_GPFIFO_A: u32 = 0xc56f;
pub const HOPPER_CHANNEL_GPFIFO_A: u32 = 0xc86f;
pub const BLACKWELL_CHANNEL_GPFIFO_A: u32 = 0xc96f;
pub const BLACKWELL_CHANNEL_GPFIFO_B: u32 = 0xca6f;

pub const TURING_COMPUTE_A: u32 = 0xc5c0;
pub const AMPERE_COMPUTE_A: u32 = 0xc6c0;
pub const AMPERE_COMPUTE_B: u32 = 0xc7c0;
pub const ADA_COMPUTE_A: u32 = 0xc9c0;
pub const HOPPER_COMPUTE_A: u32 = 0xcbc0;
pub const BLACKWELL_COMPUTE_A: u32 = 0xcdc0;
pub const BLACKWELL_COMPUTE_B: u32 = 0xcec0;

pub const TURING_DMA_COPY_A: u32 = 0xc5b5;
pub const AMPERE_DMA_COPY_A: u32 = 0xc6b5;
pub const AMPERE_DMA_COPY_B: u32 = 0xc7b5;
pub const HOPPER_DMA_COPY_A: u32 = 0xc8b5;
pub const BLACKWELL_DMA_COPY_A: u32 = 0xc9b5;
pub const BLACKWELL_DMA_COPY_B: u32 = 0xcab5;

/// The compute classes above.
pub const COMPUTE_CLASSES: [u32; 7] = [
    TURING_COMPUTE_A,
    AMPERE_COMPUTE_A,
    AMPERE_COMPUTE_B,
    ADA_COMPUTE_A,
    HOPPER_COMPUTE_A,
    BLACKWELL_COMPUTE_A,
    BLACKWELL_COMPUTE_B,
];
/// The copy classes above.
pub const COPY_CLASSES: [u32; 6] = [
    TURING_DMA_COPY_A,
    AMPERE_DMA_COPY_A,
    AMPERE_DMA_COPY_B,
    HOPPER_DMA_COPY_A,
    BLACKWELL_DMA_COPY_A,
    BLACKWELL_DMA_COPY_B,
];

/// Class names, for errors and traces.
pub const CLASSES: &[(&str, u32)] = &[
    ("NV01_ROOT", NV01_ROOT),
    ("NV01_ROOT_CLIENT", NV01_ROOT_CLIENT),
    ("NV01_DEVICE_0", NV01_DEVICE_0),
    ("NV20_SUBDEVICE_0", NV20_SUBDEVICE_0),
    ("NV01_MEMORY_SYSTEM", NV01_MEMORY_SYSTEM),
    ("NV01_MEMORY_LOCAL_USER", NV01_MEMORY_LOCAL_USER),
    ("NV01_MEMORY_VIRTUAL", NV01_MEMORY_VIRTUAL),
    ("NV01_MEMORY_SYSTEM_OS_DESCRIPTOR", NV01_MEMORY_SYSTEM_OS_DESCRIPTOR),
    ("FERMI_CONTEXT_SHARE_A", FERMI_CONTEXT_SHARE_A),
    ("FERMI_VASPACE_A", FERMI_VASPACE_A),
    ("GT200_DEBUGGER", GT200_DEBUGGER),
    ("KEPLER_CHANNEL_GROUP_A", KEPLER_CHANNEL_GROUP_A),
    ("VOLTA_USERMODE_A", VOLTA_USERMODE_A),
    ("TURING_USERMODE_A", TURING_USERMODE_A),
    ("AMPERE_USERMODE_A", AMPERE_USERMODE_A),
    ("HOPPER_USERMODE_A", HOPPER_USERMODE_A),
    ("BLACKWELL_USERMODE_A", BLACKWELL_USERMODE_A),
    ("VOLTA_CHANNEL_GPFIFO_A", VOLTA_CHANNEL_GPFIFO_A),
    ("TURING_CHANNEL_GPFIFO_A", TURING_CHANNEL_GPFIFO_A),
    ("AMPERE_CHANNEL_GPFIFO_A", AMPERE_CHANNEL_GPFIFO_A),
    ("HOPPER_CHANNEL_GPFIFO_A", HOPPER_CHANNEL_GPFIFO_A),
    ("BLACKWELL_CHANNEL_GPFIFO_A", BLACKWELL_CHANNEL_GPFIFO_A),
    ("BLACKWELL_CHANNEL_GPFIFO_B", BLACKWELL_CHANNEL_GPFIFO_B),
    ("TURING_COMPUTE_A", TURING_COMPUTE_A),
    ("AMPERE_COMPUTE_A", AMPERE_COMPUTE_A),
    ("AMPERE_COMPUTE_B", AMPERE_COMPUTE_B),
    ("ADA_COMPUTE_A", ADA_COMPUTE_A),
    ("HOPPER_COMPUTE_A", HOPPER_COMPUTE_A),
    ("BLACKWELL_COMPUTE_A", BLACKWELL_COMPUTE_A),
    ("BLACKWELL_COMPUTE_B", BLACKWELL_COMPUTE_B),
    ("TURING_DMA_COPY_A", TURING_DMA_COPY_A),
    ("AMPERE_DMA_COPY_A", AMPERE_DMA_COPY_A),
    ("AMPERE_DMA_COPY_B", AMPERE_DMA_COPY_B),
    ("HOPPER_DMA_COPY_A", HOPPER_DMA_COPY_A),
    ("BLACKWELL_DMA_COPY_A", BLACKWELL_DMA_COPY_A),
    ("BLACKWELL_DMA_COPY_B", BLACKWELL_DMA_COPY_B),
];

pub fn class_name(class: u32) -> Option<&'static str> {
    CLASSES.iter().find(|c| c.1 == class).map(|c| c.0)
}

/// `NAME (0xc86f)`, or just the number.
pub fn describe(class: u32) -> String {
    match class_name(class) {
        Some(n) => format!("{n} ({class:#x})"),
        None => format!("class {class:#x}"),
    }
}

/// A GPU generation, as far as the RM path cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Generation {
    /// GA100 (sm_80): the `_A` compute and copy classes.
    AmpereGa100,
    /// GA10x (sm_86, sm_87).
    Ampere,
    /// AD10x (sm_89).
    Ada,
    /// GH100 (sm_90).
    Hopper,
    /// GB10x (sm_100, sm_103).
    BlackwellGb10x,
    /// GB20x (sm_120).
    BlackwellGb20x,
}

impl Generation {
    /// From NV2080_CTRL_CMD_MC_GET_ARCH_INFO's architecture and implementation.
    pub fn from_arch_info(architecture: u32, implementation: u32) -> Result<Generation> {
        Ok(match architecture {
            ctrl::NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GA100
                if implementation == ctrl::NV2080_CTRL_MC_ARCH_INFO_IMPLEMENTATION_GA100 =>
            {
                Generation::AmpereGa100
            }
            ctrl::NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GA100 => Generation::Ampere,
            ctrl::NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_AD100 => Generation::Ada,
            ctrl::NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GH100 => Generation::Hopper,
            ctrl::NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GB100 => Generation::BlackwellGb10x,
            ctrl::NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GB200 => Generation::BlackwellGb20x,
            _ => {
                return Err(Error::Unsupported(format!(
                    "NVIDIA architecture {architecture:#x} (implementation {implementation:#x}) is not supported \
                     (supported: Ampere, Ada, Hopper, Blackwell)"
                )))
            }
        })
    }

    /// Classes to try, in order, for each role.
    pub fn preferences(self) -> ClassPreferences {
        use Generation::*;
        match self {
            // tinygrad drives GA10x/AD10x with TURING_USERMODE_A; AMPERE_USERMODE_A is listed too.
            AmpereGa100 => ClassPreferences {
                usermode: &[TURING_USERMODE_A, AMPERE_USERMODE_A],
                gpfifo: &[AMPERE_CHANNEL_GPFIFO_A],
                compute: &[AMPERE_COMPUTE_A],
                copy: &[AMPERE_DMA_COPY_A],
            },
            Ampere => ClassPreferences {
                usermode: &[TURING_USERMODE_A, AMPERE_USERMODE_A],
                gpfifo: &[AMPERE_CHANNEL_GPFIFO_A],
                compute: &[AMPERE_COMPUTE_B, AMPERE_COMPUTE_A],
                copy: &[AMPERE_DMA_COPY_B, AMPERE_DMA_COPY_A],
            },
            Ada => ClassPreferences {
                usermode: &[TURING_USERMODE_A, AMPERE_USERMODE_A],
                gpfifo: &[AMPERE_CHANNEL_GPFIFO_A],
                compute: &[ADA_COMPUTE_A],
                copy: &[AMPERE_DMA_COPY_B],
            },
            Hopper => ClassPreferences {
                usermode: &[HOPPER_USERMODE_A],
                gpfifo: &[HOPPER_CHANNEL_GPFIFO_A],
                compute: &[HOPPER_COMPUTE_A],
                copy: &[HOPPER_DMA_COPY_A],
            },
            BlackwellGb10x => ClassPreferences {
                usermode: &[HOPPER_USERMODE_A],
                gpfifo: &[BLACKWELL_CHANNEL_GPFIFO_A],
                compute: &[BLACKWELL_COMPUTE_A],
                copy: &[BLACKWELL_DMA_COPY_A],
            },
            // tinygrad drives GB20x with HOPPER_USERMODE_A and BLACKWELL_CHANNEL_GPFIFO_A.
            BlackwellGb20x => ClassPreferences {
                usermode: &[HOPPER_USERMODE_A, BLACKWELL_USERMODE_A],
                gpfifo: &[BLACKWELL_CHANNEL_GPFIFO_A, BLACKWELL_CHANNEL_GPFIFO_B],
                compute: &[BLACKWELL_COMPUTE_B],
                copy: &[BLACKWELL_DMA_COPY_B, BLACKWELL_DMA_COPY_A],
            },
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Generation::AmpereGa100 => "Ampere (GA100)",
            Generation::Ampere => "Ampere",
            Generation::Ada => "Ada",
            Generation::Hopper => "Hopper",
            Generation::BlackwellGb10x => "Blackwell (GB10x)",
            Generation::BlackwellGb20x => "Blackwell (GB20x)",
        }
    }
}

/// Per role, the classes to try in order.
#[derive(Debug, Clone, Copy)]
pub struct ClassPreferences {
    pub usermode: &'static [u32],
    pub gpfifo: &'static [u32],
    pub compute: &'static [u32],
    pub copy: &'static [u32],
}

/// The classes a device is driven with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassSet {
    pub usermode: u32,
    pub gpfifo: u32,
    pub compute: u32,
    pub copy: u32,
}

impl ClassSet {
    /// Pick, for each role, the first preferred class that the device lists.
    pub fn select(generation: Generation, listed: &[u32]) -> Result<ClassSet> {
        let prefs = generation.preferences();
        let pick = |role: &str, wanted: &[u32]| {
            wanted.iter().copied().find(|c| listed.contains(c)).ok_or_else(|| {
                let wanted: Vec<String> = wanted.iter().map(|c| describe(*c)).collect();
                let listed: Vec<String> = listed.iter().map(|c| format!("{c:#x}")).collect();
                Error::Unsupported(format!(
                    "{} GPU lists no {role} class this driver knows (wanted one of {}; the device lists {})",
                    generation.name(),
                    wanted.join(", "),
                    listed.join(" ")
                ))
            })
        };
        Ok(ClassSet {
            usermode: pick("usermode", prefs.usermode)?,
            gpfifo: pick("GPFIFO channel", prefs.gpfifo)?,
            compute: pick("compute", prefs.compute)?,
            copy: pick("DMA copy", prefs.copy)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_pick_their_classes() {
        // The classes g_gpu_class_list.c lists for GH100 (a subset), in no particular order.
        let gh100 = [
            AMPERE_CHANNEL_GPFIFO_A,
            HOPPER_CHANNEL_GPFIFO_A,
            HOPPER_COMPUTE_A,
            HOPPER_DMA_COPY_A,
            HOPPER_USERMODE_A,
            TURING_CHANNEL_GPFIFO_A,
            TURING_USERMODE_A,
            VOLTA_USERMODE_A,
            AMPERE_USERMODE_A,
        ];
        let set = ClassSet::select(Generation::Hopper, &gh100).unwrap();
        assert_eq!(set, ClassSet { usermode: 0xc661, gpfifo: 0xc86f, compute: 0xcbc0, copy: 0xc8b5 });

        let ad102 = [TURING_USERMODE_A, AMPERE_USERMODE_A, AMPERE_CHANNEL_GPFIFO_A, ADA_COMPUTE_A, AMPERE_DMA_COPY_B];
        let set = ClassSet::select(Generation::Ada, &ad102).unwrap();
        assert_eq!(set, ClassSet { usermode: 0xc461, gpfifo: 0xc56f, compute: 0xc9c0, copy: 0xc7b5 });

        let gb202 = [
            HOPPER_USERMODE_A,
            BLACKWELL_USERMODE_A,
            BLACKWELL_CHANNEL_GPFIFO_A,
            BLACKWELL_CHANNEL_GPFIFO_B,
            BLACKWELL_COMPUTE_B,
            BLACKWELL_DMA_COPY_B,
        ];
        let set = ClassSet::select(Generation::BlackwellGb20x, &gb202).unwrap();
        assert_eq!(set, ClassSet { usermode: 0xc661, gpfifo: 0xc96f, compute: 0xcec0, copy: 0xcab5 });
    }

    #[test]
    fn a_missing_class_names_the_role_and_the_list() {
        let err = ClassSet::select(Generation::Hopper, &[HOPPER_USERMODE_A, AMPERE_CHANNEL_GPFIFO_A]).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("GPFIFO channel") && msg.contains("HOPPER_CHANNEL_GPFIFO_A (0xc86f)"), "{msg}");
        assert!(msg.contains("0xc56f"), "{msg}");
    }

    #[test]
    fn arch_info_maps_to_generations() {
        assert_eq!(Generation::from_arch_info(0x180, 0).unwrap(), Generation::Hopper);
        assert_eq!(Generation::from_arch_info(0x170, 0).unwrap(), Generation::AmpereGa100);
        assert_eq!(Generation::from_arch_info(0x170, 2).unwrap(), Generation::Ampere);
        assert_eq!(Generation::from_arch_info(0x190, 2).unwrap(), Generation::Ada);
        assert_eq!(Generation::from_arch_info(0x1a0, 0).unwrap(), Generation::BlackwellGb10x);
        assert_eq!(Generation::from_arch_info(0x1b0, 2).unwrap(), Generation::BlackwellGb20x);
        assert!(Generation::from_arch_info(0x160, 2).unwrap_err().to_string().contains("0x160"));
    }
}
