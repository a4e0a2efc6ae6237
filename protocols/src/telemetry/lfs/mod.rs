//! Live for Speed's UDP outputs: OutGauge (dashboard) and OutSim (motion), both defined in
//! LFS `docs/InSim.txt`. Shared conventions: gear bytes are 0 = R, 1 = N, 2 = first; times are
//! u32 milliseconds; optional IDs are appended as i32 when configured.

pub mod outgauge;
pub mod outsim;
