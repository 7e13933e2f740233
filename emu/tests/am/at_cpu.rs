//! What the runtime's adapter needs of `AmDevice`: memory mapped for the GPU at its CPU address
//! (one address on both sides), and one queue destroyed while the device stays open.

use super::common::gpu;
use baregpu_drivers::amd::am::AmDevice;
use baregpu_emu::am::firmware_standin::StandinSource;
use baregpu_emu::am::layout::Layout;
use std::time::{Duration, Instant};

fn open() -> AmDevice {
    let fw = StandinSource::only(&Layout::for_arch("gfx1100").expect("layout"));
    AmDevice::open(gpu("gfx1100"), &fw).unwrap_or_else(|e| panic!("AmDevice::open: {e}"))
}

fn release(addr: u64, v: u32) -> Vec<u32> {
    use baregpu_drivers::amd::pm4::{Pm4, Pm4Generation, ReleaseData};
    let mut q = Pm4::new(Pm4Generation::for_arch("gfx1100").unwrap());
    q.release_mem(addr, ReleaseData::U32(v), false, None);
    q.into_words()
}

fn load32(addr: u64) -> u32 {
    // SAFETY: `addr` is inside a live allocation's CPU mapping the test holds; the GPU writes
    // it too, so an atomic load.
    unsafe { std::sync::atomic::AtomicU32::from_ptr(addr as *mut u32) }.load(std::sync::atomic::Ordering::Acquire)
}

fn store(addr: u64, bytes: &[u8]) {
    // SAFETY: as load32; the range lies inside the allocation.
    unsafe { std::ptr::copy(bytes.as_ptr(), addr as *mut u8, bytes.len()) }
}

/// Memory of both placements has its GPU VA at its CPU address: a queue whose ring, pointers
/// and signal are written and read only through CPU pointers runs, and its RELEASE_MEM lands
/// where the CPU reads. Destroying the queue dequeues it and frees its MQD; a second queue of
/// the same index then runs.
#[test]
fn memory_mapped_at_its_cpu_address_serves_a_queue_that_is_destroyed_and_made_again() {
    let mut dev = open();
    let ring = dev.alloc_at_cpu(0x1000, false).unwrap();
    let ptrs = dev.alloc_at_cpu(0x1000, false).unwrap();
    let signal = dev.alloc_at_cpu(0x1000, true).unwrap();
    for a in [&ring, &ptrs, &signal] {
        assert_eq!(Some(a.va as usize), a.cpu, "GPU VA = CPU address");
    }
    for round in 1..=2u32 {
        let q = dev.create_compute_queue(0, ring.va, 0x1000, ptrs.va, ptrs.va + 8).unwrap();
        let words = release(signal.va, 0x5eed + round);
        store(ring.va, &words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>());
        store(ptrs.va, &[0; 16]);
        store(ptrs.va + 8, &(words.len() as u64).to_le_bytes());
        dev.ring_doorbell(q, words.len() as u64).unwrap();
        let t = Instant::now();
        while load32(signal.va) != 0x5eed + round {
            assert!(t.elapsed() < Duration::from_secs(10), "round {round}: the signal never landed");
            std::thread::sleep(Duration::from_millis(1));
        }
        dev.destroy_queue(q).unwrap();
        let e = dev.destroy_queue(q).unwrap_err().to_string();
        assert!(e.contains("not a live queue"), "{e}");
    }
    for a in [ring, ptrs, signal] {
        dev.free(a).unwrap();
    }
    dev.close().unwrap();
}
