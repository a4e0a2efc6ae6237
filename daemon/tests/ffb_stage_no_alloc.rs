//! The FFB stage on the RT thread never allocates, also now that it rings its writer's
//! doorbell: 10 000 ticks of a torque that changes every tick (a ring per tick), a fault's
//! safe stop and the resume, under a counting global allocator armed on the ticking thread
//! only, while a writer-side thread waits on the doorbell as the real writers do.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rig_config::devices::DevicesConfig;
use rig_protocols::Frame;
use rigd::ffb::{FfbCommand, FfbLink, FfbStage};
use rigd::rt::handoff::latest_value;
use rigd::rt::stage::{RtStage, StopReason};

mod counting_alloc;

#[test]
fn ten_thousand_ffb_ticks_ringing_the_writer_allocate_nothing() {
    let link = FfbLink::new();
    link.set_device_connected(true);
    let (commands, mut latest) = latest_value(FfbCommand::default());
    let mut stage = FfbStage::new(&DevicesConfig::default(), 0.001, link.clone(), commands);
    let quit = Arc::new(AtomicBool::new(false));
    let wakes = Arc::new(AtomicU64::new(0));
    let waiter = {
        let (link, quit, wakes) = (link.clone(), quit.clone(), wakes.clone());
        std::thread::spawn(move || {
            while !quit.load(Ordering::Acquire) {
                if link.wait_for_command(Duration::from_millis(5)) {
                    wakes.fetch_add(1, Ordering::Relaxed);
                }
            }
        })
    };
    let mut frame = Frame::default();
    counting_alloc::arm();
    for tick in 0..10_000u32 {
        frame.car.steering_torque_nm = 1.5 * (f64::from(tick) * 0.01).sin();
        match tick {
            5_000 => stage.safe_stop(StopReason::Fault),
            5_100 => stage.resume(),
            _ => stage.on_tick(&frame),
        }
        if tick % 100 == 0 {
            // Let the waiter run now and then, so rings find it both asleep and awake. A short
            // sleep rather than a yield: on a loaded host a yield can return at once a hundred
            // times over and leave the waiter unscheduled (0 wakes at load 15).
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    counting_alloc::disarm();
    quit.store(true, Ordering::Release);
    waiter.join().unwrap();
    assert_eq!(counting_alloc::allocations(), 0, "the FFB stage allocated");
    assert!(
        latest.read().play,
        "the stage streams again after the resume"
    );
    assert!(
        wakes.load(Ordering::Relaxed) >= 10,
        "the doorbell woke the writer side: {} wakes",
        wakes.load(Ordering::Relaxed)
    );
}
