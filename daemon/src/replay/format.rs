//! The recording file format (`.rigrec`): encode and decode, pure (no I/O), so the recorder's
//! writer thread, the replay command, the tests and the fuzz target share one definition.
//!
//! Layout (every integer little-endian; docs/replay.md has the byte-by-byte table):
//! header (magic, format version, the build that wrote it, the loop rate, the robots, the car
//! and track as their names and full TOML texts, and the robots' line file as its path and
//! text when `[sim] robot_line` names one), then records (runs of identical per-step
//! inputs, frame-digest checkpoints), then an end record holding the step count, the steps the
//! recorder lost, and an FNV-1a 64 checksum of every byte before it.
//!
//! Decoding never trusts a length: every read is checked against the bytes left, so any input
//! gives a value or a [`FormatError`], never a panic or an allocation larger than the input.

use rig_physics::{Controls, GearRequest};

/// The first eight bytes of every recording.
pub const MAGIC: [u8; 8] = *b"RIGDREC\0";
/// The format version this build writes (it reads this and [`FORMAT_VERSION_NO_LINE`]).
pub const FORMAT_VERSION: u16 = 2;
/// The first format, without the robots' line (read as "no line": the robots plan their own).
pub const FORMAT_VERSION_NO_LINE: u16 = 1;
/// Record tag: a run of identical steps.
pub const TAG_RUN: u8 = 0x01;
/// Record tag: a frame-digest checkpoint.
pub const TAG_CHECKPOINT: u8 = 0x02;
/// Record tag: the end record (always last).
pub const TAG_END: u8 = 0x03;
/// Bytes of the end record: tag, step count, lost steps, checksum.
pub const END_LEN: usize = 1 + 8 + 8 + 8;
/// Steps between two frame-digest checkpoints.
pub const CHECKPOINT_EVERY_STEPS: u64 = 1000;

/// What the physics consumed in one step: the player's merged controls, whether a device
/// drove the car (else its robot did), and whether the player car was reset just before.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepInput {
    /// A device was connected: `controls` drove the player car.
    pub connected: bool,
    /// The player car was put back on its start slot before this step.
    pub reset: bool,
    /// The merged controls handed to the physics.
    pub controls: Controls,
}

impl StepInput {
    /// Bit-exact equality (two runs merge only when every bit matches; `-0.0 != 0.0`, and
    /// a NaN equals the same NaN).
    pub fn same_bits(&self, other: &StepInput) -> bool {
        encode_step(self) == encode_step(other)
    }
}

/// The session a recording was made of: which build, and the data the world was built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// rigd's package version (`CARGO_PKG_VERSION`).
    pub rigd_version: String,
    /// The build fingerprint (see [`super::build_id`]).
    pub build: String,
    /// Physics steps per second (`[loop] rate_hz`).
    pub rate_hz: u32,
    /// Robot cars besides the player car (`[sim] robots`).
    pub robots: u32,
    /// `[sim] car` as configured (a built-in name or a path).
    pub car_name: String,
    /// The car's TOML text the world was built from.
    pub car_toml: String,
    /// `[sim] track` as configured.
    pub track_name: String,
    /// The track's TOML text the world was built from.
    pub track_toml: String,
    /// `[sim] robot_line` as configured (empty: none; the robots plan their own line).
    pub robot_line_name: String,
    /// The text of that line file (`rigd line`), empty when none.
    pub robot_line_text: String,
}

/// Everything a recording file holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    /// The session.
    pub header: Header,
    /// Runs of identical steps, in order: (how many steps, the input of each).
    pub runs: Vec<(u32, StepInput)>,
    /// Frame digests: (steps completed, FNV-1a 64 of the physics bytes of the steps since
    /// the previous checkpoint).
    pub checkpoints: Vec<(u64, u64)>,
    /// Steps recorded (the sum of the run lengths).
    pub steps: u64,
    /// Steps the recorder could not keep (its ring was full); the recording ends where the
    /// first one was lost.
    pub lost_steps: u64,
}

/// Why bytes are not a recording this build can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The magic does not match.
    #[error("not a rigd recording (its first bytes are not `RIGDREC`)")]
    NotARecording,
    /// Written by a newer (or unknown) format.
    #[error(
        "recording format version {found}, this rigd reads versions {FORMAT_VERSION_NO_LINE} \
         and {FORMAT_VERSION}"
    )]
    UnsupportedVersion {
        /// The version in the file.
        found: u16,
    },
    /// The end record is missing: the file was cut short or the recording never finished.
    #[error("the file ends without its end record (cut short, or rigd was killed before it finished the recording)")]
    Truncated,
    /// The checksum does not match the content.
    #[error("checksum mismatch: the content was changed after rigd wrote it (stored {stored:#018x}, computed {computed:#018x})")]
    Checksum {
        /// The checksum in the end record.
        stored: u64,
        /// The checksum of the content.
        computed: u64,
    },
    /// The content is not laid out as the format says (checksum passed: a bug in a writer).
    #[error("malformed at byte {offset}: {what}")]
    Malformed {
        /// Byte offset of the problem.
        offset: usize,
        /// What is wrong there.
        what: &'static str,
    },
}

/// FNV-1a 64 over `bytes`, continuing from `hash` (start with [`FNV_OFFSET`]). Any single
/// changed byte changes the result: each step is a bijection of the running state.
pub fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

/// FNV-1a 64's start value.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Bytes of one encoded step input.
pub const STEP_LEN: usize = 1 + 5 * 8 + 3;

/// Encodes one step input: flags (bit 0 connected, bit 1 reset), the five analogue controls
/// as f64 bit patterns, the gear request (kind, selected gear), control flags (bit 0
/// ignition, bit 1 starter).
pub fn encode_step(step: &StepInput) -> [u8; STEP_LEN] {
    let mut out = [0u8; STEP_LEN];
    out[0] = u8::from(step.connected) | u8::from(step.reset) << 1;
    let c = &step.controls;
    for (i, value) in [c.steering, c.throttle, c.brake, c.clutch, c.handbrake]
        .into_iter()
        .enumerate()
    {
        out[1 + i * 8..9 + i * 8].copy_from_slice(&value.to_bits().to_le_bytes());
    }
    let (kind, gear) = match c.gear_request {
        GearRequest::None => (0, 0),
        GearRequest::Up => (1, 0),
        GearRequest::Down => (2, 0),
        GearRequest::Select(g) => (3, g),
    };
    out[41] = kind;
    out[42] = gear as u8;
    out[43] = u8::from(c.ignition) | u8::from(c.starter) << 1;
    out
}

fn decode_step(bytes: &[u8; STEP_LEN], offset: usize) -> Result<StepInput, FormatError> {
    let malformed = |what| FormatError::Malformed { offset, what };
    if bytes[0] & !0b11 != 0 {
        return Err(malformed("unknown step flags"));
    }
    if bytes[43] & !0b11 != 0 {
        return Err(malformed("unknown control flags"));
    }
    let f = |i: usize| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[1 + i * 8..9 + i * 8]);
        f64::from_bits(u64::from_le_bytes(word))
    };
    let gear_request = match (bytes[41], bytes[42]) {
        (0, 0) => GearRequest::None,
        (1, 0) => GearRequest::Up,
        (2, 0) => GearRequest::Down,
        (3, g) => GearRequest::Select(g as i8),
        _ => return Err(malformed("unknown gear request")),
    };
    Ok(StepInput {
        connected: bytes[0] & 1 != 0,
        reset: bytes[0] & 2 != 0,
        controls: Controls {
            steering: f(0),
            throttle: f(1),
            brake: f(2),
            clutch: f(3),
            handbrake: f(4),
            gear_request,
            ignition: bytes[43] & 1 != 0,
            starter: bytes[43] & 2 != 0,
        },
    })
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

/// The header's bytes (magic first).
pub fn encode_header(header: &Header) -> Vec<u8> {
    let mut out = Vec::with_capacity(
        64 + header.car_toml.len() + header.track_toml.len() + header.robot_line_text.len(),
    );
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    put_text(&mut out, &header.rigd_version);
    put_text(&mut out, &header.build);
    out.extend_from_slice(&header.rate_hz.to_le_bytes());
    out.extend_from_slice(&header.robots.to_le_bytes());
    put_text(&mut out, &header.car_name);
    put_text(&mut out, &header.car_toml);
    put_text(&mut out, &header.track_name);
    put_text(&mut out, &header.track_toml);
    put_text(&mut out, &header.robot_line_name);
    put_text(&mut out, &header.robot_line_text);
    out
}

/// A run record: `count` steps of `step`.
pub fn encode_run(count: u32, step: &StepInput) -> [u8; 5 + STEP_LEN] {
    let mut out = [0u8; 5 + STEP_LEN];
    out[0] = TAG_RUN;
    out[1..5].copy_from_slice(&count.to_le_bytes());
    out[5..].copy_from_slice(&encode_step(step));
    out
}

/// A checkpoint record.
pub fn encode_checkpoint(steps: u64, digest: u64) -> [u8; 17] {
    let mut out = [0u8; 17];
    out[0] = TAG_CHECKPOINT;
    out[1..9].copy_from_slice(&steps.to_le_bytes());
    out[9..].copy_from_slice(&digest.to_le_bytes());
    out
}

/// The end record, given the checksum of every byte before it plus its own first 17 bytes
/// (`checksum_so_far` covers the file up to, not including, the end record).
pub fn encode_end(steps: u64, lost_steps: u64, checksum_so_far: u64) -> [u8; END_LEN] {
    let mut out = [0u8; END_LEN];
    out[0] = TAG_END;
    out[1..9].copy_from_slice(&steps.to_le_bytes());
    out[9..17].copy_from_slice(&lost_steps.to_le_bytes());
    let checksum = fnv1a(checksum_so_far, &out[..17]);
    out[17..].copy_from_slice(&checksum.to_le_bytes());
    out
}

/// Encodes a whole recording (the recorder streams the same bytes piece by piece).
pub fn encode(recording: &Recording) -> Vec<u8> {
    let mut out = encode_header(&recording.header);
    let mut checkpoints = recording.checkpoints.iter().peekable();
    let mut done = 0u64;
    for (count, step) in &recording.runs {
        out.extend_from_slice(&encode_run(*count, step));
        done += u64::from(*count);
        while let Some((at, digest)) = checkpoints.next_if(|(at, _)| *at <= done) {
            out.extend_from_slice(&encode_checkpoint(*at, *digest));
        }
    }
    for (at, digest) in checkpoints {
        out.extend_from_slice(&encode_checkpoint(*at, *digest));
    }
    let checksum = fnv1a(FNV_OFFSET, &out);
    out.extend_from_slice(&encode_end(recording.steps, recording.lost_steps, checksum));
    out
}

/// A cursor that checks every read against the bytes left.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], FormatError> {
        if self.bytes.len() - self.at < n {
            return Err(FormatError::Malformed {
                offset: self.at,
                what,
            });
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], FormatError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, FormatError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, FormatError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    fn text(&mut self, what: &'static str) -> Result<String, FormatError> {
        let len = self.u32(what)? as usize;
        let offset = self.at;
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| FormatError::Malformed {
            offset,
            what: "text is not UTF-8",
        })
    }
}

/// Decodes a recording: magic, version, end record and checksum first (so a damaged file is
/// reported as damaged), then the header and every record.
pub fn decode(bytes: &[u8]) -> Result<Recording, FormatError> {
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        return Err(FormatError::NotARecording);
    }
    let mut version = FORMAT_VERSION;
    if bytes.len() >= 10 {
        version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != FORMAT_VERSION && version != FORMAT_VERSION_NO_LINE {
            return Err(FormatError::UnsupportedVersion { found: version });
        }
    }
    if bytes.len() < 10 + END_LEN || bytes[bytes.len() - END_LEN] != TAG_END {
        return Err(FormatError::Truncated);
    }
    let content = &bytes[..bytes.len() - 8];
    let mut stored = [0u8; 8];
    stored.copy_from_slice(&bytes[bytes.len() - 8..]);
    let stored = u64::from_le_bytes(stored);
    let computed = fnv1a(FNV_OFFSET, content);
    if stored != computed {
        return Err(FormatError::Checksum { stored, computed });
    }
    let end_at = bytes.len() - END_LEN;
    let mut reader = Reader {
        bytes: &bytes[..end_at],
        at: 10,
    };
    let mut header = Header {
        rigd_version: reader.text("rigd version")?,
        build: reader.text("build fingerprint")?,
        rate_hz: reader.u32("rate")?,
        robots: reader.u32("robots")?,
        car_name: reader.text("car name")?,
        car_toml: reader.text("car data")?,
        track_name: reader.text("track name")?,
        track_toml: reader.text("track data")?,
        robot_line_name: String::new(),
        robot_line_text: String::new(),
    };
    if version == FORMAT_VERSION {
        header.robot_line_name = reader.text("robot line name")?;
        header.robot_line_text = reader.text("robot line data")?;
    }
    if header.rate_hz == 0 {
        return Err(FormatError::Malformed {
            offset: 10,
            what: "rate of 0 Hz",
        });
    }
    let mut runs = Vec::new();
    let mut checkpoints = Vec::new();
    let mut steps = 0u64;
    while reader.at < end_at {
        let offset = reader.at;
        match reader.array::<1>("record tag")?[0] {
            TAG_RUN => {
                let count = reader.u32("run length")?;
                if count == 0 {
                    return Err(FormatError::Malformed {
                        offset,
                        what: "run of 0 steps",
                    });
                }
                let step = decode_step(&reader.array("step input")?, offset)?;
                steps += u64::from(count);
                runs.push((count, step));
            }
            TAG_CHECKPOINT => {
                let at = reader.u64("checkpoint step")?;
                let digest = reader.u64("checkpoint digest")?;
                // A checkpoint directly follows the run that completes its step.
                if at != steps || checkpoints.last().is_some_and(|(last, _)| *last >= at) {
                    return Err(FormatError::Malformed {
                        offset,
                        what: "checkpoint out of place",
                    });
                }
                checkpoints.push((at, digest));
            }
            _ => {
                return Err(FormatError::Malformed {
                    offset,
                    what: "unknown record tag",
                })
            }
        }
    }
    let mut end = Reader {
        bytes: &bytes[end_at + 1..],
        at: 0,
    };
    let total = end.u64("step count")?;
    let lost_steps = end.u64("lost steps")?;
    if total != steps {
        return Err(FormatError::Malformed {
            offset: end_at,
            what: "step count does not match the runs",
        });
    }
    Ok(Recording {
        header,
        runs,
        checkpoints,
        steps,
        lost_steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            rigd_version: "0.1.0".into(),
            build: "abc123".into(),
            rate_hz: 1000,
            robots: 2,
            car_name: "road".into(),
            car_toml: "[car]\n".into(),
            track_name: "circuit".into(),
            track_toml: "[track]\n".into(),
            robot_line_name: "lines/circuit.toml".into(),
            robot_line_text: "format = 1\n".into(),
        }
    }

    fn sample() -> Recording {
        let driving = StepInput {
            connected: true,
            reset: false,
            controls: Controls {
                steering: -0.25,
                throttle: 0.5,
                gear_request: GearRequest::Select(-1),
                ..Controls::SAFE_STOP
            },
        };
        let reset = StepInput {
            reset: true,
            ..driving
        };
        Recording {
            header: header(),
            runs: vec![(1000, driving), (500, driving), (1, reset), (499, driving)],
            checkpoints: vec![(1000, 7), (2000, 9)],
            steps: 2000,
            lost_steps: 0,
        }
    }

    #[test]
    fn a_recording_round_trips_and_runs_are_compact() {
        let recording = sample();
        let bytes = encode(&recording);
        assert_eq!(decode(&bytes).unwrap(), recording);
        let header_len = encode_header(&recording.header).len();
        // 4 runs of 49 bytes and 2 checkpoints of 17 for 2000 steps.
        assert_eq!(bytes.len(), header_len + 4 * 49 + 2 * 17 + END_LEN);
    }

    #[test]
    fn every_single_flipped_byte_is_rejected() {
        let bytes = encode(&sample());
        for i in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x10;
            assert!(decode(&damaged).is_err(), "flip at byte {i} accepted");
        }
    }

    #[test]
    fn every_truncation_is_rejected() {
        let bytes = encode(&sample());
        for len in 0..bytes.len() {
            assert!(decode(&bytes[..len]).is_err(), "cut at {len} accepted");
        }
    }

    #[test]
    fn a_version_1_recording_reads_as_one_without_a_line() {
        let recording = sample();
        let bytes = encode(&recording);
        // Version 1: the same bytes without the header's two line texts (each a u32 length
        // and its bytes), the version patched and the checksum recomputed.
        let header_len = encode_header(&recording.header).len();
        let line_len =
            8 + recording.header.robot_line_name.len() + recording.header.robot_line_text.len();
        let mut v1 = bytes[..header_len - line_len].to_vec();
        v1[8..10].copy_from_slice(&FORMAT_VERSION_NO_LINE.to_le_bytes());
        v1.extend_from_slice(&bytes[header_len..bytes.len() - END_LEN]);
        let checksum = fnv1a(FNV_OFFSET, &v1);
        v1.extend_from_slice(&encode_end(recording.steps, recording.lost_steps, checksum));
        let decoded = decode(&v1).unwrap();
        assert_eq!(decoded.header.robot_line_name, "");
        assert_eq!(decoded.header.robot_line_text, "");
        assert_eq!(decoded.header.track_toml, recording.header.track_toml);
        assert_eq!(decoded.runs, recording.runs);
        let mut v3 = bytes.clone();
        v3[8..10].copy_from_slice(&3u16.to_le_bytes());
        assert_eq!(
            decode(&v3),
            Err(FormatError::UnsupportedVersion { found: 3 })
        );
    }

    #[test]
    fn fnv1a_matches_the_published_test_vector() {
        // FNV-1a 64 of "a" from the FNV reference test suite.
        assert_eq!(fnv1a(FNV_OFFSET, b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
