//! The remote transport's server: serves the PCI functions it was given by name, one client per
//! device at a time, over any [`PciDevice`] an [`Opener`] yields (a host GPU, an emulated one).
//!
//! A session claims its device at its first request and holds it until the client closes it
//! (`Close`, answered once the device is free), disconnects, or its link fails: the device and
//! its DMA memory are then dropped and the claim released, so that the next client finds it free.
//! A second client meanwhile is told who holds it. A session may instead ask what the server
//! exports (`List`) and go.

use super::channel::Channel;
use super::protocol::{Exported, Request, Response, MAX_CHUNK};
use super::Key;
use crate::pci::wait::MAX_WAIT;
use crate::pci::{DmaMemory, PciDevice};
use crate::{Error, Result};
use std::collections::HashMap;
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Opens a device the server serves, by its spec, for one session (else why not, for the client).
pub type Opener = dyn Fn(&str) -> std::result::Result<Arc<dyn PciDevice>, String> + Send + Sync;

/// A served device's architecture, where its spec tells it (for `List`; empty when unknown).
pub type ArchOf = dyn Fn(&str) -> String + Send + Sync;

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
    arch_of: Box<ArchOf>,
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
        let idle = Some(Duration::from_secs(3600));
        Server { devices, key, opener, claims: Mutex::default(), idle, arch_of: Box::new(|_| String::new()) }
    }

    /// Name each device's architecture in `List` answers.
    pub fn with_arch(mut self, arch_of: Box<ArchOf>) -> Server {
        self.arch_of = arch_of;
        self
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
                Ok(Some(device)) => report(format!("{peer}: released {device}")),
                Ok(None) => {}
                Err(e) => report(e.to_string()),
            });
        }
    }

    /// Serve one client until it goes; the device it held (none: it only listed them), or why
    /// the session failed.
    pub fn handle(&self, stream: TcpStream, peer: SocketAddr) -> Result<Option<String>> {
        let mut ch = Channel::accept(stream, self.key.as_ref()).map_err(|e| peer_error(&peer, e))?;
        ch.set_timeout(self.idle).map_err(|e| peer_error(&peer, e))?;
        let mut rx = Vec::new();
        ch.recv(&mut rx, "waiting for the client to name its device").map_err(|e| peer_error(&peer, e))?;
        if matches!(Request::decode_batch(&rx).as_ref().map(|b| b.1.as_slice()), Ok([Request::List])) {
            return self.list(&mut ch).map(|()| None).map_err(|e| peer_error(&peer, e));
        }
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
        match session.serve(&mut ch, &mut rx) {
            // The client closed: release the device, then confirm.
            Ok(Some(failed)) => {
                drop(session);
                let sent = match &failed {
                    Some((index, message)) => send(&mut ch, &Response::Failed { index: *index, message }),
                    None => send(&mut ch, &Response::Done),
                };
                sent.map_err(|e| peer_error(&peer, e)).map(|()| Some(device))
            }
            Ok(None) => Ok(Some(device)),
            Err(e) => Err(peer_error(&peer, e)),
        }
    }

    /// Answer `List`: every device served, and who holds it.
    fn list(&self, ch: &mut Channel) -> io::Result<()> {
        let claims = self.claims.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let archs: Vec<String> = self.devices.iter().map(|d| (self.arch_of)(d)).collect();
        let holders: Vec<String> =
            self.devices.iter().map(|d| claims.get(d).map_or(String::new(), |p| p.to_string())).collect();
        let devices = (self.devices.iter().zip(&archs).zip(&holders))
            .map(|((spec, arch), holder)| Exported { spec, arch, holder })
            .collect();
        send(ch, &Response::Listing(devices))
    }

    /// Claim and open the device the client's first message names; else why not, for the client.
    fn open(&self, first: &[u8], peer: SocketAddr) -> std::result::Result<Session<'_>, String> {
        let device = match Request::decode_batch(first).map_err(|e| e.to_string())?.1.as_slice() {
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

/// Send an answer; read data goes from where it was read, uncopied.
fn send(ch: &mut Channel, r: &Response) -> io::Result<()> {
    let mut head = Vec::with_capacity(64);
    let tail = r.encode_split(&mut head);
    ch.send_parts(&[&head, tail])
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

/// Why a run of batches stopped: the index in the run of the request that failed, and why.
type Failure = Option<(u32, String)>;

impl Session<'_> {
    /// Run the client's batches until it closes (`Some`: how the run before `Close` ended) or
    /// disconnects (`None`); an error is a failed link, told to the client where it can hear.
    fn serve(&mut self, ch: &mut Channel, rx: &mut Vec<u8>) -> io::Result<Option<Failure>> {
        // The run since the last answer: requests seen, the last answer, the first failure.
        let (mut run, mut last, mut failed) = (0u32, Answer::Done, None);
        loop {
            match ch.recv(rx, "waiting for a request") {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
                Err(e) => {
                    // Say why before closing, so that the client's error line has the reason too.
                    let _ = send(ch, &Response::Failed { index: 0, message: &format!("server: {e}") });
                    return Err(e);
                }
            }
            let (answer, batch) = match Request::decode_batch(rx) {
                Ok(b) => b,
                Err(e) => {
                    let _ = send(ch, &Response::Failed { index: 0, message: &e.to_string() });
                    return Err(io::Error::new(io::ErrorKind::InvalidData, e.to_string()));
                }
            };
            for req in &batch {
                if matches!(req, Request::Close) {
                    return Ok(Some(failed));
                }
                // After a failure the rest of the run is not run (as within one batch).
                if failed.is_none() {
                    match self.run(req) {
                        Ok(a) => last = a,
                        Err(e) => failed = Some((run, e.to_string())),
                    }
                }
                run += 1;
            }
            if answer {
                match failed.take() {
                    Some((index, message)) => send(ch, &Response::Failed { index, message: &message }),
                    None => send(ch, &last.response(&self.data)),
                }?;
                (run, last) = (0, Answer::Done);
            }
        }
    }

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
            Request::Open { .. } | Request::List => {
                return Err(Error::Unsupported("the device is already open".into()))
            }
            // The session's loop ends at a close before it gets here.
            Request::Close => Answer::Done,
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
                Answer::Flag(dev.wait_interrupt(Duration::from_micros(timeout_us).min(MAX_WAIT))?)
            }
            Request::Reset => Answer::Done.after(dev.reset())?,
            // Bounded, as an interrupt wait: the session comes back to its client.
            Request::WaitBar { bar, offset, until, timeout_us } => {
                Answer::Value(dev.wait_bar_u64(bar, offset, until, Duration::from_micros(timeout_us).min(MAX_WAIT))?)
            }
            Request::WaitDma { id, offset, until, timeout_us } => {
                let bound = Duration::from_micros(timeout_us).min(MAX_WAIT);
                Answer::Value(self.dma(id)?.wait_u64(offset, until, bound)?)
            }
        })
    }
}

impl Answer {
    fn after(self, r: Result<()>) -> Result<Answer> {
        r.map(|()| self)
    }
}
