//! `examples/rigd.toml` names every key of the configuration, so it cannot fall behind the
//! config types: the keys of the JSON schema (`rigd schema`, generated from the types) are
//! compared with the keys the example writes, nested tables and arrays of tables included.
//!
//! The example writes keys without a literal default, and the arrays of tables, commented
//! out (`# key = value`, `# [[telemetry]]`); those lines count as written: they are
//! uncommented and the result is parsed as TOML. Prose comments never start with a lowercase
//! name followed by ` = `, nor with a whole `[table]` header.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

fn example_text() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/rigd.toml");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every key path of the schema: `loop.rate_hz`, `telemetry[].format`,
/// `motion.platforms[].outputs[].baud` (an array of tables is `name[]`).
fn schema_keys() -> BTreeSet<String> {
    let schema: Value = serde_json::from_str(&rig_config::json_schema()).unwrap();
    let mut keys = BTreeSet::new();
    schema_walk(&schema, &schema, "", &mut keys);
    keys
}

fn schema_walk(root: &Value, node: &Value, path: &str, keys: &mut BTreeSet<String>) {
    let node = resolve(root, node);
    for alternatives in ["anyOf", "oneOf", "allOf"] {
        for alternative in node[alternatives].as_array().into_iter().flatten() {
            schema_walk(root, alternative, path, keys);
        }
    }
    for (key, value) in node["properties"].as_object().into_iter().flatten() {
        let key_path = join(path, key);
        keys.insert(key_path.clone());
        schema_walk(root, value, &key_path, keys);
    }
    if node["items"].is_object() {
        schema_walk(root, &node["items"], &format!("{path}[]"), keys);
    }
}

/// Follows `$ref`s (`#/$defs/Name`) to the definition.
fn resolve<'a>(root: &'a Value, mut node: &'a Value) -> &'a Value {
    while let Some(reference) = node["$ref"].as_str() {
        let name = reference.rsplit('/').next().unwrap();
        node = &root["$defs"][name];
    }
    node
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// `text` with its commented-out keys and table headers uncommented.
fn uncommented(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let shown = match line.strip_prefix("# ") {
            Some(rest) if is_header(rest) || is_key_line(rest) => rest,
            _ => line,
        };
        out.push_str(shown);
        out.push('\n');
    }
    out
}

fn is_header(text: &str) -> bool {
    let text = text.trim_end();
    text.starts_with('[') && text.ends_with(']')
}

fn is_key_line(text: &str) -> bool {
    let name_end = text
        .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
        .unwrap_or(text.len());
    name_end > 0
        && text.starts_with(|c: char| c.is_ascii_lowercase())
        && text[name_end..].starts_with(" = ")
}

/// Every key path the example writes, commented out or not.
fn example_keys(text: &str) -> BTreeSet<String> {
    let table: toml::Table = toml::from_str(&uncommented(text)).unwrap_or_else(|e| {
        panic!("examples/rigd.toml with its commented keys uncommented must be TOML:\n{e}")
    });
    let mut keys = BTreeSet::new();
    toml_walk(&table, "", &mut keys);
    keys
}

fn toml_walk(table: &toml::Table, path: &str, keys: &mut BTreeSet<String>) {
    for (key, value) in table {
        let key_path = join(path, key);
        keys.insert(key_path.clone());
        match value {
            toml::Value::Table(inner) => toml_walk(inner, &key_path, keys),
            toml::Value::Array(items) if items.iter().all(toml::Value::is_table) => {
                for item in items.iter().filter_map(toml::Value::as_table) {
                    toml_walk(item, &format!("{key_path}[]"), keys);
                }
            }
            _ => {}
        }
    }
}

#[test]
fn the_example_names_every_key_of_the_schema_and_no_other() {
    let schema = schema_keys();
    let example = example_keys(&example_text());
    assert!(
        schema.len() > 150,
        "the schema walk found {} keys",
        schema.len()
    );
    let missing: Vec<&String> = schema.difference(&example).collect();
    assert!(
        missing.is_empty(),
        "examples/rigd.toml lacks {} key(s) of the configuration; add each with its default \
         and what it does (commented out when it has no literal default):\n  {}",
        missing.len(),
        missing
            .iter()
            .map(|k| k.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
    let unknown: Vec<&String> = example.difference(&schema).collect();
    assert!(
        unknown.is_empty(),
        "examples/rigd.toml names key(s) the configuration does not have:\n  {}",
        unknown
            .iter()
            .map(|k| k.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

#[test]
fn a_key_dropped_from_the_example_is_reported_by_its_path() {
    let text = example_text();
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("rumble_gain") && !l.starts_with("# baud"))
        .map(|l| format!("{l}\n"))
        .collect();
    let missing: Vec<String> = schema_keys()
        .difference(&example_keys(&without))
        .cloned()
        .collect();
    assert_eq!(
        missing,
        vec![
            "devices.gamepad.rumble_gain".to_string(),
            "motion.platforms[].outputs[].baud".to_string(),
            "motion.serial_inputs[].baud".to_string(),
        ]
    );
}

#[test]
fn prose_comments_stay_comments() {
    assert!(is_key_line("rate_hz = 60"));
    assert!(!is_key_line("and gear deadband, 0 ..= 0.3."));
    assert!(!is_key_line("Gain on the yaw rate."));
    assert!(!is_key_line("0 = pure sleep"));
    assert!(is_header("[[motion.platforms.outputs]]"));
    assert!(!is_header(
        "[[motion.serial_inputs]] each (none by default)."
    ));
}
