//! The remote transport's messages: one definition of every request and answer, encoded
//! little-endian, used by both the client and the server.
//!
//! A request message is a batch: a byte saying whether it wants an answer, then requests back
//! to back, run by the server in order. Posted writes ride in the batch of the next call that
//! needs an answer (a read flushes every earlier write, as on PCIe), or go ahead in batches of
//! their own that are not answered, so that a bulk copy streams without a round trip per chunk.
//! The server answers each answered batch once, for the run of batches since the last answer:
//! with the last request's answer, or with the first failure and its index in that run (later
//! requests of the run are not run).
//!
//! Version 2: the batch's answer byte, `Close` (the server confirms the release), `List`, and
//! AES-GCM for keyed links. Version 3: `WaitBar` and `WaitDma` (a host's wait for a signal runs
//! on the server, next to the device: one round trip instead of one per poll).

use crate::pci::wait::{Cmp, Until};
use crate::pci::BarInfo;

/// The protocol's version: a client and a server of different versions refuse each other.
pub const VERSION: u16 = 3;

/// The first bytes of every connection (before any version or key is known).
pub const MAGIC: &[u8; 8] = b"BGPULINK";

/// The largest message either side accepts (a bulk copy is split below it).
pub const MAX_MESSAGE: usize = 8 << 20;

/// The largest data of one copy request: bulk copies are split into requests of this size.
pub const MAX_CHUNK: usize = 4 << 20;

/// A request of the client. Data borrows from the caller (encoding) or the received message
/// (decoding): bulk copies are not copied more than the wire needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    /// Claim the device the server serves under `device` (a spec such as `am:emu:gfx1100`).
    Open {
        device: &'a str,
    },
    ConfigRead {
        offset: u16,
        len: u16,
    },
    ConfigWrite {
        offset: u16,
        data: &'a [u8],
    },
    Read32 {
        bar: u8,
        offset: u64,
    },
    Read64 {
        bar: u8,
        offset: u64,
    },
    Write32 {
        bar: u8,
        offset: u64,
        value: u32,
    },
    Write64 {
        bar: u8,
        offset: u64,
        value: u64,
    },
    CopyFromBar {
        bar: u8,
        offset: u64,
        len: u32,
    },
    CopyToBar {
        bar: u8,
        offset: u64,
        data: &'a [u8],
    },
    AllocDma {
        size: u64,
        contiguous: bool,
    },
    FreeDma {
        id: u32,
    },
    DmaRead {
        id: u32,
        offset: u64,
        len: u32,
    },
    DmaWrite {
        id: u32,
        offset: u64,
        data: &'a [u8],
    },
    WaitInterrupt {
        timeout_us: u64,
    },
    Reset,
    /// Release the device (its DMA memory, the claim); answered once it is free for the next
    /// client. The last request of a session.
    Close,
    /// Instead of `Open`: what the server exports, and who holds each device.
    List,
    /// Wait (on the server, up to `timeout_us`) until the 64-bit word at `offset` of BAR `bar`
    /// satisfies `until`; answered with the last value read.
    WaitBar {
        bar: u8,
        offset: u64,
        until: Until,
        timeout_us: u64,
    },
    /// As `WaitBar`, for a word of DMA memory `id`.
    WaitDma {
        id: u32,
        offset: u64,
        until: Until,
        timeout_us: u64,
    },
}

/// One device a server exports, as `List` tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported<'a> {
    /// The spec a client opens it by (`am:emu:gfx1100`, `am:0000:03:00.0`).
    pub spec: &'a str,
    /// Its architecture where the server knows it without opening it, else empty.
    pub arch: &'a str,
    /// The peer that holds it, or empty when it is free.
    pub holder: &'a str,
}

/// The server's answer to a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response<'a> {
    /// A write, free or reset ran.
    Done,
    /// A register read (32-bit values zero-extended).
    Value(u64),
    /// Bytes read (config space, a BAR copy, DMA memory).
    Data(&'a [u8]),
    /// Whether an interrupt fired.
    Flag(bool),
    /// The device is claimed: its name and BARs.
    Opened { name: &'a str, bars: Vec<(u8, BarInfo)> },
    /// DMA memory allocated: its handle and the bus address of each page.
    Dma { id: u32, bus_pages: Vec<u64> },
    /// Request `index` of the run failed (later ones were not run).
    Failed { index: u32, message: &'a str },
    /// What the server exports (the answer to `List`).
    Listing(Vec<Exported<'a>>),
}

/// The protocol's one decoding error: a message that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed(pub String);

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed message: {}", self.0)
    }
}

/// Appends little-endian fields.
trait Put {
    fn u8(&mut self, v: u8);
    fn u16(&mut self, v: u16);
    fn u32(&mut self, v: u32);
    fn u64(&mut self, v: u64);
    fn bytes(&mut self, v: &[u8]);
    /// A wait's condition and bound.
    fn until(&mut self, u: &Until, timeout_us: u64) {
        self.u8(match u.cmp {
            Cmp::AtLeast => 0,
            Cmp::NotEqual => 1,
        });
        self.u64(u.mask);
        self.u64(u.value);
        self.u64(timeout_us);
    }
}

impl Put for Vec<u8> {
    fn u8(&mut self, v: u8) {
        self.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    /// Length-prefixed bytes.
    fn bytes(&mut self, v: &[u8]) {
        self.u32(v.len() as u32);
        self.extend_from_slice(v);
    }
}

/// Reads little-endian fields from a message, failing on a short one.
pub(crate) struct Cursor<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Cursor<'a> {
        Cursor { buf, at: 0 }
    }

    pub(crate) fn done(&self) -> bool {
        self.at == self.buf.len()
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Malformed> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.buf.len());
        let end = end.ok_or_else(|| Malformed(format!("{n} bytes wanted at {} of {}", self.at, self.buf.len())))?;
        let s = &self.buf[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn arr<const N: usize>(&mut self) -> Result<[u8; N], Malformed> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    fn u8(&mut self) -> Result<u8, Malformed> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, Malformed> {
        self.arr().map(u16::from_le_bytes)
    }
    fn u32(&mut self) -> Result<u32, Malformed> {
        self.arr().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Result<u64, Malformed> {
        self.arr().map(u64::from_le_bytes)
    }
    fn bytes(&mut self) -> Result<&'a [u8], Malformed> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn str(&mut self) -> Result<&'a str, Malformed> {
        std::str::from_utf8(self.bytes()?).map_err(|_| Malformed("text is not UTF-8".into()))
    }
    /// A wait's condition and bound (see [`Put::until`]).
    fn until(&mut self) -> Result<(Until, u64), Malformed> {
        let cmp = match self.u8()? {
            0 => Cmp::AtLeast,
            1 => Cmp::NotEqual,
            v => return Err(Malformed(format!("unknown comparison {v}"))),
        };
        Ok((Until { cmp, mask: self.u64()?, value: self.u64()? }, self.u64()?))
    }
    fn bool(&mut self) -> Result<bool, Malformed> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(Malformed(format!("{v} is not a boolean"))),
        }
    }
}

impl<'a> Request<'a> {
    /// Append the request to a batch.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let tail = self.encode_split(out);
        out.extend_from_slice(tail);
    }

    /// Append all but a bulk write's data, and return that data: the bytes that follow in the
    /// message (a sender may send them from where they are, uncopied).
    pub fn encode_split(&self, out: &mut Vec<u8>) -> &'a [u8] {
        use Request::*;
        match *self {
            CopyToBar { bar, offset, data } => {
                out.u8(8);
                out.u8(bar);
                out.u64(offset);
                out.u32(data.len() as u32);
                return data;
            }
            DmaWrite { id, offset, data } => {
                out.u8(12);
                out.u32(id);
                out.u64(offset);
                out.u32(data.len() as u32);
                return data;
            }
            _ => {}
        }
        match *self {
            Open { device } => {
                out.u8(0);
                out.bytes(device.as_bytes());
            }
            ConfigRead { offset, len } => {
                out.u8(1);
                out.u16(offset);
                out.u16(len);
            }
            ConfigWrite { offset, data } => {
                out.u8(2);
                out.u16(offset);
                out.bytes(data);
            }
            Read32 { bar, offset } | Read64 { bar, offset } => {
                out.u8(if matches!(self, Read32 { .. }) { 3 } else { 4 });
                out.u8(bar);
                out.u64(offset);
            }
            Write32 { bar, offset, value } => {
                out.u8(5);
                out.u8(bar);
                out.u64(offset);
                out.u32(value);
            }
            Write64 { bar, offset, value } => {
                out.u8(6);
                out.u8(bar);
                out.u64(offset);
                out.u64(value);
            }
            CopyFromBar { bar, offset, len } => {
                out.u8(7);
                out.u8(bar);
                out.u64(offset);
                out.u32(len);
            }
            CopyToBar { .. } | DmaWrite { .. } => {}
            AllocDma { size, contiguous } => {
                out.u8(9);
                out.u64(size);
                out.u8(contiguous as u8);
            }
            FreeDma { id } => {
                out.u8(10);
                out.u32(id);
            }
            DmaRead { id, offset, len } => {
                out.u8(11);
                out.u32(id);
                out.u64(offset);
                out.u32(len);
            }
            WaitInterrupt { timeout_us } => {
                out.u8(13);
                out.u64(timeout_us);
            }
            Reset => out.u8(14),
            Close => out.u8(15),
            List => out.u8(16),
            WaitBar { bar, offset, until, timeout_us } => {
                out.u8(17);
                out.u8(bar);
                out.u64(offset);
                out.until(&until, timeout_us);
            }
            WaitDma { id, offset, until, timeout_us } => {
                out.u8(18);
                out.u32(id);
                out.u64(offset);
                out.until(&until, timeout_us);
            }
        }
        &[]
    }

    /// The next request of a batch.
    pub(crate) fn decode(c: &mut Cursor<'a>) -> Result<Request<'a>, Malformed> {
        use Request::*;
        Ok(match c.u8()? {
            0 => Open { device: c.str()? },
            1 => ConfigRead { offset: c.u16()?, len: c.u16()? },
            2 => ConfigWrite { offset: c.u16()?, data: c.bytes()? },
            3 => Read32 { bar: c.u8()?, offset: c.u64()? },
            4 => Read64 { bar: c.u8()?, offset: c.u64()? },
            5 => Write32 { bar: c.u8()?, offset: c.u64()?, value: c.u32()? },
            6 => Write64 { bar: c.u8()?, offset: c.u64()?, value: c.u64()? },
            7 => CopyFromBar { bar: c.u8()?, offset: c.u64()?, len: c.u32()? },
            8 => CopyToBar { bar: c.u8()?, offset: c.u64()?, data: c.bytes()? },
            9 => AllocDma { size: c.u64()?, contiguous: c.bool()? },
            10 => FreeDma { id: c.u32()? },
            11 => DmaRead { id: c.u32()?, offset: c.u64()?, len: c.u32()? },
            12 => DmaWrite { id: c.u32()?, offset: c.u64()?, data: c.bytes()? },
            13 => WaitInterrupt { timeout_us: c.u64()? },
            14 => Reset,
            15 => Close,
            16 => List,
            17 => {
                let (bar, offset) = (c.u8()?, c.u64()?);
                let (until, timeout_us) = c.until()?;
                WaitBar { bar, offset, until, timeout_us }
            }
            18 => {
                let (id, offset) = (c.u32()?, c.u64()?);
                let (until, timeout_us) = c.until()?;
                WaitDma { id, offset, until, timeout_us }
            }
            t => return Err(Malformed(format!("unknown request type {t}"))),
        })
    }

    /// Whether a batch wants an answer, and every request of it.
    pub fn decode_batch(buf: &'a [u8]) -> Result<(bool, Vec<Request<'a>>), Malformed> {
        let mut c = Cursor::new(buf);
        let answer = c.bool()?;
        let mut out = Vec::new();
        while !c.done() {
            out.push(Request::decode(&mut c)?);
        }
        match out.is_empty() {
            true => Err(Malformed("an empty batch".into())),
            false => Ok((answer, out)),
        }
    }
}

/// Start a batch in `out` (cleared); [`set_answer`] decides, before it is sent, whether it wants
/// an answer.
pub fn begin_batch(out: &mut Vec<u8>) {
    out.clear();
    out.push(0);
}

pub fn set_answer(batch: &mut [u8], answer: bool) {
    if let Some(b) = batch.first_mut() {
        *b = answer as u8;
    }
}

/// Whether a batch begun by [`begin_batch`] holds no request yet.
pub fn batch_is_empty(batch: &[u8]) -> bool {
    batch.len() <= 1
}

impl<'a> Response<'a> {
    pub fn encode(&self, out: &mut Vec<u8>) {
        let tail = self.encode_split(out);
        out.extend_from_slice(tail);
    }

    /// Append all but read data, and return that data (see [`Request::encode_split`]).
    pub fn encode_split(&self, out: &mut Vec<u8>) -> &'a [u8] {
        use Response::*;
        if let Data(d) = *self {
            out.u8(2);
            out.u32(d.len() as u32);
            return d;
        }
        match self {
            Done => out.u8(0),
            Value(v) => {
                out.u8(1);
                out.u64(*v);
            }
            Data(_) => {}
            Flag(f) => {
                out.u8(3);
                out.u8(*f as u8);
            }
            Opened { name, bars } => {
                out.u8(4);
                out.bytes(name.as_bytes());
                out.u8(bars.len() as u8);
                for (index, b) in bars {
                    out.u8(*index);
                    out.u64(b.size);
                    out.u64(b.bus_addr);
                    out.u8(b.prefetchable as u8);
                }
            }
            Dma { id, bus_pages } => {
                out.u8(5);
                out.u32(*id);
                out.u32(bus_pages.len() as u32);
                bus_pages.iter().for_each(|p| out.u64(*p));
            }
            Failed { index, message } => {
                out.u8(6);
                out.u32(*index);
                out.bytes(message.as_bytes());
            }
            Listing(devices) => {
                out.u8(7);
                out.u32(devices.len() as u32);
                for d in devices {
                    out.bytes(d.spec.as_bytes());
                    out.bytes(d.arch.as_bytes());
                    out.bytes(d.holder.as_bytes());
                }
            }
        }
        &[]
    }

    pub fn decode(buf: &'a [u8]) -> Result<Response<'a>, Malformed> {
        use Response::*;
        let mut c = Cursor::new(buf);
        let r = match c.u8()? {
            0 => Done,
            1 => Value(c.u64()?),
            2 => Data(c.bytes()?),
            3 => Flag(c.bool()?),
            4 => {
                let name = c.str()?;
                let n = c.u8()?;
                let bars = (0..n)
                    .map(|_| {
                        let index = c.u8()?;
                        Ok((index, BarInfo { size: c.u64()?, bus_addr: c.u64()?, prefetchable: c.bool()? }))
                    })
                    .collect::<Result<_, Malformed>>()?;
                Opened { name, bars }
            }
            5 => {
                let id = c.u32()?;
                let n = c.u32()? as usize;
                if n > MAX_MESSAGE / 8 {
                    return Err(Malformed(format!("{n} DMA pages")));
                }
                Dma { id, bus_pages: (0..n).map(|_| c.u64()).collect::<Result<_, _>>()? }
            }
            6 => Failed { index: c.u32()?, message: c.str()? },
            7 => {
                let n = c.u32()? as usize;
                if n > MAX_MESSAGE / 12 {
                    return Err(Malformed(format!("{n} devices")));
                }
                let devices = (0..n).map(|_| Ok(Exported { spec: c.str()?, arch: c.str()?, holder: c.str()? }));
                Listing(devices.collect::<Result<_, Malformed>>()?)
            }
            t => return Err(Malformed(format!("unknown response type {t}"))),
        };
        match c.done() {
            true => Ok(r),
            false => Err(Malformed("trailing bytes after the response".into())),
        }
    }
}

/// What a connection's first message says: the protocol version and whether the client brings
/// a key (then a Noise handshake follows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hello {
    pub version: u16,
    pub keyed: bool,
}

impl Hello {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.u16(self.version);
        out.u8(self.keyed as u8);
        out
    }

    pub fn decode(buf: &[u8]) -> Result<Hello, Malformed> {
        let mut c = Cursor::new(buf);
        if c.take(MAGIC.len()).ok() != Some(&MAGIC[..]) {
            return Err(Malformed("not a baregpu link (bad magic)".into()));
        }
        let hello = Hello { version: c.u16()?, keyed: c.bool()? };
        match c.done() {
            true => Ok(hello),
            false => Err(Malformed("trailing bytes after the hello".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_round_trips_in_one_batch() {
        use Request::*;
        let data = [1u8, 2, 3, 4, 5];
        let all = vec![
            Open { device: "am:emu:gfx1100" },
            ConfigRead { offset: 0x10, len: 4 },
            ConfigWrite { offset: 4, data: &data[..2] },
            Read32 { bar: 5, offset: 0x1234 },
            Read64 { bar: 0, offset: 1 << 40 },
            Write32 { bar: 5, offset: 8, value: 0xdead_beef },
            Write64 { bar: 2, offset: 16, value: u64::MAX - 1 },
            CopyFromBar { bar: 0, offset: 3, len: 1 << 20 },
            CopyToBar { bar: 0, offset: 7, data: &data },
            AllocDma { size: 0x3000, contiguous: true },
            FreeDma { id: 9 },
            DmaRead { id: 1, offset: 2, len: 3 },
            DmaWrite { id: 4, offset: 5, data: &data[1..] },
            WaitInterrupt { timeout_us: 1000 },
            Reset,
            Close,
            List,
            WaitBar { bar: 0, offset: 0x40, until: Until::at_least(7, u32::MAX as u64), timeout_us: 10_000 },
            WaitDma { id: 2, offset: 8, until: Until { cmp: Cmp::NotEqual, mask: !0, value: 3 }, timeout_us: 1 },
        ];
        let mut buf = Vec::new();
        begin_batch(&mut buf);
        assert!(batch_is_empty(&buf));
        all.iter().for_each(|r| r.encode(&mut buf));
        assert_eq!(Request::decode_batch(&buf).unwrap(), (false, all.clone()));
        set_answer(&mut buf, true);
        assert_eq!(Request::decode_batch(&buf).unwrap(), (true, all.clone()));
        // Every truncation is refused, never misread.
        for cut in 0..buf.len() {
            let r = Request::decode_batch(&buf[..cut]);
            assert!(r.is_err() || r.as_ref().unwrap().1.len() < all.len(), "cut at {cut}");
        }
        // A bulk write's data split off is the rest of the same bytes.
        for r in &all {
            let (mut whole, mut split) = (Vec::new(), Vec::new());
            r.encode(&mut whole);
            let tail = r.encode_split(&mut split);
            assert_eq!([&split[..], tail].concat(), whole, "{r:?}");
        }
        assert!(Request::decode_batch(&[1]).is_err(), "an empty batch");
        assert!(Request::decode_batch(&[2, 14]).is_err(), "the answer byte is a boolean");
        // A wait's comparison is one of the two.
        let mut wait = vec![1, 17, 0];
        wait.extend_from_slice(&[0; 8]);
        wait.push(2);
        wait.extend_from_slice(&[0; 24]);
        let e = Request::decode_batch(&wait).unwrap_err();
        assert!(e.0.contains("unknown comparison 2"), "{e}");
    }

    #[test]
    fn every_response_round_trips_and_is_little_endian() {
        use Response::*;
        let bars = vec![(0, BarInfo { size: 1 << 30, bus_addr: 0xe000_0000, prefetchable: true })];
        let all = [
            Done,
            Value(0x0102_0304_0506_0708),
            Data(b"abc"),
            Flag(true),
            Opened { name: "emu:gfx1100", bars },
            Dma { id: 3, bus_pages: vec![0x1000, 0x2000] },
            Failed { index: 2, message: "BAR 9 does not exist" },
            Listing(vec![
                Exported { spec: "am:emu:gfx1100", arch: "gfx1100", holder: "" },
                Exported { spec: "am:0000:03:00.0", arch: "", holder: "10.0.0.2:51000" },
            ]),
        ];
        for r in &all {
            let mut buf = Vec::new();
            r.encode(&mut buf);
            assert_eq!(&Response::decode(&buf).unwrap(), r);
            assert!(Response::decode(&buf[..buf.len() - 1]).is_err());
        }
        let mut buf = Vec::new();
        Value(0x0102_0304_0506_0708).encode(&mut buf);
        assert_eq!(buf, [1, 8, 7, 6, 5, 4, 3, 2, 1]);
        assert!(Response::decode(&[99]).is_err());
    }

    #[test]
    fn hello_checks_magic() {
        let h = Hello { version: VERSION, keyed: true };
        assert_eq!(Hello::decode(&h.encode()).unwrap(), h);
        assert!(Hello::decode(b"GET / HTTP/1.1\r\n").is_err());
    }
}
