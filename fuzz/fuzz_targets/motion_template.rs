//! Fuzz target: the SimTools / FlyPT Mover style frame templates a user writes in [[motion]]
//! (rig_protocols::motion::template): the first byte picks the bit depth, the second the
//! number format, the rest is the template. A template is accepted or refused, never a panic;
//! an accepted one encodes every axis value (in range, out of range, NaN) within its stated
//! longest frame. Start and stop strings go through the escape parser.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rig_protocols::motion::encoder::FrameBuffer;
use rig_protocols::motion::template::{parse_escapes, NumberFormat, TemplateEncoder, MAX_AXES};

fuzz_target!(|data: &[u8]| {
    let [bits, format, rest @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let _ = parse_escapes(text);
    let format = match format % 3 {
        0 => NumberFormat::Binary,
        1 => NumberFormat::Decimal,
        _ => NumberFormat::Hex,
    };
    let Ok(encoder) = TemplateEncoder::new(text, *bits, format) else {
        return;
    };
    let mut frame = FrameBuffer::default();
    for value in [-1.0, 0.0, 1.0, 7.5, -1e300, f64::NAN, f64::INFINITY] {
        encoder.encode(&[value; MAX_AXES], &mut frame);
        assert!(frame.len() <= encoder.max_frame_len());
    }
});
