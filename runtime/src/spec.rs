//! Device specs: the strings that name a device on the command line and in `baregpu::open`.
//! The grammar is DESIGN.md's table; `Display` prints the canonical form back.

use crate::{Error, Result};
use std::fmt;

/// Emulated AMD architectures.
pub const EMU_AMD_ARCHS: &[&str] = &["gfx1100", "gfx1201", "gfx942", "gfx950"];
/// Architectures of the emulated PCI GPU the AM driver boots (`am:emu:ARCH`).
pub const EMU_AM_ARCHS: &[&str] = &["gfx1100", "gfx942"];
/// Emulated NVIDIA architectures.
pub const EMU_NV_ARCHS: &[&str] = &["sm_90", "sm_89", "sm_120"];

/// Emulated GPUs of one architecture that a spec may number (`emu:ARCH:0` to `emu:ARCH:15`):
/// each index builds every device below it, so an unbounded index is unbounded work.
pub const MAX_EMULATED: usize = 16;

const GRAMMAR: &str =
    "expected amd[:N], nv[:N], emu:ARCH[:N], emu-nv:sm_XX[:N], am:BDF, am:emu:ARCH, usb:PATH or remote:HOST:PORT/SPEC";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceSpec {
    /// AMD GPU `index` through /dev/kfd.
    Amd { index: usize },
    /// NVIDIA GPU `index` through the RM driver.
    Nv { index: usize },
    /// Emulated AMD GPU behind an emulated KFD.
    Emu { arch: String, index: usize },
    /// Emulated NVIDIA GPU behind an emulated RM.
    EmuNv { arch: String, index: usize },
    /// The userspace PCI driver on the device at this PCI address (`DDDD:BB:DD.F`), or on the
    /// emulated PCI GPU where `bdf` is `emu:ARCH`.
    Am { bdf: String },
    /// A GPU behind a USB bridge.
    Usb { path: String },
    /// A device on another machine.
    Remote { host: String, port: u16, device: Box<DeviceSpec> },
}

/// A server's address, `HOST:PORT` (an IPv6 host in brackets): the host and the port, else why
/// not (`needs HOST:PORT`, `host is empty`, `` `x` is not a port``).
pub fn parse_host_port(addr: &str) -> std::result::Result<(String, u16), String> {
    let (host, port) = addr.rsplit_once(':').ok_or("needs HOST:PORT")?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return Err("host is empty".into());
    }
    let port = port.parse().map_err(|_| format!("`{port}` is not a port"))?;
    Ok((host.to_string(), port))
}

impl DeviceSpec {
    pub fn parse(spec: &str) -> Result<Self> {
        let bad = |reason: String| Error::BadSpec { spec: spec.to_string(), reason };
        let index = |s: Option<&str>| -> Result<usize> {
            match s {
                None => Ok(0),
                Some(n) => n.parse().map_err(|_| bad(format!("`{n}` is not a device index"))),
            }
        };
        if let Some(rest) = spec.strip_prefix("remote:") {
            let (addr, inner) = rest.split_once('/').ok_or_else(|| bad("remote needs HOST:PORT/SPEC".into()))?;
            let (host, port) = parse_host_port(addr).map_err(|e| bad(format!("remote {e}")))?;
            let device = Box::new(DeviceSpec::parse(inner)?);
            return Ok(DeviceSpec::Remote { host, port, device });
        }
        let mut parts = spec.splitn(2, ':');
        let kind = parts.next().unwrap_or("");
        let rest = parts.next();
        match kind {
            "amd" => Ok(DeviceSpec::Amd { index: index(rest)? }),
            "nv" => Ok(DeviceSpec::Nv { index: index(rest)? }),
            "emu" | "emu-nv" => {
                let rest = rest.ok_or_else(|| bad(format!("{kind} needs an architecture")))?;
                let (arch, idx) = match rest.split_once(':') {
                    Some((a, i)) => (a, Some(i)),
                    None => (rest, None),
                };
                let known = if kind == "emu" { EMU_AMD_ARCHS } else { EMU_NV_ARCHS };
                if !known.contains(&arch) {
                    return Err(bad(format!("no emulated `{arch}`; {kind} has {}", known.join(", "))));
                }
                let (arch, index) = (arch.to_string(), index(idx)?);
                if index >= MAX_EMULATED {
                    return Err(bad(format!(
                        "{kind} emulates {MAX_EMULATED} devices of an architecture, {kind}:{arch}:0 to \
                         {kind}:{arch}:{}",
                        MAX_EMULATED - 1
                    )));
                }
                Ok(if kind == "emu" { DeviceSpec::Emu { arch, index } } else { DeviceSpec::EmuNv { arch, index } })
            }
            "am" => {
                let bdf = rest.ok_or_else(|| bad("am needs a PCI address".into()))?;
                if let Some(arch) = bdf.strip_prefix("emu:") {
                    if !EMU_AM_ARCHS.contains(&arch) {
                        return Err(bad(format!("no emulated PCI `{arch}`; am:emu has {}", EMU_AM_ARCHS.join(", "))));
                    }
                    return Ok(DeviceSpec::Am { bdf: bdf.to_string() });
                }
                Ok(DeviceSpec::Am {
                    bdf: normalize_bdf(bdf).ok_or_else(|| bad(format!("`{bdf}` is not a PCI address")))?,
                })
            }
            "usb" => match rest {
                Some(path) if !path.is_empty() => Ok(DeviceSpec::Usb { path: path.to_string() }),
                _ => Err(bad("usb needs a device path".into())),
            },
            _ => Err(bad(GRAMMAR.into())),
        }
    }
}

/// `BB:DD.F` or `DDDD:BB:DD.F` (hex) to the canonical lowercase `DDDD:BB:DD.F`.
fn normalize_bdf(s: &str) -> Option<String> {
    let parts: Vec<&str> = s.split(':').collect();
    let (domain, bus, devfn) = match parts.as_slice() {
        [b, df] => ("0", *b, *df),
        [d, b, df] => (*d, *b, *df),
        _ => return None,
    };
    let (dev, func) = devfn.split_once('.')?;
    let domain = u32::from_str_radix(domain, 16).ok().filter(|&d| d <= 0xffff)?;
    let bus = u8::from_str_radix(bus, 16).ok()?;
    let dev = u8::from_str_radix(dev, 16).ok().filter(|&d| d < 32)?;
    let func = u8::from_str_radix(func, 16).ok().filter(|&f| f < 8)?;
    Some(format!("{domain:04x}:{bus:02x}:{dev:02x}.{func}"))
}

impl fmt::Display for DeviceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceSpec::Amd { index } => write!(f, "amd:{index}"),
            DeviceSpec::Nv { index } => write!(f, "nv:{index}"),
            DeviceSpec::Emu { arch, index: 0 } => write!(f, "emu:{arch}"),
            DeviceSpec::Emu { arch, index } => write!(f, "emu:{arch}:{index}"),
            DeviceSpec::EmuNv { arch, index: 0 } => write!(f, "emu-nv:{arch}"),
            DeviceSpec::EmuNv { arch, index } => write!(f, "emu-nv:{arch}:{index}"),
            DeviceSpec::Am { bdf } => write!(f, "am:{bdf}"),
            DeviceSpec::Usb { path } => write!(f, "usb:{path}"),
            DeviceSpec::Remote { host, port, device } if host.contains(':') => {
                write!(f, "remote:[{host}]:{port}/{device}")
            }
            DeviceSpec::Remote { host, port, device } => write!(f, "remote:{host}:{port}/{device}"),
        }
    }
}

impl DeviceSpec {
    /// The architecture of an `am:emu:ARCH` spec (the emulated PCI GPU).
    pub fn am_emulated_arch(&self) -> Option<&str> {
        match self {
            DeviceSpec::Am { bdf } => bdf.strip_prefix("emu:"),
            _ => None,
        }
    }
}

impl std::str::FromStr for DeviceSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        DeviceSpec::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> DeviceSpec {
        DeviceSpec::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn parses_every_form() {
        assert_eq!(p("amd"), DeviceSpec::Amd { index: 0 });
        assert_eq!(p("amd:2"), DeviceSpec::Amd { index: 2 });
        assert_eq!(p("nv:1"), DeviceSpec::Nv { index: 1 });
        assert_eq!(p("emu:gfx1100"), DeviceSpec::Emu { arch: "gfx1100".into(), index: 0 });
        assert_eq!(p("emu:gfx950:3"), DeviceSpec::Emu { arch: "gfx950".into(), index: 3 });
        assert_eq!(p("emu-nv:sm_90:15"), DeviceSpec::EmuNv { arch: "sm_90".into(), index: 15 });
        assert_eq!(p("emu-nv:sm_90"), DeviceSpec::EmuNv { arch: "sm_90".into(), index: 0 });
        assert_eq!(p("am:03:00.0"), DeviceSpec::Am { bdf: "0000:03:00.0".into() });
        assert_eq!(p("am:0000:C1:00.1"), DeviceSpec::Am { bdf: "0000:c1:00.1".into() });
        assert_eq!(p("am:emu:gfx1100"), DeviceSpec::Am { bdf: "emu:gfx1100".into() });
        assert_eq!(p("am:emu:gfx942").am_emulated_arch(), Some("gfx942"));
        assert_eq!(p("am:03:00.0").am_emulated_arch(), None);
        assert_eq!(p("usb:/dev/bus/usb/002/003"), DeviceSpec::Usb { path: "/dev/bus/usb/002/003".into() });
        assert_eq!(
            p("remote:gpu-box:6667/emu:gfx1201"),
            DeviceSpec::Remote {
                host: "gpu-box".into(),
                port: 6667,
                device: Box::new(DeviceSpec::Emu { arch: "gfx1201".into(), index: 0 })
            }
        );
        assert_eq!(p("remote:[::1]:9/nv").to_string(), "remote:[::1]:9/nv:0");
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "amd:0",
            "nv:3",
            "emu:gfx942",
            "emu:gfx1100:1",
            "emu-nv:sm_89",
            "am:0000:03:00.0",
            "am:emu:gfx1100",
            "remote:h:1/amd:1",
        ] {
            assert_eq!(p(s).to_string(), s);
        }
    }

    #[test]
    fn rejects_with_a_reason() {
        for (s, why) in [
            ("", "expected amd"),
            ("cuda:0", "expected amd"),
            ("amd:x", "not a device index"),
            ("emu", "needs an architecture"),
            ("emu:gfx906", "no emulated `gfx906`"),
            ("emu-nv:sm_70", "no emulated `sm_70`"),
            ("am:zz:00.0", "not a PCI address"),
            ("am:03:20.0", "not a PCI address"),
            ("am:emu:gfx1201", "no emulated PCI `gfx1201`; am:emu has gfx1100, gfx942"),
            ("am:emu:", "no emulated PCI ``"),
            ("am:emu:gfx1100:1", "no emulated PCI `gfx1100:1`"),
            ("remote:host/amd", "HOST:PORT"),
            ("remote:h:99999/amd", "not a port"),
            ("remote:h:1/bogus", "expected amd"),
            ("usb:", "needs a device path"),
            // Each index builds the devices below it: capped, and the error says what exists.
            ("emu:gfx1100:16", "emu:gfx1100:0 to emu:gfx1100:15"),
            ("emu:gfx1100:4294967295", "emulates 16 devices"),
            ("emu-nv:sm_90:1000000", "emu-nv:sm_90:0 to emu-nv:sm_90:15"),
        ] {
            let err = DeviceSpec::parse(s).unwrap_err().to_string();
            assert!(err.contains(why), "{s:?}: {err}");
        }
    }
}
