//! Writing a calibration into a config file's `[devices]` section without losing anything
//! else: the file is edited as a document (toml_edit), so its comments, its order and every
//! key calibration does not own stay as they were.
//!
//! What is written, with the existing keys of rig-config's `[devices]` (no new ones: raw
//! range, `invert` and `inner_deadzone` express everything calibration finds):
//! - each physical device used gets a `[[devices.device]]`: an existing entry that already
//!   matches it is kept as it is (its `id` is used), otherwise one is added with an id after
//!   its role (`wheel`, `pedals`, `handbrake`, `shifter`) and `vid_pid` (plus `serial` when
//!   the device has one);
//! - each calibrated axis updates the first `[[devices.axis]]` with its function (`device`,
//!   `code`, `raw_min`, `raw_max`, `invert`, `inner_deadzone`; a curve, gamma or outer
//!   deadzone there stays) or is added;
//! - gear buttons the same way in `[[devices.button]]`;
//! - the rotation goes to `[devices.steering] range_deg` (and to `[devices.ffb]
//!   rotation_range_deg` when the file sets it, as the two must be equal; a `car_lock_deg`
//!   above the new range is lowered to it).
//!
//! A value that is replaced keeps the comment written after it on its line.

use rig_config::devices::{AxisFunction, DeviceMatch, DeviceRole};
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, Value};

use crate::devices::{DeviceInfo, SysfsInput};
use crate::input::calibration::{button_function_name, function_name, Calibration};

/// Why the file could not be edited.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// Not TOML at all.
    #[error("it is not valid TOML ({0}): fix it (`rigd check-config FILE` shows where) and calibrate again")]
    Parse(String),
    /// `devices` (or a part of it) is not a table.
    #[error("`{0}` is not a table: write it as a [{0}] section (or [[{0}]] entries) and calibrate again")]
    Shape(String),
}

/// The edited document and what the user should know about it.
#[derive(Debug, Clone)]
pub struct Edited {
    /// The whole new file.
    pub text: String,
    /// Notes (a lowered car lock, a device that was already configured ...).
    pub notes: Vec<String>,
}

/// Writes `calibration` into the TOML document `text`; `device` gives what sysfs said about
/// each of the calibration's device numbers.
pub fn apply(
    text: &str,
    calibration: &Calibration,
    device: &dyn Fn(usize) -> SysfsInput,
) -> Result<Edited, EditError> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| EditError::Parse(e.message().to_string()))?;
    let mut notes = Vec::new();
    let devices = sub_table(doc.as_table_mut(), "devices", "devices")?;

    let mut ids: Vec<(usize, String)> = Vec::new();
    let mut id_of =
        |devices: &mut Table, number: usize, role: DeviceRole, notes: &mut Vec<String>| {
            if let Some((_, id)) = ids.iter().find(|(n, _)| *n == number) {
                return Ok::<String, EditError>(id.clone());
            }
            let id = device_entry(devices, &device(number), role, notes)?;
            ids.push((number, id.clone()));
            Ok(id)
        };

    for axis in &calibration.axes {
        let role = match axis.function {
            AxisFunction::Steering => DeviceRole::WheelBase,
            AxisFunction::Handbrake => DeviceRole::Handbrake,
            _ => DeviceRole::Pedals,
        };
        let id = id_of(devices, axis.key.device, role, &mut notes)?;
        let function = function_name(axis.function);
        let entry = entry_for(devices, "axis", function)?;
        set(entry, "device", Value::from(id.as_str()));
        set(
            entry,
            "code",
            Value::from(axis_code_name(axis.key.code).as_str()),
        );
        set(entry, "raw_min", Value::from(i64::from(axis.raw_min)));
        set(entry, "raw_max", Value::from(i64::from(axis.raw_max)));
        set(entry, "invert", Value::from(axis.invert));
        set(entry, "inner_deadzone", Value::from(axis.inner_deadzone));
    }
    for button in &calibration.buttons {
        let id = id_of(devices, button.device, DeviceRole::Shifter, &mut notes)?;
        let entry = entry_for(devices, "button", button_function_name(button.function))?;
        set(entry, "device", Value::from(id.as_str()));
        set(
            entry,
            "code",
            Value::from(key_code_name(button.code).as_str()),
        );
    }
    if let Some(range) = calibration.range_deg {
        write_range(devices, range, &mut notes)?;
    }
    Ok(Edited {
        text: doc.to_string(),
        notes,
    })
}

/// The table `key` of `parent`, created (header-less until it holds keys) when missing.
fn sub_table<'a>(parent: &'a mut Table, key: &str, path: &str) -> Result<&'a mut Table, EditError> {
    let item = parent.entry(key).or_insert_with(|| {
        let mut table = Table::new();
        table.set_implicit(true);
        Item::Table(table)
    });
    item.as_table_mut()
        .ok_or_else(|| EditError::Shape(path.to_string()))
}

fn array<'a>(devices: &'a mut Table, key: &str) -> Result<&'a mut ArrayOfTables, EditError> {
    devices
        .entry(key)
        .or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()))
        .as_array_of_tables_mut()
        .ok_or_else(|| EditError::Shape(format!("devices.{key}")))
}

/// The first `[[devices.<kind>]]` whose `function` is `function`, appended when there is none.
fn entry_for<'a>(
    devices: &'a mut Table,
    kind: &str,
    function: &str,
) -> Result<&'a mut Table, EditError> {
    let entries = array(devices, kind)?;
    let found = entries
        .iter()
        .position(|t| t.get("function").and_then(Item::as_str) == Some(function));
    let index = match found {
        Some(i) => i,
        None => {
            let mut table = Table::new();
            table.insert("function", toml_edit::value(function));
            entries.push(table);
            entries.len() - 1
        }
    };
    Ok(entries.get_mut(index).expect("just found or added"))
}

/// Sets `key` to `value`, keeping the comment after the old value.
fn set(table: &mut Table, key: &str, mut value: Value) {
    if let Some(old) = table.get(key).and_then(Item::as_value) {
        *value.decor_mut() = old.decor().clone();
    }
    table.insert(key, Item::Value(value));
}

fn text_of(table: &Table, key: &str) -> Option<String> {
    table.get(key).and_then(Item::as_str).map(str::to_string)
}

/// The id of the `[[devices.device]]` that matches `sys`, added when none does.
fn device_entry(
    devices: &mut Table,
    sys: &SysfsInput,
    role: DeviceRole,
    notes: &mut Vec<String>,
) -> Result<String, EditError> {
    let entries = array(devices, "device")?;
    let info = DeviceInfo {
        sys: sys.clone(),
        caps: Err(String::new()),
    };
    for table in entries.iter() {
        let existing = DeviceMatch {
            id: text_of(table, "id").unwrap_or_default(),
            vid_pid: text_of(table, "vid_pid"),
            serial: text_of(table, "serial"),
            by_id: text_of(table, "by_id"),
            by_path: text_of(table, "by_path"),
            name_contains: text_of(table, "name_contains"),
            ..DeviceMatch::default()
        };
        if info.matches(&existing) {
            notes.push(format!(
                "\"{}\" is device \"{}\" already: its [[devices.device]] entry stays as it is",
                sys.name, existing.id
            ));
            return Ok(existing.id);
        }
    }
    let base = role_name(role).trim_end_matches("_base");
    let taken: Vec<String> = entries.iter().filter_map(|t| text_of(t, "id")).collect();
    let id = (1..)
        .map(|n| {
            if n == 1 {
                base.to_string()
            } else {
                format!("{base}-{n}")
            }
        })
        .find(|id| !taken.contains(id))
        .expect("some id is free");
    let mut table = Table::new();
    table.decor_mut().set_prefix(format!(
        "\n# {} (found by `rigd calibrate`)\n",
        sys.name.replace('\n', " ")
    ));
    table.insert("id", toml_edit::value(id.as_str()));
    table.insert("role", toml_edit::value(role_name(role)));
    table.insert(
        "vid_pid",
        toml_edit::value(format!("{:04x}:{:04x}", sys.vendor, sys.product)),
    );
    if !sys.serial.is_empty() {
        table.insert("serial", toml_edit::value(sys.serial.as_str()));
    }
    entries.push(table);
    Ok(id)
}

fn role_name(role: DeviceRole) -> &'static str {
    match role {
        DeviceRole::WheelBase => "wheel_base",
        DeviceRole::Pedals => "pedals",
        DeviceRole::Shifter => "shifter",
        DeviceRole::Handbrake => "handbrake",
        DeviceRole::ButtonBox => "button_box",
    }
}

fn write_range(devices: &mut Table, range: f64, notes: &mut Vec<String>) -> Result<(), EditError> {
    let number = |v: f64| {
        if v.fract() == 0.0 {
            Value::from(v as i64)
        } else {
            Value::from(v)
        }
    };
    let steering = sub_table(devices, "steering", "devices.steering")?;
    steering.set_implicit(false);
    set(steering, "range_deg", number(range));
    let lock = steering
        .get("car_lock_deg")
        .and_then(|i| i.as_float().or_else(|| i.as_integer().map(|v| v as f64)));
    if let Some(lock) = lock.filter(|l| *l > range) {
        set(steering, "car_lock_deg", number(range));
        notes.push(format!(
            "car_lock_deg was {lock}, more than the wheel turns ({range}): lowered to {range}"
        ));
    }
    if let Some(ffb) = devices.get_mut("ffb").and_then(Item::as_table_mut) {
        if ffb.contains_key("rotation_range_deg") {
            set(ffb, "rotation_range_deg", Value::from(range.round() as i64));
            notes.push(format!(
                "[devices.ffb] rotation_range_deg set to {range} as well (it must equal steering.range_deg)"
            ));
        }
    }
    Ok(())
}

/// The kernel name of an axis code (`ABS_X`), or its number when it has none.
pub fn axis_code_name(code: u16) -> String {
    let name = format!("{:?}", evdev::AbsoluteAxisCode(code));
    if name.starts_with("ABS_") {
        name
    } else {
        format!("0x{code:02x}")
    }
}

/// The kernel name of a key code (`BTN_TRIGGER`), or its number when it has none.
pub fn key_code_name(code: u16) -> String {
    let name = format!("{:?}", evdev::KeyCode(code));
    if name.starts_with("BTN_") || name.starts_with("KEY_") {
        name
    } else {
        format!("0x{code:03x}")
    }
}

/// The lines that differ between `old` and `new`, as a unified-style listing (`-` removed,
/// `+` added, two lines of context around each change, `...` between changes); empty when
/// nothing changed.
pub fn diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // Longest common subsequence table, from the end.
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut lines: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            lines.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            lines.push(('+', b[j]));
            j += 1;
        } else {
            lines.push(('-', a[i]));
            i += 1;
        }
    }
    const CONTEXT: usize = 2;
    let changed: Vec<usize> = (0..lines.len()).filter(|k| lines[*k].0 != ' ').collect();
    let near = |k: usize| changed.iter().any(|c| c.abs_diff(k) <= CONTEXT);
    let mut out = String::new();
    let mut gap = false;
    for (k, (mark, line)) in lines.iter().enumerate() {
        if near(k) {
            if gap && !out.is_empty() {
                out.push_str("...\n");
            }
            gap = false;
            out.push_str(&format!("{mark} {line}\n"));
        } else {
            gap = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::calibration::{AxisKey, CalibratedAxis, CalibratedButton};
    use rig_config::devices::ButtonFunction;

    fn g29() -> SysfsInput {
        SysfsInput {
            name: "Logitech G29 Driving Force Racing Wheel".into(),
            vendor: 0x046d,
            product: 0xc24f,
            serial: "RIGTEST0001".into(),
            ..SysfsInput::default()
        }
    }

    fn pedals() -> SysfsInput {
        SysfsInput {
            name: "Heusinkveld Sprint".into(),
            vendor: 0x30b7,
            product: 0x1001,
            ..SysfsInput::default()
        }
    }

    fn axis(function: AxisFunction, device: usize, code: u16, invert: bool) -> CalibratedAxis {
        CalibratedAxis {
            function,
            key: AxisKey { device, code },
            raw_min: 12,
            raw_max: 65000,
            invert,
            inner_deadzone: 0.002,
            rest_noise: 80,
        }
    }

    fn calibration() -> Calibration {
        Calibration {
            axes: vec![
                axis(AxisFunction::Steering, 0, 0x00, false),
                axis(AxisFunction::Throttle, 1, 0x01, false),
                axis(AxisFunction::Brake, 1, 0x02, true),
            ],
            buttons: vec![CalibratedButton {
                function: ButtonFunction::GearUp,
                device: 0,
                code: 0x120,
            }],
            range_deg: Some(540.0),
        }
    }

    fn device(n: usize) -> SysfsInput {
        if n == 0 {
            g29()
        } else {
            pedals()
        }
    }

    const EXISTING: &str = r#"# My rig. Keep this comment.
[sim]
car = "road"   # the car I drive

[devices]
disconnect_brake = 0.2

# The wheel, pinned by its serial.
[[devices.device]]
id = "g29"
vid_pid = "046d:c24f"
serial = "RIGTEST0001"

[devices.steering]
range_deg = 900   # lg4ff's range at bind
car_lock_deg = 720

[[devices.axis]]
function = "brake"
device = "g29"
code = "ABS_RZ"
raw_min = 0       # old calibration
curve = [[0.0, 0.0], [0.5, 0.25], [1.0, 1.0]]

[[devices.button]]
function = "ffb_estop"
device = "g29"
code = "BTN_BASE6"

[devices.ffb]
rotation_range_deg = 900
"#;

    #[test]
    fn an_empty_file_gets_devices_axes_buttons_and_a_range_that_check_config_accepts() {
        let edited = apply("", &calibration(), &device).unwrap();
        let config = rig_config::parse(&edited.text, "new.toml").expect("a valid config");
        let d = &config.devices;
        assert_eq!(
            d.device.iter().map(|x| x.id.as_str()).collect::<Vec<_>>(),
            ["wheel", "pedals"]
        );
        assert_eq!(d.device[0].vid_pid(), Some((0x046d, 0xc24f)));
        assert_eq!(d.device[0].serial.as_deref(), Some("RIGTEST0001"));
        assert_eq!(d.device[1].serial, None, "the pedals have no serial");
        assert_eq!(d.steering.range_deg, 540.0);
        let brake = d
            .axis
            .iter()
            .find(|a| a.function == AxisFunction::Brake)
            .unwrap();
        assert_eq!(
            (
                brake.device.as_str(),
                brake.code.as_str(),
                brake.raw_min,
                brake.raw_max
            ),
            ("pedals", "ABS_Z", Some(12), Some(65000))
        );
        assert!(brake.invert && brake.inner_deadzone == 0.002);
        assert_eq!(d.button[0].code, "BTN_TRIGGER");
        assert!(edited
            .text
            .contains("# Logitech G29 Driving Force Racing Wheel (found by `rigd calibrate`)"));
    }

    #[test]
    fn comments_and_unrelated_keys_survive_and_existing_entries_are_updated_in_place() {
        let edited = apply(EXISTING, &calibration(), &device).unwrap();
        let text = &edited.text;
        for kept in [
            "# My rig. Keep this comment.",
            "car = \"road\"   # the car I drive",
            "disconnect_brake = 0.2",
            "# The wheel, pinned by its serial.",
            "range_deg = 540   # lg4ff's range at bind",
            "raw_min = 12       # old calibration",
            "curve = [[0.0, 0.0], [0.5, 0.25], [1.0, 1.0]]",
            "function = \"ffb_estop\"",
        ] {
            assert!(text.contains(kept), "lost {kept:?}:\n{text}");
        }
        let config = rig_config::parse(text, "rig.toml").expect("still valid");
        let d = &config.devices;
        // The G29 matched the existing entry: no second wheel; the pedals were added.
        assert_eq!(
            d.device.iter().map(|x| x.id.as_str()).collect::<Vec<_>>(),
            ["g29", "pedals"]
        );
        assert_eq!(
            d.axis
                .iter()
                .filter(|a| a.function == AxisFunction::Brake)
                .count(),
            1
        );
        let brake = d
            .axis
            .iter()
            .find(|a| a.function == AxisFunction::Brake)
            .unwrap();
        assert_eq!((brake.device.as_str(), brake.curve.len()), ("pedals", 3));
        assert_eq!(d.steering.range_deg, 540.0);
        assert_eq!(d.steering.car_lock_deg, Some(540.0), "lowered to the range");
        assert_eq!(
            d.ffb.rotation_range_deg,
            Some(540),
            "kept equal to range_deg"
        );
        assert_eq!(edited.notes.len(), 3, "{:?}", edited.notes);
        // The brake's entry stayed where it was: before the buttons.
        assert!(text.find("function = \"brake\"").unwrap() < text.find("ffb_estop").unwrap());
        let changes = diff(EXISTING, text);
        assert!(
            changes.contains("- range_deg = 900   # lg4ff's range at bind"),
            "{changes}"
        );
        assert!(
            changes.contains("+ range_deg = 540   # lg4ff's range at bind"),
            "{changes}"
        );
        assert!(
            !changes.contains("Keep this comment"),
            "unchanged lines far from a change are left out"
        );
        assert_eq!(diff(EXISTING, EXISTING), "");
    }

    #[test]
    fn the_written_file_passes_check_config() {
        let dir = std::env::temp_dir().join(format!("rigd-calibrate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rig.toml");
        std::fs::write(
            &path,
            apply(EXISTING, &calibration(), &device).unwrap().text,
        )
        .unwrap();
        crate::cli::check::check_config(&path).expect("check-config accepts it");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_that_is_not_toml_or_has_devices_as_a_value_is_refused_with_the_fix() {
        let e = apply("[devices\n", &calibration(), &device)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not valid TOML") && e.contains("check-config"),
            "{e}"
        );
        let e = apply("devices = 3\n", &calibration(), &device)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`devices` is not a table"), "{e}");
    }

    #[test]
    fn code_names_are_kernel_names() {
        assert_eq!(axis_code_name(0x00), "ABS_X");
        assert_eq!(axis_code_name(0x05), "ABS_RZ");
        assert_eq!(key_code_name(0x120), "BTN_TRIGGER");
        assert_eq!(key_code_name(0x2c0), "BTN_TRIGGER_HAPPY1");
    }
}
