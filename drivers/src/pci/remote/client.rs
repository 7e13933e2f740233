//! The remote transport's client: [`RemotePci`], a [`PciDevice`] whose calls go to a
//! `baregpu serve` over a [`Channel`], and [`RemoteDma`], the server's DMA memory.
//!
//! Writes are posted: encoded into a pending batch that the next call needing an answer (a read,
//! an allocation) carries, or that a size limit flushes. The first link failure (timeout, closed
//! connection, failed authentication) breaks the link: that call and every later one fail with
//! an error naming the link, so no wait on the device outlives it.

use super::channel::Channel;
use super::protocol::{Request, Response, MAX_CHUNK};
use super::{check_keyless, Key};
use crate::pci::{BarInfo, DmaMemory, PciDevice};
use crate::{Error, Result};
use std::io;
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Posted requests flushed once their batch reaches this size.
const FLUSH_BYTES: usize = 1 << 20;

/// The link's state.
struct Conn {
    ch: Option<Channel>,
    /// Why the link broke (every later call says it).
    broken: Option<(io::ErrorKind, String)>,
    pending: Vec<u8>,
    posted: u32,
    rx: Vec<u8>,
}

/// One connection to a server, shared by the device and its DMA memory.
struct Link {
    /// `remote:HOST:PORT`: what transport errors name.
    name: String,
    timeout: Duration,
    conn: Mutex<Conn>,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link").field("name", &self.name).finish_non_exhaustive()
    }
}

impl Link {
    fn lock(&self) -> MutexGuard<'_, Conn> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn link_error(&self, kind: io::ErrorKind, text: String) -> Error {
        Error::io(&self.name, io::Error::new(kind, text))
    }

    /// Break the link on a transport failure: close it and remember why.
    fn fail(&self, conn: &mut Conn, e: io::Error) -> Error {
        let text = e.to_string();
        conn.ch = None;
        conn.broken = Some((e.kind(), text.clone()));
        self.link_error(e.kind(), text)
    }

    /// Send the pending batch with `last` (if any) and hand the answer to `take`.
    fn exchange<T>(
        &self,
        conn: &mut Conn,
        last: Option<&Request>,
        wait: Duration,
        take: impl FnOnce(Response) -> Result<T>,
    ) -> Result<T> {
        if let Some((kind, why)) = &conn.broken {
            return Err(self.link_error(*kind, format!("link down: {why}")));
        }
        if let Some(r) = last {
            r.encode(&mut conn.pending);
        }
        let count = conn.posted + last.is_some() as u32;
        let batch = std::mem::take(&mut conn.pending);
        conn.posted = 0;
        let Conn { ch, rx, .. } = &mut *conn;
        let Some(ch) = ch.as_mut() else { return Err(self.link_error(io::ErrorKind::NotConnected, "closed".into())) };
        let sent = ch.send(&batch).and_then(|()| {
            if wait != self.timeout {
                ch.set_timeout(Some(wait))?;
            }
            let r = ch.recv(rx, "waiting for an answer");
            if wait != self.timeout {
                ch.set_timeout(Some(self.timeout))?;
            }
            r
        });
        if let Err(e) = sent {
            return Err(self.fail(conn, e));
        }
        conn.pending = batch;
        conn.pending.clear();
        match Response::decode(&conn.rx) {
            Err(e) => {
                let e = io::Error::new(io::ErrorKind::InvalidData, e.to_string());
                Err(self.fail(conn, e))
            }
            Ok(Response::Failed { index, message }) if index + 1 < count => {
                Err(Error::Protocol(format!("{}: a posted write failed: {message}", self.name)))
            }
            Ok(Response::Failed { message, .. }) => Err(Error::Protocol(format!("{}: {message}", self.name))),
            Ok(r) => take(r),
        }
    }

    fn call<T>(&self, req: Request, take: impl FnOnce(Response) -> Result<T>) -> Result<T> {
        let mut conn = self.lock();
        self.exchange(&mut conn, Some(&req), self.timeout, take)
    }

    /// Queue a write; flush the batch when it is large.
    fn post(&self, req: Request) -> Result<()> {
        let mut conn = self.lock();
        if let Some((kind, why)) = &conn.broken {
            return Err(self.link_error(*kind, format!("link down: {why}")));
        }
        req.encode(&mut conn.pending);
        conn.posted += 1;
        match conn.pending.len() >= FLUSH_BYTES {
            true => self.exchange(&mut conn, None, self.timeout, |_| Ok(())),
            false => Ok(()),
        }
    }

    fn unexpected<T>(&self, r: Response) -> Result<T> {
        Err(Error::Protocol(format!("{}: an answer of the wrong kind: {r:?}", self.name)))
    }
}

impl Drop for Link {
    /// Writes still posted reach the device before the connection closes.
    fn drop(&mut self) {
        let mut conn = self.lock();
        if conn.posted > 0 && conn.ch.is_some() {
            let _ = self.exchange(&mut conn, None, self.timeout, |_| Ok(()));
        }
    }
}

/// A PCI function on a `baregpu serve`.
#[derive(Debug)]
pub struct RemotePci {
    link: Arc<Link>,
    name: String,
    bars: Vec<(u8, BarInfo)>,
}

impl RemotePci {
    /// Connect to `host:port`, authenticate with `key` (required beyond loopback) and claim the
    /// server's `device` (a spec such as `am:emu:gfx1100`). Every wait is bounded by `timeout`.
    pub fn connect(
        host: &str,
        port: u16,
        device: &str,
        key: Option<&Key>,
        timeout: Duration,
    ) -> Result<Arc<RemotePci>> {
        let name = match host.contains(':') {
            true => format!("remote:[{host}]:{port}"),
            false => format!("remote:{host}:{port}"),
        };
        let io_err = |e: io::Error| Error::io(&name, e);
        let addrs: Vec<_> = (host, port).to_socket_addrs().map_err(io_err)?.collect();
        let mut last = io::Error::new(io::ErrorKind::NotFound, "the host has no address");
        let mut stream = None;
        for addr in &addrs {
            check_keyless(addr, key, &name, super::KEY_ENV)?;
            match TcpStream::connect_timeout(addr, timeout) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = e,
            }
        }
        let stream = stream.ok_or_else(|| io_err(io::Error::new(last.kind(), format!("no server: {last}"))))?;
        stream
            .set_read_timeout(Some(timeout))
            .and_then(|()| stream.set_write_timeout(Some(timeout)))
            .map_err(io_err)?;
        let ch = Channel::connect(stream, key).map_err(io_err)?;
        let conn = Conn { ch: Some(ch), broken: None, pending: Vec::new(), posted: 0, rx: Vec::new() };
        let link = Arc::new(Link { name: name.clone(), timeout, conn: Mutex::new(conn) });
        let (server_name, bars) = link.call(Request::Open { device }, |r| match r {
            Response::Opened { name, bars } => Ok((name.to_string(), bars)),
            r => link.unexpected(r),
        })?;
        Ok(Arc::new(RemotePci { name: format!("{name}/{server_name}"), link, bars }))
    }

    fn read_bytes(&self, req: Request, buf: &mut [u8]) -> Result<()> {
        self.link.call(req, |r| match r {
            Response::Data(d) if d.len() == buf.len() => {
                buf.copy_from_slice(d);
                Ok(())
            }
            r => self.link.unexpected(r),
        })
    }
}

impl PciDevice for RemotePci {
    fn name(&self) -> &str {
        &self.name
    }

    fn config_read(&self, offset: u16, buf: &mut [u8]) -> Result<()> {
        let len = u16::try_from(buf.len())
            .map_err(|_| Error::Unsupported(format!("{}: config read of {} bytes", self.name, buf.len())))?;
        self.read_bytes(Request::ConfigRead { offset, len }, buf)
    }

    fn config_write(&self, offset: u16, data: &[u8]) -> Result<()> {
        self.link.post(Request::ConfigWrite { offset, data })
    }

    fn bar(&self, index: u8) -> Option<BarInfo> {
        self.bars.iter().find(|(i, _)| *i == index).map(|(_, b)| *b)
    }

    fn read32(&self, bar: u8, offset: u64) -> Result<u32> {
        self.link.call(Request::Read32 { bar, offset }, |r| match r {
            Response::Value(v) => Ok(v as u32),
            r => self.link.unexpected(r),
        })
    }

    fn write32(&self, bar: u8, offset: u64, value: u32) -> Result<()> {
        self.link.post(Request::Write32 { bar, offset, value })
    }

    fn read64(&self, bar: u8, offset: u64) -> Result<u64> {
        self.link.call(Request::Read64 { bar, offset }, |r| match r {
            Response::Value(v) => Ok(v),
            r => self.link.unexpected(r),
        })
    }

    fn write64(&self, bar: u8, offset: u64, value: u64) -> Result<()> {
        self.link.post(Request::Write64 { bar, offset, value })
    }

    fn copy_from_bar(&self, bar: u8, offset: u64, buf: &mut [u8]) -> Result<()> {
        for (i, chunk) in buf.chunks_mut(MAX_CHUNK).enumerate() {
            let offset = offset + (i * MAX_CHUNK) as u64;
            self.read_bytes(Request::CopyFromBar { bar, offset, len: chunk.len() as u32 }, chunk)?;
        }
        Ok(())
    }

    fn copy_to_bar(&self, bar: u8, offset: u64, data: &[u8]) -> Result<()> {
        for (i, chunk) in data.chunks(MAX_CHUNK).enumerate() {
            self.link.post(Request::CopyToBar { bar, offset: offset + (i * MAX_CHUNK) as u64, data: chunk })?;
        }
        Ok(())
    }

    fn alloc_dma(&self, size: u64, contiguous: bool) -> Result<Box<dyn DmaMemory>> {
        let (id, bus_pages) = self.link.call(Request::AllocDma { size, contiguous }, |r| match r {
            Response::Dma { id, bus_pages } => Ok((id, bus_pages)),
            r => self.link.unexpected(r),
        })?;
        Ok(Box::new(RemoteDma { link: self.link.clone(), id, size, bus_pages }))
    }

    fn wait_interrupt(&self, timeout: Duration) -> Result<bool> {
        let req = Request::WaitInterrupt { timeout_us: timeout.as_micros().min(u64::MAX as u128) as u64 };
        let mut conn = self.link.lock();
        self.link.exchange(&mut conn, Some(&req), self.link.timeout + timeout, |r| match r {
            Response::Flag(f) => Ok(f),
            r => self.link.unexpected(r),
        })
    }

    fn reset(&self) -> Result<()> {
        self.link.call(Request::Reset, |r| match r {
            Response::Done => Ok(()),
            r => self.link.unexpected(r),
        })
    }
}

/// DMA memory on the server's side of the link: read and written in bulk, never mapped here.
#[derive(Debug)]
pub struct RemoteDma {
    link: Arc<Link>,
    id: u32,
    size: u64,
    bus_pages: Vec<u64>,
}

impl DmaMemory for RemoteDma {
    fn size(&self) -> u64 {
        self.size
    }

    fn bus_pages(&self) -> &[u64] {
        &self.bus_pages
    }

    fn cpu_ptr(&self) -> Option<*mut u8> {
        None
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        for (i, chunk) in buf.chunks_mut(MAX_CHUNK).enumerate() {
            let req =
                Request::DmaRead { id: self.id, offset: offset + (i * MAX_CHUNK) as u64, len: chunk.len() as u32 };
            self.link.call(req, |r| match r {
                Response::Data(d) if d.len() == chunk.len() => {
                    chunk.copy_from_slice(d);
                    Ok(())
                }
                r => self.link.unexpected(r),
            })?;
        }
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        for (i, chunk) in data.chunks(MAX_CHUNK).enumerate() {
            self.link.post(Request::DmaWrite { id: self.id, offset: offset + (i * MAX_CHUNK) as u64, data: chunk })?;
        }
        Ok(())
    }
}

impl Drop for RemoteDma {
    fn drop(&mut self) {
        // A broken link has already freed it on the server (the session ended).
        let _ = self.link.post(Request::FreeDma { id: self.id });
    }
}
