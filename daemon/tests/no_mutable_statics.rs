//! No module-level mutable state in the workspace's library and binary code: every `static`
//! item (and `thread_local!`) under the `src/` of each workspace member (read from the root
//! Cargo.toml) must be immutable plain data. Atomics, locks, once-cells, cells and
//! `static mut` carry data between sessions and tests behind everyone's back; build such state
//! when a session starts and pass it down instead. (The tests' counting allocators live under
//! `tests/`, which this does not scan.)

use std::path::{Path, PathBuf};

mod support;
use support::rust_files;

/// Type names whose `static` would be mutable state.
const INTERIOR_MUTABLE: [&str; 12] = [
    "Atomic",
    "Mutex",
    "RwLock",
    "OnceLock",
    "OnceCell",
    "Once",
    "LazyLock",
    "Lazy",
    "Cell",
    "UnsafeCell",
    "Condvar",
    "Sender",
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `members = [...]` of the root manifest.
fn members(root: &Path) -> Vec<String> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let list = manifest
        .split("members")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("the root Cargo.toml lists its members");
    list.split(',')
        .map(|m| m.trim_matches(|c: char| c.is_whitespace() || c == '"' || c == '=' || c == '['))
        .filter(|m| !m.is_empty())
        .map(String::from)
        .collect()
}

/// Why the item starting at `line` (and going on in `rest`) is mutable state, if it is.
fn mutable_static(line: &str, rest: &str) -> Option<String> {
    let code = line.split("//").next().unwrap_or("").trim_start();
    if code.starts_with("thread_local!") {
        return Some("thread_local! state".to_string());
    }
    let item = code
        .strip_prefix("pub(crate) ")
        .or_else(|| code.strip_prefix("pub(super) "))
        .or_else(|| code.strip_prefix("pub "))
        .unwrap_or(code);
    let declaration = item.strip_prefix("static ")?;
    if declaration.starts_with("mut ") {
        return Some("static mut".to_string());
    }
    // The type runs from the colon to the `=` (possibly over several lines).
    let whole = format!("{code}\n{rest}");
    let ty = whole.split_once(':')?.1.split('=').next()?;
    INTERIOR_MUTABLE
        .iter()
        .find(|name| {
            ty.match_indices(*name).any(|(at, _)| {
                let before = ty[..at].chars().last();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        })
        .map(|name| format!("a static of a {name} type"))
}

/// Every mutable static of the files under `dir`, as `path:line: why`.
fn mutable_statics_under(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let rest = lines[i + 1..lines.len().min(i + 4)].join("\n");
            if let Some(why) = mutable_static(line, &rest) {
                found.push(format!("{}:{}: {why}", file.display(), i + 1));
            }
        }
    }
    found
}

#[test]
fn no_workspace_crate_keeps_mutable_state_in_a_static() {
    let root = workspace_root();
    let members = members(&root);
    assert!(
        members.iter().any(|m| m == "daemon") && members.len() >= 4,
        "{members:?}"
    );
    let found: Vec<String> = members
        .iter()
        .flat_map(|member| mutable_statics_under(&root.join(member).join("src")))
        .collect();
    assert!(
        found.is_empty(),
        "module-level mutable statics (fix: build the state when a session starts and pass it \
         down):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_flags_mutable_statics_and_passes_plain_data() {
    let flagged = [
        "static STOP: AtomicBool = AtomicBool::new(false);",
        "    static LINK: OnceLock<Arc<FfbLink>> = OnceLock::new();",
        "pub(crate) static CURRENT: std::sync::Mutex<Option<u32>> = Mutex::new(None);",
        "static mut COUNT: u32 = 0;",
        "static ONCE: std::sync::Once = std::sync::Once::new();",
        "thread_local! {",
    ];
    for line in flagged {
        assert!(mutable_static(line, "").is_some(), "{line}");
    }
    let multi_line = mutable_static("static TABLE: [Slot;", " 4] = [const { Slot::new() }; 4];");
    assert!(multi_line.is_none(), "plain arrays of plain structs pass");
    let plain = [
        "static NAMES: [&str; 2] = [\"a\", \"b\"];",
        "pub static DEFAULT_GAIN: f64 = 0.5;",
        "fn f(x: &'static str) {}",
        "// static STOP: AtomicBool = AtomicBool::new(false);",
        "static ONCE_TEXT: &str = \"Oncer\";",
    ];
    for line in plain {
        assert!(mutable_static(line, "").is_none(), "{line}");
    }
    let wrapped = mutable_static("static LINK:", "    OnceLock<u8> = OnceLock::new();");
    assert!(wrapped.is_some());
}
