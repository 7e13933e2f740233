//! The PCI function: configuration space, BAR sizes and bounds, DMA memory, and the registers
//! that describe VRAM.

use super::common::gpu;
use baregpu_drivers::pci::{PciDevice, AMD_BAR_DOORBELL, AMD_BAR_MMIO, AMD_BAR_VRAM, DMA_PAGE};

fn cfg32(g: &dyn PciDevice, off: u16) -> u32 {
    let mut b = [0u8; 4];
    g.config_read(off, &mut b).unwrap();
    u32::from_le_bytes(b)
}

#[test]
fn config_space_names_an_amd_gpu_with_its_bars() {
    for (arch, device, class) in [("gfx1100", 0x744c, 0x0300), ("gfx942", 0x74a1, 0x1200)] {
        let g = gpu(arch);
        assert_eq!(cfg32(&*g, 0), 0x1002 | device << 16, "{arch}");
        assert_eq!(cfg32(&*g, 8) >> 16, class, "{arch}");
        // BAR0: 64-bit prefetchable memory; sizing reads back the size mask.
        let bar0 = cfg32(&*g, 0x10);
        assert_eq!(bar0 & 0xf, 0xc, "{arch}: BAR0 flags");
        g.config_write(0x10, &u32::MAX.to_le_bytes()).unwrap();
        g.config_write(0x14, &u32::MAX.to_le_bytes()).unwrap();
        let size = g.bar(AMD_BAR_VRAM).unwrap().size;
        let mask = (cfg32(&*g, 0x14) as u64) << 32 | (cfg32(&*g, 0x10) & !0xf) as u64;
        assert_eq!(!mask + 1, size, "{arch}: BAR0 sizing");
        // BAR5: 32-bit registers; BAR4 does not exist and stays zero.
        assert_eq!(cfg32(&*g, 0x24) & 0xf, 0, "{arch}: BAR5 flags");
        g.config_write(0x20, &u32::MAX.to_le_bytes()).unwrap();
        assert_eq!(cfg32(&*g, 0x20), 0, "{arch}: BAR4");
        assert!(g.bar(1).is_none() && g.bar(5).is_some() && g.bar(2).is_some());
        // The command register: bus mastering can be set and cleared; reserved bits stay 0.
        g.config_write(4, &0xffffu16.to_le_bytes()).unwrap();
        assert_eq!(cfg32(&*g, 4) & 0xffff, 0x7, "{arch}");
        g.config_write(4, &0x2u16.to_le_bytes()).unwrap();
        assert_eq!(cfg32(&*g, 4) & 0xffff, 0x2, "{arch}");
        let mut b = [0u8; 4];
        assert!(g.config_read(0xffe, &mut b).is_err(), "{arch}: past config space");
    }
}

#[test]
fn an_access_past_a_bar_is_an_error() {
    let g = gpu("gfx1100");
    for bar in [AMD_BAR_VRAM, AMD_BAR_DOORBELL, AMD_BAR_MMIO] {
        let size = g.bar(bar).unwrap().size;
        g.write32(bar, size - 4, 0x1234_5678).unwrap();
        if bar != AMD_BAR_MMIO {
            assert_eq!(g.read32(bar, size - 4).unwrap(), 0x1234_5678, "BAR{bar}");
        }
        let e = g.read32(bar, size).unwrap_err().to_string();
        assert!(e.contains(&format!("BAR{bar}")) && e.contains("past the BAR"), "{e}");
        assert!(g.write64(bar, size - 4, 0).is_err(), "BAR{bar}: straddles the end");
        assert!(g.read32(bar, 2).is_err(), "BAR{bar}: unaligned");
    }
    assert!(g.read32(1, 0).is_err(), "no BAR1");
    let mut buf = vec![0u8; 16];
    assert!(g.copy_from_bar(AMD_BAR_VRAM, g.bar(AMD_BAR_VRAM).unwrap().size - 8, &mut buf).is_err());
}

#[test]
fn vram_through_bar0_and_the_mm_index_window_agree() {
    let g = gpu("gfx1100");
    g.copy_to_bar(AMD_BAR_VRAM, 0x10_0000, &0xdead_beefu32.to_le_bytes()).unwrap();
    let nbio = g.bases().nbio.clone();
    use baregpu_autogen::amd::regs::nbio_4_3_0 as n;
    let addr = |r: baregpu_autogen::amd::regs::Reg| r.addr(&nbio).unwrap() as u64 * 4;
    // RCC_CONFIG_MEMSIZE: MiB of VRAM (dword 0xDE3, what tinygrad reads).
    assert_eq!(addr(n::regRCC_DEV0_EPF0_RCC_CONFIG_MEMSIZE), 0xde3 * 4);
    assert_eq!(g.read32(AMD_BAR_MMIO, 0xde3 * 4).unwrap() as u64, g.vram_size() >> 20);
    g.write32(AMD_BAR_MMIO, addr(n::regBIF_BX_PF0_MM_INDEX), 0x8000_0000 | 0x10_0000).unwrap();
    g.write32(AMD_BAR_MMIO, addr(n::regBIF_BX_PF0_MM_INDEX_HI), 0).unwrap();
    assert_eq!(g.read32(AMD_BAR_MMIO, addr(n::regBIF_BX_PF0_MM_DATA)).unwrap(), 0xdead_beef);
    g.write32(AMD_BAR_MMIO, addr(n::regBIF_BX_PF0_MM_DATA), 7).unwrap();
    assert_eq!(g.read32(AMD_BAR_VRAM, 0x10_0000).unwrap(), 7);
}

#[test]
fn dma_memory_has_distinct_page_aligned_bus_addresses() {
    let g = gpu("gfx1100");
    let a = g.alloc_dma(3 * DMA_PAGE, true).unwrap();
    let b = g.alloc_dma(DMA_PAGE, false).unwrap();
    let pa = a.bus_pages();
    assert_eq!(pa.len(), 3);
    assert!(pa.windows(2).all(|w| w[1] == w[0] + DMA_PAGE), "contiguous");
    assert!(b.bus_pages()[0] > pa[2] + DMA_PAGE, "a guard page between allocations");
    a.write(8, &[1, 2, 3]).unwrap();
    let mut r = [0u8; 3];
    a.read(8, &mut r).unwrap();
    assert_eq!(r, [1, 2, 3]);
    assert!(a.write(3 * DMA_PAGE - 1, &[0, 0]).is_err());
    assert!(g.alloc_dma(100, false).is_err(), "not a page multiple");
}

#[test]
fn the_discovery_table_sits_at_vram_top_minus_64k_and_parses() {
    use baregpu_drivers::amd::am::discovery::{hw_id, Discovery, DISCOVERY_TMR_OFFSET};
    for arch in ["gfx1100", "gfx942"] {
        let g = gpu(arch);
        // What the driver does: VRAM size from RCC_CONFIG_MEMSIZE, the table below its top.
        use baregpu_autogen::amd::regs::{nbio_4_3_0, nbio_7_9_0};
        let memsize = if arch == "gfx1100" {
            nbio_4_3_0::regRCC_DEV0_EPF0_RCC_CONFIG_MEMSIZE
        } else {
            nbio_7_9_0::regRCC_DEV0_EPF0_RCC_CONFIG_MEMSIZE
        };
        let vram = (g.read32(AMD_BAR_MMIO, memsize.addr(&g.bases().nbio).unwrap() as u64 * 4).unwrap() as u64) << 20;
        assert_eq!(vram, g.vram_size(), "{arch}");
        let mut bin = vec![0u8; 10 << 10];
        g.copy_from_bar(AMD_BAR_VRAM, vram - DISCOVERY_TMR_OFFSET, &mut bin).unwrap();
        let d = Discovery::parse(&bin).unwrap();
        assert_eq!(d.base(hw_id::GC, 0, 0), Some(g.bases().gc[0]), "{arch}");
    }
}
