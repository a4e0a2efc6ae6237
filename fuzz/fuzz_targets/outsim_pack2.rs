//! Fuzz target: the LFS OutSimPack2 decoder; the first two bytes choose the `OutSim Opts`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rig_protocols::telemetry::{lfs::outsim, Decoded, OutSimOptions};

fuzz_target!(|data: &[u8]| {
    let Some((opts, packet)) = data.split_first_chunk::<2>() else {
        return;
    };
    if let Some(options) = OutSimOptions::new(u16::from_le_bytes(*opts)) {
        if let Ok(decoded) = outsim::decode_pack2(packet, options) {
            let _ = Decoded::OutSimPack2(decoded).dash_view();
        }
    }
});
