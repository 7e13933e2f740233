//! The remote transport's client: [`RemotePci`], a [`PciDevice`] whose calls go to a
//! `baregpu serve` over a [`Channel`], and [`RemoteDma`], the server's DMA memory.
//!
//! Writes are posted: encoded into a pending batch that the next call needing an answer (a read,
//! an allocation) carries, or that a size limit sends ahead unanswered (a bulk write streams).
//! Bulk reads keep several requests in flight. The first link failure (timeout, closed
//! connection, failed authentication) breaks the link: that call and every later one fail with
//! an error naming the link, so no wait on the device outlives it. Dropping the device closes
//! the session and waits (bounded) for the server to confirm the device is free.

use super::channel::Channel;
use super::protocol::{batch_is_empty, begin_batch, set_answer, Exported, Request, Response};
use super::{check_keyless, Key};
use crate::pci::wait::MAX_WAIT;
use crate::pci::{BarInfo, DmaMemory, PciDevice, Until};
use crate::{Error, Result};
use std::io;
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Posted requests go ahead (unanswered) once their batch reaches this size.
const FLUSH_BYTES: usize = 1 << 20;

/// Bulk copies travel in requests of this size (small enough that several are in flight, and
/// that encryption on one side overlaps decryption on the other).
const PIECE: usize = 1 << 20;

/// A posted write's data this large goes out at once, from where it is (not copied into a batch).
const DIRECT_BYTES: usize = 64 << 10;

/// Bulk read requests in flight at once.
const READ_WINDOW: usize = 4;

/// The link's state.
struct Conn {
    ch: Option<Channel>,
    /// Why the link broke (every later call says it).
    broken: Option<(io::ErrorKind, String)>,
    /// The batch being built (see [`begin_batch`]).
    pending: Vec<u8>,
    /// Requests since the last answer: the server counts a failure's index across them.
    posted: u32,
    rx: Vec<u8>,
    /// Answers awaited so far: the link's round trips (what a replay's cost is counted in).
    answers: u64,
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
    /// Connect to `host:port` and open the channel (keyed with `key`, required beyond loopback).
    fn dial(host: &str, port: u16, key: Option<&Key>, timeout: Duration) -> Result<Link> {
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
        let conn = Conn { ch: Some(ch), broken: None, pending: Vec::new(), posted: 0, rx: Vec::new(), answers: 0 };
        Ok(Link { name, timeout, conn: Mutex::new(conn) })
    }

    /// Drop the connection without closing a session (the server ended it already).
    fn forget(&self) {
        self.lock().ch = None;
    }

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

    fn check(&self, conn: &Conn) -> Result<()> {
        match &conn.broken {
            Some((kind, why)) => Err(self.link_error(*kind, format!("link down: {why}"))),
            None => Ok(()),
        }
    }

    /// Send the pending batch (with `last`, if any); `answer`: the server answers it, for every
    /// request since the last answer, whose count this returns.
    fn send_batch(&self, conn: &mut Conn, last: Option<&Request>, answer: bool) -> Result<u32> {
        self.send_batch_with(conn, last, &[], answer)
    }

    /// [`Self::send_batch`], the batch followed by `tail` (the data of its last request).
    fn send_batch_with(&self, conn: &mut Conn, last: Option<&Request>, tail: &[u8], answer: bool) -> Result<u32> {
        self.check(conn)?;
        if batch_is_empty(&conn.pending) {
            begin_batch(&mut conn.pending);
        }
        if let Some(r) = last {
            r.encode(&mut conn.pending);
            conn.posted += 1;
        }
        set_answer(&mut conn.pending, answer);
        let Conn { ch, pending, .. } = &mut *conn;
        let Some(ch) = ch.as_mut() else { return Err(self.link_error(io::ErrorKind::NotConnected, "closed".into())) };
        if let Err(e) = ch.send_parts(&[pending, tail]) {
            return Err(self.fail(conn, e));
        }
        begin_batch(&mut conn.pending);
        let count = conn.posted;
        if answer {
            conn.posted = 0;
        }
        Ok(count)
    }

    /// The answer to a batch that ran `count` requests since the previous answer, to `take`.
    fn recv_answer<T>(
        &self,
        conn: &mut Conn,
        count: u32,
        wait: Duration,
        take: impl FnOnce(Response) -> Result<T>,
    ) -> Result<T> {
        conn.answers += 1;
        let Conn { ch, rx, .. } = &mut *conn;
        let Some(ch) = ch.as_mut() else { return Err(self.link_error(io::ErrorKind::NotConnected, "closed".into())) };
        let got = (|| {
            if wait != self.timeout {
                ch.set_timeout(Some(wait))?;
            }
            let r = ch.recv(rx, "waiting for an answer");
            if wait != self.timeout {
                ch.set_timeout(Some(self.timeout))?;
            }
            r
        })();
        if let Err(e) = got {
            return Err(self.fail(conn, e));
        }
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

    /// Send the pending batch with `last` and hand the answer to `take`.
    fn exchange<T>(
        &self,
        conn: &mut Conn,
        last: &Request,
        wait: Duration,
        take: impl FnOnce(Response) -> Result<T>,
    ) -> Result<T> {
        let count = self.send_batch(conn, Some(last), true)?;
        self.recv_answer(conn, count, wait, take)
    }

    fn call<T>(&self, req: Request, take: impl FnOnce(Response) -> Result<T>) -> Result<T> {
        let mut conn = self.lock();
        self.exchange(&mut conn, &req, self.timeout, take)
    }

    /// Queue a write; send the batch ahead, unanswered, when it is large.
    fn post(&self, req: Request) -> Result<()> {
        let mut conn = self.lock();
        self.check(&conn)?;
        if batch_is_empty(&conn.pending) {
            begin_batch(&mut conn.pending);
        }
        let tail = req.encode_split(&mut conn.pending);
        conn.posted += 1;
        if tail.len() >= DIRECT_BYTES {
            return self.send_batch_with(&mut conn, None, tail, false).map(drop);
        }
        conn.pending.extend_from_slice(tail);
        match conn.pending.len() >= FLUSH_BYTES {
            true => self.send_batch(&mut conn, None, false).map(drop),
            false => Ok(()),
        }
    }

    /// Read `buf` in pieces, `request` naming each (its offset into `buf`, its length), with
    /// several in flight: the server works on the next while this side takes the last.
    fn read_pieces(&self, buf: &mut [u8], request: impl Fn(u64, u32) -> Request<'static>) -> Result<()> {
        let mut conn = self.lock();
        let mut pieces = buf.chunks_mut(PIECE);
        let mut at = 0u64;
        let mut in_flight = std::collections::VecDeque::new();
        let mut failed = None;
        loop {
            while failed.is_none() && in_flight.len() < READ_WINDOW {
                let Some(piece) = pieces.next() else { break };
                let count = self.send_batch(&mut conn, Some(&request(at, piece.len() as u32)), true)?;
                at += piece.len() as u64;
                in_flight.push_back((count, piece));
            }
            let Some((count, piece)) = in_flight.pop_front() else { break };
            // Every answer is taken (the link stays in step); the first failure is the result.
            let got = self.recv_answer(&mut conn, count, self.timeout, |r| match r {
                Response::Data(d) if d.len() == piece.len() => {
                    piece.copy_from_slice(d);
                    Ok(())
                }
                r => self.unexpected(r),
            });
            match got {
                Err(e) if conn.broken.is_some() => return Err(e),
                Err(e) => failed = failed.or(Some(e)),
                Ok(()) => {}
            }
        }
        failed.map_or(Ok(()), Err)
    }

    /// A wait for a word that the server runs next to the device (`wait`: the request, given
    /// its bound in microseconds): one round trip, answered with the last value read. The bound
    /// is the server's ([`MAX_WAIT`] at most), and the link's own timeout comes on top of it.
    fn wait_word(&self, timeout: Duration, wait: impl FnOnce(u64) -> Request<'static>) -> Result<u64> {
        let timeout = timeout.min(MAX_WAIT);
        let mut conn = self.lock();
        self.exchange(&mut conn, &wait(timeout.as_micros() as u64), self.timeout + timeout, |r| match r {
            Response::Value(v) => Ok(v),
            r => self.unexpected(r),
        })
    }

    /// Close the session: posted writes run, the server releases the device and says so.
    fn close(&self) -> Result<()> {
        let mut conn = self.lock();
        if conn.ch.is_none() {
            return Ok(());
        }
        let closed = self.exchange(&mut conn, &Request::Close, self.timeout, |r| match r {
            Response::Done => Ok(()),
            r => self.unexpected(r),
        });
        conn.ch = None;
        closed
    }

    fn unexpected<T>(&self, r: Response) -> Result<T> {
        Err(Error::Protocol(format!("{}: an answer of the wrong kind: {r:?}", self.name)))
    }
}

impl Drop for Link {
    /// Writes still posted reach the device, and the device is free for the next client, before
    /// the drop returns (bounded by the link's timeout; a broken link was released already).
    fn drop(&mut self) {
        let _ = self.close();
    }
}

/// A device a server exports, and who holds it (the owned form of [`Exported`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// `remote:HOST:PORT/SPEC`: how a client opens it.
    pub spec: String,
    /// Its architecture where the server knows it, else empty.
    pub arch: String,
    /// The peer that holds it, if any.
    pub holder: Option<String>,
}

/// What the server at `host:port` exports (keyed with `key`, required beyond loopback).
pub fn list(host: &str, port: u16, key: Option<&Key>, timeout: Duration) -> Result<Vec<Export>> {
    let link = Link::dial(host, port, key, timeout)?;
    let listed = link.call(Request::List, |r| match r {
        Response::Listing(devices) => Ok(devices
            .iter()
            .map(|d: &Exported| Export {
                spec: format!("{}/{}", link.name, d.spec),
                arch: d.arch.to_string(),
                holder: (!d.holder.is_empty()).then(|| d.holder.to_string()),
            })
            .collect()),
        r => link.unexpected(r),
    });
    link.forget();
    listed
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
        let link = Arc::new(Link::dial(host, port, key, timeout)?);
        let opened = link.call(Request::Open { device }, |r| match r {
            Response::Opened { name, bars } => Ok((name.to_string(), bars)),
            r => link.unexpected(r),
        });
        let (server_name, bars) = opened.inspect_err(|_| link.forget())?;
        Ok(Arc::new(RemotePci { name: format!("{}/{server_name}", link.name), link, bars }))
    }

    /// Round trips so far: answers this client waited for (posted writes wait for none).
    pub fn round_trips(&self) -> u64 {
        self.link.lock().answers
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
        self.link.read_pieces(buf, |at, len| Request::CopyFromBar { bar, offset: offset + at, len })
    }

    fn copy_to_bar(&self, bar: u8, offset: u64, data: &[u8]) -> Result<()> {
        for (i, chunk) in data.chunks(PIECE).enumerate() {
            self.link.post(Request::CopyToBar { bar, offset: offset + (i * PIECE) as u64, data: chunk })?;
        }
        Ok(())
    }

    fn wait_bar_u64(&self, bar: u8, offset: u64, until: Until, timeout: Duration) -> Result<u64> {
        self.link.wait_word(timeout, |timeout_us| Request::WaitBar { bar, offset, until, timeout_us })
    }

    fn link_round_trips(&self) -> Option<u64> {
        Some(self.round_trips())
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
        self.link.exchange(&mut conn, &req, self.link.timeout + timeout, |r| match r {
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
        let id = self.id;
        self.link.read_pieces(buf, |at, len| Request::DmaRead { id, offset: offset + at, len })
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        for (i, chunk) in data.chunks(PIECE).enumerate() {
            self.link.post(Request::DmaWrite { id: self.id, offset: offset + (i * PIECE) as u64, data: chunk })?;
        }
        Ok(())
    }

    fn wait_u64(&self, offset: u64, until: Until, timeout: Duration) -> Result<u64> {
        let id = self.id;
        self.link.wait_word(timeout, |timeout_us| Request::WaitDma { id, offset, until, timeout_us })
    }
}

impl Drop for RemoteDma {
    fn drop(&mut self) {
        // A broken link has already freed it on the server (the session ended).
        let _ = self.link.post(Request::FreeDma { id: self.id });
    }
}
