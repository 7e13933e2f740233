//! PM4: the command language of AMD's compute rings and indirect buffers, for gfx9 (CDNA) and
//! gfx10+ (RDNA3, RDNA4). [`generation`] holds what differs between generations as data;
//! [`builder`] writes packets from it.

pub mod builder;
pub mod generation;

pub use builder::{Compare, Dispatch, Pm4, ReleaseData, PRED_EXEC_MAX_DWORDS, XCC_BARRIER_STRIDE};
pub use generation::{Family, Pm4Generation, XccSplitRegs, GFX11, GFX12, GFX9};
