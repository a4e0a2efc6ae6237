//! The envelope file: an [`Envelope`] written as TOML (`rigd envelope` writes it, lap
//! simulation and the robot read it), and the checks that refuse a file that is malformed or
//! was made for another car or another setup of the car.
//!
//! Layout (units in every field name; docs/envelope.md describes each field):
//!
//! ```toml
//! [envelope]
//! car = "road"
//! car_digest = "0x1234abcd5678ef90"   # identity::digest_of(&car spec)
//! source = "measured"                 # or "estimated"
//! rigd_version = "0.1.0"
//! method = "..."
//! brake_exponent = 1.9
//! drive_exponent = 2.1
//! shift_time_s = 0.45
//! upshift_speeds_mps = [13.2, 22.8, 33.1, 44.0]
//!
//! [[point]]
//! speed_mps = 8.0
//! lateral_mps2 = 8.1
//! braking_mps2 = 11.5
//! drive_mps2 = 3.9
//! coast_mps2 = 0.14
//! ```
//!
//! Numbers are written with Rust's shortest round-trip formatting, so reading a written file
//! gives back the same bits. Loading checks, in order: TOML and fields (unknown fields
//! refused), values finite and in range, points at strictly ascending speeds (at least two),
//! then that the file was made for the car being used (its name and the digest of its data).

use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

use super::{Envelope, EnvelopePoint, EnvelopeSource, Provenance};
use crate::data::{invalid, parse_toml, DataError};
use crate::identity::digest_of;
use crate::spec::CarSpec;

/// Why an envelope file cannot be used. Every message says what is wrong and the fix.
#[derive(Debug, thiserror::Error)]
pub enum EnvelopeFileError {
    /// The file could not be read.
    #[error("cannot read the envelope file {path}: {cause} (fix: give the path of a file `rigd envelope --car CAR --out FILE` wrote)")]
    Read {
        /// The path given.
        path: String,
        /// What the file system said, in plain words.
        cause: String,
    },
    /// The file could not be written.
    #[error("cannot write the envelope file {path}: {cause} (fix: a writable path for --out)")]
    Write {
        /// The path given.
        path: String,
        /// What the file system said, in plain words.
        cause: String,
    },
    /// Not TOML, a missing or unknown field, a wrong type or a value out of range.
    #[error("envelope file {0} (fix: use the file as `rigd envelope` wrote it, or re-run `rigd envelope --car CAR --out FILE`)")]
    Malformed(DataError),
    /// Made for a car of another name.
    #[error("envelope file {origin} was made for car `{made_for}`, not `{car}` (fix: re-run `rigd envelope --car {car}`, or give the envelope file of car `{car}`)")]
    OtherCar {
        /// Where the file came from.
        origin: String,
        /// The car named in the file.
        made_for: String,
        /// The car it is being used with.
        car: String,
    },
    /// Made for the same car name with other data (a changed setup or another version's car).
    #[error("envelope file {origin} was made for another setup of car `{car}` (its digest {made_for:#018x} is not this car's {digest:#018x}: the car data changed since) (fix: re-run `rigd envelope --car {car}` to measure this setup)")]
    OtherSetup {
        /// Where the file came from.
        origin: String,
        /// The car's name.
        car: String,
        /// The digest in the file.
        made_for: u64,
        /// The digest of the car being used.
        digest: u64,
    },
}

/// The `[envelope]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HeaderDoc {
    car: String,
    car_digest: String,
    source: String,
    rigd_version: String,
    method: String,
    brake_exponent: f64,
    drive_exponent: f64,
    shift_time_s: f64,
    upshift_speeds_mps: Vec<f64>,
}

/// One `[[point]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PointDoc {
    speed_mps: f64,
    lateral_mps2: f64,
    braking_mps2: f64,
    drive_mps2: f64,
    coast_mps2: f64,
}

/// The whole document.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EnvelopeDoc {
    envelope: HeaderDoc,
    #[serde(default)]
    point: Vec<PointDoc>,
}

/// Largest acceleration any field may hold, m/s^2 (far beyond any car on tyres).
const MAX_ACCEL_MPS2: f64 = 200.0;
/// Highest speed a point may have, m/s.
const MAX_SPEED_MPS: f64 = 200.0;

/// The TOML text of `envelope` (a comment line, `[envelope]`, one `[[point]]` per speed).
pub fn to_toml(envelope: &Envelope) -> String {
    let quoted = |text: &str| toml::Value::String(text.to_string()).to_string();
    let source = match envelope.provenance.source {
        EnvelopeSource::Measured => "measured",
        EnvelopeSource::Estimated => "estimated",
    };
    let upshifts: Vec<String> = envelope
        .upshift_speeds_mps
        .iter()
        .map(|speed| format!("{speed:?}"))
        .collect();
    let mut text = String::new();
    // Writing into a String cannot fail.
    let _ = write!(
        text,
        "# g-g-v envelope of car `{car}` (docs/envelope.md): limits per speed on flat ground.\n\
         [envelope]\n\
         car = {car_quoted}\n\
         car_digest = \"{digest:#018x}\"\n\
         source = \"{source}\"\n\
         rigd_version = {version}\n\
         method = {method}\n\
         brake_exponent = {brake:?}\n\
         drive_exponent = {drive:?}\n\
         shift_time_s = {shift:?}\n\
         upshift_speeds_mps = [{upshifts}]\n",
        car = envelope.car_name,
        car_quoted = quoted(&envelope.car_name),
        digest = envelope.car_digest,
        version = quoted(&envelope.provenance.rigd_version),
        method = quoted(&envelope.provenance.method),
        brake = envelope.brake_exponent,
        drive = envelope.drive_exponent,
        shift = envelope.shift_time_s,
        upshifts = upshifts.join(", "),
    );
    for point in &envelope.points {
        let _ = write!(
            text,
            "\n[[point]]\n\
             speed_mps = {:?}\n\
             lateral_mps2 = {:?}\n\
             braking_mps2 = {:?}\n\
             drive_mps2 = {:?}\n\
             coast_mps2 = {:?}\n",
            point.speed_mps,
            point.lateral_mps2,
            point.braking_mps2,
            point.drive_mps2,
            point.coast_mps2,
        );
    }
    text
}

/// Reads an envelope from TOML `text` (`origin` names it in messages): syntax, fields and
/// ranges, ascending points. Does not check which car it is for ([`check_car`] does).
pub fn parse(text: &str, origin: &str) -> Result<Envelope, EnvelopeFileError> {
    let doc: EnvelopeDoc = parse_toml(text, origin).map_err(EnvelopeFileError::Malformed)?;
    let bad = |field: &str, message: String| {
        EnvelopeFileError::Malformed(invalid(text, origin, field, message))
    };
    let header = doc.envelope;
    let source = match header.source.as_str() {
        "measured" => EnvelopeSource::Measured,
        "estimated" => EnvelopeSource::Estimated,
        other => {
            return Err(bad(
                "envelope.source",
                format!("`{other}` is not a source; expected \"measured\" or \"estimated\""),
            ))
        }
    };
    let car_digest = header
        .car_digest
        .strip_prefix("0x")
        .and_then(|hex| u64::from_str_radix(hex, 16).ok())
        .ok_or_else(|| {
            bad(
                "envelope.car_digest",
                format!(
                    "`{}` is not a digest; expected \"0x\" and up to 16 hex digits",
                    header.car_digest
                ),
            )
        })?;
    let in_range = |field: &str, value: f64, low: f64, high: f64| {
        if value.is_finite() && (low..=high).contains(&value) {
            Ok(value)
        } else {
            Err(bad(
                field,
                format!("{value} is out of range; expected a number from {low} to {high}"),
            ))
        }
    };
    let brake_exponent = in_range("envelope.brake_exponent", header.brake_exponent, 0.5, 10.0)?;
    let drive_exponent = in_range("envelope.drive_exponent", header.drive_exponent, 0.5, 10.0)?;
    let shift_time_s = in_range("envelope.shift_time_s", header.shift_time_s, 0.0, 10.0)?;
    for (index, speed) in header.upshift_speeds_mps.iter().enumerate() {
        in_range(
            &format!("envelope.upshift_speeds_mps[{index}]"),
            *speed,
            0.0,
            MAX_SPEED_MPS,
        )?;
    }
    if doc.point.len() < 2 {
        return Err(bad(
            "point",
            format!(
                "{} [[point]] table(s); an envelope needs at least two speeds",
                doc.point.len()
            ),
        ));
    }
    let mut points = Vec::with_capacity(doc.point.len());
    for (index, point) in doc.point.iter().enumerate() {
        let field = |name: &str| format!("point[{index}].{name}");
        let speed_mps = in_range(&field("speed_mps"), point.speed_mps, 0.0, MAX_SPEED_MPS)?;
        if let Some(previous) = points.last().map(|p: &EnvelopePoint| p.speed_mps) {
            if speed_mps <= previous {
                return Err(bad(
                    &field("speed_mps"),
                    format!(
                        "{speed_mps} follows {previous}; points must be at strictly ascending speeds"
                    ),
                ));
            }
        }
        let accel =
            |name: &str, value: f64, low: f64| in_range(&field(name), value, low, MAX_ACCEL_MPS2);
        points.push(EnvelopePoint {
            speed_mps,
            lateral_mps2: accel("lateral_mps2", point.lateral_mps2, 0.0)?,
            braking_mps2: accel("braking_mps2", point.braking_mps2, 0.0)?,
            drive_mps2: accel("drive_mps2", point.drive_mps2, -MAX_ACCEL_MPS2)?,
            coast_mps2: accel("coast_mps2", point.coast_mps2, -MAX_ACCEL_MPS2)?,
        });
    }
    Ok(Envelope {
        car_name: header.car,
        car_digest,
        provenance: Provenance {
            source,
            rigd_version: header.rigd_version,
            method: header.method,
        },
        points,
        brake_exponent,
        drive_exponent,
        shift_time_s,
        upshift_speeds_mps: header.upshift_speeds_mps,
    })
}

/// Refuses `envelope` (read from `origin`) unless it was made for `car`: the same name and the
/// same [`digest_of`] its data.
pub fn check_car(
    envelope: &Envelope,
    car: &CarSpec,
    origin: &str,
) -> Result<(), EnvelopeFileError> {
    if envelope.car_name != car.name {
        return Err(EnvelopeFileError::OtherCar {
            origin: origin.to_string(),
            made_for: envelope.car_name.clone(),
            car: car.name.clone(),
        });
    }
    let digest = digest_of(car);
    if envelope.car_digest != digest {
        return Err(EnvelopeFileError::OtherSetup {
            origin: origin.to_string(),
            car: car.name.clone(),
            made_for: envelope.car_digest,
            digest,
        });
    }
    Ok(())
}

/// Reads the envelope file at `path` and checks it was made for `car`.
pub fn load(path: &Path, car: &CarSpec) -> Result<Envelope, EnvelopeFileError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|cause| EnvelopeFileError::Read {
        path: origin.clone(),
        cause: rig_toml::plain::io_words(&cause),
    })?;
    let envelope = parse(&text, &origin)?;
    check_car(&envelope, car, &origin)?;
    Ok(envelope)
}

/// Envelope files shipped with rigd (`physics/data/envelopes/`, measured by
/// `rigd envelope --car NAME`), by car name.
const BUILTIN: &[(&str, &str)] = &[("road", include_str!("../../data/envelopes/road.toml"))];

/// The shipped measured envelope of the built-in car `car` is named after, checked against
/// `car` as it is now: `None` when none is shipped for that name, an error when it was
/// measured for other car data (the car changed since; re-measure with `rigd envelope`).
pub fn builtin(car: &CarSpec) -> Option<Result<Envelope, EnvelopeFileError>> {
    let (name, text) = BUILTIN.iter().find(|(name, _)| *name == car.name)?;
    let origin = format!("builtin:envelopes/{name}.toml");
    Some(parse(text, &origin).and_then(|envelope| {
        check_car(&envelope, car, &origin)?;
        Ok(envelope)
    }))
}

/// Writes `envelope` to `path` as [`to_toml`].
pub fn save(path: &Path, envelope: &Envelope) -> Result<(), EnvelopeFileError> {
    std::fs::write(path, to_toml(envelope)).map_err(|cause| EnvelopeFileError::Write {
        path: path.display().to_string(),
        cause: rig_toml::plain::io_words(&cause),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin;
    use proptest::prelude::*;

    fn sample(car: &CarSpec) -> Envelope {
        let point = |speed_mps: f64, lateral_mps2: f64| EnvelopePoint {
            speed_mps,
            lateral_mps2,
            braking_mps2: 11.7,
            drive_mps2: 2.0 - speed_mps / 30.0,
            coast_mps2: 0.2 + 0.0004 * speed_mps * speed_mps,
        };
        Envelope {
            car_name: car.name.clone(),
            car_digest: digest_of(car),
            provenance: Provenance {
                source: EnvelopeSource::Measured,
                rigd_version: "0.1.0".into(),
                method: "steady circles \"by hand\"\nand a second line".into(),
            },
            points: vec![point(8.0, 8.1), point(30.0, 7.9), point(50.0, 7.6)],
            brake_exponent: 1.9,
            drive_exponent: 2.2,
            shift_time_s: 0.45,
            upshift_speeds_mps: vec![13.25, 22.8, 1.0 / 3.0],
        }
    }

    #[test]
    fn a_written_envelope_reads_back_bit_for_bit() {
        let road = builtin::car("road").unwrap();
        let envelope = sample(&road);
        let read = parse(&to_toml(&envelope), "test").unwrap();
        assert_eq!(read, envelope);
        check_car(&read, &road, "test").unwrap();
    }

    #[test]
    fn a_file_for_another_car_or_setup_is_refused_with_the_fix() {
        let road = builtin::car("road").unwrap();
        let race = builtin::car("race").unwrap();
        let envelope = sample(&road);
        let other = check_car(&envelope, &race, "road.toml")
            .unwrap_err()
            .to_string();
        assert!(other.contains("made for car `road`, not `race`"), "{other}");
        assert!(
            other.contains("re-run `rigd envelope --car race`"),
            "{other}"
        );
        let mut heavier = road.clone();
        heavier.chassis.mass_kg += 10.0;
        let setup = check_car(&envelope, &heavier, "road.toml")
            .unwrap_err()
            .to_string();
        assert!(setup.contains("another setup of car `road`"), "{setup}");
        assert!(
            setup.contains("re-run `rigd envelope --car road`"),
            "{setup}"
        );
    }

    #[test]
    fn malformed_files_name_the_place_and_the_fix() {
        let road = builtin::car("road").unwrap();
        let text = to_toml(&sample(&road));
        let cases = [
            (
                text.replace("speed_mps = 30.0", "speed_mps = 5.0"),
                "point[1].speed_mps",
                "ascending",
            ),
            (
                text.replace("lateral_mps2 = 8.1", "lateral_mps2 = nan"),
                "point[0].lateral_mps2",
                "out of range",
            ),
            (
                text.replace("coast_mps2", "coasting_mps2"),
                "coasting_mps2",
                "unknown field",
            ),
            (
                text.replace("source = \"measured\"", "source = \"guessed\""),
                "envelope.source",
                "not a source",
            ),
            (
                text.replace("car_digest = \"0x", "car_digest = \"1x"),
                "envelope.car_digest",
                "not a digest",
            ),
            (
                text.split("\n[[point]]").next().unwrap().to_string(),
                "point",
                "at least two",
            ),
            ("[envelope\n".to_string(), "", "re-run `rigd envelope"),
        ];
        for (bad, field, words) in cases {
            let message = parse(&bad, "env.toml").unwrap_err().to_string();
            assert!(
                message.contains(field) && message.contains(words),
                "{message}"
            );
            assert!(message.starts_with("envelope file env.toml:"), "{message}");
            assert!(message.contains("(fix: "), "{message}");
        }
    }

    #[test]
    fn loading_a_missing_file_says_so() {
        let road = builtin::car("road").unwrap();
        let message = load(Path::new("/nonexistent/road.toml"), &road)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("cannot read the envelope file /nonexistent/road.toml"),
            "{message}"
        );
    }

    proptest! {
        #[test]
        fn the_parser_never_panics_on_any_text(text in "\\PC{0,400}") {
            let _ = parse(&text, "fuzz");
        }

        #[test]
        fn the_parser_never_panics_on_edited_envelopes(
            cut in 0usize..2000,
            insert in "[\\[\\]=\"a-z0-9_. \\n-]{0,12}",
        ) {
            let road = builtin::car("road").unwrap();
            let text = to_toml(&sample(&road));
            let at = text.char_indices().map(|(i, _)| i).nth(cut % text.len()).unwrap_or(0);
            let edited = format!("{}{}{}", &text[..at], insert, &text[at..]);
            if let Ok(envelope) = parse(&edited, "fuzz") {
                prop_assert!(envelope.points.len() >= 2);
                prop_assert!(envelope.points.windows(2).all(|w| w[0].speed_mps < w[1].speed_mps));
            }
        }
    }
}
