//! The remote transport's server: serves the PCI functions it was given by name, one client per
//! device at a time, over any [`PciDevice`] an [`Opener`] yields (a host GPU, an emulated one).
//!
//! A session claims its device at its first request and holds it until the client goes (it
//! disconnects, or its link fails): the device and its DMA memory are then dropped and the claim
//! released, so that the next client finds it free. A second client meanwhile is told who holds
//! it.

use super::channel::Channel;
use super::protocol::{Request, Response, MAX_CHUNK};
use super::Key;
use crate::pci::{DmaMemory, PciDevice};
use crate::{Error, Result};
use std::collections::HashMap;
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Opens a device the server serves, by its spec, for one session (else why not, for the client).
pub type Opener = dyn Fn(&str) -> std::result::Result<Arc<dyn PciDevice>, String> + Send + Sync;

/// What one request yields (owned: the answer is encoded after the device call).
enum Answer {
    Done,
    Value(u64),
    /// Bytes read, in the session's data buffer.
    Data,
    Flag(bool),
    Dma(u32, Vec<u64>),
}

pub struct Server {
    devices: Vec<String>,
    key: Option<Key>,
    opener: Box<Opener>,
    /// Each claimed device and the peer that holds it.
    claims: Mutex<HashMap<String, SocketAddr>>,
    /// A client silent this long is taken for gone (its device released).
    idle: Option<Duration>,
}

/// A device claimed by a session, released when dropped.
struct Claim<'a> {
    server: &'a Server,
    device: String,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.server.claims.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.device);
    }
}

/// An open session's device state. Fields drop in order: DMA memory, then the device, then the
/// claim, so that the next client never finds the device still open.
struct Session<'a> {
    dma: HashMap<u32, Box<dyn DmaMemory>>,
    next_dma: u32,
    dev: Arc<dyn PciDevice>,
    _claim: Claim<'a>,
    /// What the last read request read (kept: a fresh multi-MiB buffer per read costs page faults).
    data: Vec<u8>,
}

fn peer_error(peer: &SocketAddr, e: io::Error) -> Error {
    Error::io(format!("client {peer}"), e)
}

impl Server {
    /// A server of `devices` (specs as clients name them), opened through `opener`.
    pub fn new(devices: Vec<String>, key: Option<Key>, opener: Box<Opener>) -> Server {
        Server { devices, key, opener, claims: Mutex::default(), idle: Some(Duration::from_secs(3600)) }
    }

    /// How long a silent client keeps its device (`None`: until it disconnects).
    pub fn with_idle_timeout(mut self, idle: Option<Duration>) -> Server {
        self.idle = idle;
        self
    }

    /// Accept clients for ever, one thread each; `report` gets one line per session's end.
    pub fn serve(self: Arc<Self>, listener: TcpListener, report: Arc<dyn Fn(String) + Send + Sync>) -> ! {
        loop {
            let (stream, peer) = match listener.accept() {
                Ok(c) => c,
                // Out of descriptors, a connection reset before it was accepted: the server goes on.
                Err(e) => {
                    report(format!("accept: {e}"));
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                }
            };
            let (me, report) = (self.clone(), report.clone());
            std::thread::spawn(move || match me.handle(stream, peer) {
                Ok(device) => report(format!("{peer}: released {device}")),
                Err(e) => report(e.to_string()),
            });
        }
    }

    /// Serve one client until it goes; the device it held, or why the session failed.
    pub fn handle(&self, stream: TcpStream, peer: SocketAddr) -> Result<String> {
        let mut ch = Channel::accept(stream, self.key.as_ref()).map_err(|e| peer_error(&peer, e))?;
        ch.set_timeout(self.idle).map_err(|e| peer_error(&peer, e))?;
        let mut rx = Vec::new();
        ch.recv(&mut rx, "waiting for the client to name its device").map_err(|e| peer_error(&peer, e))?;
        let mut session = match self.open(&rx, peer) {
            Ok(s) => s,
            Err(why) => {
                let _ = send(&mut ch, &Response::Failed { index: 0, message: &why });
                return Err(peer_error(&peer, io::Error::new(io::ErrorKind::PermissionDenied, why)));
            }
        };
        let device = session._claim.device.clone();
        let mut bars = Vec::new();
        for i in 0..6 {
            if let Some(b) = session.dev.bar(i) {
                bars.push((i, b));
            }
        }
        send(&mut ch, &Response::Opened { name: session.dev.name(), bars }).map_err(|e| peer_error(&peer, e))?;
        loop {
            match ch.recv(&mut rx, "waiting for a request") {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(device),
                Err(e) => {
                    // Say why before closing, so that the client's error line has the reason too.
                    let _ = send(&mut ch, &Response::Failed { index: 0, message: &format!("server: {e}") });
                    return Err(peer_error(&peer, e));
                }
            }
            let batch = match Request::decode_batch(&rx) {
                Ok(b) => b,
                Err(e) => {
                    let _ = send(&mut ch, &Response::Failed { index: 0, message: &e.to_string() });
                    return Err(peer_error(&peer, io::Error::new(io::ErrorKind::InvalidData, e.to_string())));
                }
            };
            let mut last = Answer::Done;
            let mut failed = None;
            for (i, req) in batch.iter().enumerate() {
                match session.run(req) {
                    Ok(a) => last = a,
                    Err(e) => {
                        failed = Some((i as u32, e.to_string()));
                        break;
                    }
                }
            }
            let sent = match &failed {
                Some((index, message)) => send(&mut ch, &Response::Failed { index: *index, message }),
                None => send(&mut ch, &last.response(&session.data)),
            };
            sent.map_err(|e| peer_error(&peer, e))?;
        }
    }

    /// Claim and open the device the client's first message names; else why not, for the client.
    fn open(&self, first: &[u8], peer: SocketAddr) -> std::result::Result<Session<'_>, String> {
        let device = match Request::decode_batch(first).map_err(|e| e.to_string())?.as_slice() {
            [Request::Open { device }] => device.to_string(),
            _ => return Err("the first request must name a device".into()),
        };
        if !self.devices.contains(&device) {
            return Err(format!("unknown device {device} (this server serves: {})", self.devices.join(", ")));
        }
        {
            let mut claims = self.claims.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(holder) = claims.get(&device) {
                return Err(format!("{device} is in use by {holder}"));
            }
            claims.insert(device.clone(), peer);
        }
        let claim = Claim { server: self, device };
        let dev = (self.opener)(&claim.device).map_err(|e| format!("{}: {e}", claim.device))?;
        Ok(Session { dma: HashMap::new(), next_dma: 1, dev, _claim: claim, data: Vec::new() })
    }
}

fn send(ch: &mut Channel, r: &Response) -> io::Result<()> {
    ch.send_encoded(|out| r.encode(out))
}

impl Answer {
    fn response<'a>(&'a self, data: &'a [u8]) -> Response<'a> {
        match self {
            Answer::Done => Response::Done,
            Answer::Value(v) => Response::Value(*v),
            Answer::Data => Response::Data(data),
            Answer::Flag(f) => Response::Flag(*f),
            Answer::Dma(id, pages) => Response::Dma { id: *id, bus_pages: pages.clone() },
        }
    }
}

impl Session<'_> {
    fn too_long(&self, len: usize) -> Result<()> {
        match len <= MAX_CHUNK {
            true => Ok(()),
            false => {
                Err(Error::Unsupported(format!("{}: a transfer of {len} bytes (at most {MAX_CHUNK})", self.dev.name())))
            }
        }
    }

    fn dma(&self, id: u32) -> Result<&dyn DmaMemory> {
        let m = self.dma.get(&id).ok_or_else(|| Error::Unsupported(format!("{}: no DMA memory {id}", self.dev.name())));
        m.map(|m| &**m)
    }

    fn run(&mut self, req: &Request) -> Result<Answer> {
        let dev = &self.dev;
        Ok(match *req {
            Request::Open { .. } => return Err(Error::Unsupported("the device is already open".into())),
            Request::ConfigRead { offset, len } => {
                self.data.resize(len.min(4096) as usize, 0);
                dev.config_read(offset, &mut self.data)?;
                Answer::Data
            }
            Request::ConfigWrite { offset, data } => Answer::Done.after(dev.config_write(offset, data))?,
            Request::Read32 { bar, offset } => Answer::Value(dev.read32(bar, offset)? as u64),
            Request::Read64 { bar, offset } => Answer::Value(dev.read64(bar, offset)?),
            Request::Write32 { bar, offset, value } => Answer::Done.after(dev.write32(bar, offset, value))?,
            Request::Write64 { bar, offset, value } => Answer::Done.after(dev.write64(bar, offset, value))?,
            Request::CopyFromBar { bar, offset, len } => {
                self.too_long(len as usize)?;
                self.data.resize(len as usize, 0);
                dev.copy_from_bar(bar, offset, &mut self.data)?;
                Answer::Data
            }
            Request::CopyToBar { bar, offset, data } => Answer::Done.after(dev.copy_to_bar(bar, offset, data))?,
            Request::AllocDma { size, contiguous } => {
                let m = dev.alloc_dma(size, contiguous)?;
                let id = self.next_dma;
                self.next_dma += 1;
                let pages = m.bus_pages().to_vec();
                self.dma.insert(id, m);
                Answer::Dma(id, pages)
            }
            Request::FreeDma { id } => {
                self.dma.remove(&id);
                Answer::Done
            }
            Request::DmaRead { id, offset, len } => {
                self.too_long(len as usize)?;
                let mut data = std::mem::take(&mut self.data);
                data.resize(len as usize, 0);
                let read = self.dma(id).and_then(|m| m.read(offset, &mut data));
                self.data = data;
                read?;
                Answer::Data
            }
            Request::DmaWrite { id, offset, data } => Answer::Done.after(self.dma(id)?.write(offset, data))?,
            Request::WaitInterrupt { timeout_us } => {
                // Bounded, so that a session always comes back to its client.
                Answer::Flag(dev.wait_interrupt(Duration::from_micros(timeout_us.min(60_000_000)))?)
            }
            Request::Reset => Answer::Done.after(dev.reset())?,
        })
    }
}

impl Answer {
    fn after(self, r: Result<()>) -> Result<Answer> {
        r.map(|()| self)
    }
}
