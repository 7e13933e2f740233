//! The remote transport's channel: length-prefixed frames over TCP, opened by a hello (magic,
//! version, keyed or not) and, with a pre-shared key, a Noise handshake ([`NOISE_PARAMS`]) after
//! which every message is encrypted and authenticated. Noise's per-message nonces make a
//! replayed, reordered, dropped or altered frame fail authentication; the hello is the
//! handshake's prologue, so altering it fails too.
//!
//! Both ends turn on TCP keepalive ([`KEEPALIVE_IDLE`], [`KEEPALIVE_INTERVAL`],
//! [`KEEPALIVE_PROBES`]) and bound unacknowledged data by the same total, so that a silent
//! network partition ends the session (and frees the server's device) within about a minute
//! even while neither side is waiting on the other.
//!
//! Errors are `std::io::Error`s whose text says what happened on the link; the client and the
//! server name the link around them.

use super::protocol::{Hello, MAX_MESSAGE, VERSION};
use super::Key;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// The keyed link's Noise protocol: AES-GCM, which AES-NI makes several GB/s per core (the
/// handshake's hash and key exchange cost once per connection).
pub const NOISE_PARAMS: &str = "Noise_NNpsk0_25519_AESGCM_SHA256";
/// Noise's largest frame, its authentication tag, and the plaintext one frame carries.
const NOISE_FRAME: usize = 65535;
const NOISE_TAG: usize = 16;
const NOISE_PLAIN: usize = NOISE_FRAME - NOISE_TAG;

/// TCP keepalive: probes after this much silence, this often, this many unanswered before the
/// connection is dropped.
pub const KEEPALIVE_IDLE: Duration = Duration::from_secs(30);
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(10);
pub const KEEPALIVE_PROBES: u32 = 3;
/// The largest frame either side reads: a message and its header (plain), a Noise frame (keyed).
const MAX_FRAME: usize = MAX_MESSAGE + 1024;

/// Status byte of a handshake reply.
const ACCEPTED: u8 = 0;
const REFUSED: u8 = 1;

/// One end of an open link.
pub struct Channel {
    reader: BufReader<TcpStream>,
    writer: BufWriter<TcpStream>,
    noise: Option<snow::TransportState>,
    /// Buffers kept across messages (a fresh multi-MiB buffer per message costs page faults).
    frame: Vec<u8>,
    sealed: Vec<u8>,
    plain: Vec<u8>,
}

impl std::fmt::Debug for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Channel").field("keyed", &self.noise.is_some()).finish_non_exhaustive()
    }
}

fn err(kind: io::ErrorKind, text: impl Into<String>) -> io::Error {
    io::Error::new(kind, text.into())
}

fn auth_failed() -> io::Error {
    err(io::ErrorKind::InvalidData, "a message failed authentication (tampered, replayed or out of order)")
}

/// What a socket error means for the reader of an error line.
fn explain(e: io::Error, what: &str) -> io::Error {
    use io::ErrorKind::*;
    match e.kind() {
        WouldBlock | TimedOut => err(TimedOut, format!("no answer while {what} (peer dead or link down)")),
        UnexpectedEof => err(UnexpectedEof, format!("the peer closed the connection while {what}")),
        ConnectionReset | ConnectionAborted | BrokenPipe => err(e.kind(), format!("connection lost while {what}: {e}")),
        _ => e,
    }
}

fn write_frame(w: &mut impl Write, body: &[u8]) -> io::Result<()> {
    w.write_all(&(body.len() as u32).to_le_bytes())?;
    w.write_all(body)
}

/// The next frame into `out`; a clean end of stream before it is `UnexpectedEof` too.
fn read_frame(r: &mut impl Read, out: &mut Vec<u8>, max: usize) -> io::Result<()> {
    let mut len = [0; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    if len > max {
        return Err(err(io::ErrorKind::InvalidData, format!("a frame of {len} bytes (at most {max})")));
    }
    out.resize(len, 0);
    r.read_exact(out).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => err(io::ErrorKind::UnexpectedEof, "a truncated message"),
        _ => e,
    })
}

/// Turn on keepalive probes, and give sent data the same bound (a peer gone while data is in
/// flight is noticed by retransmission, which keepalive does not cover).
fn keepalive(stream: &TcpStream) -> io::Result<()> {
    use rustix::net::sockopt;
    let total = KEEPALIVE_IDLE + KEEPALIVE_INTERVAL * KEEPALIVE_PROBES;
    sockopt::set_socket_keepalive(stream, true)?;
    sockopt::set_tcp_keepidle(stream, KEEPALIVE_IDLE)?;
    sockopt::set_tcp_keepintvl(stream, KEEPALIVE_INTERVAL)?;
    sockopt::set_tcp_keepcnt(stream, KEEPALIVE_PROBES)?;
    sockopt::set_tcp_user_timeout(stream, total.as_millis() as u32)?;
    Ok(())
}

fn builder<'a>(hello: &'a [u8], key: &'a Key) -> io::Result<snow::Builder<'a>> {
    let params = NOISE_PARAMS.parse().map_err(|e| err(io::ErrorKind::Other, format!("noise: {e}")))?;
    let noise = |e: snow::Error| err(io::ErrorKind::Other, format!("noise: {e}"));
    snow::Builder::new(params).prologue(hello).and_then(|b| b.psk(0, &key.0)).map_err(noise)
}

impl Channel {
    fn over(stream: TcpStream) -> io::Result<Channel> {
        stream.set_nodelay(true)?;
        keepalive(&stream)?;
        let reader = BufReader::with_capacity(256 << 10, stream.try_clone()?);
        let writer = BufWriter::with_capacity(256 << 10, stream);
        let (frame, sealed, plain) = (Vec::new(), Vec::new(), vec![0; NOISE_FRAME]);
        Ok(Channel { reader, writer, noise: None, frame, sealed, plain })
    }

    /// Open the client's end: hello, the server's verdict, then the handshake when keyed.
    pub fn connect(stream: TcpStream, key: Option<&Key>) -> io::Result<Channel> {
        let mut ch = Channel::over(stream)?;
        let hello = Hello { version: VERSION, keyed: key.is_some() }.encode();
        ch.send_raw(&hello).map_err(|e| explain(e, "saying hello"))?;
        ch.verdict().map_err(|e| explain(e, "waiting for the server's hello"))?;
        let Some(key) = key else { return Ok(ch) };
        let mut hs = builder(&hello, key)?.build_initiator().map_err(|e| err(io::ErrorKind::Other, e.to_string()))?;
        let mut buf = vec![0; NOISE_FRAME];
        let n = hs.write_message(&[], &mut buf).map_err(|e| err(io::ErrorKind::Other, e.to_string()))?;
        ch.send_raw(&buf[..n]).map_err(|e| explain(e, "sending the handshake"))?;
        let reply = ch.verdict().map_err(|e| explain(e, "waiting for the server's handshake"))?;
        hs.read_message(&reply, &mut buf).map_err(|_| {
            err(io::ErrorKind::PermissionDenied, "the server's handshake failed authentication (wrong key)")
        })?;
        ch.noise = Some(hs.into_transport_mode().map_err(|e| err(io::ErrorKind::Other, e.to_string()))?);
        Ok(ch)
    }

    /// Open the server's end; a refusal is told to the client (one line) before the error returns.
    pub fn accept(stream: TcpStream, key: Option<&Key>) -> io::Result<Channel> {
        let mut ch = Channel::over(stream)?;
        let mut hello = Vec::new();
        read_frame(&mut ch.reader, &mut hello, 64).map_err(|e| explain(e, "waiting for the client's hello"))?;
        let h = Hello::decode(&hello).map_err(|e| err(io::ErrorKind::InvalidData, e.to_string()))?;
        let refusal = match (h.version == VERSION, h.keyed, key.is_some()) {
            (false, ..) => Some(format!("protocol version {} is not this server's ({VERSION})", h.version)),
            (true, false, true) => Some("this server requires a pre-shared key".to_string()),
            (true, true, false) => Some("this server has no key: connect without one".to_string()),
            _ => None,
        };
        if let Some(why) = refusal {
            return Err(ch.refuse(why));
        }
        ch.send_status(ACCEPTED, &[])?;
        let Some(key) = key else { return Ok(ch) };
        let mut hs = builder(&hello, key)?.build_responder().map_err(|e| err(io::ErrorKind::Other, e.to_string()))?;
        let mut msg = Vec::new();
        read_frame(&mut ch.reader, &mut msg, NOISE_FRAME).map_err(|e| explain(e, "waiting for the handshake"))?;
        let mut buf = vec![0; NOISE_FRAME];
        if hs.read_message(&msg, &mut buf).is_err() {
            return Err(ch.refuse("the client's handshake failed authentication (wrong key)".into()));
        }
        let n = hs.write_message(&[], &mut buf).map_err(|e| err(io::ErrorKind::Other, e.to_string()))?;
        ch.send_status(ACCEPTED, &buf[..n])?;
        ch.noise = Some(hs.into_transport_mode().map_err(|e| err(io::ErrorKind::Other, e.to_string()))?);
        Ok(ch)
    }

    /// Tell the peer why (best effort: it may be gone) and return the reason as the error.
    fn refuse(&mut self, why: String) -> io::Error {
        let _ = self.send_status(REFUSED, why.as_bytes());
        err(io::ErrorKind::PermissionDenied, why)
    }

    fn send_status(&mut self, status: u8, body: &[u8]) -> io::Result<()> {
        let mut frame = vec![status];
        frame.extend_from_slice(body);
        self.send_raw(&frame)
    }

    /// The server's answer to a hello or handshake: its body when accepted, else its reason.
    fn verdict(&mut self) -> io::Result<Vec<u8>> {
        let mut frame = Vec::new();
        read_frame(&mut self.reader, &mut frame, NOISE_FRAME + 1)?;
        match frame.split_first() {
            Some((&ACCEPTED, body)) => Ok(body.to_vec()),
            Some((&REFUSED, why)) => {
                Err(err(io::ErrorKind::PermissionDenied, format!("refused: {}", String::from_utf8_lossy(why))))
            }
            _ => Err(err(io::ErrorKind::InvalidData, "not a baregpu link server")),
        }
    }

    fn send_raw(&mut self, body: &[u8]) -> io::Result<()> {
        write_frame(&mut self.writer, body)?;
        self.writer.flush()
    }

    /// Send one message (split into Noise frames when keyed).
    pub fn send(&mut self, msg: &[u8]) -> io::Result<()> {
        self.send_parts(&[msg])
    }

    /// Send one message made of `parts` back to back (a header and the bulk data it describes:
    /// the data is not copied into a message first).
    pub fn send_parts(&mut self, parts: &[&[u8]]) -> io::Result<()> {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        if len > MAX_MESSAGE {
            return Err(err(io::ErrorKind::InvalidInput, format!("a message of {len} bytes")));
        }
        // The message's length first: a plain frame's header, or the start of the first
        // Noise frame's plaintext.
        let len = (len as u32).to_le_bytes();
        let mut all = Vec::with_capacity(parts.len() + 1);
        all.push(&len[..]);
        all.extend(parts.iter().copied().filter(|p| !p.is_empty()));
        let sent = match self.noise.is_some() {
            true => self.seal(&all).and_then(|at| self.writer.write_all(&self.sealed[..at])),
            false => all.iter().try_for_each(|p| self.writer.write_all(p)),
        };
        sent.and_then(|()| self.writer.flush()).map_err(|e| explain(e, "sending"))
    }

    /// Seal `parts` (one stream) into full Noise frames, each with its length, into `sealed`:
    /// how many bytes it holds. A frame within one part is sealed from it directly; one that
    /// spans parts is gathered first (at most one per part boundary).
    fn seal(&mut self, parts: &[&[u8]]) -> io::Result<usize> {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        let frames = total.div_ceil(NOISE_PLAIN);
        self.sealed.resize(total + frames * (4 + NOISE_TAG), 0);
        let Some(noise) = self.noise.as_mut() else { return Ok(0) };
        let (mut part, mut off, mut at) = (0, 0, 0);
        for f in 0..frames {
            let n = NOISE_PLAIN.min(total - f * NOISE_PLAIN);
            let plain: &[u8] = if parts[part].len() - off >= n {
                off += n;
                &parts[part][off - n..off]
            } else {
                let mut filled = 0;
                while filled < n {
                    let take = (parts[part].len() - off).min(n - filled);
                    self.plain[filled..filled + take].copy_from_slice(&parts[part][off..off + take]);
                    (filled, off) = (filled + take, off + take);
                    if off == parts[part].len() && filled < n {
                        (part, off) = (part + 1, 0);
                    }
                }
                &self.plain[..n]
            };
            if off == parts[part].len() && part + 1 < parts.len() {
                (part, off) = (part + 1, 0);
            }
            let out = &mut self.sealed[at + 4..at + 4 + n + NOISE_TAG];
            let n = noise.write_message(plain, out).map_err(|e| err(io::ErrorKind::Other, e.to_string()))?;
            self.sealed[at..at + 4].copy_from_slice(&(n as u32).to_le_bytes());
            at += 4 + n;
        }
        Ok(at)
    }

    /// Receive one message into `out`.
    pub fn recv(&mut self, out: &mut Vec<u8>, what: &str) -> io::Result<()> {
        let Some(noise) = self.noise.as_mut() else {
            return read_frame(&mut self.reader, out, MAX_FRAME).map_err(|e| explain(e, what));
        };
        // The first frame starts with the message's length.
        read_frame(&mut self.reader, &mut self.frame, NOISE_FRAME).map_err(|e| explain(e, what))?;
        let n = noise.read_message(&self.frame, &mut self.plain).map_err(|_| auth_failed())?;
        let Some((len, body)) = self.plain[..n].split_first_chunk::<4>() else {
            return Err(err(io::ErrorKind::InvalidData, "a message without its length"));
        };
        let want = u32::from_le_bytes(*len) as usize;
        if want > MAX_MESSAGE || body.len() > want {
            return Err(err(io::ErrorKind::InvalidData, format!("a message of {want} bytes")));
        }
        // Sized once (zero-filled only where it grows: `out` is reused across messages), the
        // tag's room included so that the cipher decrypts in place rather than through a copy.
        out.resize(want + NOISE_TAG, 0);
        out[..body.len()].copy_from_slice(body);
        let mut filled = body.len();
        // The sender fills every frame but the last: the rest of the message is this many bytes
        // on the wire, read at once (an altered length fails below, at its frame).
        let rest = want - filled;
        let frames = rest.div_ceil(NOISE_PLAIN);
        self.frame.resize(rest + frames * (4 + NOISE_TAG), 0);
        self.reader.read_exact(&mut self.frame).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => err(io::ErrorKind::UnexpectedEof, "a truncated message"),
            _ => explain(e, what),
        })?;
        let mut at = 0;
        while at < self.frame.len() {
            let misfit = || err(io::ErrorKind::InvalidData, "a frame that does not fit its message");
            let len = self.frame.get(at..at + 4).ok_or_else(misfit)?;
            let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
            let sealed = self.frame.get(at + 4..at + 4 + len).filter(|s| s.len() >= NOISE_TAG).ok_or_else(misfit)?;
            // Decrypted straight into the message.
            let room = out.get_mut(filled..filled + sealed.len()).ok_or_else(misfit)?;
            filled += noise.read_message(sealed, room).map_err(|_| auth_failed())?;
            at += 4 + len;
        }
        out.truncate(filled);
        match filled == want {
            true => Ok(()),
            false => Err(err(io::ErrorKind::InvalidData, "a message shorter than it said")),
        }
    }

    /// Bound every later wait for the peer (`None`: wait for ever).
    pub fn set_timeout(&self, t: Option<std::time::Duration>) -> io::Result<()> {
        self.reader.get_ref().set_read_timeout(t)?;
        self.writer.get_ref().set_write_timeout(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::net::sockopt;
    use std::net::TcpListener;

    /// What the kernel holds for a socket: keepalive on, idle, interval, probes, user timeout.
    fn settings(s: &TcpStream) -> (bool, Duration, Duration, u32, u32) {
        let read = || -> io::Result<_> {
            Ok((
                sockopt::socket_keepalive(s)?,
                sockopt::tcp_keepidle(s)?,
                sockopt::tcp_keepintvl(s)?,
                sockopt::tcp_keepcnt(s)?,
                sockopt::tcp_user_timeout(s)?,
            ))
        };
        read().expect("getsockopt")
    }

    #[test]
    fn both_ends_of_a_link_really_carry_the_keepalive_settings() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
        let addr = listener.local_addr().expect("address");
        let server = std::thread::spawn(move || {
            let (stream, _) = listener.accept().expect("accept");
            Channel::accept(stream, None).expect("server end")
        });
        let client = Channel::connect(TcpStream::connect(addr).expect("connect"), None).expect("client end");
        let server = server.join().expect("server thread");
        let total = KEEPALIVE_IDLE + KEEPALIVE_INTERVAL * KEEPALIVE_PROBES;
        let want = (true, KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, KEEPALIVE_PROBES, total.as_millis() as u32);
        for (end, ch) in [("client", &client), ("server", &server)] {
            // Both halves of a channel share one socket: read it through each.
            assert_eq!(settings(ch.writer.get_ref()), want, "{end}'s writer");
            assert_eq!(settings(ch.reader.get_ref()), want, "{end}'s reader");
        }
        // A fresh socket has none of it: the settings above are the channel's doing.
        let other = TcpListener::bind("127.0.0.1:0").expect("listen");
        let plain = TcpStream::connect(other.local_addr().expect("address")).expect("connect");
        assert!(!sockopt::socket_keepalive(&plain).expect("getsockopt"));
    }
}
