//! The cars embedded in the binary (`physics/data/cars/*.toml`), looked up by name.

use super::CarSpec;
use crate::data::DataError;

/// Names and texts of the built-in cars.
const CARS: &[(&str, &str)] = &[
    ("road", include_str!("../../data/cars/road.toml")),
    ("race", include_str!("../../data/cars/race.toml")),
    ("rally", include_str!("../../data/cars/rally.toml")),
];

/// Names of the built-in cars.
pub fn car_names() -> Vec<&'static str> {
    CARS.iter().map(|(name, _)| *name).collect()
}

/// The TOML text of a built-in car.
pub fn car_text(name: &str) -> Option<&'static str> {
    CARS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Parses and validates a built-in car by name.
pub fn car(name: &str) -> Result<CarSpec, DataError> {
    let origin = format!("builtin:{name}");
    match car_text(name) {
        Some(text) => CarSpec::from_toml(text, &origin),
        None => Err(DataError {
            origin,
            line: 0,
            column: 0,
            field: "car".to_string(),
            message: format!(
                "no built-in car named '{name}'; built-in cars are {} (or give a path to a car TOML file)",
                car_names().join(", ")
            ),
        }),
    }
}
