//! The TOML document behind a [`Config`]: deserialising while collecting every problem.
//!
//! serde stops at the first error, so [`deserialize_collecting`] retries: after each error it
//! removes the offending entry (the deepest key, value or array element whose span holds the
//! error) from the parsed tree and deserialises again, until the rest is clean. Each removal
//! makes the tree smaller, so this ends; the removed entries fall back to their defaults,
//! which semantic validation then sees.
//!
//! serde's messages are said in plain words ([`rig_toml::plain`]: `expected u32` becomes "a
//! whole number from 0 to 4294967295"); the fix is chosen from serde's own wording.

use std::ops::Range;

use serde::Deserialize;
use toml::de::{DeTable, DeValue, ValueDeserializer};
use toml::Spanned;

use crate::problem::Problem;
use crate::Config;

/// Deserialises the parsed document `root` of `text` (with the parser's `syntax_errors`),
/// returning the config built from everything usable plus every problem.
pub(crate) fn deserialize_collecting(
    mut root: Spanned<DeTable<'_>>,
    syntax_errors: &[toml::de::Error],
    text: &str,
    origin: &str,
) -> (Config, Vec<Problem>) {
    let mut problems: Vec<Problem> = syntax_errors
        .iter()
        .map(|err| {
            let span = err.span().unwrap_or(0..0);
            let (line, column) = rig_toml::line_column(text, span.start);
            // The recovered tree usually still holds the key whose value broke.
            let field = find_deepest(root.get_ref(), &span, &mut Vec::new())
                .map(|steps| path_text(&steps))
                .unwrap_or_default();
            Problem {
                origin: origin.to_string(),
                line,
                column,
                field,
                message: format!("TOML syntax: {}", err.message().trim()),
                fix: "correct the TOML syntax here (strings in quotes, one `key = value` per line, tables as [name])".into(),
            }
        })
        .collect();

    let mut removed_fields: Vec<String> = Vec::new();
    loop {
        let whole = Spanned::new(root.span(), DeValue::Table(root.get_ref().clone()));
        let err = match Config::deserialize(ValueDeserializer::from(whole)) {
            Ok(config) => return (config, problems),
            Err(err) => err,
        };
        let span = err.span().unwrap_or(0..0);
        let message = err.message().trim().to_string();
        let Some(field) = remove_deepest(root.get_mut(), &span) else {
            // Nothing left to remove: report it and fall back to the defaults.
            problems.push(problem_from_error(
                text,
                origin,
                &span,
                String::new(),
                message,
            ));
            return (Config::default(), problems);
        };
        // A required key whose bad value was removed shows up again as "missing", and a value
        // the parser recovered from a syntax error again as the wrong type: once is enough.
        let repeated = missing_key(&message).is_some_and(|key| {
            removed_fields
                .iter()
                .any(|f| f.ends_with(&format!(".{key}")))
        }) || problems.iter().any(|p| p.field == field);
        if !repeated {
            problems.push(problem_from_error(
                text,
                origin,
                &span,
                field.clone(),
                message,
            ));
        }
        removed_fields.push(field);
    }
}

fn problem_from_error(
    text: &str,
    origin: &str,
    span: &Range<usize>,
    field: String,
    message: String,
) -> Problem {
    let (line, column) = rig_toml::line_column(text, span.start);
    let fix = fix_for(&message, &field);
    Problem {
        origin: origin.to_string(),
        line,
        column,
        field,
        message: rig_toml::plain::plain_words(&message),
        fix,
    }
}

/// How to repair what serde reported (its messages name the kind of mistake).
fn fix_for(message: &str, field: &str) -> String {
    let key = field.rsplit('.').next().unwrap_or(field);
    if message.starts_with("unknown field") {
        format!("remove `{key}` or correct its spelling to one of the expected keys")
    } else if let Some(missing) = missing_key(message) {
        format!("add `{missing} = ...` to this table")
    } else if message.starts_with("unknown variant") {
        "use one of the expected values listed".into()
    } else if message.starts_with("invalid type") {
        "write a value of the expected type (numbers and booleans without quotes, names in quotes)"
            .into()
    } else if message.starts_with("invalid value") || message.contains("out of range") {
        "use a value the field accepts (see examples/rigd.toml)".into()
    } else {
        "correct this value (see examples/rigd.toml for every key with its default)".into()
    }
}

fn missing_key(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split('`').next()
}

fn contains(outer: &Range<usize>, inner: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end && outer.start < outer.end
}

/// Where the deepest entry holding `span` lives: dotted path, and how to reach it.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn find_deepest(
    table: &DeTable<'_>,
    span: &Range<usize>,
    path: &mut Vec<Step>,
) -> Option<Vec<Step>> {
    let mut best: Option<Vec<Step>> = None;
    for (key, value) in table.iter() {
        path.push(Step::Key(key.get_ref().to_string()));
        let deeper = search_value(value, span, path);
        let here = contains(&key.span(), span) || contains(&value.span(), span);
        let candidate = deeper.or_else(|| here.then(|| path.clone()));
        if let Some(candidate) = candidate {
            if best.as_ref().is_none_or(|b| candidate.len() > b.len()) {
                best = Some(candidate);
            }
        }
        path.pop();
    }
    best
}

fn search_value(
    value: &Spanned<DeValue<'_>>,
    span: &Range<usize>,
    path: &mut Vec<Step>,
) -> Option<Vec<Step>> {
    match value.get_ref() {
        DeValue::Table(table) => find_deepest(table, span, path),
        DeValue::Array(items) => {
            let mut best: Option<Vec<Step>> = None;
            for (index, item) in items.iter().enumerate() {
                path.push(Step::Index(index));
                let deeper = search_value(item, span, path);
                let candidate =
                    deeper.or_else(|| contains(&item.span(), span).then(|| path.clone()));
                if let Some(candidate) = candidate {
                    if best.as_ref().is_none_or(|b| candidate.len() > b.len()) {
                        best = Some(candidate);
                    }
                }
                path.pop();
            }
            best
        }
        _ => None,
    }
}

fn path_text(steps: &[Step]) -> String {
    let mut text = String::new();
    for step in steps {
        match step {
            Step::Key(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            Step::Index(index) => text.push_str(&format!("[{index}]")),
        }
    }
    text
}

/// Removes the deepest entry holding `span`; returns its dotted path.
fn remove_deepest(root: &mut DeTable<'_>, span: &Range<usize>) -> Option<String> {
    let steps = find_deepest(root, span, &mut Vec::new())?;
    remove_path(root, &steps);
    Some(path_text(&steps))
}

fn remove_path<'i>(table: &mut DeTable<'i>, steps: &[Step]) {
    let Some((Step::Key(first), rest)) = steps.split_first() else {
        return;
    };
    if rest.is_empty() {
        table.remove(first.as_str());
        return;
    }
    if let Some(value) = table.get_mut(first.as_str()) {
        remove_in_value(value.get_mut(), rest);
    }
}

fn remove_in_value<'i>(value: &mut DeValue<'i>, steps: &[Step]) {
    match (value, steps.split_first()) {
        (DeValue::Table(table), Some((Step::Key(_), _))) => remove_path(table, steps),
        (DeValue::Array(items), Some((Step::Index(index), rest))) => {
            if rest.is_empty() {
                let all = std::mem::replace(items, toml::de::DeArray::new());
                let kept: Vec<Spanned<DeValue<'i>>> = all
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| i != index)
                    .map(|(_, item)| item)
                    .collect();
                *items = kept.into_iter().collect();
            } else if let Some(item) = items.get_mut(*index) {
                remove_in_value(item.get_mut(), rest);
            }
        }
        _ => {}
    }
}
