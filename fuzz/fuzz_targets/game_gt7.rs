//! Fuzz target: the GT7 decoder, on the datagram as received and, so the fuzzer reaches the
//! field decoding past the magic check, on the input taken as plaintext and encrypted with
//! the published scheme first.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rig_protocols::game::gt7::{self, Gt7Variant};

fn check(bytes: &[u8]) {
    if let Ok(sample) = gt7::decode(bytes) {
        let text = format!("{sample:?}");
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    let Some(variant) = Gt7Variant::ALL.into_iter().find(|v| v.packet_len() == data.len()) else {
        return;
    };
    let mut packet = [0u8; gt7::MAX_LEN];
    let packet = &mut packet[..data.len()];
    packet.copy_from_slice(data);
    packet[..4].copy_from_slice(&gt7::MAGIC.to_le_bytes());
    let seed = u32::from_le_bytes([data[0x40], data[0x41], data[0x42], data[0x43]]);
    gt7::apply_keystream(&gt7::KEY, &gt7::nonce(variant, seed), packet);
    packet[0x40..0x44].copy_from_slice(&seed.to_le_bytes());
    check(packet);
});
