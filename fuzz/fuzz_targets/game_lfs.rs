//! Fuzz target: the game bridge's LFS decoders (rig_protocols::game::lfs): OutSim classic,
//! OutGauge, and OutSimPack2 with the `OutSim Opts` taken from the first two bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rig_protocols::game::lfs;
use rig_protocols::telemetry::OutSimOptions;

fuzz_target!(|data: &[u8]| {
    let _ = lfs::decode(data);
    let Some((opts, packet)) = data.split_first_chunk::<2>() else {
        return;
    };
    if let Some(options) = OutSimOptions::new(u16::from_le_bytes(*opts)) {
        let _ = lfs::decode_pack2(packet, options);
    }
});
