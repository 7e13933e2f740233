//! The last submission of a device, kept for error reports and formatted only when one is
//! written: a submission costs a few word stores, not a string.

/// One piece of work of a compute submission.
#[derive(Debug, Clone)]
pub(crate) enum Work {
    Kernel {
        name: String,
        grid: [u32; 3],
        block: [u32; 3],
    },
    /// Set-up the device itself submits (channel set-up, local memory).
    Setup(String),
}

impl std::fmt::Display for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Work::Kernel { name, grid, block } => write!(f, "kernel `{name}` grid {grid:?} block {block:?}"),
            Work::Setup(what) => f.write_str(what),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) enum Last {
    #[default]
    Nothing,
    Compute {
        what: Vec<Work>,
        done: u64,
    },
    Copy {
        /// `SDMA copies`, `copies`.
        what: &'static str,
        bytes: u64,
        done: u64,
    },
    /// Commands run from memory ([`super::Device::submit_indirect`]).
    Indirect {
        queue: &'static str,
        va: u64,
        dwords: u32,
        done: u64,
    },
}

impl std::fmt::Display for Last {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Last::Nothing => f.write_str("nothing"),
            Last::Compute { what, done } if what.is_empty() => write!(f, "commands (compute {done})"),
            Last::Compute { what, done } => {
                for (i, w) in what.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{w}")?;
                }
                write!(f, " (compute {done})")
            }
            Last::Copy { what, bytes, done } => write!(f, "{what} of {bytes} bytes (copy {done})"),
            Last::Indirect { queue, va, dwords, done } => {
                write!(f, "{dwords} dwords of commands at {va:#x} ({queue} {done})")
            }
        }
    }
}
