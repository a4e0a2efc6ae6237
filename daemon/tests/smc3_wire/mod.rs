//! The SMC3 preset's wire format as the motion tests read it: SimTools 10-bit counts of a
//! normalised actuator position, and the `[A hi lo][B hi lo][C hi lo]` frames in the bytes
//! rigd wrote to a pty (resynchronising on anything else).

#![allow(dead_code)] // each test binary uses its own subset

/// SimTools 10-bit counts of a normalised position.
pub fn counts(p: f64) -> u16 {
    let v = if p > 0.0 {
        p * 512.0 + 511.0
    } else {
        511.0 + p * 511.0
    };
    v.round_ties_even() as u16
}

/// SMC3 frames `[A hi lo][B hi lo][C hi lo]` found in `bytes` (resynchronising on garbage).
pub fn smc3_frames(bytes: &[u8]) -> Vec<[u16; 3]> {
    let mut frames = Vec::new();
    let mut i = 0;
    while i + 15 <= bytes.len() {
        let f = &bytes[i..i + 15];
        let framed =
            (0..3).all(|k| f[k * 5] == b'[' && f[k * 5 + 1] == b"ABC"[k] && f[k * 5 + 4] == b']');
        if framed {
            frames.push(std::array::from_fn(|k| {
                u16::from_be_bytes([f[k * 5 + 2], f[k * 5 + 3]])
            }));
            i += 15;
        } else {
            i += 1;
        }
    }
    frames
}
