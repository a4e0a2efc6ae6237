//! Man pages and shell completions rendered from a clap command, for the Debian package
//! (scripts/build-deb.sh asks `rigd generate-assets DIR` and `rig-dash --generate-assets DIR`).
//!
//! Both binaries' pages come from the same clap definitions as their `--help`, so they cannot
//! drift. The writer lives here, in the lower of the two crates, because rigd already depends
//! on rig-dash; each binary hands it its own command.
//!
//! clap_complete (4.6) offers hidden subcommands and options too; the man pages leave them out.
//!
//! Layout under the output directory, as the package installs it:
//! `man/NAME.1` plus `man/NAME-SUBCOMMAND.1` for every visible subcommand,
//! `bash/NAME`, `zsh/_NAME`, `fish/NAME.fish`.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap_complete::Shell;

/// Writes the man pages and completions of `cmd` (named `name`, as installed in the PATH) under
/// `dir`, creating the subdirectories; returns every file written, in a stable order.
pub fn write(mut cmd: clap::Command, name: &'static str, dir: &Path) -> io::Result<Vec<PathBuf>> {
    cmd = cmd.name(name).bin_name(name);
    let man = dir.join("man");
    std::fs::create_dir_all(&man)?;
    // Pages for the command and, recursively, every subcommand that is not hidden.
    clap_mangen::generate_to(cmd.clone(), &man)?;
    let mut written: Vec<PathBuf> = std::fs::read_dir(&man)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<io::Result<_>>()?;
    written.sort();
    for (shell, file_name) in [
        (Shell::Bash, name.to_owned()),
        (Shell::Zsh, format!("_{name}")),
        (Shell::Fish, format!("{name}.fish")),
    ] {
        let shell_dir = dir.join(shell.to_string());
        std::fs::create_dir_all(&shell_dir)?;
        let path = shell_dir.join(file_name);
        let mut file = File::create(&path)?;
        clap_complete::generate(shell, &mut cmd, name, &mut file);
        file.flush()?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, clap::Parser)]
    #[command(name = "demo", version, about = "A demo command.")]
    struct Demo {
        /// Frames per second.
        #[arg(long)]
        fps: Option<u32>,
        #[command(subcommand)]
        command: Option<Sub>,
    }

    #[derive(Debug, clap::Subcommand)]
    enum Sub {
        /// Run it.
        Run,
        /// Not for users.
        #[command(hide = true)]
        Secret,
    }

    #[test]
    fn writes_a_page_per_visible_subcommand_and_three_completions() {
        use clap::CommandFactory;
        let dir = std::env::temp_dir().join(format!("rig-dash-cli-assets-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let written = write(Demo::command(), "demo", &dir).unwrap();
        let names: Vec<String> = written
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "man/demo-run.1",
                "man/demo.1",
                "bash/demo",
                "zsh/_demo",
                "fish/demo.fish"
            ]
        );
        let page = std::fs::read_to_string(dir.join("man/demo.1")).unwrap();
        assert!(page.starts_with(".ie"), "roff page: {page}");
        assert!(
            page.contains("Frames per second"),
            "options from the doc comments: {page}"
        );
        assert!(
            !page.contains("Secret"),
            "hidden subcommands stay out: {page}"
        );
        let bash = std::fs::read_to_string(dir.join("bash/demo")).unwrap();
        assert!(
            bash.contains("complete -F") && bash.contains("--fps"),
            "{bash}"
        );
        let fish = std::fs::read_to_string(dir.join("fish/demo.fish")).unwrap();
        assert!(
            fish.contains("-a \"run\"") && fish.contains("-l fps"),
            "{fish}"
        );
        let zsh = std::fs::read_to_string(dir.join("zsh/_demo")).unwrap();
        assert!(
            zsh.starts_with("#compdef demo") && zsh.contains("--fps"),
            "{zsh}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
