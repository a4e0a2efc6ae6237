//! Live for Speed (docs/InSim.txt, docs/OutSimPack.txt): OutSim on the first listen port,
//! classic (64 bytes) or OutSimPack2 with the options [`PACK2_OPTIONS`] (header, time, main,
//! drive, wheels: 240 bytes), and OutGauge (92 bytes) on the second, as docs/games/lfs.md
//! configures them. LFS's world is z up like rigd's; vectors are world-frame; heading is
//! anticlockwise from world +y (rigd's yaw less 90 degrees); position is metres x 65536.

use super::{beamng, random_bytes, Bytes, Datagram, GamePackets};
use crate::game_e2e::car::{CarFrame, GEAR, RPM, SUSPENSION_M};

/// `OutSim Opts` of the OutSimPack2 stream: header, time, main, drive and wheels.
pub const PACK2_OPTIONS: u16 = 0x01 | 0x04 | 0x08 | 0x20 | 0x80;

/// The 60-byte `OSMain` block at `at`.
fn os_main(p: &mut Bytes, at: usize, car: &CarFrame) {
    p.f32s(at, &[0.0, 0.0, car.yaw_rate_radps]) // AngVel (world)
        .f32(at + 12, car.yaw_rad - std::f64::consts::FRAC_PI_2) // Heading
        .f32(at + 16, 0.0) // Pitch
        .f32(at + 20, 0.0) // Roll
        .f32s(at + 24, &car.accel_world_mps2()) // Accel (world)
        .f32s(at + 36, &car.velocity_world_mps); // Vel (world)
    for k in 0..3 {
        p.i32(
            at + 48 + 4 * k,
            (car.position_m[k] * 65536.0).round() as i32,
        ); // Pos
    }
}

fn time_ms(car: &CarFrame) -> u32 {
    (car.game_time_s * 1000.0).round() as u32
}

/// A classic OutSim packet (no ID).
pub fn outsim(car: &CarFrame) -> Vec<u8> {
    let mut p = Bytes::zeros(64);
    p.u32(0, time_ms(car));
    os_main(&mut p, 4, car);
    p.done()
}

/// An OutSimPack2 packet of [`PACK2_OPTIONS`].
pub fn outsim_pack2(car: &CarFrame) -> Vec<u8> {
    let mut p = Bytes::zeros(240);
    p.raw(0, b"LFST").u32(4, time_ms(car));
    os_main(&mut p, 8, car);
    let engine_radps = RPM * std::f64::consts::TAU / 60.0;
    p.u8(68, (GEAR + 1) as u8) // Gear: 0 R, 1 N, 2 first
        .f32(72, engine_radps); // EngineAngVel
    for wheel in 0..4 {
        let at = 80 + 40 * wheel; // RL, RR, FL, FR
        p.f32(at, SUSPENSION_M) // SuspDeflect
            .f32(at + 16, 3500.0) // VerticalLoad
            .f32(at + 20, car.speed_mps / 0.3) // AngVel
            .u8(at + 28, 40); // AirTemp
    }
    p.done()
}

/// LFS at 60 Hz: OutSim (classic or Pack2) and OutGauge.
#[derive(Debug)]
pub struct Lfs {
    pack2: bool,
    seed: u64,
}

impl Lfs {
    pub fn classic() -> Lfs {
        Lfs {
            pack2: false,
            seed: 0x1f5,
        }
    }
    pub fn pack2() -> Lfs {
        Lfs {
            pack2: true,
            seed: 0x1f5,
        }
    }
}

impl GamePackets for Lfs {
    fn frame(&mut self, car: &CarFrame) -> Vec<Datagram> {
        let motion = if self.pack2 {
            outsim_pack2(car)
        } else {
            outsim(car)
        };
        vec![
            Datagram::to_first(motion),
            Datagram {
                port: 1,
                bytes: beamng::outgauge(car, time_ms(car), false),
            },
        ]
    }

    fn corrupt(&mut self, car: &CarFrame) -> Vec<Vec<u8>> {
        // OutSim cut short; random bytes of exactly OutSim's and OutGauge's sizes (neither has
        // a magic: the decoder tells them by values no car has); with Pack2, its size
        // without the LFST header.
        let mut out = vec![
            outsim(car)[..60].to_vec(),
            random_bytes(&mut self.seed, 64),
            random_bytes(&mut self.seed, 68),
            random_bytes(&mut self.seed, 92),
            random_bytes(&mut self.seed, 96),
        ];
        if self.pack2 {
            let mut no_magic = outsim_pack2(car);
            no_magic[..4].copy_from_slice(b"LFSX");
            out.push(no_magic);
            out.push(random_bytes(&mut self.seed, 280));
        }
        out
    }

    fn foreign(&self, car: &CarFrame) -> Vec<Vec<u8>> {
        super::foreign(car, "lfs")
    }

    fn rate_hz(&self) -> f64 {
        120.0
    }
}
