//! Captures the build's fingerprint for recordings (`rigd replay` compares it with the one in
//! a file): the git commit the daemon was built from, `+dirty` when the work tree had
//! uncommitted changes, or `RIGD_BUILD_ID` from the environment when there is no git (a
//! source tarball), else `unknown`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=RIGD_BUILD_ID");
    let id = match git(&["rev-parse", "HEAD"]) {
        Some(commit) => {
            // Rebuild when HEAD moves (a commit, a checkout) or the index changes.
            for path in ["HEAD", "index"] {
                if let Some(file) = git(&["rev-parse", "--git-path", path]) {
                    println!("cargo:rerun-if-changed={file}");
                }
            }
            if let Some(branch) = git(&["rev-parse", "--symbolic-full-name", "HEAD"]) {
                if let Some(file) = git(&["rev-parse", "--git-path", &branch]) {
                    println!("cargo:rerun-if-changed={file}");
                }
            }
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|status| !status.is_empty());
            if dirty {
                format!("{commit}+dirty")
            } else {
                commit
            }
        }
        None => std::env::var("RIGD_BUILD_ID").unwrap_or_else(|_| "unknown".to_string()),
    };
    println!("cargo:rustc-env=RIGD_BUILD_FINGERPRINT={id}");
}
