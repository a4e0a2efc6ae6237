//! vmrig guest checks of rigd's condition effects and Device Gain on the emulated HID PID base
//! ([`super::pid_gadget`]) through the real hid-generic + hid-pidff: while the car is parked
//! the base gets a spring and a damper (Create New Effect, Set Effect, Set Condition, Effect
//! Operation Start) at the configured levels, when the car drives off they are stopped, and
//! `device_gain_percent` arrives as the Device Gain report (full again on exit). Levels are
//! read from the device model in the base's own units (coefficients -10000 ..= 10000,
//! saturations 0 ..= 10000, gain 0 ..= 255).

use std::time::{Duration, Instant};

use super::pid_checks::{pid_config, Backend};
use super::pid_descriptor::{EffectType, GAIN_MAX};
use super::pid_gadget::PidBase;
use super::pid_model::{ConditionParams, PidReport};
use super::settings_checks::SpeedTicker;
use super::Results;
use rigd::ffb::FfbLink;

fn condition(
    conditions: &[(u8, EffectType, ConditionParams)],
    kind: EffectType,
) -> Option<ConditionParams> {
    conditions
        .iter()
        .find(|(_, k, _)| *k == kind)
        .map(|(_, _, p)| *p)
}

fn near(value: impl Into<i32>, want: i32) -> bool {
    (value.into() - want).abs() <= 2
}

/// Parked: spring + damper at their levels; driving: both stopped; gain 80 % then 100 %.
pub fn test_pid_conditions(r: &mut Results, base: &PidBase, backend: &Backend) {
    let name = |check: &str| format!("pid-{}-{check}", backend.label);
    // Defaults on a 2.2 N m base, 900 deg: the spring's coefficient saturates (full scale,
    // 10000), spring and damper give at most 1 N m of 2.2 (4545), the damper is 10 % (999).
    let extra = format!("{}\ndevice_gain_percent = 80", backend.ffb_extra);
    let config = pid_config(&extra);
    let link = FfbLink::new();
    let mark = base.mark();
    let Some(stage) = (backend.start)(&config, link.clone()) else {
        return r.check(
            &name("conditions-parked"),
            false,
            "the FFB writer did not start",
        );
    };
    let ticker = SpeedTicker::spawn(stage);
    // Ramp (1 s) and blend (0.5 s) in ticks, then one update period; slower under emulation.
    let full = |p: &[(u8, EffectType, ConditionParams)]| {
        condition(p, EffectType::Spring).is_some_and(|s| near(s.positive_saturation, 4545))
            && condition(p, EffectType::Damper).is_some_and(|d| near(d.positive_saturation, 4545))
    };
    super::wait_until(Duration::from_secs(6), || {
        full(&base.model().conditions_at(Instant::now()))
    });
    let model = base.model();
    let parked = model.conditions_at(Instant::now());
    let spring = condition(&parked, EffectType::Spring);
    let damper = condition(&parked, EffectType::Damper);
    r.check(
        &name("conditions-parked"),
        spring.is_some_and(|s| {
            near(s.positive_coefficient, 10_000)
                && near(s.negative_coefficient, 10_000)
                && near(s.positive_saturation, 4545)
                && s.cp_offset == 0
        }) && damper.is_some_and(|d| {
            near(d.positive_coefficient, 999) && near(d.positive_saturation, 4545)
        }),
        format!("conditions playing while parked: {parked:?}"),
    );
    // 80 % of 0xFFFF on the base's 0 ..= 255 scale.
    let want_gain = (52428u32 * u32::from(GAIN_MAX) / 65535) as u8;
    r.check(
        &name("device-gain"),
        model.device_gain == want_gain,
        format!("device gain {} (want {want_gain})", model.device_gain),
    );

    let t_drive = Instant::now();
    let drive_mark = base.mark();
    ticker.set_speed(20.0);
    std::thread::sleep(Duration::from_millis(1500));
    let driving = base.model().conditions_at(Instant::now());
    let stops = base
        .events_since(drive_mark)
        .iter()
        .filter(|e| {
            matches!(
                e.report,
                PidReport::EffectOperation {
                    operation: super::pid_model::Operation::Stop,
                    ..
                }
            )
        })
        .count();
    r.check(
        &name("conditions-driving"),
        driving.is_empty() && stops >= 2,
        format!(
            "{:?} after driving off: conditions playing {driving:?}, {stops} Effect Operation \
             Stop reports",
            t_drive.elapsed()
        ),
    );

    drop(ticker.finish());
    std::thread::sleep(Duration::from_millis(500));
    let events = base.events_since(mark);
    let gains: Vec<u8> = events
        .iter()
        .filter_map(|e| match e.report {
            PidReport::DeviceGain(g) => Some(g),
            _ => None,
        })
        .collect();
    r.check(
        &name("device-gain-restored"),
        gains.last() == Some(&GAIN_MAX) && base.model().device_gain == GAIN_MAX,
        format!("Device Gain reports {gains:?}"),
    );
}

/// `autocentre_percent = 30` on a base without an autocentre of its own (hid-pidff reports no
/// FF_AUTOCENTER for it): rigd runs it as a spring while driving, 30 % of the full
/// coefficient and 30 % of the torque cap (the whole 2.2 N m here), with the centring spring
/// off; on exit the spring stops with the force.
pub fn test_pid_autocentre(r: &mut Results, base: &PidBase, backend: &Backend) {
    let name = format!("pid-{}-autocentre", backend.label);
    let extra = format!(
        "{}\nautocentre_percent = 30\ncentring_spring_nm_per_deg = 0.0\n\
         centring_damper_percent = 0.0",
        backend.ffb_extra
    );
    let config = pid_config(&extra);
    let link = FfbLink::new();
    let Some(stage) = (backend.start)(&config, link.clone()) else {
        return r.check(&name, false, "the FFB writer did not start");
    };
    let ticker = SpeedTicker::spawn(stage);
    ticker.set_speed(20.0);
    // 0.3 of full scale on the base's 0 ..= 10000 scale, after the 1 s ramp.
    let at_level = |p: &[(u8, EffectType, ConditionParams)]| {
        condition(p, EffectType::Spring).is_some_and(|s| {
            near(s.positive_coefficient, 3000)
                && near(s.negative_coefficient, 3000)
                && near(s.positive_saturation, 3000)
                && s.cp_offset == 0
        })
    };
    super::wait_until(Duration::from_secs(6), || {
        at_level(&base.model().conditions_at(Instant::now()))
    });
    let driving = base.model().conditions_at(Instant::now());
    let ok_driving = at_level(&driving)
        && condition(&driving, EffectType::Damper).is_none()
        && link.spring_autocentre();
    let exit_mark = base.mark();
    drop(ticker.finish());
    std::thread::sleep(Duration::from_millis(500));
    let after = base.model().conditions_at(Instant::now());
    let later_conditions = base
        .events_since(exit_mark)
        .iter()
        .filter(|e| matches!(e.report, PidReport::SetCondition { .. }))
        .count();
    r.check(
        &name,
        ok_driving && after.is_empty(),
        format!(
            "driving at 20 m/s: {driving:?} (want a spring of 3000/3000, no damper); after exit: \
             {after:?}, {later_conditions} Set Condition reports after the stop"
        ),
    );
}
