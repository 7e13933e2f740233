//! The discovery table of an emulated chip, written with the drivers' own `discovery.h` structs
//! (the definitions the parser reads), laid out as the VBIOS does: `binary_header`, the IP
//! discovery table (`ip_discovery_header`, one die header and its `ip_v4` entries with base
//! addresses), `gc_info`, and the harvest table, each with its byte-sum checksum.

use super::layout::{GcTable, Layout};
use baregpu_drivers::amd::am::discovery::{
    binary_header, die_header, harvest_info, harvest_table, ip_discovery_header, ip_v4, BASE_ADDR_64_BIT,
    BINARY_CHECKSUM_START, BINARY_SIGNATURE, DISCOVERY_TABLE_SIGNATURE, DISCOVERY_TMR_SIZE, GC_TABLE_ID,
    HARVEST_ENTRIES, HARVEST_TABLE_SIGNATURE, TABLE_GC, TABLE_HARVEST_INFO, TABLE_IP_DISCOVERY,
};
use baregpu_drivers::amd::am::raw::{byte_sum16, bytes_of};

/// `ip_discovery_header.version` we write: 4 (the only one with 64-bit bases).
const IP_TABLE_VERSION: u16 = 4;
/// The binary header version real tables carry.
const BINARY_VERSION: (u16, u16) = (1, 1);

/// The discovery binary of `layout` (what the emulator places at VRAM top − 64 KiB).
pub fn discovery_table(layout: &Layout) -> Vec<u8> {
    let mut out = vec![0u8; std::mem::size_of::<binary_header>()];
    let mut bhdr = binary_header {
        binary_signature: BINARY_SIGNATURE,
        version_major: BINARY_VERSION.0,
        version_minor: BINARY_VERSION.1,
        ..Default::default()
    };

    let ip_off = out.len();
    let ip_table = ip_table(layout, ip_off);
    set_table(&mut bhdr, TABLE_IP_DISCOVERY, ip_off, &ip_table);
    out.extend_from_slice(&ip_table);

    let gc_off = out.len();
    let gc = gc_table(layout);
    set_table(&mut bhdr, TABLE_GC, gc_off, &gc);
    out.extend_from_slice(&gc);

    let hv_off = out.len();
    let hv = harvest(layout);
    set_table(&mut bhdr, TABLE_HARVEST_INFO, hv_off, bytes_of(&hv));
    out.extend_from_slice(bytes_of(&hv));

    assert!(out.len() <= DISCOVERY_TMR_SIZE, "a layout's discovery table outgrew the 10 KiB the driver reads");
    bhdr.binary_size = out.len() as u16;
    out[..std::mem::size_of::<binary_header>()].copy_from_slice(bytes_of(&bhdr));
    bhdr.binary_checksum = byte_sum16(&out[BINARY_CHECKSUM_START..]);
    out[..std::mem::size_of::<binary_header>()].copy_from_slice(bytes_of(&bhdr));
    out
}

fn set_table(bhdr: &mut binary_header, index: usize, offset: usize, bytes: &[u8]) {
    let t = &mut bhdr.table_list[index];
    t.offset = offset as u16;
    t.size = bytes.len() as u16;
    t.checksum = byte_sum16(bytes);
}

/// `ip_discovery_header` at `offset` of the binary, then die 0's header and entries (die
/// offsets count from the start of the binary).
fn ip_table(layout: &Layout, offset: usize) -> Vec<u8> {
    let hdr_len = std::mem::size_of::<ip_discovery_header>();
    let mut ihdr = ip_discovery_header {
        signature: DISCOVERY_TABLE_SIGNATURE,
        version: IP_TABLE_VERSION,
        num_dies: 1,
        flags: if layout.base_addr_64_bit { BASE_ADDR_64_BIT } else { 0 },
        ..Default::default()
    };
    ihdr.die_info[0].die_id = 0;
    ihdr.die_info[0].die_offset = (offset + hdr_len) as u16;

    let mut body = Vec::new();
    let dhdr = die_header { die_id: 0, num_ips: layout.ips.len() as u16 };
    body.extend_from_slice(bytes_of(&dhdr));
    for e in &layout.ips {
        let entry = ip_v4 {
            hw_id: e.hw_id,
            instance_number: e.instance,
            num_base_address: e.bases.len() as u8,
            major: e.version.major,
            minor: e.version.minor,
            revision: e.version.revision,
            variant_sub_revision: 0,
        };
        body.extend_from_slice(bytes_of(&entry));
        for &b in &e.bases {
            if layout.base_addr_64_bit {
                body.extend_from_slice(&((b as u64) | ((e.aid as u64) << 32)).to_le_bytes());
            } else {
                body.extend_from_slice(&b.to_le_bytes());
            }
        }
    }
    ihdr.size = (hdr_len + body.len()) as u16;
    let mut out = bytes_of(&ihdr).to_vec();
    out.extend_from_slice(&body);
    out
}

fn gc_table(layout: &Layout) -> Vec<u8> {
    match layout.gc_info {
        GcTable::V1_0(mut g) => {
            g.header.table_id = GC_TABLE_ID;
            (g.header.version_major, g.header.version_minor) = (1, 0);
            g.header.size = std::mem::size_of_val(&g) as u32;
            bytes_of(&g).to_vec()
        }
        GcTable::V2_1(mut g) => {
            g.v2_0.header.table_id = GC_TABLE_ID;
            (g.v2_0.header.version_major, g.v2_0.header.version_minor) = (2, 1);
            g.v2_0.header.size = std::mem::size_of_val(&g) as u32;
            bytes_of(&g).to_vec()
        }
    }
}

fn harvest(layout: &Layout) -> harvest_table {
    let mut t = harvest_table::default();
    t.header.signature = HARVEST_TABLE_SIGNATURE;
    t.header.version = 1;
    for (slot, &(hw_id, instance)) in t.list.iter_mut().zip(layout.harvest.iter().take(HARVEST_ENTRIES)) {
        *slot = harvest_info { hw_id, number_instance: instance, reserved: 0 };
    }
    t
}
