//! Fuzz target: the DIY serial input line protocol (rig_protocols::serial_input): any bytes,
//! taken as one line or as a stream cut at an arbitrary point, give a message or the reason
//! the line is garbage, never a panic; the stream's line count matches its newlines.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rig_protocols::serial_input::{parse_line, LineSplitter};

fuzz_target!(|data: &[u8]| {
    let _ = parse_line(data);
    let cut = data.first().map_or(0, |&b| usize::from(b) % (data.len() + 1));
    let mut splitter = LineSplitter::new();
    let mut lines = 0;
    splitter.feed(&data[..cut], |_| lines += 1);
    splitter.feed(&data[cut..], |_| lines += 1);
    assert_eq!(lines, data.iter().filter(|&&b| b == b'\n').count());
});
