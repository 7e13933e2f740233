//! What the emulated PSP checks of a firmware payload LOAD_IP_FW hands it: the payload is the
//! ucode the driver cut out of a blob (no header left), so the check is on its shape: not
//! empty, whole dwords, and not all zeroes (a buffer the driver forgot to fill).

pub fn payload_ok(fw_type: u32, blob: &[u8]) -> bool {
    let _ = fw_type;
    !blob.is_empty() && blob.len().is_multiple_of(4) && blob.iter().any(|&b| b != 0)
}
