//! The QMD (Queue Meta Data): the launch descriptor a compute class reads for a kernel launch
//! (`SEND_PCAS_A` points at it, or a predecessor's `DEPENDENT_QMD_POINTER`).
//!
//! Three layouts, as bit fields whose positions are the `MW(hi:lo)` macros of NVIDIA's class
//! headers (open-gpu-doc `classes/compute/`, snapshot c8607fe5):
//!
//! | version | classes | header block | size |
//! |---|---|---|---|
//! | [`QmdVersion::V3`] | AMPERE_COMPUTE_A/B (c6c0, c7c0), ADA_COMPUTE_A (c9c0) | `clc6c0qmd.h` `NVC6C0_QMDV03_00_*` (identical in `clc9c0qmd.h`) | 0x40 dwords |
//! | [`QmdVersion::V4`] | HOPPER_COMPUTE_A (cbc0) | `clcbc0qmd.h` `NVCBC0_QMDV04_00_*` | 0x60 dwords |
//! | [`QmdVersion::V5`] | BLACKWELL_COMPUTE_A/B (cdc0, cec0) | `clcec0qmd.h` `NVCEC0_QMDV05_00_*` (identical in `clcdc0qmd.h`) | 0x60 dwords |
//!
//! `clcbc0qmd.h` also documents a V03_00 block for Hopper with the C6C0 positions; whether Hopper's
//! scheduler takes it is unverified, so Hopper uses V4 here.
//!
//! [`Field`] names a field independently of the version; [`QmdVersion::bits`] gives its position
//! (and the header's name for it) in one layout, or `None` where that layout has no such field.
//! [`Qmd`] is a QMD image with checked field writes and typed setters that apply each version's
//! encoding (byte, `SHIFTED4`, `SHIFTED6`, `SHIFTED7` units).

mod field;
mod layout;
mod version;

pub use field::Field;
pub use layout::Bits;
pub use version::{QmdVersion, MAX_DWORDS};

use crate::{Error, Result};

// Field values named in the headers (the same numbers in V3, V4 and V5).

/// `QMD_TYPE_GRID_CTA` (V4, V5).
pub const QMD_TYPE_GRID_CTA: u64 = 2;
/// `API_VISIBLE_CALL_LIMIT_NO_CHECK`.
pub const API_VISIBLE_CALL_LIMIT_NO_CHECK: u64 = 1;
/// `SAMPLER_INDEX_VIA_HEADER_INDEX`.
pub const SAMPLER_INDEX_VIA_HEADER_INDEX: u64 = 1;
/// `CWD_MEMBAR_TYPE_L1_SYSMEMBAR`.
pub const CWD_MEMBAR_TYPE_L1_SYSMEMBAR: u64 = 1;
/// `DEPENDENT_QMD_ACTION_QMD_SCHEDULE` (`DEPENDENT_QMD0_ACTION_QMD_SCHEDULE` on V3).
pub const DEPENDENT_QMD_ACTION_QMD_SCHEDULE: u64 = 1;
/// `RELEASE_STRUCTURE_SIZE_SEMAPHORE_FOUR_WORDS`: payload, then a timestamp at +8.
pub const RELEASE_STRUCTURE_SIZE_FOUR_WORDS: u64 = 0;
/// `RELEASE_STRUCTURE_SIZE_SEMAPHORE_ONE_WORD`: the payload only.
pub const RELEASE_STRUCTURE_SIZE_ONE_WORD: u64 = 1;
/// `RELEASE_MEMBAR_TYPE_FE_SYSMEMBAR`.
pub const RELEASE_MEMBAR_TYPE_FE_SYSMEMBAR: u64 = 1;

/// A QMD image.
#[derive(Clone, PartialEq, Eq)]
pub struct Qmd {
    version: QmdVersion,
    words: [u32; MAX_DWORDS],
}

impl std::fmt::Debug for Qmd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Qmd({:?}, {:08x?})", self.version, self.words())
    }
}

/// A release semaphore written when the launch completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    pub address: u64,
    pub payload: u64,
    /// Write all 64 bits of the payload (`RELEASE_PAYLOAD64B`; V4/V5 only, V3 has the field but
    /// tinygrad never sets it).
    pub payload64: bool,
    /// FOUR_WORDS (payload and timestamp) or ONE_WORD (payload only).
    pub timestamp: bool,
}

/// Everything a launch needs, for [`Qmd::launch`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchDesc {
    /// GPU VA of the kernel's first instruction (`.text.<kernel>` in the uploaded image).
    pub program_address: u64,
    /// Size of the kernel's code, for the instruction prefetch.
    pub program_size: u64,
    pub registers: u32,
    pub barriers: u32,
    /// Total shared memory per CTA in bytes (the static `.nv.shared.<kernel>` size plus dynamic
    /// shared memory plus the 1 KiB the driver reserves on sm_80+; see [`shared_memory_bytes`]).
    pub shared_bytes: u32,
    /// `sm_XY` as `XY` (89, 90, 120): selects the shared-memory carve-out choices and SASS_VERSION.
    pub sm: u32,
    /// Per-thread local memory (stack) in bytes.
    pub local_bytes: u32,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Constant buffers: (bank, GPU VA, size in bytes). Bank 0 is the parameter buffer.
    pub constant_buffers: Vec<(u8, u64, u32)>,
}

/// Shared memory a kernel needs per CTA: its static and dynamic sizes plus the 1 KiB the driver
/// reserves on sm_80 and later, rounded up to 128 bytes (tinygrad `ops_nv.py`, [3rd-party]).
pub fn shared_memory_bytes(static_bytes: u32, dynamic_bytes: u32) -> u32 {
    (0x400 + static_bytes + dynamic_bytes).div_ceil(128) * 128
}

/// The L1/shared carve-outs (KiB) an SM of `sm_XY` can be configured with (CUDA C Programming
/// Guide, "Shared Memory" per compute capability): 8.6/8.7/8.9 and 12.x up to 100 KiB, 8.0 up to
/// 164 KiB, 9.0 and 10.x up to 228 KiB.
pub fn shared_carveouts_kib(sm: u32) -> &'static [u32] {
    match sm {
        80 => &[0, 8, 16, 32, 64, 100, 132, 164],
        90..=119 => &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228],
        _ => &[0, 8, 16, 32, 64, 100],
    }
}

/// The `*_SM_CONFIG_SHARED_MEM_SIZE` encoding of a carve-out: KiB / 4 + 1. The headers do not
/// document it; this is what Mesa NVK and tinygrad write ([3rd-party], unverified on hardware).
pub fn sm_config_encoding(kib: u32) -> u64 {
    (kib / 4 + 1) as u64
}

/// (min, target, max) SM shared-memory configuration for `shared_bytes` on `sm_XY`: the smallest
/// carve-out that fits, and the largest the SM has.
pub fn sm_config(shared_bytes: u32, sm: u32) -> Result<(u64, u64, u64)> {
    let choices = shared_carveouts_kib(sm);
    let max = *choices.last().unwrap_or(&0);
    let fit =
        choices.iter().copied().find(|&k| k * 1024 >= shared_bytes).ok_or_else(|| {
            Error::Protocol(format!("{shared_bytes} bytes of shared memory exceed sm_{sm}'s {max} KiB"))
        })?;
    // Never below 32 KiB: tinygrad chooses among 32/64/100 KiB only ([3rd-party]).
    let fit = fit.max(32.min(max));
    Ok((sm_config_encoding(fit), sm_config_encoding(fit), sm_config_encoding(max)))
}

/// SASS_VERSION for `sm_XY`: major in the high nibble, minor in the low (0x89, 0x90, 0xc0).
pub fn sass_version(sm: u32) -> u64 {
    (((sm / 10) << 4) | (sm % 10)) as u64
}

impl Qmd {
    /// An all-zero QMD of `version`.
    pub fn zeroed(version: QmdVersion) -> Qmd {
        Qmd { version, words: [0; MAX_DWORDS] }
    }

    /// A QMD with only the version fields set (`QMD_MAJOR_VERSION`, minor 0).
    pub fn new(version: QmdVersion) -> Qmd {
        let mut q = Qmd::zeroed(version);
        q.set(Field::QmdMajorVersion, version.major()).expect("major version fits");
        q
    }

    /// A QMD from its dwords (the length must be the version's size).
    pub fn from_words(version: QmdVersion, words: &[u32]) -> Result<Qmd> {
        if words.len() != version.dwords() {
            return Err(Error::Protocol(format!(
                "QMD {version:?} has {} dwords, got {}",
                version.dwords(),
                words.len()
            )));
        }
        let mut q = Qmd::zeroed(version);
        q.words[..words.len()].copy_from_slice(words);
        Ok(q)
    }

    pub fn version(&self) -> QmdVersion {
        self.version
    }

    pub fn words(&self) -> &[u32] {
        &self.words[..self.version.dwords()]
    }

    /// Little-endian bytes, as the GPU reads them.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.words().iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn bits_of(&self, field: Field) -> Result<Bits> {
        self.version.bits(field).ok_or_else(|| {
            Error::Protocol(format!("QMD {:?} ({}) has no field {field:?}", self.version, self.version.header().0))
        })
    }

    /// Write `value` into `field`; an error if the layout lacks the field or the value does not fit.
    pub fn set(&mut self, field: Field, value: u64) -> Result<&mut Self> {
        let bits = self.bits_of(field)?;
        if value > bits.max() {
            return Err(Error::Protocol(format!(
                "QMD {:?} {}{}: {value:#x} does not fit {} bits",
                self.version,
                bits.name,
                bits.index.map(|i| format!("({i})")).unwrap_or_default(),
                bits.width()
            )));
        }
        self.write_bits(bits.lo, bits.width(), value);
        Ok(self)
    }

    /// Read `field`.
    pub fn get(&self, field: Field) -> Result<u64> {
        let bits = self.bits_of(field)?;
        Ok(self.read_bits(bits.lo, bits.width()))
    }

    fn write_bits(&mut self, lo: u32, width: u32, value: u64) {
        let mut done = 0;
        while done < width {
            let bit = lo + done;
            let (word, shift) = ((bit / 32) as usize, bit % 32);
            let n = (32 - shift).min(width - done);
            let mask = if n == 32 { u32::MAX } else { ((1u32 << n) - 1) << shift };
            let part = ((value >> done) as u32) << shift;
            self.words[word] = (self.words[word] & !mask) | (part & mask);
            done += n;
        }
    }

    fn read_bits(&self, lo: u32, width: u32) -> u64 {
        let mut out = 0u64;
        let mut done = 0;
        while done < width {
            let bit = lo + done;
            let (word, shift) = ((bit / 32) as usize, bit % 32);
            let n = (32 - shift).min(width - done);
            let mask = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
            out |= (((self.words[word] >> shift) & mask) as u64) << done;
            done += n;
        }
        out
    }

    /// Split `value >> shift` over a lower (32-bit) and upper field; `align` is checked first.
    fn set_split(&mut self, lower: Field, upper: Field, value: u64, shift: u32, what: &str) -> Result<()> {
        if value & ((1u64 << shift) - 1) != 0 {
            return Err(Error::Protocol(format!("{what} {value:#x} is not {}-byte aligned", 1u64 << shift)));
        }
        let v = value >> shift;
        let upper_bits = self.bits_of(upper)?;
        if (v >> 32) > upper_bits.max() {
            return Err(Error::Protocol(format!(
                "{what} {value:#x} is beyond the QMD {:?} limit (2^{})",
                self.version,
                32 + upper_bits.width() + shift
            )));
        }
        self.set(lower, v & 0xffff_ffff)?;
        self.set(upper, v >> 32)?;
        Ok(())
    }

    /// Program address and its instruction prefetch (`PROGRAM_PREFETCH_ADDR_*_SHIFTED` = addr >> 8,
    /// `PROGRAM_PREFETCH_SIZE` in 256-byte units, capped at the field's width).
    pub fn set_program(&mut self, address: u64, size: u64) -> Result<&mut Self> {
        let shift = self.version.program_address_shift();
        self.set_split(Field::ProgramAddressLower, Field::ProgramAddressUpper, address, shift, "program address")?;
        let prefetch = address >> 8;
        let upper = self.bits_of(Field::ProgramPrefetchAddrUpperShifted)?;
        if (prefetch >> 32) <= upper.max() {
            self.set(Field::ProgramPrefetchAddrLowerShifted, prefetch & 0xffff_ffff)?;
            self.set(Field::ProgramPrefetchAddrUpperShifted, prefetch >> 32)?;
            let max = self.bits_of(Field::ProgramPrefetchSize)?.max();
            self.set(Field::ProgramPrefetchSize, (size >> 8).min(max))?;
        }
        Ok(self)
    }

    pub fn set_registers(&mut self, registers: u32) -> Result<&mut Self> {
        self.set(Field::RegisterCount, registers as u64)
    }

    pub fn set_barriers(&mut self, barriers: u32) -> Result<&mut Self> {
        self.set(Field::BarrierCount, barriers as u64)
    }

    /// Shared memory per CTA (bytes) and the SM carve-out configuration for `sm_XY`.
    pub fn set_shared_memory(&mut self, bytes: u32, sm: u32) -> Result<&mut Self> {
        let shift = self.version.shared_memory_shift();
        let v = (bytes as u64).div_ceil(1 << shift);
        self.set(Field::SharedMemorySize, v)?;
        let (min, target, max) = sm_config(bytes, sm)?;
        self.set(Field::MinSmConfigSharedMemSize, min)?;
        self.set(Field::TargetSmConfigSharedMemSize, target)?;
        self.set(Field::MaxSmConfigSharedMemSize, max)
    }

    /// Per-thread local memory: `low` below the stack, `high` the stack (bytes).
    pub fn set_local_memory(&mut self, low: u32, high: u32) -> Result<&mut Self> {
        let shift = self.version.local_memory_shift();
        self.set(Field::ShaderLocalMemoryLowSize, (low as u64).div_ceil(1 << shift))?;
        self.set(Field::ShaderLocalMemoryHighSize, (high as u64).div_ceil(1 << shift))
    }

    pub fn set_grid(&mut self, grid: [u32; 3]) -> Result<&mut Self> {
        if grid.contains(&0) {
            return Err(Error::Protocol(format!("grid {grid:?} has a zero dimension")));
        }
        self.set(Field::GridWidth, grid[0] as u64)?;
        self.set(Field::GridHeight, grid[1] as u64)?;
        self.set(Field::GridDepth, grid[2] as u64)
    }

    pub fn set_block(&mut self, block: [u32; 3]) -> Result<&mut Self> {
        if block.contains(&0) || block.iter().map(|&d| d as u64).product::<u64>() > 1024 {
            return Err(Error::Protocol(format!("block {block:?} is empty or over 1024 threads")));
        }
        self.set(Field::CtaThreadDimension0, block[0] as u64)?;
        self.set(Field::CtaThreadDimension1, block[1] as u64)?;
        self.set(Field::CtaThreadDimension2, block[2] as u64)
    }

    /// Constant buffer `bank` at `address` (64-byte aligned on V4/V5, 4 on V3) of `size` bytes:
    /// address, `SIZE_SHIFTED4` = ceil(size / 16), VALID and INVALIDATE.
    pub fn set_constant_buffer(&mut self, bank: u8, address: u64, size: u32) -> Result<&mut Self> {
        if bank >= self.version.constant_buffers() {
            return Err(Error::Protocol(format!("constant bank {bank} out of range (0..8)")));
        }
        let shift = self.version.constant_buffer_shift().max(2);
        let what = format!("constant buffer {bank} address");
        let shift_field = self.version.constant_buffer_shift();
        if address & ((1u64 << shift) - 1) != 0 {
            return Err(Error::Protocol(format!("{what} {address:#x} is not {}-byte aligned", 1u64 << shift)));
        }
        self.set_split(
            Field::ConstantBufferAddrLower(bank),
            Field::ConstantBufferAddrUpper(bank),
            address,
            shift_field,
            &what,
        )?;
        self.set(Field::ConstantBufferSizeShifted4(bank), (size as u64).div_ceil(16))?;
        self.set(Field::ConstantBufferValid(bank), 1)?;
        self.set(Field::ConstantBufferInvalidate(bank), 1)
    }

    /// Release semaphore `slot` (0..3) on completion.
    pub fn set_release(&mut self, slot: u8, release: Release) -> Result<&mut Self> {
        if release.address & 3 != 0 {
            return Err(Error::Protocol(format!("release address {:#x} is not 4-byte aligned", release.address)));
        }
        let upper = self.bits_of(Field::ReleaseAddrUpper(slot))?;
        if (release.address >> 32) > upper.max() {
            return Err(Error::Protocol(format!(
                "release address {:#x} is beyond the QMD {:?} limit (2^{})",
                release.address,
                self.version,
                32 + upper.width()
            )));
        }
        if !release.payload64 && release.payload >> 32 != 0 {
            return Err(Error::Protocol(format!("release payload {:#x} needs payload64", release.payload)));
        }
        self.set(Field::ReleaseAddrLower(slot), release.address & 0xffff_ffff)?;
        self.set(Field::ReleaseAddrUpper(slot), release.address >> 32)?;
        self.set(Field::ReleasePayloadLower(slot), release.payload & 0xffff_ffff)?;
        self.set(Field::ReleasePayloadUpper(slot), release.payload >> 32)?;
        let structure =
            if release.timestamp { RELEASE_STRUCTURE_SIZE_FOUR_WORDS } else { RELEASE_STRUCTURE_SIZE_ONE_WORD };
        self.set(Field::ReleaseStructureSize(slot), structure)?;
        self.set(Field::ReleasePayload64b(slot), release.payload64 as u64)?;
        self.set(Field::ReleaseMembarType(slot), RELEASE_MEMBAR_TYPE_FE_SYSMEMBAR)?;
        self.set(Field::ReleaseEnable(slot), 1)
    }

    /// The first release slot not yet enabled.
    pub fn free_release_slot(&self) -> Option<u8> {
        (0..self.version.release_slots()).find(|&s| self.get(Field::ReleaseEnable(s)).unwrap_or(1) == 0)
    }

    /// Chain the QMD at `next` (256-byte aligned, below 2^40) to run after this one:
    /// pointer = next >> 8, action QMD_SCHEDULE, prefetch, enable. V3 has one pointer only.
    pub fn set_dependent(&mut self, slot: u8, next: u64) -> Result<&mut Self> {
        if next & 0xff != 0 || next >> 40 != 0 {
            return Err(Error::Protocol(format!("dependent QMD {next:#x} is not 256-byte aligned below 2^40")));
        }
        self.set(Field::DependentQmdPointer(slot), next >> 8)?;
        self.set(Field::DependentQmdAction(slot), DEPENDENT_QMD_ACTION_QMD_SCHEDULE)?;
        self.set(Field::DependentQmdPrefetch(slot), 1)?;
        self.set(Field::DependentQmdEnable(slot), 1)
    }

    /// The six INVALIDATE_*_CACHE bits.
    pub fn set_invalidate_caches(&mut self, on: bool) -> Result<&mut Self> {
        for f in [
            Field::InvalidateTextureHeaderCache,
            Field::InvalidateTextureSamplerCache,
            Field::InvalidateTextureDataCache,
            Field::InvalidateShaderDataCache,
            Field::InvalidateInstructionCache,
            Field::InvalidateShaderConstantCache,
        ] {
            self.set(f, on as u64)?;
        }
        Ok(self)
    }

    /// A complete launch QMD: version, QMD_GROUP_ID 0x3f, QMD_TYPE GRID_CTA (V4/V5),
    /// SM_GLOBAL_CACHING (V3), API_VISIBLE_CALL_LIMIT NO_CHECK, SAMPLER_INDEX VIA_HEADER_INDEX,
    /// CWD_MEMBAR L1_SYSMEMBAR, cache invalidation, SASS_VERSION, then the launch's own fields.
    pub fn launch(version: QmdVersion, desc: &LaunchDesc) -> Result<Qmd> {
        let mut q = Qmd::new(version);
        q.set(Field::QmdGroupId, 0x3f)?;
        if version == QmdVersion::V3 {
            q.set(Field::SmGlobalCachingEnable, 1)?;
        } else {
            q.set(Field::QmdType, QMD_TYPE_GRID_CTA)?;
        }
        q.set(Field::ApiVisibleCallLimit, API_VISIBLE_CALL_LIMIT_NO_CHECK)?;
        q.set(Field::SamplerIndex, SAMPLER_INDEX_VIA_HEADER_INDEX)?;
        q.set(Field::CwdMembarType, CWD_MEMBAR_TYPE_L1_SYSMEMBAR)?;
        q.set_invalidate_caches(true)?;
        q.set(Field::SassVersion, sass_version(desc.sm))?;
        q.set_program(desc.program_address, desc.program_size)?;
        q.set_registers(desc.registers)?;
        q.set_barriers(desc.barriers)?;
        q.set_shared_memory(desc.shared_bytes, desc.sm)?;
        q.set_local_memory(0, desc.local_bytes)?;
        q.set_grid(desc.grid)?;
        q.set_block(desc.block)?;
        for &(bank, addr, size) in &desc.constant_buffers {
            q.set_constant_buffer(bank, addr, size)?;
        }
        Ok(q)
    }
}
