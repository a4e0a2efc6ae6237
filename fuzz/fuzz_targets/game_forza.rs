//! Fuzz target: the game bridge's Forza decoder and the auto-detecting dispatch; any bytes give
//! a sample or an error, never a panic, and a sample never carries NaN or infinity.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rig_protocols::game::{self, forza};

fuzz_target!(|data: &[u8]| {
    for sample in [forza::decode(data), game::decode(None, data)]
        .into_iter()
        .flatten()
    {
        let m = &sample.motion;
        for v in [
            m.acceleration_body_mps2,
            m.velocity_body_mps,
            m.angular_velocity_body_radps,
        ]
        .into_iter()
        .flatten()
        {
            assert!(v.iter().all(|x| x.is_finite()));
        }
    }
});
