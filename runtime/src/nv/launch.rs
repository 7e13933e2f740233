//! What a launch puts in memory: constant bank 0 (the kernel's template, the driver's slots and
//! the parameters) and the launch descriptor the QMD is built from. Pure functions of the kernel,
//! its arguments and the device generation, so the cubin path a real GPU takes is checked
//! without one.

use super::program::NvKernel;
use crate::program::{ArgValue, Launch};
use baregpu_drivers::nv::cbank0;
use baregpu_drivers::nv::qmd::{self, LaunchDesc};

/// The shared- and local-memory windows: where `ld.shared`/`ld.local` addresses live in the
/// generic address space. 4 GiB aligned and clear of every global VA the device hands out
/// (tinygrad's values, [3rd-party]).
pub const SHARED_WINDOW: u64 = 0x7294_0000_0000;
pub const LOCAL_WINDOW: u64 = 0x7293_0000_0000;
/// The initial stack pointer the driver leaves in bank 0 ([3rd-party]).
pub const STACK_TOP: u32 = 0xfffdc0;

/// Bytes of `k`'s constant bank 0: its template and parameter block, in 16-byte units.
pub fn constant_bank0_len(k: &NvKernel) -> usize {
    k.cb0_template.len().max((k.param_base + k.param_size) as usize).div_ceil(16) * 16
}

/// Constant bank 0 for a launch of `k` in `shape` with `args` on `sm_XY`: 16-byte multiple in
/// size, with the driver's slots (the launch sizes `%ntid`/`%nctaid` read, the windows, the
/// stack) filled where they lie below the parameters.
pub fn constant_bank0(k: &NvKernel, args: &[ArgValue], shape: &Launch, sm: u32) -> Result<Vec<u8>, String> {
    let params = k.param_block(args)?;
    let end = (k.param_base + k.param_size) as usize;
    let mut cb0 = k.cb0_template.clone();
    cb0.resize(constant_bank0_len(k), 0);
    let slots = cbank0::bank0(sm);
    let mut put = |at: usize, bytes: &[u8]| {
        // Slots inside the parameter block would be the kernel's own bytes: never overwrite those.
        if at + bytes.len() <= k.param_base as usize {
            if let Some(d) = cb0.get_mut(at..at + bytes.len()) {
                d.copy_from_slice(bytes);
            }
        }
    };
    put(slots.windows, &SHARED_WINDOW.to_le_bytes());
    put(slots.windows + 8, &LOCAL_WINDOW.to_le_bytes());
    put(slots.stack, &STACK_TOP.to_le_bytes());
    let below_params = (k.param_base as usize).min(cb0.len());
    cbank0::put_launch_sizes(&mut cb0[..below_params], sm, shape.block, shape.grid);
    cb0[k.param_base as usize..end].copy_from_slice(&params);
    Ok(cb0)
}

/// The QMD's inputs for `k` loaded at `image_base`, with bank 0 at `cb0_va` (`cb0_len` bytes).
pub fn descriptor(k: &NvKernel, image_base: u64, cb0_va: u64, cb0_len: usize, shape: &Launch, sm: u32) -> LaunchDesc {
    let mut banks = vec![(0u8, cb0_va, cb0_len as u32)];
    banks.extend(k.banks.iter().map(|&(b, off, size)| (b, image_base + off, size)));
    LaunchDesc {
        program_address: image_base + k.code_offset,
        program_size: k.code_size,
        registers: k.registers,
        barriers: k.barriers,
        shared_bytes: qmd::shared_memory_bytes(k.static_shared, shape.dynamic_lds),
        sm,
        local_bytes: k.local_bytes,
        grid: shape.grid,
        block: shape.block,
        constant_buffers: banks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nv::program::{layout, NvCode};
    use baregpu_drivers::nv::qmd::{Field, Qmd, QmdVersion};

    fn cubin(name: &str) -> NvCode {
        let p = format!("{}/../tests/fixtures/cubin/{name}", env!("CARGO_MANIFEST_DIR"));
        NvCode::parse(&std::fs::read(&p).unwrap()).unwrap()
    }

    /// The ptxas-built reduction (static shared memory, a module constant in .nv.constant3, a
    /// relocated global) for every generation: bank 0 has the parameters where EIATTR_PARAM_CBANK
    /// says, the driver slots below them, and the QMD points at the kernel's code, bank 0 and
    /// the module constant bank, with the cubin's register count and shared memory.
    #[test]
    fn cubin_launches_lay_out_bank0_and_the_qmd_as_ptxas_expects() {
        for (file, sm, version, base) in [
            ("nv_reduce.sm_89.cubin", 89, QmdVersion::V3, 0x160),
            ("nv_reduce.sm_90.cubin", 90, QmdVersion::V4, 0x210),
            ("nv_reduce.sm_120.cubin", 120, QmdVersion::V5, 0x380),
        ] {
            let code = cubin(file);
            let (image, kernels) = layout(&code, sm).unwrap();
            let k = kernels.iter().find(|k| k.name == "reduce_sum").unwrap();
            assert_eq!(k.param_base, base, "{file}");
            assert_eq!(k.params.iter().map(|p| (p.offset, p.size)).collect::<Vec<_>>(), [(0, 8), (8, 8), (16, 4)]);
            let args = [ArgValue::Pointer(0x10_0000_1000), ArgValue::Pointer(0x10_0000_2000), ArgValue::u32(777)];
            let shape = Launch::new([4, 1, 1], [256, 1, 1]);
            let cb0 = constant_bank0(k, &args, &shape, sm).unwrap();
            assert_eq!(cb0.len() % 16, 0);
            let at = |o: usize, n: usize| cb0[base as usize + o..base as usize + o + n].to_vec();
            assert_eq!(at(0, 8), 0x10_0000_1000u64.to_le_bytes());
            assert_eq!(at(8, 8), 0x10_0000_2000u64.to_le_bytes());
            assert_eq!(at(16, 4), 777u32.to_le_bytes());
            let slots = cbank0::bank0(sm);
            assert_eq!(cb0[slots.windows..slots.windows + 8], SHARED_WINDOW.to_le_bytes(), "{file}");
            assert_eq!(cb0[slots.stack..slots.stack + 4], STACK_TOP.to_le_bytes(), "{file}");
            // What the kernel's `%ntid`/`%nctaid` read.
            assert_eq!(cbank0::launch_sizes(&cb0, sm), Some(([256, 1, 1], [4, 1, 1])), "{file}");

            let image_base = 0x10_0010_0000u64;
            assert!(image.len() as u64 > k.code_offset + k.code_size);
            let desc = descriptor(k, image_base, 0x10_0020_0000, cb0.len(), &shape, sm);
            let q = Qmd::launch(version, &desc).unwrap();
            let shift = version.program_address_shift();
            let lo = q.get(Field::ProgramAddressLower).unwrap() << shift;
            let hi = q.get(Field::ProgramAddressUpper).unwrap() << (32 + shift);
            assert_eq!(lo | hi, image_base + k.code_offset, "{file}");
            assert_eq!(q.get(Field::RegisterCount).unwrap(), k.registers as u64);
            assert!(
                k.registers > 0 && k.static_shared >= 1024,
                "{file}: {} regs, {} B shared",
                k.registers,
                k.static_shared
            );
            assert_eq!(q.get(Field::ConstantBufferValid(0)).unwrap(), 1);
            let (bank, off, _) = *k.banks.iter().find(|b| b.0 == 3).expect("the module constant bank");
            assert_eq!(q.get(Field::ConstantBufferValid(bank)).unwrap(), 1, "{file}");
            let cb_shift = version.constant_buffer_shift();
            let addr = (q.get(Field::ConstantBufferAddrLower(bank)).unwrap()
                | q.get(Field::ConstantBufferAddrUpper(bank)).unwrap() << 32)
                << cb_shift;
            assert_eq!(addr, image_base + off, "{file}");
            let shared = q.get(Field::SharedMemorySize).unwrap() << version.shared_memory_shift();
            assert_eq!(shared, qmd::shared_memory_bytes(k.static_shared, 0) as u64, "{file}");
        }
    }

    #[test]
    fn wrong_arguments_name_the_parameter() {
        let code = cubin("nv_vadd.sm_90.cubin");
        let (_, kernels) = layout(&code, 90).unwrap();
        let k = &kernels[0];
        let e = constant_bank0(k, &[ArgValue::u32(1)], &Launch::new([1; 3], [1; 3]), 90).unwrap_err();
        assert!(e.contains("arguments"), "{e}");
    }
}
