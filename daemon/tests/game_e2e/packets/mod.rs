//! Each fake game's datagrams, written byte by byte at the offsets of the game's published
//! layout (independent of rigd's decoders and wire structs), from the test's [`CarFrame`]:
//! one module per game, each converting rigd's axes to the game's own.
//!
//! A game also says what it must not be fooled by: [`GamePackets::corrupt`] gives datagrams of
//! its own sizes or headers that are broken (wrong size, wrong magic, a corrupted cipher), and
//! [`foreign`] valid packets of other games, which the bridge counts as garbage once it reads
//! this game.

pub mod beamng;
pub mod codemasters;
pub mod ea_wrc;
pub mod f1;
pub mod forza;
pub mod gt7;
pub mod lfs;

use super::car::CarFrame;

/// One datagram and which of the game's listen ports it goes to (0: the first).
#[derive(Debug, Clone)]
pub struct Datagram {
    pub port: usize,
    pub bytes: Vec<u8>,
}

impl Datagram {
    pub fn to_first(bytes: Vec<u8>) -> Datagram {
        Datagram { port: 0, bytes }
    }
}

/// A game's packets.
pub trait GamePackets: Send {
    /// The datagrams the game sends for one frame.
    fn frame(&mut self, car: &CarFrame) -> Vec<Datagram>;
    /// Broken datagrams of this game's own sizes or headers (never readable).
    fn corrupt(&mut self, car: &CarFrame) -> Vec<Vec<u8>>;
    /// Valid datagrams of another game (foreign once the bridge reads this game).
    fn foreign(&self, car: &CarFrame) -> Vec<Vec<u8>>;
    /// Datagrams a second the bridge accepts while the game runs at 60 frames a second.
    fn rate_hz(&self) -> f64;
}

/// A datagram under construction: little-endian values at explicit offsets.
#[derive(Debug, Clone)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    pub fn zeros(len: usize) -> Bytes {
        Bytes(vec![0; len])
    }
    pub fn raw(&mut self, at: usize, bytes: &[u8]) -> &mut Bytes {
        self.0[at..at + bytes.len()].copy_from_slice(bytes);
        self
    }
    pub fn u8(&mut self, at: usize, v: u8) -> &mut Bytes {
        self.raw(at, &[v])
    }
    pub fn i8(&mut self, at: usize, v: i8) -> &mut Bytes {
        self.raw(at, &v.to_le_bytes())
    }
    pub fn u16(&mut self, at: usize, v: u16) -> &mut Bytes {
        self.raw(at, &v.to_le_bytes())
    }
    pub fn i16(&mut self, at: usize, v: i16) -> &mut Bytes {
        self.raw(at, &v.to_le_bytes())
    }
    pub fn u32(&mut self, at: usize, v: u32) -> &mut Bytes {
        self.raw(at, &v.to_le_bytes())
    }
    pub fn i32(&mut self, at: usize, v: i32) -> &mut Bytes {
        self.raw(at, &v.to_le_bytes())
    }
    pub fn u64(&mut self, at: usize, v: u64) -> &mut Bytes {
        self.raw(at, &v.to_le_bytes())
    }
    pub fn f32(&mut self, at: usize, v: f64) -> &mut Bytes {
        self.raw(at, &(v as f32).to_le_bytes())
    }
    pub fn f64(&mut self, at: usize, v: f64) -> &mut Bytes {
        self.raw(at, &v.to_le_bytes())
    }
    /// Consecutive f32 values from `at`.
    pub fn f32s(&mut self, at: usize, vs: &[f64]) -> &mut Bytes {
        for (i, v) in vs.iter().enumerate() {
            self.f32(at + 4 * i, *v);
        }
        self
    }
    pub fn done(&self) -> Vec<u8> {
        self.0.clone()
    }
}

/// Deterministic pseudo-random bytes.
pub fn random_bytes(seed: &mut u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (*seed >> 33) as u8
        })
        .collect()
}

/// Valid packets of two other games than `not`: a Forza Sled, a Codemasters extradata=3 and
/// an F1 25 Motion packet, minus the one that is `not`'s.
pub fn foreign(car: &CarFrame, not: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if not != "forza" {
        out.push(forza::sled(car));
    }
    if not != "codemasters" {
        out.push(codemasters::packet(car));
    }
    if not != "f1" && out.len() < 2 {
        out.push(f1::motion(f1::Year::F1_25, car));
    }
    out
}
