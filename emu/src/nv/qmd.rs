//! The fields of a QMD (Queue Meta Data, the compute launch descriptor) the emulated GPU uses:
//! V03_00 (Ampere/Ada, `clc6c0qmd.h`), V04_00 (Hopper, `clcbc0qmd.h`) and V05_00 (Blackwell,
//! `clcec0qmd.h`), read through the driver's own layouts (`drivers::nv::qmd`), so that the GPU
//! and the driver read one definition of every field.

use baregpu_drivers::nv::qmd::{
    Field, Qmd, QmdVersion, DEPENDENT_QMD_ACTION_QMD_SCHEDULE, RELEASE_STRUCTURE_SIZE_ONE_WORD,
};

/// What a launch needs from a QMD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QmdLaunch {
    pub version: u32,
    pub program: u64,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    /// Constant banks 0..8: (address, size in bytes) for the valid ones.
    pub cbufs: [Option<(u64, u32)>; 8],
    /// Release semaphores: (address, payload, 64-bit payload, one word (no timestamp)).
    pub releases: Vec<(u64, u64, bool, bool)>,
    /// A dependent QMD to schedule after this one.
    pub dependent: Option<u64>,
}

/// The size of a QMD of `version` (V3: 256 bytes; V4, V5: 384).
pub fn size(version: u32) -> usize {
    if version >= 4 {
        384
    } else {
        256
    }
}

pub fn decode(q: &[u8], version: u32) -> Result<QmdLaunch, String> {
    let layout = match version {
        3 => QmdVersion::V3,
        4 => QmdVersion::V4,
        5 => QmdVersion::V5,
        v => return Err(format!("QMD version {v} is not modelled")),
    };
    let words: Vec<u32> = q
        .get(..layout.bytes())
        .ok_or_else(|| format!("{} bytes of QMD, {} wanted", q.len(), layout.bytes()))?
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let qmd = Qmd::from_words(layout, &words).map_err(|e| e.to_string())?;
    // A field the layout lacks reads as 0, as the hardware ignores what it does not have.
    let f = |field: Field| qmd.get(field).unwrap_or(0);
    let split = |lo: Field, hi: Field, shift: u32| (f(lo) | f(hi) << 32) << shift;
    let mut cbufs = [None; 8];
    for (i, cb) in cbufs.iter_mut().enumerate() {
        let i = i as u8;
        if f(Field::ConstantBufferValid(i)) == 1 {
            let addr = split(
                Field::ConstantBufferAddrLower(i),
                Field::ConstantBufferAddrUpper(i),
                layout.constant_buffer_shift(),
            );
            *cb = Some((addr, (f(Field::ConstantBufferSizeShifted4(i)) as u32) << 4));
        }
    }
    let releases = (0..layout.release_slots())
        .filter(|&k| f(Field::ReleaseEnable(k)) == 1)
        .map(|k| {
            (
                split(Field::ReleaseAddrLower(k), Field::ReleaseAddrUpper(k), 0),
                split(Field::ReleasePayloadLower(k), Field::ReleasePayloadUpper(k), 0),
                f(Field::ReleasePayload64b(k)) == 1,
                f(Field::ReleaseStructureSize(k)) == RELEASE_STRUCTURE_SIZE_ONE_WORD,
            )
        })
        .collect();
    let dependent = (f(Field::DependentQmdEnable(0)) == 1
        && f(Field::DependentQmdAction(0)) == DEPENDENT_QMD_ACTION_QMD_SCHEDULE)
        .then(|| f(Field::DependentQmdPointer(0)) << 8);
    let l = QmdLaunch {
        version: f(Field::QmdMajorVersion) as u32,
        program: split(Field::ProgramAddressLower, Field::ProgramAddressUpper, layout.program_address_shift()),
        grid: [f(Field::GridWidth) as u32, f(Field::GridHeight) as u32, f(Field::GridDepth) as u32],
        block: [
            f(Field::CtaThreadDimension0) as u32,
            f(Field::CtaThreadDimension1) as u32,
            f(Field::CtaThreadDimension2) as u32,
        ],
        shared_bytes: (f(Field::SharedMemorySize) as u32) << layout.shared_memory_shift(),
        cbufs,
        releases,
        dependent,
    };
    if l.version != version {
        return Err(format!("the QMD says major version {}, the compute class takes {version}", l.version));
    }
    Ok(l)
}

/// A V4 (Hopper) QMD for a launch: program, grid, block, constant bank 0, and optionally
/// release semaphore 0 (four words, 32-bit payload), as the driver builds it.
pub fn build_v4(
    program: u64,
    grid: [u32; 3],
    block: [u32; 3],
    cb0: (u64, u32),
    release: Option<(u64, u32)>,
) -> Vec<u8> {
    let mut q = Qmd::new(QmdVersion::V4);
    q.set_program(program, 0).expect("program address");
    q.set_grid(grid).expect("grid");
    q.set_block(block).expect("block");
    q.set_constant_buffer(0, cb0.0, cb0.1).expect("constant bank 0");
    if let Some((address, payload)) = release {
        let r =
            baregpu_drivers::nv::qmd::Release { address, payload: payload as u64, payload64: false, timestamp: true };
        q.set_release(0, r).expect("release 0");
    }
    q.to_bytes()
}
