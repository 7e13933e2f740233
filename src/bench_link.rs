//! `bench link`: what a PCI transport costs, on any spec that yields a PCI function (the
//! emulated GPU here, one behind `baregpu serve`, later the USB bridge): a register read's round
//! trip, the rate of posted register writes, and bulk copy bandwidth both ways through BAR0
//! (VRAM) and DMA memory. Every figure is checked: what was written is read back and compared.
//! With the runtime booted on the device: staged copies, and what a graph replay costs.

use crate::gpu::{ExecOptions, Gpu, GraphDesc};
use crate::{Error, Result};
use baregpu_drivers::pci::{PciDevice, AMD_BAR_MMIO, AMD_BAR_VRAM};
use baregpu_runtime::amd::AmdDevice;
use baregpu_runtime::graph::{Bindings, QueueKey, Shape};
use serde::Serialize;
use std::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct LinkFigures {
    pub device: String,
    /// Register reads timed (their median is `read_rtt_us`).
    pub reads: usize,
    /// A 32-bit register read, issue to value (median).
    pub read_rtt_us: f64,
    /// Posted 32-bit writes timed, ended by one read that flushes them.
    pub writes: usize,
    pub posted_writes_per_s: f64,
    /// Bytes of each copy measurement.
    pub copy_bytes: u64,
    /// Host to VRAM through BAR0, and back.
    pub bar_write_gb_s: f64,
    pub bar_read_gb_s: f64,
    /// Bytes of each DMA copy measurement (less where the device has only a small DMA pool).
    pub dma_copy_bytes: u64,
    /// Host to DMA memory, and back.
    pub dma_write_gb_s: f64,
    pub dma_read_gb_s: f64,
    /// Bytes of each staged copy measurement (`--staged`; 0 when not taken).
    pub staged_copy_bytes: u64,
    /// Host to VRAM the CPU does not map through the runtime's staging, and back (`--staged`).
    pub staged_write_gb_s: Option<f64>,
    pub staged_read_gb_s: Option<f64>,
    /// Empty kernels of the replayed graph (`--replay`; 0 when not taken).
    pub replay_nodes: usize,
    /// A replay's run and wait (median).
    pub replay_us: Option<f64>,
    /// A replay's round trips, run and wait (median), where the transport counts them.
    pub replay_round_trips: Option<f64>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// A pattern that differs in every word and between passes (a stale copy does not match).
fn pattern(len: usize, pass: u32) -> Vec<u8> {
    (0..len / 4).flat_map(|i| (i as u32).wrapping_mul(0x9e37_79b9).wrapping_add(pass).to_le_bytes()).collect()
}

/// Bandwidth of `reps` writes of `chunk` bytes through `write`, then of as many reads through
/// `read`, each read compared with what was written last.
fn copies(
    what: &str,
    chunk: usize,
    reps: u32,
    mut write: impl FnMut(&[u8]) -> Result<()>,
    mut read: impl FnMut(&mut [u8]) -> Result<()>,
) -> Result<(f64, f64)> {
    let data: Vec<Vec<u8>> = (0..reps).map(|p| pattern(chunk, p)).collect();
    let t = Instant::now();
    data.iter().try_for_each(|d| write(d))?;
    let mut back = vec![0; chunk];
    // The first read also flushes posted writes: count it in the write time.
    read(&mut back[..4])?;
    let write_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    for _ in 0..reps {
        read(&mut back)?;
    }
    let read_s = t.elapsed().as_secs_f64();
    if back != data[reps as usize - 1] {
        return Err(Error::Usage(format!("bench link: {what} read back differs from what was written")));
    }
    let gb = (chunk as u64 * reps as u64) as f64 / 1e9;
    Ok((gb / write_s, gb / read_s))
}

/// Measure `pci`: `reads` register reads, `writes` posted writes, copies of `chunk` bytes
/// repeated `reps` times each way.
pub fn run(pci: &dyn PciDevice, reads: usize, writes: usize, chunk: usize, reps: u32) -> Result<LinkFigures> {
    let name = pci.name().to_string();
    let vram = pci.bar(AMD_BAR_VRAM).ok_or_else(|| Error::Usage(format!("bench link: {name} has no BAR0")))?;
    let chunk = (chunk.min(vram.size as usize) & !3).max(4);
    let reps = reps.max(1);
    let reg_bar = if pci.bar(AMD_BAR_MMIO).is_some() { AMD_BAR_MMIO } else { AMD_BAR_VRAM };
    let mut rtt = Vec::with_capacity(reads.max(1));
    for _ in 0..reads.max(1) {
        let t = Instant::now();
        pci.read32(reg_bar, 0)?;
        rtt.push(t.elapsed().as_secs_f64() * 1e6);
    }
    // Posted writes into VRAM (harmless before a boot), flushed and checked by one read.
    let writes = writes.max(1);
    let t = Instant::now();
    for i in 0..writes {
        pci.write32(AMD_BAR_VRAM, (i as u64 * 4) % chunk as u64, i as u32 ^ 0x5a5a_5a5a)?;
    }
    let last_offset = ((writes - 1) as u64 * 4) % chunk as u64;
    let got = pci.read32(AMD_BAR_VRAM, last_offset)?;
    let write_s = t.elapsed().as_secs_f64();
    if got != (writes - 1) as u32 ^ 0x5a5a_5a5a {
        return Err(Error::Usage(format!("bench link: {name}: the last posted write reads back as {got:#x}")));
    }
    let (bar_write, bar_read) = copies(
        "BAR0",
        chunk,
        reps,
        |d| Ok(pci.copy_to_bar(AMD_BAR_VRAM, 0, d)?),
        |b| Ok(pci.copy_from_bar(AMD_BAR_VRAM, 0, b)?),
    )?;
    // A device with only a small DMA pool (the USB bridge's SRAM) copies what fits in it.
    let dma_chunk = pci.dma_pool().map_or(chunk, |pool| chunk.min(pool as usize & !0xfff));
    let dma = pci.alloc_dma(dma_chunk.next_multiple_of(0x1000) as u64, false)?;
    let (dma_write, dma_read) =
        copies("DMA memory", dma_chunk, reps, |d| Ok(dma.write(0, d)?), |b| Ok(dma.read(0, b)?))?;
    Ok(LinkFigures {
        device: name,
        reads: rtt.len(),
        read_rtt_us: median(rtt),
        writes,
        posted_writes_per_s: writes as f64 / write_s,
        copy_bytes: chunk as u64 * reps as u64,
        bar_write_gb_s: bar_write,
        bar_read_gb_s: bar_read,
        dma_copy_bytes: dma_chunk as u64 * reps as u64,
        dma_write_gb_s: dma_write,
        dma_read_gb_s: dma_read,
        staged_copy_bytes: 0,
        staged_write_gb_s: None,
        staged_read_gb_s: None,
        replay_nodes: 0,
        replay_us: None,
        replay_round_trips: None,
    })
}

/// Adds to `f` the bandwidth of copies of `chunk` bytes into and out of VRAM the CPU does not
/// map, `reps` each way, through the runtime booted on the device (its staging: on a USB bridge
/// the SRAM, drained windows in): what a program's uploads and downloads cost.
pub fn staged(f: &mut LinkFigures, dev: &AmdDevice, chunk: usize, reps: u32) -> Result<()> {
    let chunk = chunk.max(4);
    let reps = reps.max(1);
    let buf = dev.alloc_vram(chunk as u64)?;
    let r = copies("staged VRAM", chunk, reps, |d| Ok(dev.copy_in(&buf, 0, d)?), |b| Ok(dev.copy_out(&buf, 0, b)?));
    dev.free(buf)?;
    let (to, from) = r?;
    f.staged_copy_bytes = chunk as u64 * reps as u64;
    (f.staged_write_gb_s, f.staged_read_gb_s) = (Some(to), Some(from));
    Ok(())
}

/// The replayed graph's size, checked before any device is opened.
pub fn check_replay(nodes: usize) -> Result<()> {
    match nodes {
        1..=crate::bench_graph::MAX_NODES => Ok(()),
        _ => Err(Error::Usage(format!("--replay {nodes}: expected 1 to {}", crate::bench_graph::MAX_NODES))),
    }
}

/// Adds to `f` what a graph replay costs over the transport: a graph of `nodes` empty kernels
/// compiled once on `gpu` (the runtime booted on `pci`), then `runs` replays, each run and waited
/// for: the median time and round trips (where `pci` counts them) of one.
pub fn replay(f: &mut LinkFigures, pci: &dyn PciDevice, gpu: &dyn Gpu, nodes: usize, runs: u32) -> Result<()> {
    check_replay(nodes)?;
    let prog = gpu.empty_kernel()?;
    let measured: Result<(f64, Option<f64>)> = (|| {
        let mut g = GraphDesc::new();
        for _ in 0..nodes {
            g.launch(QueueKey::compute(0), &prog, "empty", vec![], Shape::linear(1, 32));
        }
        let mut exec = gpu.compile_graph(g, &[], ExecOptions::default())?;
        let b = Bindings::new();
        // A first run outside the figures (first touches of the command buffers).
        exec.run(&b)?;
        exec.wait()?;
        let (mut us, mut trips) = (Vec::new(), Vec::new());
        for _ in 0..runs.max(1) {
            let (t, before) = (Instant::now(), pci.link_round_trips());
            exec.run(&b)?;
            exec.wait()?;
            us.push(t.elapsed().as_secs_f64() * 1e6);
            if let (Some(a), Some(z)) = (before, pci.link_round_trips()) {
                trips.push((z - a) as f64);
            }
        }
        Ok((median(us), (!trips.is_empty()).then(|| median(trips))))
    })();
    let unloaded = gpu.unload(prog);
    let (us, trips) = measured?;
    unloaded?;
    (f.replay_nodes, f.replay_us, f.replay_round_trips) = (nodes, Some(us), trips);
    Ok(())
}
