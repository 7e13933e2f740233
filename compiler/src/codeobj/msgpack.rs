//! The subset of MessagePack that the AMDGPU code-object metadata note uses: maps, arrays, strings,
//! unsigned and signed integers, booleans and nil.
//!
//! The encoder picks the smallest encoding for every value, like LLVM's `msgpack::Writer` (which
//! writes the NT_AMDGPU_METADATA note): positive fixint / uint8..64, negative fixint / int8..64,
//! fixstr / str8 / str16 / str32, fixarray / array16 / array32, fixmap / map16 / map32. Map entries
//! are written in the order given; [`Value::map`] sorts them by key the way LLVM's document does.
//! The decoder also accepts floats and binary strings so that it can read any metadata note.

use thiserror::Error;

/// A MessagePack value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Nil,
    Bool(bool),
    /// A non-negative integer.
    UInt(u64),
    /// A negative integer (non-negative values are encoded and decoded as [`Value::UInt`]).
    Int(i64),
    Float(f64),
    Str(String),
    Bin(Vec<u8>),
    Array(Vec<Value>),
    /// Key/value pairs in encoding order.
    Map(Vec<(Value, Value)>),
}

impl Value {
    /// A map with string keys, sorted by key bytes (the order LLVM's msgpack document emits).
    pub fn map<K: Into<String>>(entries: impl IntoIterator<Item = (K, Value)>) -> Value {
        let mut entries: Vec<(String, Value)> = entries.into_iter().map(|(k, v)| (k.into(), v)).collect();
        entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        Value::Map(entries.into_iter().map(|(k, v)| (Value::Str(k), v)).collect())
    }

    pub fn str(s: impl Into<String>) -> Value {
        Value::Str(s.into())
    }

    /// Looks a string key up in a map; `None` for other values or a missing key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries.iter().find(|(k, _)| matches!(k, Value::Str(s) if s == key)).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::UInt(v) => Some(*v),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The string keys of a map, in encoding order (empty for other values).
    pub fn keys(&self) -> Vec<&str> {
        match self {
            Value::Map(entries) => entries.iter().filter_map(|(k, _)| k.as_str()).collect(),
            _ => Vec::new(),
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::UInt(v.into())
    }
}

impl From<u64> for Value {
    fn from(v: u64) -> Value {
        Value::UInt(v)
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        if v >= 0 {
            Value::UInt(v as u64)
        } else {
            Value::Int(v)
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s)
    }
}

/// Encodes a value.
pub fn encode(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(value, &mut out);
    out
}

/// Appends the encoding of a value to `out`.
pub fn encode_into(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Nil => out.push(0xc0),
        Value::Bool(false) => out.push(0xc2),
        Value::Bool(true) => out.push(0xc3),
        Value::UInt(v) => encode_uint(*v, out),
        Value::Int(v) if *v >= 0 => encode_uint(*v as u64, out),
        Value::Int(v) => encode_negative(*v, out),
        Value::Float(f) => {
            out.push(0xcb);
            out.extend_from_slice(&f.to_bits().to_be_bytes());
        }
        Value::Str(s) => {
            let len = s.len();
            if len < 32 {
                out.push(0xa0 | len as u8);
            } else {
                length_prefix(len, [0xd9, 0xda, 0xdb], out);
            }
            out.extend_from_slice(s.as_bytes());
        }
        Value::Bin(b) => {
            length_prefix(b.len(), [0xc4, 0xc5, 0xc6], out);
            out.extend_from_slice(b);
        }
        Value::Array(items) => {
            if items.len() < 16 {
                out.push(0x90 | items.len() as u8);
            } else {
                length_prefix(items.len(), [0, 0xdc, 0xdd], out);
            }
            for item in items {
                encode_into(item, out);
            }
        }
        Value::Map(entries) => {
            if entries.len() < 16 {
                out.push(0x80 | entries.len() as u8);
            } else {
                length_prefix(entries.len(), [0, 0xde, 0xdf], out);
            }
            for (k, v) in entries {
                encode_into(k, out);
                encode_into(v, out);
            }
        }
    }
}

fn encode_uint(v: u64, out: &mut Vec<u8>) {
    if v < 0x80 {
        out.push(v as u8);
    } else if v <= 0xff {
        out.extend_from_slice(&[0xcc, v as u8]);
    } else if v <= 0xffff {
        out.push(0xcd);
        out.extend_from_slice(&(v as u16).to_be_bytes());
    } else if v <= 0xffff_ffff {
        out.push(0xce);
        out.extend_from_slice(&(v as u32).to_be_bytes());
    } else {
        out.push(0xcf);
        out.extend_from_slice(&v.to_be_bytes());
    }
}

fn encode_negative(v: i64, out: &mut Vec<u8>) {
    if v >= -32 {
        out.push(v as i8 as u8);
    } else if v >= i8::MIN.into() {
        out.extend_from_slice(&[0xd0, v as i8 as u8]);
    } else if v >= i16::MIN.into() {
        out.push(0xd1);
        out.extend_from_slice(&(v as i16).to_be_bytes());
    } else if v >= i32::MIN.into() {
        out.push(0xd2);
        out.extend_from_slice(&(v as i32).to_be_bytes());
    } else {
        out.push(0xd3);
        out.extend_from_slice(&v.to_be_bytes());
    }
}

/// Writes a 8-, 16- or 32-bit length with the given markers (a 0 marker means "no such form").
fn length_prefix(len: usize, markers: [u8; 3], out: &mut Vec<u8>) {
    if len <= 0xff && markers[0] != 0 {
        out.extend_from_slice(&[markers[0], len as u8]);
    } else if len <= 0xffff {
        out.push(markers[1]);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(markers[2]);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    }
}

/// Why a byte string is not a MessagePack value this decoder accepts.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MsgpackError {
    #[error("msgpack: unexpected end of data at byte {0}")]
    Truncated(usize),
    #[error("msgpack: unsupported marker byte {marker:#04x} at byte {offset}")]
    UnsupportedMarker { marker: u8, offset: usize },
    #[error("msgpack: string at byte {0} is not UTF-8")]
    InvalidUtf8(usize),
    #[error("msgpack: nesting deeper than {0} levels")]
    TooDeep(usize),
    #[error("msgpack: {0} trailing bytes after the value")]
    TrailingBytes(usize),
}

const MAX_DEPTH: usize = 64;

/// Decodes exactly one value that fills `data`.
pub fn decode(data: &[u8]) -> Result<Value, MsgpackError> {
    let mut reader = Reader { data, pos: 0 };
    let value = reader.value(0)?;
    if reader.pos != data.len() {
        return Err(MsgpackError::TrailingBytes(data.len() - reader.pos));
    }
    Ok(value)
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], MsgpackError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len()).ok_or(MsgpackError::Truncated(self.pos))?;
        let bytes = &self.data[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    fn uint(&mut self, n: usize) -> Result<u64, MsgpackError> {
        Ok(self.take(n)?.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    }

    fn string(&mut self, len: usize) -> Result<Value, MsgpackError> {
        let at = self.pos;
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).map(Value::Str).map_err(|_| MsgpackError::InvalidUtf8(at))
    }

    fn array(&mut self, len: usize, depth: usize) -> Result<Value, MsgpackError> {
        // Every element takes at least one byte: refuse absurd lengths before allocating.
        if len > self.data.len() - self.pos {
            return Err(MsgpackError::Truncated(self.pos));
        }
        (0..len).map(|_| self.value(depth + 1)).collect::<Result<_, _>>().map(Value::Array)
    }

    fn map(&mut self, len: usize, depth: usize) -> Result<Value, MsgpackError> {
        if len > self.data.len() - self.pos {
            return Err(MsgpackError::Truncated(self.pos));
        }
        (0..len).map(|_| Ok((self.value(depth + 1)?, self.value(depth + 1)?))).collect::<Result<_, _>>().map(Value::Map)
    }

    fn value(&mut self, depth: usize) -> Result<Value, MsgpackError> {
        if depth > MAX_DEPTH {
            return Err(MsgpackError::TooDeep(MAX_DEPTH));
        }
        let at = self.pos;
        let marker = self.take(1)?[0];
        Ok(match marker {
            0x00..=0x7f => Value::UInt(marker.into()),
            0x80..=0x8f => self.map(usize::from(marker & 0x0f), depth)?,
            0x90..=0x9f => self.array(usize::from(marker & 0x0f), depth)?,
            0xa0..=0xbf => self.string(usize::from(marker & 0x1f))?,
            0xc0 => Value::Nil,
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4..=0xc6 => {
                let len = self.uint(1 << (marker - 0xc4))? as usize;
                Value::Bin(self.take(len)?.to_vec())
            }
            0xca => Value::Float(f32::from_bits(self.uint(4)? as u32).into()),
            0xcb => Value::Float(f64::from_bits(self.uint(8)?)),
            0xcc..=0xcf => Value::UInt(self.uint(1 << (marker - 0xcc))?),
            0xd0..=0xd3 => {
                let n = 1usize << (marker - 0xd0);
                let raw = self.uint(n)?;
                let shift = 64 - 8 * n as u32;
                Value::from(((raw << shift) as i64) >> shift)
            }
            0xd9..=0xdb => {
                let len = self.uint(1 << (marker - 0xd9))? as usize;
                self.string(len)?
            }
            0xdc | 0xdd => {
                let len = self.uint(2 << (marker - 0xdc))? as usize;
                self.array(len, depth)?
            }
            0xde | 0xdf => {
                let len = self.uint(2 << (marker - 0xde))? as usize;
                self.map(len, depth)?
            }
            0xe0..=0xff => Value::Int(i64::from(marker as i8)),
            _ => return Err(MsgpackError::UnsupportedMarker { marker, offset: at }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_use_the_smallest_form() {
        assert_eq!(encode(&Value::UInt(0)), [0x00]);
        assert_eq!(encode(&Value::UInt(127)), [0x7f]);
        assert_eq!(encode(&Value::UInt(128)), [0xcc, 0x80]);
        assert_eq!(encode(&Value::UInt(256)), [0xcd, 0x01, 0x00]);
        assert_eq!(encode(&Value::UInt(65536)), [0xce, 0x00, 0x01, 0x00, 0x00]);
        assert_eq!(encode(&Value::UInt(1 << 32)), [0xcf, 0, 0, 0, 1, 0, 0, 0, 0]);
        assert_eq!(encode(&Value::Int(-1)), [0xff]);
        assert_eq!(encode(&Value::Int(-32)), [0xe0]);
        assert_eq!(encode(&Value::Int(-33)), [0xd0, 0xdf]);
        assert_eq!(encode(&Value::Int(-129)), [0xd1, 0xff, 0x7f]);
        assert_eq!(encode(&Value::Int(5)), [0x05]);
    }

    #[test]
    fn strings_arrays_maps() {
        assert_eq!(encode(&Value::str("AMD")), [0xa3, b'A', b'M', b'D']);
        let long = "x".repeat(40);
        let enc = encode(&Value::str(long.clone()));
        assert_eq!(&enc[..2], [0xd9, 40]);
        assert_eq!(decode(&enc).unwrap(), Value::Str(long));
        let arr = Value::Array((0..16).map(Value::UInt).collect());
        assert_eq!(&encode(&arr)[..3], [0xdc, 0x00, 0x10]);
        let map = Value::map((0..17).map(|i| (format!("k{i:02}"), Value::Bool(i % 2 == 0))));
        let enc = encode(&map);
        assert_eq!(&enc[..3], [0xde, 0x00, 0x11]);
        assert_eq!(decode(&enc).unwrap(), map);
    }

    #[test]
    fn map_keys_are_sorted() {
        let m = Value::map([(".b", Value::Nil), (".a", Value::Nil), ("amdhsa.x", Value::Nil)]);
        assert_eq!(m.keys(), [".a", ".b", "amdhsa.x"]);
    }

    #[test]
    fn round_trip() {
        let v = Value::map([
            ("ints", Value::Array(vec![Value::UInt(300), Value::Int(-40000), Value::Int(i64::MIN)])),
            ("t", Value::Bool(true)),
            ("s", Value::str("hello")),
            ("n", Value::Nil),
        ]);
        assert_eq!(decode(&encode(&v)).unwrap(), v);
    }

    #[test]
    fn bad_input_is_an_error() {
        assert_eq!(decode(&[0xd9]), Err(MsgpackError::Truncated(1)));
        assert_eq!(decode(&[0x92, 0x01]), Err(MsgpackError::Truncated(1)));
        assert_eq!(decode(&[0xc1]), Err(MsgpackError::UnsupportedMarker { marker: 0xc1, offset: 0 }));
        assert_eq!(decode(&[0x01, 0x02]), Err(MsgpackError::TrailingBytes(1)));
        assert_eq!(decode(&[0xa1, 0xff]), Err(MsgpackError::InvalidUtf8(1)));
        assert_eq!(decode(&[0xdd, 0xff, 0xff, 0xff, 0xff]), Err(MsgpackError::Truncated(5)));
        assert_eq!(decode(&[0x91; 100]), Err(MsgpackError::TooDeep(MAX_DEPTH)));
    }
}
