//! The ASM24xx custom-firmware protocol (tinygrad's firmware for the ASM2464/ASM2462 USB to
//! PCIe bridge): its USB ids, endpoints, vendor requests, controller (XDATA) addresses, the
//! PCIe addresses of its SRAM, and the TLP encodings. One definition, used by the bridge
//! driver and by the emulated bridge alike.

use std::time::Duration;

/// Vendor/product ids the custom firmware enumerates with.
pub const USB_IDS: [(u16, u16); 2] = [(0xADD1, 0x0001), (0x3801, 0x0001)];
/// Product strings of the custom firmware start with one of these.
pub const PRODUCT_PREFIXES: [&str; 2] = ["custom", "AS2462"];

/// Bulk OUT endpoint (MMIO write data, SRAM engine writes).
pub const EP_OUT: u8 = 0x02;
/// Bulk IN endpoint (MMIO read data, SRAM engine reads).
pub const EP_IN: u8 = 0x81;

/// `0xF0` OUT issues a TLP; `0xF0` IN reads the completion of a mode-0 non-posted one.
pub const REQ_TLP: u8 = 0xF0;
/// Arms the SRAM DMA engine (write: sectors; read: sectors | [`ENGINE_READ`]).
pub const REQ_ENGINE: u8 = 0xF2;
/// PCIe power: wValue 1 on, 0 off.
pub const REQ_POWER: u8 = 0xF3;
/// Reads controller XDATA at wValue (at most [`XDATA_CHUNK`] bytes a transfer).
pub const REQ_XDATA_READ: u8 = 0xE4;
/// Writes one byte (wIndex) of controller XDATA at wValue.
pub const REQ_XDATA_WRITE: u8 = 0xE5;
/// Most XDATA bytes one `0xE4` transfer returns.
pub const XDATA_CHUNK: usize = 0xFF;

/// TLP modes (wIndex of `0xF0` OUT).
pub const MODE_SINGLE: u16 = 0;
/// A stream of posted memory writes: the dwords follow on bulk OUT.
pub const MODE_WRITE_STREAM: u16 = 1;
/// A stream of memory reads: the dwords come back on bulk IN.
pub const MODE_READ_STREAM: u16 = 2;
/// Bytes of the `0xF0` OUT data: address low, address high, value or dword count (LE u32s).
pub const TLP_REQUEST_LEN: usize = 12;
/// Bytes of a `0xF0` IN completion.
pub const COMPLETION_LEN: usize = 8;

/// TLP format/type bytes.
pub const TLP_MRD: u8 = 0x20;
pub const TLP_MWR: u8 = 0x60;
pub const TLP_CFGRD0: u8 = 0x04;
pub const TLP_CFGRD1: u8 = 0x05;
pub const TLP_CFGWR0: u8 = 0x44;
pub const TLP_CFGWR1: u8 = 0x45;

/// Completion status field values.
pub const CPL_SUCCESS: u8 = 0b000;
pub const CPL_UR: u8 = 0b001;
pub const CPL_CRS: u8 = 0b010;
pub const CPL_CA: u8 = 0b100;

/// The LTSSM state register; the link is up when it reads [`LTSSM_L0`].
pub const XDATA_LTSSM: u16 = 0xB450;
pub const LTSSM_L0: u8 = 0x78;

/// The controller's SRAM: where the engine writes and reads, and where the GPU reaches it.
pub const SRAM_SIZE: u64 = 512 * 1024;
pub const SRAM_PCIE: u64 = 0x20_0000;
/// The engine addresses the SRAM in slots of this many bytes.
pub const SRAM_SLOT: u64 = 0x4000;
/// The engine moves whole sectors.
pub const SECTOR: u64 = 512;
/// Bit of the engine arm's wValue that makes it a read (SRAM to host).
pub const ENGINE_READ: u16 = 0x8000;
/// The drain fence (a u64 the GPU writes when it has drained a window), XDATA and PCIe.
pub const XDATA_FENCE: u16 = 0xA800;
pub const FENCE_PCIE: u64 = 0x82_0800;
/// The small system buffer the fence lives in (XDATA 0xA000..0xAFFF ↔ PCIe 0x820000).
pub const XDATA_SYS_BUF: u16 = 0xA000;
pub const SYS_BUF_PCIE: u64 = 0x82_0000;
pub const SYS_BUF_SIZE: u64 = 0x1000;
/// Writing this controller word starts streaming an armed engine read out on bulk IN (what
/// the GPU's SDMA write to `cq_buf + 12` does in tinygrad's copy-out).
pub const XDATA_READ_TRIGGER: u16 = 0xB80C;

/// Sentinel dwords close an engine write image: the tag plus a 24-bit sequence number.
pub use crate::pci::drained::SENTINEL_TAG;
/// How long the host waits for the GPU to drain an SRAM window before it gives up.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// Bus of the GPU behind the bridge's switch (buses 0..3 are bridges).
pub const GPU_BUS: u8 = 4;
/// Bridge windows: non-prefetchable memory from 256 MiB, prefetchable from 32 GiB.
pub const MEM_WINDOW_BASE: u64 = 0x1000_0000;
pub const PREF_WINDOW_BASE: u64 = 0x8_0000_0000;

/// Timeouts the firmware needs: power-up trains the link, a TLP waits for its completion.
pub const POWER_TIMEOUT: Duration = Duration::from_secs(10);
pub const TLP_TIMEOUT: Duration = Duration::from_secs(5);
pub const BULK_TIMEOUT: Duration = Duration::from_secs(30);
pub const CONTROL_TIMEOUT: Duration = Duration::from_secs(1);

/// Byte enables of an access of `size` bytes at `addr` (inside one dword).
pub fn byte_enable(addr: u64, size: usize) -> u8 {
    (((1u32 << size) - 1) << (addr & 3)) as u8
}

/// The address field of a configuration TLP.
pub fn config_address(bus: u8, dev: u8, func: u8, reg: u16) -> u32 {
    (bus as u32) << 24 | (dev as u32 & 0x1f) << 19 | (func as u32 & 7) << 16 | (reg as u32 & 0xffc)
}

/// A configuration TLP type: type 0 on bus 0, type 1 (forwarded by bridges) beyond.
pub fn config_type(bus: u8, write: bool) -> u8 {
    match (bus, write) {
        (0, false) => TLP_CFGRD0,
        (_, false) => TLP_CFGRD1,
        (0, true) => TLP_CFGWR0,
        (_, true) => TLP_CFGWR1,
    }
}

/// Posted requests (memory writes, messages) get no completion.
pub fn is_posted(fmt_type: u8) -> bool {
    fmt_type & 0xDF == 0x40 || fmt_type & 0xB8 == 0x30
}

/// The `0xF0` OUT of one TLP: wValue, and the request data.
pub fn tlp_request(fmt_type: u8, byte_en: u8, addr: u64, value: u32) -> (u16, [u8; TLP_REQUEST_LEN]) {
    let mut data = [0u8; TLP_REQUEST_LEN];
    data[0..4].copy_from_slice(&(addr as u32).to_le_bytes());
    data[4..8].copy_from_slice(&((addr >> 32) as u32).to_le_bytes());
    data[8..12].copy_from_slice(&value.to_le_bytes());
    (fmt_type as u16 | (byte_en as u16) << 8, data)
}

/// A decoded `0xF0` OUT request (the emulated firmware's view).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TlpRequest {
    pub fmt_type: u8,
    pub byte_en: u8,
    pub addr: u64,
    pub value: u32,
}

impl TlpRequest {
    pub fn decode(w_value: u16, data: &[u8]) -> Option<TlpRequest> {
        let d: &[u8; TLP_REQUEST_LEN] = data.try_into().ok()?;
        let word = |i: usize| u32::from_le_bytes([d[i], d[i + 1], d[i + 2], d[i + 3]]);
        Some(TlpRequest {
            fmt_type: w_value as u8,
            byte_en: (w_value >> 8) as u8,
            addr: word(0) as u64 | (word(4) as u64) << 32,
            value: word(8),
        })
    }
}

/// A `0xF0` IN completion: the data dword, the completion status, and the firmware's own
/// status (non-zero: the TLP did not go out; retry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub data: u32,
    pub status: u8,
    pub ret_status: u8,
}

impl Completion {
    pub fn encode(&self) -> [u8; COMPLETION_LEN] {
        let mut b = [0u8; COMPLETION_LEN];
        b[0..4].copy_from_slice(&self.data.to_le_bytes());
        b[4] = (self.status & 7) << 5;
        b[7] = self.ret_status;
        b
    }

    pub fn decode(b: &[u8]) -> Option<Completion> {
        let b: &[u8; COMPLETION_LEN] = b.try_into().ok()?;
        Some(Completion {
            data: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            status: (b[4] >> 5) & 7,
            ret_status: b[7],
        })
    }
}

/// wValue and wIndex of an engine arm over `sectors` sectors from slot `start_slot`.
pub fn engine_arm(read: bool, sectors: u16, start_slot: u8, slots: u8) -> (u16, u16) {
    let value = if read { (sectors & 0x7FFF) | ENGINE_READ } else { sectors };
    (value, start_slot as u16 | (slots as u16) << 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_enables_follow_size_and_offset() {
        assert_eq!(byte_enable(0x10, 4), 0x0f);
        assert_eq!(byte_enable(0x12, 2), 0x0c);
        assert_eq!(byte_enable(0x13, 1), 0x08);
    }

    #[test]
    fn config_addresses_pack_bus_device_function_register() {
        assert_eq!(config_address(4, 0, 0, 0x10), 0x0400_0010);
        assert_eq!(config_address(1, 2, 3, 0x1ff), 0x0113_01fc);
        assert_eq!(config_type(0, false), 0x04);
        assert_eq!(config_type(4, true), 0x45);
    }

    #[test]
    fn posted_requests_are_memory_writes_and_messages() {
        assert!(is_posted(TLP_MWR) && is_posted(0x40) && is_posted(0x30));
        assert!(!is_posted(TLP_MRD) && !is_posted(TLP_CFGWR1) && !is_posted(TLP_CFGRD0));
    }

    #[test]
    fn requests_and_completions_round_trip() {
        let (w, d) = tlp_request(TLP_MWR, 0x0f, 0x38_0000_1234, 0xdead_beef);
        assert_eq!(w, 0x0f60);
        let r = TlpRequest::decode(w, &d).expect("12 bytes");
        assert_eq!((r.fmt_type, r.byte_en, r.addr, r.value), (TLP_MWR, 0x0f, 0x38_0000_1234, 0xdead_beef));
        let c = Completion { data: 7, status: CPL_CA, ret_status: 0 };
        assert_eq!(c.encode()[4], 0x80);
        assert_eq!(Completion::decode(&c.encode()), Some(c));
        assert_eq!(engine_arm(true, 3, 16, 2), (0x8003, 0x0210));
    }
}
