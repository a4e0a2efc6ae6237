//! `[[telemetry]]`: UDP telemetry outputs. Each entry names one wire format, one or more
//! destinations (unicast, broadcast or multicast `IP:PORT`), a send rate decimated from the
//! physics loop, and whether it is enabled.
//!
//! With no `[[telemetry]]` entry at all, rigd sends the native format to the dashboard on
//! `127.0.0.1:`[`NATIVE_DEFAULT_PORT`] at [`DEFAULT_RATE_HZ`] ([`effective_outputs`]). Any
//! entry replaces that default; to send nothing, write one entry with `enabled = false`.
//! Destinations are numeric `IP:PORT` (no name lookups at start-up or on the sender thread).
use std::net::SocketAddr;

use serde::Deserialize;

use rig_protocols::game::f1::{F1Packet, F1Year};
pub use rig_protocols::telemetry::NATIVE_DEFAULT_PORT;
use rig_protocols::telemetry::{Format, OutSimOptions};

use crate::problem::{Report, Validate};

/// Default send rate, Hz (what games send).
pub const DEFAULT_RATE_HZ: u32 = 60;
/// Highest send rate, Hz (one packet per tick of a 1 kHz loop).
pub const MAX_RATE_HZ: u32 = 1000;
/// Rate of F1's Session packet, Hz (the game sends it twice a second whatever its menu rate).
pub const F1_SESSION_RATE_HZ: u32 = 2;
/// Default multicast TTL (stay on the local network segment).
pub const DEFAULT_MULTICAST_TTL: u32 = 1;

/// The wire format of an output, as written in the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TelemetryFormat {
    /// rigd's native packet (every channel; what the dashboard reads).
    Native,
    /// LFS OutGauge, 92 bytes (96 with `id`).
    Outgauge,
    /// LFS OutSim classic, 64 bytes (68 with `id`).
    Outsim,
    /// LFS OutSimPack2; `outsim_options` selects the parts (default 0x1ff, 280 bytes).
    OutsimPack2,
    /// Forza Sled, 232 bytes.
    ForzaSled,
    /// Forza Motorsport 7 Car Dash, 311 bytes.
    ForzaFm7Dash,
    /// Forza Horizon 4/5, 324 bytes.
    ForzaHorizon,
    /// Forza Motorsport (2023) Car Dash, 331 bytes.
    ForzaFm2023,
    /// Codemasters extradata=3 (DiRT Rally 2.0 profile), 264 bytes.
    Codemasters,
    /// BeamNG MotionSim, 88 bytes.
    BeamngMotionsim,
    /// EA F1 24 (packet format 2024): Motion, Motion Ex, Car Telemetry, Car Status and Lap
    /// Data at `rate_hz` (the game's "UDP Send Rate"), Session at 2 Hz.
    #[serde(rename = "f1-24")]
    F124,
    /// EA F1 25 (packet format 2025), the same packets in F1 25's layouts.
    #[serde(rename = "f1-25")]
    F125,
}

impl TelemetryFormat {
    /// The name as written in the config.
    pub fn config_name(self) -> &'static str {
        match self {
            TelemetryFormat::Native => "native",
            TelemetryFormat::Outgauge => "outgauge",
            TelemetryFormat::Outsim => "outsim",
            TelemetryFormat::OutsimPack2 => "outsim-pack2",
            TelemetryFormat::ForzaSled => "forza-sled",
            TelemetryFormat::ForzaFm7Dash => "forza-fm7-dash",
            TelemetryFormat::ForzaHorizon => "forza-horizon",
            TelemetryFormat::ForzaFm2023 => "forza-fm2023",
            TelemetryFormat::Codemasters => "codemasters",
            TelemetryFormat::BeamngMotionsim => "beamng-motionsim",
            TelemetryFormat::F124 => "f1-24",
            TelemetryFormat::F125 => "f1-25",
        }
    }

    fn takes_id(self) -> bool {
        matches!(
            self,
            TelemetryFormat::Outgauge | TelemetryFormat::Outsim | TelemetryFormat::OutsimPack2
        )
    }
}

/// One `[[telemetry]]` entry.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TelemetryOutput {
    /// Wire format: `native`, `outgauge`, `outsim`, `outsim-pack2`, `forza-sled`,
    /// `forza-fm7-dash`, `forza-horizon`, `forza-fm2023`, `codemasters`, `beamng-motionsim`,
    /// `f1-24`, `f1-25`.
    pub format: TelemetryFormat,
    /// Where to send, numeric `IP:PORT` each: unicast, broadcast (e.g. `192.168.1.255:5300`)
    /// or IPv4 multicast (`224.0.0.0/4`).
    pub destinations: Vec<String>,
    /// Packets per second to each destination, 1 ..= 1000 (decimated from the physics loop).
    #[serde(default = "default_rate_hz")]
    pub rate_hz: u32,
    /// Send this output.
    #[serde(default = "default_enabled")]
    pub enabled: bool,
    /// LFS `OutGauge ID` / `OutSim ID`, appended to the packet when set (non-zero).
    /// Only for `outgauge`, `outsim` and `outsim-pack2`.
    #[serde(default)]
    pub id: Option<i32>,
    /// LFS `OutSim Opts` for `outsim-pack2` (e.g. `0x1ff`), 0x001 ..= 0x1ff.
    #[serde(default)]
    pub outsim_options: Option<u16>,
    /// TTL of multicast packets, 1 ..= 255 (1 stays on the local segment).
    #[serde(default = "default_multicast_ttl")]
    pub multicast_ttl: u32,
}

fn default_rate_hz() -> u32 {
    DEFAULT_RATE_HZ
}

fn default_enabled() -> bool {
    true
}

fn default_multicast_ttl() -> u32 {
    DEFAULT_MULTICAST_TTL
}

impl TelemetryOutput {
    /// The built-in output used when the config has no `[[telemetry]]`: the native format to
    /// the dashboard on loopback.
    pub fn default_native() -> TelemetryOutput {
        TelemetryOutput {
            format: TelemetryFormat::Native,
            destinations: vec![format!("127.0.0.1:{NATIVE_DEFAULT_PORT}")],
            rate_hz: DEFAULT_RATE_HZ,
            enabled: true,
            id: None,
            outsim_options: None,
            multicast_ttl: DEFAULT_MULTICAST_TTL,
        }
    }

    /// Every packet stream this output sends, as (wire layout, packets per second): one for
    /// most formats; F1 sends each packet type as its own stream ([`F1Packet`]), at
    /// `rate_hz` except Session at [`F1_SESSION_RATE_HZ`]. `None` only for invalid
    /// `outsim_options`, which validation reports.
    pub fn wire_streams(&self) -> Option<Vec<(Format, u32)>> {
        let year = match self.format {
            TelemetryFormat::F124 => F1Year::F1_24,
            TelemetryFormat::F125 => F1Year::F1_25,
            _ => return Some(vec![(self.wire_format()?, self.rate_hz)]),
        };
        Some(
            F1Packet::ALL
                .iter()
                .map(|&packet| {
                    let rate_hz = match packet {
                        F1Packet::Session => F1_SESSION_RATE_HZ.min(self.rate_hz),
                        _ => self.rate_hz,
                    };
                    (Format::F1 { year, packet }, rate_hz)
                })
                .collect(),
        )
    }

    /// The concrete wire layout (id and options applied; F1: its Motion packet, the first of
    /// its [`TelemetryOutput::wire_streams`]). `None` only for invalid `outsim_options`,
    /// which validation reports.
    pub fn wire_format(&self) -> Option<Format> {
        Some(match self.format {
            TelemetryFormat::Native => Format::Native,
            TelemetryFormat::Outgauge => Format::OutGauge { id: self.id },
            TelemetryFormat::Outsim => Format::OutSim { id: self.id },
            TelemetryFormat::OutsimPack2 => {
                let options = match self.outsim_options {
                    Some(bits) => OutSimOptions::new(bits)?,
                    None => OutSimOptions::ALL,
                };
                let id_bit = if self.id.is_some() {
                    OutSimOptions::ID
                } else {
                    0
                };
                Format::OutSimPack2 {
                    options: OutSimOptions::new(options.bits() | id_bit)?,
                    id: self.id.unwrap_or(0),
                }
            }
            TelemetryFormat::ForzaSled => Format::ForzaSled,
            TelemetryFormat::ForzaFm7Dash => Format::ForzaFm7Dash,
            TelemetryFormat::ForzaHorizon => Format::ForzaHorizon,
            TelemetryFormat::ForzaFm2023 => Format::ForzaFm2023,
            TelemetryFormat::Codemasters => Format::Codemasters,
            TelemetryFormat::BeamngMotionsim => Format::BeamNgMotionSim,
            TelemetryFormat::F124 => Format::F1 {
                year: F1Year::F1_24,
                packet: F1Packet::Motion,
            },
            TelemetryFormat::F125 => Format::F1 {
                year: F1Year::F1_25,
                packet: F1Packet::Motion,
            },
        })
    }

    /// The destinations as socket addresses; unparsable entries (reported by validation)
    /// are skipped.
    pub fn socket_addrs(&self) -> Vec<SocketAddr> {
        self.destinations
            .iter()
            .filter_map(|d| d.parse().ok())
            .collect()
    }
}

/// The outputs rigd runs for `configured`: the built-in native output when there are none,
/// else the enabled entries.
pub fn effective_outputs(configured: &[TelemetryOutput]) -> Vec<TelemetryOutput> {
    if configured.is_empty() {
        vec![TelemetryOutput::default_native()]
    } else {
        configured.iter().filter(|o| o.enabled).cloned().collect()
    }
}

impl Validate for TelemetryOutput {
    fn validate(&self, field: &str, report: &mut Report) {
        let name = self.format.config_name();
        if self.destinations.is_empty() {
            report.problem(
                format!("{field}.destinations"),
                "no destination given",
                format!(
                    "add at least one IP:PORT, e.g. destinations = [\"127.0.0.1:{NATIVE_DEFAULT_PORT}\"]"
                ),
            );
        }
        for (i, destination) in self.destinations.iter().enumerate() {
            let key = format!("{field}.destinations[{i}]");
            match destination.parse::<SocketAddr>() {
                Err(_) => report.problem(
                    key,
                    format!("`{destination}` is not an IP address and port"),
                    "write it as IP:PORT with a numeric address, e.g. \"127.0.0.1:5300\" or \
                     \"192.168.1.255:5300\" (host names are not resolved)",
                ),
                Ok(addr) if addr.port() == 0 => report.problem(
                    key,
                    format!("`{destination}` has port 0, which no receiver listens on"),
                    "use the port the receiving app listens on, e.g. 5300 for Forza tools or \
                     20777 for Codemasters",
                ),
                Ok(addr) if addr.ip().is_unspecified() => report.problem(
                    key,
                    format!("`{destination}` is the unspecified address, not a destination"),
                    "use 127.0.0.1 for this machine, a LAN address, or the broadcast address",
                ),
                Ok(_) => {}
            }
        }
        report.check_range(&format!("{field}.rate_hz"), self.rate_hz, 1..=MAX_RATE_HZ);
        report.check_range(
            &format!("{field}.multicast_ttl"),
            self.multicast_ttl,
            1..=255,
        );
        if let Some(id) = self.id {
            if !self.format.takes_id() {
                report.problem(
                    format!("{field}.id"),
                    format!("`id` does not apply to the {name} format"),
                    "remove `id`; only outgauge, outsim and outsim-pack2 carry an ID",
                );
            } else if id == 0 {
                report.problem(
                    format!("{field}.id"),
                    "id = 0 means \"no ID\" in LFS, so it would not be sent",
                    "remove `id` for the packet without ID, or set a non-zero ID",
                );
            }
        }
        if let Some(bits) = self.outsim_options {
            if self.format != TelemetryFormat::OutsimPack2 {
                report.problem(
                    format!("{field}.outsim_options"),
                    format!("`outsim_options` does not apply to the {name} format"),
                    "remove `outsim_options`, or set format = \"outsim-pack2\"",
                );
            } else if OutSimOptions::new(bits).is_none() {
                report.problem(
                    format!("{field}.outsim_options"),
                    format!("{bits:#x} is not a valid OutSim Opts value"),
                    "use the same hex value as LFS's `OutSim Opts`, between 0x001 and 0x1ff \
                     (0x1ff sends every part)",
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<crate::Config, Vec<crate::Problem>> {
        crate::parse(text, "t.toml")
    }

    #[test]
    fn no_entries_means_native_to_the_dashboard_port() {
        let config = parse("").unwrap();
        let outputs = effective_outputs(&config.telemetry);
        assert_eq!(outputs.len(), 1);
        assert_eq!(outputs[0].wire_format(), Some(Format::Native));
        assert_eq!(outputs[0].destinations, ["127.0.0.1:29777"]);
        assert_eq!(outputs[0].rate_hz, 60);
    }

    #[test]
    fn entries_parse_with_defaults_and_formats() {
        let config = parse(
            "[[telemetry]]\nformat = \"forza-horizon\"\ndestinations = [\"127.0.0.1:5300\", \
             \"192.168.1.255:5300\"]\n\n[[telemetry]]\nformat = \"outsim-pack2\"\n\
             destinations = [\"239.1.2.3:4123\"]\noutsim_options = 0x1fd\nid = 7\nrate_hz = 100\n\n\
             [[telemetry]]\nformat = \"codemasters\"\ndestinations = [\"127.0.0.1:20777\"]\nenabled = false\n",
        )
        .unwrap();
        assert_eq!(config.telemetry[0].rate_hz, 60);
        assert_eq!(config.telemetry[0].socket_addrs().len(), 2);
        assert_eq!(
            config.telemetry[1].wire_format(),
            Some(Format::OutSimPack2 {
                options: OutSimOptions::ALL,
                id: 7
            }),
            "an id turns the ID part on"
        );
        let effective = effective_outputs(&config.telemetry);
        assert_eq!(effective.len(), 2, "the disabled entry is not run");
    }

    #[test]
    fn mistakes_name_the_field_and_the_fix() {
        let problems = parse(
            "[[telemetry]]\nformat = \"forza-horizon\"\ndestinations = [\"localhost:5300\", \
             \"127.0.0.1:0\"]\nrate_hz = 2000\nid = 3\n\n[[telemetry]]\nformat = \"outsim-pack2\"\n\
             destinations = []\noutsim_options = 0x400\n",
        )
        .unwrap_err();
        let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        let expect = [
            (
                "telemetry[0].destinations[0]",
                "is not an IP address and port",
            ),
            ("telemetry[0].destinations[1]", "port 0"),
            (
                "telemetry[0].rate_hz",
                "outside the allowed range 1 ..= 1000",
            ),
            (
                "telemetry[0].id",
                "does not apply to the forza-horizon format",
            ),
            ("telemetry[1].destinations", "no destination given"),
            (
                "telemetry[1].outsim_options",
                "0x400 is not a valid OutSim Opts value",
            ),
        ];
        assert_eq!(problems.len(), expect.len(), "{text:#?}");
        for (field, message) in expect {
            assert!(
                problems
                    .iter()
                    .any(|p| p.field == field && p.message.contains(message) && !p.fix.is_empty()),
                "{field}: {message} not in {text:#?}"
            );
        }
    }

    #[test]
    fn an_f1_output_sends_each_packet_type_at_the_games_rate() {
        let config = parse(
            "[[telemetry]]\nformat = \"f1-25\"\ndestinations = [\"127.0.0.1:20777\"]\n\
             rate_hz = 60\n",
        )
        .unwrap();
        let streams = config.telemetry[0].wire_streams().unwrap();
        let rate = |packet| {
            streams
                .iter()
                .find(|(f, _)| {
                    *f == Format::F1 {
                        year: F1Year::F1_25,
                        packet,
                    }
                })
                .map(|(_, r)| *r)
        };
        assert_eq!(streams.len(), 6);
        for packet in [
            F1Packet::Motion,
            F1Packet::MotionEx,
            F1Packet::CarTelemetry,
            F1Packet::CarStatus,
            F1Packet::LapData,
        ] {
            assert_eq!(rate(packet), Some(60), "{packet:?}");
        }
        assert_eq!(rate(F1Packet::Session), Some(2));
        let forza = TelemetryOutput {
            format: TelemetryFormat::ForzaSled,
            ..TelemetryOutput::default_native()
        };
        assert_eq!(forza.wire_streams(), Some(vec![(Format::ForzaSled, 60)]));
    }

    #[test]
    fn unknown_format_names_are_rejected() {
        let problems =
            parse("[[telemetry]]\nformat = \"forza\"\ndestinations = [\"127.0.0.1:1\"]\n")
                .unwrap_err();
        assert!(problems[0].to_string().contains("forza"), "{}", problems[0]);
    }
}
