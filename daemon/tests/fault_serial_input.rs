//! Fault matrix, DIY serial input (docs/reliability.md), on a real pty read by the real
//! `serialport` reader thread:
//! - garbage: binary noise, unknown messages, out-of-range numbers and over-long lines (200
//!   bytes, and 64 KiB without a newline) are each counted once as one garbage line, change
//!   nothing, and the next valid line takes effect;
//! - the device vanishes (pty closed): the reader says disconnected within 1 s and the merge
//!   stops applying its stale values (the handbrake it held is released); a device plugged back
//!   at the same path is read again within 2 s, and a half line from before the fault is not
//!   joined to the first line after it.

mod fault_support;
mod motion_pty;

use std::time::Duration;

use fault_support::{point_link, within};
use motion_pty::Pty;
use rig_config::motion::{SerialAxisConfig, SerialAxisFunction, SerialInputConfig};
use rig_physics::Controls;
use rigd::input::serial::{start, SerialControls, SerialMerge};

fn handbrake_box(port: &std::path::Path) -> SerialInputConfig {
    SerialInputConfig {
        name: "handbrake box".into(),
        serial_port: port.display().to_string(),
        baud: 115_200,
        gear_selector: true,
        axes: vec![SerialAxisConfig {
            letter: "H".into(),
            function: SerialAxisFunction::Handbrake,
            raw_min: 100,
            raw_max: 900,
        }],
        buttons: vec![],
    }
}

/// The handbrake the merge applies to a player who is not pulling one.
fn merged_handbrake(merge: &mut SerialMerge, state: &SerialControls) -> f64 {
    let mut controls = Controls::default();
    merge.apply(state, &mut controls);
    controls.handbrake
}

#[test]
fn garbage_and_over_long_lines_are_counted_and_dropped_and_a_lost_device_is_read_again() {
    let dir = std::env::temp_dir().join(format!("rigd-fault-serial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("ttyHANDBRAKE");
    let pty = Pty::open();
    point_link(&link, &pty.slave_path);
    let (_reader, mut slot) = start(&handbrake_box(&link)).unwrap();
    within(Duration::from_secs(5), "device opens", || {
        slot.read().connected.then_some(())
    });

    pty.write(b"H 740\n");
    within(Duration::from_secs(2), "first line", || {
        (slot.read().handbrake == Some(0.8)).then_some(())
    });

    // 100 noise lines, 100 unknown or out-of-range messages, 50 lines of 200 bytes, one of
    // 64 KiB: 251 garbage lines. None of them moves the handbrake.
    let mut noise = Vec::new();
    for n in 0..100u8 {
        noise.extend_from_slice(&[0xff, 0x80 | n, 0xfe, b'\n']);
    }
    for n in 0..50 {
        noise.extend_from_slice(format!("Q {n} {n}\nH 70000\n").as_bytes());
    }
    for _ in 0..50 {
        noise.extend_from_slice(&[b'H'; 200]);
        noise.push(b'\n');
    }
    noise.extend(std::iter::repeat_n(b'7', 64 * 1024));
    noise.push(b'\n');
    pty.write(&noise);
    pty.write(b"H 100\n");
    let (state, _) = within(
        Duration::from_secs(5),
        "the valid line after the noise",
        || {
            let s = slot.read();
            (s.handbrake == Some(0.0)).then_some(s)
        },
    );
    assert_eq!(state.garbage_lines, 251, "{state:?}");
    assert_eq!(
        state.lines, 2,
        "only the two valid lines were read: {state:?}"
    );
    assert!(state.connected);

    // Pull the cable while the handbrake is held and half a line is in flight.
    pty.write(b"H 900\nH 5");
    let mut merge = SerialMerge::default();
    let (held, _) = within(Duration::from_secs(2), "handbrake held", || {
        let s = slot.read();
        (s.handbrake == Some(1.0)).then_some(s)
    });
    assert_eq!(merged_handbrake(&mut merge, &held), 1.0);
    drop(pty);
    let (lost, took) = within(Duration::from_secs(1), "disconnect seen", || {
        let s = slot.read();
        (!s.connected).then_some(s)
    });
    assert_eq!(
        merged_handbrake(&mut merge, &lost),
        0.0,
        "a lost device's last values are not applied (took {took:?} to see the loss)"
    );

    // Plug a device back at the same path; its first bytes complete no old line.
    let pty = Pty::open();
    point_link(&link, &pty.slave_path);
    let (_, took) = within(Duration::from_secs(2), "device reopened", || {
        slot.read().connected.then_some(())
    });
    pty.write(b"00\nH 500\n");
    let (back, _) = within(Duration::from_secs(2), "line after the return", || {
        let s = slot.read();
        (s.handbrake == Some(0.5)).then_some(s)
    });
    assert_eq!(
        back.garbage_lines, 252,
        "`00` is a garbage line of its own, not the end of `H 5` (reopened after {took:?})"
    );
    assert_eq!(merged_handbrake(&mut merge, &back), 0.5);
    let _ = std::fs::remove_dir_all(&dir);
}
