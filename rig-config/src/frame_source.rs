//! `[source]`: where rigd's frame comes from. `kind = "sim"` (the default) steps the built-in
//! simulation; `kind = "game"` takes the player car's state from a game's UDP telemetry (the
//! game bridge, docs/games/README.md): rigd listens on every `listen` address, decodes each
//! datagram as `format` (or detects the game with `auto`), and drives motion, telemetry out,
//! the dashboard and health from it. Force feedback stays with the game in that mode.
use std::net::{IpAddr, SocketAddr};

use serde::Deserialize;

use rig_protocols::game::GameFormat;
use rig_protocols::telemetry::OutSimOptions;

use crate::problem::{Report, Validate};

/// Default listen address: every interface, the port F1 and Codemasters games send to.
pub const DEFAULT_LISTEN: &str = "0.0.0.0:20777";
/// Default time without a packet after which the stream counts as lost, ms.
pub const DEFAULT_LOST_AFTER_MS: u32 = 500;
/// Shortest and longest `lost_after_ms` (a game at 20 Hz sends every 50 ms).
pub const LOST_AFTER_MS_RANGE: std::ops::RangeInclusive<u32> = 60..=10_000;

/// What produces the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SourceKind {
    /// The built-in simulation (physics, robots, force feedback from the model).
    #[default]
    Sim,
    /// A game's UDP telemetry (the game bridge).
    Game,
}

/// The game telemetry format to read, as written in the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SourceFormat {
    /// Recognise the game from the first datagram and keep to it.
    #[default]
    Auto,
    /// Forza Motorsport 7 / 2023, Forza Horizon 4/5 ("Data Out").
    Forza,
    /// EA F1 24 / F1 25.
    F1,
    /// Codemasters extradata=3 (DiRT Rally 1/2, GRID, Project CARS' compatible mode).
    Codemasters,
    /// EA Sports WRC.
    EaWrc,
    /// BeamNG.drive MotionSim + OutGauge.
    Beamng,
    /// Live for Speed OutSim / OutSimPack2 + OutGauge.
    Lfs,
    /// Gran Turismo 7 (needs `console_address`).
    Gt7,
}

impl SourceFormat {
    /// The name as written in the config.
    pub fn config_name(self) -> &'static str {
        match self {
            SourceFormat::Auto => "auto",
            SourceFormat::Forza => "forza",
            SourceFormat::F1 => "f1",
            SourceFormat::Codemasters => "codemasters",
            SourceFormat::EaWrc => "ea-wrc",
            SourceFormat::Beamng => "beamng",
            SourceFormat::Lfs => "lfs",
            SourceFormat::Gt7 => "gt7",
        }
    }

    /// The decoder to use, `None` for auto-detection.
    pub fn game_format(self) -> Option<GameFormat> {
        match self {
            SourceFormat::Auto => None,
            SourceFormat::Forza => Some(GameFormat::Forza),
            SourceFormat::F1 => Some(GameFormat::F1),
            SourceFormat::Codemasters => Some(GameFormat::Codemasters),
            SourceFormat::EaWrc => Some(GameFormat::EaWrc),
            SourceFormat::Beamng => Some(GameFormat::BeamNg),
            SourceFormat::Lfs => Some(GameFormat::Lfs),
            SourceFormat::Gt7 => Some(GameFormat::Gt7),
        }
    }
}

/// The `[source]` section.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SourceConfig {
    /// `sim` (the built-in simulation) or `game` (a game's UDP telemetry).
    pub kind: SourceKind,
    /// The game's format: `auto`, `forza`, `f1`, `codemasters`, `ea-wrc`, `beamng`, `lfs`,
    /// `gt7`.
    pub format: SourceFormat,
    /// UDP addresses to listen on, numeric `IP:PORT` each (BeamNG and LFS send motion and
    /// OutGauge to two ports).
    pub listen: Vec<String>,
    /// No packet for this long: the stream is lost and motion parks, ms.
    pub lost_after_ms: u32,
    /// Gran Turismo 7 only: the console's IP address (rigd sends its heartbeat to port 33739).
    pub console_address: Option<String>,
    /// LFS only: the game's `OutSim Opts` (OutSimPack2), 0x001 ..= 0x1ff; absent: classic
    /// OutSim.
    pub lfs_outsim_options: Option<u16>,
}

impl Default for SourceConfig {
    fn default() -> SourceConfig {
        SourceConfig {
            kind: SourceKind::Sim,
            format: SourceFormat::Auto,
            listen: vec![DEFAULT_LISTEN.to_string()],
            lost_after_ms: DEFAULT_LOST_AFTER_MS,
            console_address: None,
            lfs_outsim_options: None,
        }
    }
}

impl SourceConfig {
    /// True when a game, not the simulation, produces the frame.
    pub fn is_game(&self) -> bool {
        self.kind == SourceKind::Game
    }

    /// The listen addresses; unparsable entries (reported by validation) are skipped.
    pub fn listen_addrs(&self) -> Vec<SocketAddr> {
        self.listen.iter().filter_map(|a| a.parse().ok()).collect()
    }

    /// The console's address, when given and valid (validation reports the rest).
    pub fn console_ip(&self) -> Option<IpAddr> {
        self.console_address.as_deref()?.parse().ok()
    }
}

impl Validate for SourceConfig {
    fn validate(&self, field: &str, report: &mut Report) {
        if self.listen.is_empty() {
            report.problem(
                format!("{field}.listen"),
                "no listen address given",
                format!(
                    "add the address and port the game sends to, e.g. listen = [\"{DEFAULT_LISTEN}\"]"
                ),
            );
        }
        let mut seen: Vec<SocketAddr> = Vec::new();
        for (i, address) in self.listen.iter().enumerate() {
            let key = format!("{field}.listen[{i}]");
            match address.parse::<SocketAddr>() {
                Err(_) => report.problem(
                    key,
                    format!("`{address}` is not an IP address and port"),
                    "write it as IP:PORT with a numeric address, e.g. \"0.0.0.0:20777\" (every \
                     interface) or \"127.0.0.1:5300\" (host names are not resolved)",
                ),
                Ok(addr) if addr.port() == 0 => report.problem(
                    key,
                    format!("`{address}` has port 0, which no game sends to"),
                    "use the port set in the game's telemetry settings, e.g. 5300 for Forza or \
                     20777 for F1 and Codemasters",
                ),
                Ok(addr) if seen.contains(&addr) => report.problem(
                    key,
                    format!("`{address}` is listed twice"),
                    "remove the second entry (each address can be bound once)",
                ),
                Ok(addr) => seen.push(addr),
            }
        }
        report.check_range(
            &format!("{field}.lost_after_ms"),
            self.lost_after_ms,
            LOST_AFTER_MS_RANGE,
        );
        let format = self.format.config_name();
        match (&self.console_address, self.format) {
            (Some(address), SourceFormat::Gt7) => {
                if address.parse::<IpAddr>().is_err() {
                    report.problem(
                        format!("{field}.console_address"),
                        format!("`{address}` is not an IP address"),
                        "give the console's numeric address as shown in its network settings, \
                         e.g. \"192.168.1.20\" (no port: rigd uses 33739)",
                    );
                }
            }
            (Some(_), _) => report.problem(
                format!("{field}.console_address"),
                format!("`console_address` does not apply to the {format} format"),
                "remove `console_address`, or set format = \"gt7\"",
            ),
            (None, SourceFormat::Gt7) if self.is_game() => report.problem(
                format!("{field}.console_address"),
                "format = \"gt7\" needs the console's address (GT7 sends only after a \
                 heartbeat to it)",
                "add console_address = \"<the console's IP address>\"",
            ),
            (None, _) => {}
        }
        if let Some(bits) = self.lfs_outsim_options {
            if !matches!(self.format, SourceFormat::Lfs | SourceFormat::Auto) {
                report.problem(
                    format!("{field}.lfs_outsim_options"),
                    format!("`lfs_outsim_options` does not apply to the {format} format"),
                    "remove `lfs_outsim_options`, or set format = \"lfs\"",
                );
            } else if OutSimOptions::new(bits).is_none() {
                report.problem(
                    format!("{field}.lfs_outsim_options"),
                    format!("{bits:#x} is not a valid OutSim Opts value"),
                    "use the same hex value as LFS's `OutSim Opts` in cfg.txt, between 0x001 \
                     and 0x1ff",
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<crate::Config, Vec<crate::Problem>> {
        crate::parse(text, "s.toml")
    }

    #[test]
    fn the_default_is_the_simulation_listening_nowhere_in_use() {
        let config = parse("").unwrap();
        assert_eq!(config.source, SourceConfig::default());
        assert!(!config.source.is_game());
        assert_eq!(config.source.listen_addrs(), vec!["0.0.0.0:20777".parse().unwrap()]);
        assert_eq!(config.source.lost_after_ms, 500);
    }

    #[test]
    fn a_game_source_parses_with_its_format_and_addresses() {
        let config = parse(
            "[source]\nkind = \"game\"\nformat = \"forza\"\nlisten = [\"127.0.0.1:5300\", \
             \"0.0.0.0:5301\"]\nlost_after_ms = 250\n",
        )
        .unwrap();
        let source = &config.source;
        assert!(source.is_game());
        assert_eq!(source.format.game_format(), Some(GameFormat::Forza));
        assert_eq!(source.listen_addrs().len(), 2);
        assert_eq!(source.lost_after_ms, 250);
        let gt7 = parse(
            "[source]\nkind = \"game\"\nformat = \"gt7\"\nlisten = [\"0.0.0.0:33740\"]\n\
             console_address = \"192.168.1.20\"\n",
        )
        .unwrap();
        assert_eq!(gt7.source.console_ip(), Some("192.168.1.20".parse().unwrap()));
        let lfs =
            parse("[source]\nkind = \"game\"\nformat = \"lfs\"\nlfs_outsim_options = 0x1ff\n")
                .unwrap();
        assert_eq!(lfs.source.lfs_outsim_options, Some(0x1ff));
    }

    #[test]
    fn mistakes_name_the_field_and_the_fix() {
        let problems = parse(
            "[source]\nkind = \"game\"\nformat = \"gt7\"\nlisten = [\"localhost:1\", \
             \"0.0.0.0:0\", \"0.0.0.0:9\", \"0.0.0.0:9\"]\nlost_after_ms = 5\n\
             lfs_outsim_options = 0x1ff\n",
        )
        .unwrap_err();
        let expect = [
            ("source.listen[0]", "is not an IP address and port"),
            ("source.listen[1]", "port 0"),
            ("source.listen[3]", "listed twice"),
            ("source.lost_after_ms", "outside the allowed range 60 ..= 10000"),
            ("source.console_address", "needs the console's address"),
            ("source.lfs_outsim_options", "does not apply to the gt7 format"),
        ];
        let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(problems.len(), expect.len(), "{text:#?}");
        for (field, message) in expect {
            assert!(
                problems
                    .iter()
                    .any(|p| p.field == field && p.message.contains(message) && !p.fix.is_empty()
                        && p.line > 0),
                "{field}: {message} not in {text:#?}"
            );
        }
        let wrong = parse(
            "[source]\nformat = \"forza\"\nconsole_address = \"1.2.3.4\"\nlisten = []\n\
             lfs_outsim_options = 0x1ff\n",
        )
        .unwrap_err();
        let text: Vec<String> = wrong.iter().map(|p| p.to_string()).collect();
        assert_eq!(wrong.len(), 3, "{text:#?}");
        for (field, message) in [
            ("source.listen", "no listen address given"),
            ("source.console_address", "does not apply to the forza format"),
            ("source.lfs_outsim_options", "does not apply to the forza format"),
        ] {
            assert!(
                wrong.iter().any(|p| p.field == field && p.message.contains(message)),
                "{field}: {message} not in {text:#?}"
            );
        }
    }

    #[test]
    fn unknown_kinds_formats_and_keys_are_rejected() {
        for text in [
            "[source]\nkind = \"replay\"\n",
            "[source]\nformat = \"iracing\"\n",
            "[source]\nport = 20777\n",
        ] {
            let problems = parse(text).unwrap_err();
            assert_eq!(problems.len(), 1, "{text}: {problems:?}");
            assert_eq!(problems[0].line, 2, "{}", problems[0]);
        }
    }
}
