//! PTX facts the runtime (which lays out a kernel's parameter block) and the emulated GPU (which
//! reads it back) must agree on, kept here below both: the parameter layout, the newest PTX ISA
//! version understood, and the static shared-memory bound a kernel may declare.

/// One declared `.param`: its element size, element count, an explicit `.align` if any, and
/// whether it carries `.ptr` (then `.align` is about the memory pointed to, not the parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamDecl {
    pub elem_size: u32,
    pub count: u32,
    pub align: Option<u32>,
    pub ptr: bool,
}

impl ParamDecl {
    /// Bytes the parameter occupies, `None` on overflow.
    pub fn size(&self) -> Option<u32> {
        self.elem_size.checked_mul(self.count.max(1))
    }

    /// Alignment of the parameter in the parameter space. PTX ISA, "Kernel Function Parameter
    /// Attributes": `.ptr .align N` gives the alignment of the memory the pointer points to, so
    /// it never changes where the pointer itself sits; otherwise `.align` may only raise the
    /// natural alignment of the element type.
    pub fn align(&self) -> u32 {
        let natural = self.elem_size.max(1);
        match self.align {
            Some(a) if !self.ptr => a.max(natural),
            _ => natural,
        }
    }
}

/// Place `p` after `cursor` bytes of parameters: its offset, and the new cursor. `None` when the
/// block would pass 4 GiB.
pub fn place_param(cursor: u32, p: &ParamDecl) -> Option<(u32, u32)> {
    let a = p.align();
    let offset = cursor.checked_next_multiple_of(a)?;
    Some((offset, offset.checked_add(p.size()?)?))
}

/// The newest PTX ISA version (major, minor) this stack reads: ISA 9.5, the version of CUDA 13.5
/// (PTX ISA release history). A module asking for a newer one may use what nothing here knows.
pub const NEWEST_PTX_VERSION: (u32, u32) = (9, 5);

/// Check a `.version` directive's `major.minor` text against [`NEWEST_PTX_VERSION`].
pub fn check_version(text: &str) -> Result<(u32, u32), String> {
    let (maj, min) = text.split_once('.').ok_or_else(|| format!("`.version {text}` is not MAJOR.MINOR"))?;
    let v = match (maj.parse::<u32>(), min.parse::<u32>()) {
        (Ok(a), Ok(b)) => (a, b),
        _ => return Err(format!("`.version {text}` is not MAJOR.MINOR")),
    };
    if v > NEWEST_PTX_VERSION {
        let (a, b) = NEWEST_PTX_VERSION;
        return Err(format!("PTX ISA version {text} is newer than the newest known here ({a}.{b})"));
    }
    Ok(v)
}

/// Static `.shared` bytes one kernel may declare: 48 KiB on every architecture from sm_20 on.
/// CUDA C++ Programming Guide, "Shared Memory" (compute capability 8.x/9.x): allocations over
/// 48 KB per block must be dynamic and opted into (`cudaFuncAttributeMaxDynamicSharedMemorySize`,
/// up to 227 KiB on sm_90); ptxas rejects larger static arrays ("uses too much shared data").
pub const MAX_STATIC_SHARED: u32 = 48 << 10;

/// Shared memory (static and dynamic together) one block may use on sm_90: 227 KiB
/// (CUDA C++ Programming Guide, "Features and Technical Specifications", compute capability 9.0).
pub const MAX_SHARED_PER_BLOCK: u32 = 227 << 10;

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(elem_size: u32, align: Option<u32>, ptr: bool) -> ParamDecl {
        ParamDecl { elem_size, count: 1, align, ptr }
    }

    #[test]
    fn pointer_align_is_about_the_pointee() {
        // `int b, __global float *s`: clang's `.param .u64 .ptr .global .align 4` sits at 8.
        let (b, c) = place_param(0, &decl(4, None, false)).unwrap();
        assert_eq!((b, c), (0, 4));
        assert_eq!(place_param(c, &decl(8, Some(4), true)), Some((8, 16)));
        // A byte array's `.align` is its own.
        let blob = ParamDecl { elem_size: 1, count: 24, align: Some(16), ptr: false };
        assert_eq!(place_param(20, &blob), Some((32, 56)));
        assert_eq!(place_param(u32::MAX - 2, &decl(8, None, false)), None);
    }

    #[test]
    fn versions() {
        assert_eq!(check_version("7.8"), Ok((7, 8)));
        assert!(check_version("99.9").unwrap_err().contains("newer"));
        assert!(check_version("9.10").is_err());
        assert!(check_version("x").is_err());
    }
}
