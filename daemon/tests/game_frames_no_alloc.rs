//! The game bridge's frame builder never allocates after `new`: ten seconds of a 60 Hz game
//! stream (partial motion and telemetry samples, a reordered packet, a teleport, a pause, a
//! loss and its return) pushed and rendered at 1 kHz under the counting allocator.

use rig_physics::CarTelemetry;
use rig_protocols::game::{GameSample, GameStream};
use rigd::game_source::frames::{GameFrameSettings, GameFrames, SourceCondition};

mod counting_alloc;

#[test]
fn pushing_and_rendering_allocate_nothing() {
    let mut frames = GameFrames::new(&GameFrameSettings {
        lost_after_ns: 500_000_000,
        jump_m: 5.0,
        tick_period_ns: 1_000_000,
    });
    let mut car = CarTelemetry::default();
    let mut seen = [0u32; 5];
    counting_alloc::arm();
    for tick in 0..10_000u64 {
        let now = 1_000_000_000 + tick * 1_000_000;
        // A packet every 16-17 ticks, none from 6 s to 7 s (lost).
        if tick % 17 == 0 && !(6_000..7_000).contains(&tick) {
            let t = tick as f64 / 1000.0;
            let mut motion = GameSample::empty(GameStream::F1_25);
            motion.game_time_s = Some(if tick == 1_700 { t - 0.03 } else { t });
            motion.driving = Some(!(3_000..3_500).contains(&tick));
            let x = if tick > 5_000 {
                20.0 * t + 100.0
            } else {
                20.0 * t
            };
            motion.motion.position_m = Some([x, 0.0, 0.0]);
            motion.motion.velocity_world_mps = Some([20.0, 0.0, 0.0]);
            motion.motion.roll_pitch_yaw_rad = Some([0.0, 0.01, 0.1 * t]);
            frames.push(now - 300_000, &motion);
            let mut telemetry = GameSample::empty(GameStream::F1_25);
            telemetry.game_time_s = Some(t);
            telemetry.car.engine_rpm = Some(9_000.0);
            telemetry.wheels[0].suspension_travel_m = Some(0.03);
            frames.push(now - 200_000, &telemetry);
        }
        let condition = frames.frame_at(now, &mut car);
        seen[condition as usize] += 1;
    }
    counting_alloc::disarm();
    assert_eq!(
        counting_alloc::allocations(),
        0,
        "the frame builder allocated"
    );
    // Every condition was passed through on the way.
    let [waiting, live, paused, lost, jumped] = seen;
    assert!(
        waiting == 0 && live > 7_000 && paused > 400 && lost > 400 && jumped >= 1,
        "{seen:?}"
    );
    assert_eq!(frames.out_of_order(), 1);
    assert_eq!(
        frames.frame_at(1_000_000_000 + 10_000_000_000, &mut car),
        SourceCondition::Live
    );
}
