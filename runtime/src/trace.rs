//! `BAREGPU_TRACE=FILE`: every command stream submitted to a queue is appended to FILE, decoded
//! one packet a line by the same decoder the emulated command processors execute (AMD PM4 and
//! SDMA) or `baregpu decode gpfifo` prints (NVIDIA push buffers). A bring-up aid: what the GPU
//! was asked to do, in order, with the device and queue it went to.

use baregpu_drivers::amd::decode;
use baregpu_drivers::amd::pm4::Pm4Generation;
use baregpu_drivers::amd::sdma::SdmaGeneration;
use baregpu_drivers::nv::pushbuf;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::Mutex;

pub struct Trace {
    file: Mutex<File>,
}

impl Trace {
    /// The trace named by `BAREGPU_TRACE`, if set; an unwritable path is logged and ignored.
    pub fn from_env() -> Option<Trace> {
        let path = std::env::var_os("BAREGPU_TRACE")?;
        match OpenOptions::new().create(true).append(true).open(&path) {
            Ok(f) => Some(Trace { file: Mutex::new(f) }),
            Err(e) => {
                log::warn!("BAREGPU_TRACE={}: {e}; not tracing", path.to_string_lossy());
                None
            }
        }
    }

    fn write(&self, header: &str, lines: Vec<String>) {
        let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let mut text = format!("# {header}\n");
        for l in lines {
            text.push_str(&l);
            text.push('\n');
        }
        if let Err(e) = f.write_all(text.as_bytes()) {
            log::warn!("BAREGPU_TRACE: {e}");
        }
    }

    /// Plain lines under a header (the words a graph run patched).
    pub fn lines(&self, header: &str, lines: Vec<String>) {
        self.write(header, lines);
    }

    pub fn pm4(&self, header: &str, gen: &Pm4Generation, words: &[u32]) {
        self.write(header, decode::decode_pm4(words, gen.family).iter().map(|p| p.to_string()).collect());
    }

    pub fn sdma(&self, header: &str, gen: &SdmaGeneration, words: &[u32]) {
        self.write(header, decode::decode_sdma(words, gen).iter().map(|p| p.to_string()).collect());
    }

    /// An NVIDIA push buffer, one method header a line.
    pub fn pushbuf(&self, header: &str, words: &[u32]) {
        self.write(header, pushbuf::decode(words));
    }
}
