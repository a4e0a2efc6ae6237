//! Tyre property files (.tir): the built-in set shipped as a file gives the built-in table's
//! forces; a published MF 6.1 set read from its file gives the forces of the MF 6.1 equations
//! as written out here (an oracle of our own, reading the file with its own few lines, scalar,
//! library trigonometry); bad files are refused with file, line and the fix.

use rig_physics::tyre::mf61::{GripScale, MfVersion, PACEJKA_2006_205_60R15};
use rig_physics::tyre::{tir, BUILTIN_TIR};
use std::collections::HashMap;

const EXAMPLE: &str = include_str!("data/mf61_example.tir");

fn close(label: &str, ours: f64, reference: f64, relative: f64, absolute: f64) {
    assert!(
        (ours - reference).abs() <= absolute.max(relative * reference.abs()),
        "{label}: ours {ours}, reference {reference}"
    );
}

#[test]
fn builtin_set_as_a_file_gives_the_builtin_table_forces() {
    let parsed = tir::parse(BUILTIN_TIR, "builtin.tir").unwrap();
    assert_eq!(parsed.mf, PACEJKA_2006_205_60R15);
    assert_eq!(parsed.grip, GripScale::UNITY);
    assert_eq!(parsed.unloaded_radius_m, 0.313);
    let (file, table) = (parsed.mf.prepare(), PACEJKA_2006_205_60R15.prepare());
    for kappa in [-0.3, -0.05, 0.0, 0.02, 0.12] {
        for tan_alpha in [-0.2, -0.02, 0.0, 0.05, 0.3] {
            for gamma in [-0.05, 0.0, 0.035] {
                for load in [1500.0, 4000.0, 7000.0] {
                    let grip = GripScale::UNITY;
                    let a = file.combined_cambered(kappa, tan_alpha, gamma, load, grip);
                    let b = table.combined_cambered(kappa, tan_alpha, gamma, load, grip);
                    for (x, y) in [(a.fx, b.fx), (a.fy, b.fy), (a.mz, b.mz)] {
                        close("file vs table", x, y, 1e-12, 1e-12);
                    }
                }
            }
        }
    }
}

/// The file's numbers, read independently of the parser (KEY = number lines; comments cut).
fn coefficients(text: &str) -> HashMap<String, f64> {
    text.lines()
        .filter_map(|line| {
            let line = line.split(['$', '!']).next()?;
            let (key, value) = line.split_once('=')?;
            Some((key.trim().to_string(), value.trim().parse::<f64>().ok()?))
        })
        .collect()
}

struct Oracle {
    c: HashMap<String, f64>,
}

impl Oracle {
    fn k(&self, key: &str) -> f64 {
        self.c.get(key).copied().unwrap_or(0.0)
    }

    /// MF 6.1 (Pacejka 2012 ch. 4.3.2 / Besselink 2010) at nominal pressure, no turn slip,
    /// all scaling factors 1 (the example's are), alpha* = tan(alpha) for forces and moment,
    /// gamma* = sin(gamma), sgn(0) = +1. Returns (Fx, Fy, Mz).
    fn forces(&self, kappa: f64, tan_alpha: f64, gamma: f64, fz: f64) -> (f64, f64, f64) {
        let k = |key: &str| self.k(key);
        let sgn = |x: f64| if x >= 0.0 { 1.0 } else { -1.0 };
        let mf = |b: f64, c: f64, e: f64, x: f64| {
            let bx = b * x;
            c * (bx - e * (bx - bx.atan())).atan()
        };
        let fz0 = k("FNOMIN");
        let r0 = k("UNLOADED_RADIUS");
        let dfz = (fz - fz0) / fz0;
        let g = gamma.sin();
        let a = tan_alpha;
        let cos_a = 1.0 / (1.0 + a * a).sqrt();

        // Longitudinal, pure.
        let cx = k("PCX1");
        let mux = (k("PDX1") + k("PDX2") * dfz) * (1.0 - k("PDX3") * g * g);
        let dx = mux * fz;
        let kxk = fz * (k("PKX1") + k("PKX2") * dfz) * (k("PKX3") * dfz).exp();
        let bx = kxk / (cx * dx);
        let shx = k("PHX1") + k("PHX2") * dfz;
        let svx = fz * (k("PVX1") + k("PVX2") * dfz);
        let kx = kappa + shx;
        let ex = ((k("PEX1") + k("PEX2") * dfz + k("PEX3") * dfz * dfz)
            * (1.0 - k("PEX4") * sgn(kx)))
        .min(1.0);
        let fx0 = dx * mf(bx, cx, ex, kx).sin() + svx;

        // Lateral, pure.
        let cy = k("PCY1");
        let muy = (k("PDY1") + k("PDY2") * dfz) * (1.0 - k("PDY3") * g * g);
        let dy = muy * fz;
        let kya = k("PKY1")
            * fz0
            * (k("PKY4") * (fz / ((k("PKY2") + k("PKY5") * g * g) * fz0)).atan()).sin()
            * (1.0 - k("PKY3") * g.abs());
        let kyg0 = fz * (k("PKY6") + k("PKY7") * dfz);
        let svyg = fz * (k("PVY3") + k("PVY4") * dfz) * g;
        let shy = k("PHY1") + k("PHY2") * dfz + (kyg0 * g - svyg) / kya;
        let svy = fz * (k("PVY1") + k("PVY2") * dfz) + svyg;
        let ay = a + shy;
        let ey = ((k("PEY1") + k("PEY2") * dfz)
            * (1.0 + k("PEY5") * g * g - (k("PEY3") + k("PEY4") * g) * sgn(ay)))
        .min(1.0);
        let by = kya / (cy * dy);
        let fy0 = dy * mf(by, cy, ey, ay).sin() + svy;

        // Combined.
        let bxa = (k("RBX1") + k("RBX3") * g * g) * (k("RBX2") * kappa).atan().cos();
        let exa = (k("REX1") + k("REX2") * dfz).min(1.0);
        let shxa = k("RHX1");
        let gxa = mf(bxa, k("RCX1"), exa, a + shxa).cos() / mf(bxa, k("RCX1"), exa, shxa).cos();
        let fx = gxa * fx0;
        let byk = (k("RBY1") + k("RBY4") * g * g) * (k("RBY2") * (a - k("RBY3"))).atan().cos();
        let eyk = (k("REY1") + k("REY2") * dfz).min(1.0);
        let shyk = k("RHY1") + k("RHY2") * dfz;
        let gyk = mf(byk, k("RCY1"), eyk, kappa + shyk).cos() / mf(byk, k("RCY1"), eyk, shyk).cos();
        let dvyk =
            muy * fz * (k("RVY1") + k("RVY2") * dfz + k("RVY3") * g) * (k("RVY4") * a).atan().cos();
        let svyk = dvyk * (k("RVY5") * (k("RVY6") * kappa).atan()).sin();
        let fy = gyk * fy0 + svyk;

        // Aligning moment.
        let sht = k("QHZ1") + k("QHZ2") * dfz + (k("QHZ3") + k("QHZ4") * dfz) * g;
        let shf = shy + svy / kya;
        let at = a + sht;
        let ar = a + shf;
        let kk = (kxk / kya * kappa).powi(2);
        let at_eq = (at * at + kk).sqrt() * sgn(at);
        let ar_eq = (ar * ar + kk).sqrt() * sgn(ar);
        let bt = (k("QBZ1") + k("QBZ2") * dfz + k("QBZ3") * dfz * dfz)
            * (1.0 + k("QBZ5") * g.abs() + k("QBZ6") * g * g);
        let ct = k("QCZ1");
        let dt = fz
            * (r0 / fz0)
            * (k("QDZ1") + k("QDZ2") * dfz)
            * (1.0 + k("QDZ3") * g.abs() + k("QDZ4") * g * g);
        let et = ((k("QEZ1") + k("QEZ2") * dfz + k("QEZ3") * dfz * dfz)
            * (1.0
                + (k("QEZ4") + k("QEZ5") * g)
                    * std::f64::consts::FRAC_2_PI
                    * (bt * ct * at).atan()))
        .min(1.0);
        let trail = dt * mf(bt, ct, et, at_eq).cos() * cos_a;
        let br = k("QBZ9") + k("QBZ10") * by * cy;
        let dr = fz
            * r0
            * ((k("QDZ6") + k("QDZ7") * dfz)
                + ((k("QDZ8") + k("QDZ9") * dfz) + (k("QDZ10") + k("QDZ11") * dfz) * g.abs()) * g)
            * cos_a;
        let mzr = dr * (br * ar_eq).atan().cos() * cos_a;
        let s = r0 * (k("SSZ1") + k("SSZ2") * fy / fz0 + (k("SSZ3") + k("SSZ4") * dfz) * g);
        let mz = -trail * (fy - svyk) + mzr + s * fx;
        (fx, fy, mz)
    }
}

#[test]
fn builtin_set_follows_the_mf61_equations_with_the_tables_camber_coefficients() {
    // Pacejka (2006) Table A3.1's camber part as both public transcriptions give it
    // (docs/tyres.md): MF 6.1's camber stiffness PKY6, PKY7 and Bt's QBZ5; no PHY3, no QBZ4.
    let c = coefficients(BUILTIN_TIR);
    assert_eq!(c["FITTYP"], 61.0);
    for (key, table) in [
        ("PDY3", -11.23),
        ("PEY3", -0.083),
        ("PEY4", -4.787),
        ("PKY3", -0.028),
        ("PKY6", -0.92),
        ("PKY7", -0.24),
        ("PVY3", -0.532),
        ("PVY4", 0.039),
        ("RVY3", 0.517),
        ("QBZ5", -0.227),
        ("QDZ3", 0.007),
        ("QDZ4", 13.05),
        ("QDZ8", -0.296),
        ("QDZ9", -0.009),
        ("QEZ5", -0.896),
        ("QHZ3", 0.147),
        ("QHZ4", 0.004),
        ("SSZ3", 0.731),
        ("SSZ4", -0.238),
    ] {
        assert_eq!(c.get(key), Some(&table), "{key}");
    }
    for absent in [
        "PHY3", "QBZ4", "PKY5", "PEY5", "QBZ6", "QDZ10", "QDZ11", "RBX3", "RBY4",
    ] {
        assert!(!c.contains_key(absent), "{absent} is not in the table");
    }
    let oracle = Oracle { c };
    let table = PACEJKA_2006_205_60R15.prepare();
    for load in [2000.0, 4000.0, 6500.0] {
        for kappa in [-0.1, 0.0, 0.05] {
            for tan_alpha in [-0.12, 0.0, 0.03] {
                for gamma_deg in [-4.0, 0.0, 2.0, 5.0] {
                    let gamma = f64::to_radians(gamma_deg);
                    let ours =
                        table.combined_cambered(kappa, tan_alpha, gamma, load, GripScale::UNITY);
                    let (fx, fy, mz) = oracle.forces(kappa, tan_alpha, gamma, load);
                    let at = format!(
                        "Fz {load} kappa {kappa} tan(alpha) {tan_alpha} gamma {gamma_deg} deg"
                    );
                    close(&format!("Fx at {at}"), ours.fx, fx, 1e-9, 1e-6);
                    close(&format!("Fy at {at}"), ours.fy, fy, 1e-9, 1e-6);
                    close(&format!("Mz at {at}"), ours.mz, mz, 1e-9, 1e-6);
                }
            }
        }
    }
}

#[test]
fn published_mf61_set_from_its_file_matches_the_equations() {
    let parsed = tir::parse(EXAMPLE, "tests/data/mf61_example.tir").unwrap();
    assert_eq!(parsed.mf.version, MfVersion::Mf61);
    assert_eq!(parsed.mf.fnomin, 6752.0);
    assert_eq!(parsed.vertical_stiffness_n_per_m, Some(314931.2969));
    let oracle = Oracle {
        c: coefficients(EXAMPLE),
    };
    let p = parsed.mf.prepare();
    let mut checked = 0;
    for load in [2500.0, 6752.0, 11_000.0] {
        for kappa in [-0.12, 0.0, 0.03, 0.2] {
            for tan_alpha in [-0.15, -0.01, 0.0, 0.04, 0.25] {
                for gamma_deg in [-3.0, 0.0, 2.0, 5.0] {
                    let gamma = f64::to_radians(gamma_deg);
                    let ours = p.combined_cambered(kappa, tan_alpha, gamma, load, parsed.grip);
                    let (fx, fy, mz) = oracle.forces(kappa, tan_alpha, gamma, load);
                    let at = format!(
                        "Fz {load} kappa {kappa} tan(alpha) {tan_alpha} gamma {gamma_deg} deg"
                    );
                    close(&format!("Fx at {at}"), ours.fx, fx, 1e-9, 1e-6);
                    close(&format!("Fy at {at}"), ours.fy, fy, 1e-9, 1e-6);
                    close(&format!("Mz at {at}"), ours.mz, mz, 1e-9, 1e-6);
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 240);
    // Camber matters in this set: 5 degrees moves the lateral force at zero slip by > 500 N.
    let upright = p.combined_cambered(0.0, 0.0, 0.0, 6752.0, parsed.grip).fy;
    let leaned = p
        .combined_cambered(0.0, 0.0, 5f64.to_radians(), 6752.0, parsed.grip)
        .fy;
    assert!((leaned - upright).abs() > 500.0, "{upright} vs {leaned}");
}

/// The example file with `edit` applied to its text.
fn broken(edit: impl Fn(&str) -> String) -> String {
    edit(EXAMPLE)
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn bad_files_are_refused_with_file_line_and_fix() {
    let origin = "front.tir";
    // Missing section: reported at the end of the file.
    let text = broken(|t| {
        // [ALIGNING_COEFFICIENTS] is the file's last section.
        let start = t.find("\n[ALIGNING_COEFFICIENTS]").unwrap();
        format!("{}\n", &t[..start])
    });
    let err = tir::parse(&text, origin).unwrap_err();
    assert_eq!(err.line, text.lines().count(), "{err}");
    assert!(err.to_string().starts_with("front.tir:"), "{err}");
    assert!(
        err.message.contains("no [ALIGNING_COEFFICIENTS] section"),
        "{err}"
    );

    // Unknown key in a coefficient section (a typo).
    let text = broken(|t| t.replace("PKY6 ", "PYK6 "));
    let err = tir::parse(&text, origin).unwrap_err();
    assert_eq!(err.line, line_of(&text, "PYK6"), "{err}");
    assert_eq!(err.field, "LATERAL_COEFFICIENTS.PYK6");
    assert!(err.message.contains("unknown key PYK6") && err.message.contains("spelling"));

    // Wrong units: an unknown length unit, and degrees.
    let text = broken(|t| t.replace("'meter'", "'furlong'"));
    let err = tir::parse(&text, origin).unwrap_err();
    assert_eq!(err.line, line_of(&text, "furlong"), "{err}");
    assert!(err.message.contains("unknown LENGTH unit 'furlong'") && err.message.contains("meter"));
    let text = broken(|t| t.replace("'radians'", "'degrees'"));
    let err = tir::parse(&text, origin).unwrap_err();
    assert_eq!(err.line, line_of(&text, "degrees"), "{err}");
    assert!(err.message.contains("ANGLE = 'radians'"), "{err}");

    // Negative dimension.
    let text = broken(|t| {
        t.replace(
            "UNLOADED_RADIUS          = 0.3943",
            "UNLOADED_RADIUS = -0.3943",
        )
    });
    let err = tir::parse(&text, origin).unwrap_err();
    assert_eq!(err.line, line_of(&text, "UNLOADED_RADIUS"), "{err}");
    assert!(err.message.contains("must be positive"), "{err}");

    // Missing required coefficient: reported at its section.
    let text = broken(|t| {
        t.lines()
            .filter(|l| !l.starts_with("PCY1"))
            .collect::<Vec<_>>()
            .join("\n")
    });
    let err = tir::parse(&text, origin).unwrap_err();
    assert_eq!(err.line, line_of(&text, "[LATERAL_COEFFICIENTS]"), "{err}");
    assert!(
        err.message.contains("no PCY1") && err.message.contains("add PCY1"),
        "{err}"
    );

    // A value that is not a number.
    let text = broken(|t| t.replace("PDX1                     = 1.1632", "PDX1 = 1.16.32"));
    let err = tir::parse(&text, origin).unwrap_err();
    assert_eq!(err.line, line_of(&text, "1.16.32"), "{err}");

    // Units converted: the same tyre in millimetres and kilonewtons gives the same set.
    let text = broken(|t| {
        t.replace("'meter'", "'mm'")
            .replace("'newton'", "'kN'")
            .replace("= 0.3943", "= 394.3")
            .replace("= 0.255", "= 255")
            .replace("= 0.2159", "= 215.9")
            .replace("= 0.254 ", "= 254 ")
            .replace("= 6752", "= 6.752")
            .replace("= 314931.2969", "= 0.3149312969")
    });
    let converted = tir::parse(&text, origin).unwrap();
    let reference = tir::parse(EXAMPLE, origin).unwrap();
    close("R0", converted.mf.r0, reference.mf.r0, 1e-15, 0.0);
    close(
        "FNOMIN",
        converted.mf.fnomin,
        reference.mf.fnomin,
        1e-15,
        0.0,
    );
    close(
        "stiffness",
        converted.vertical_stiffness_n_per_m.unwrap(),
        reference.vertical_stiffness_n_per_m.unwrap(),
        1e-12,
        0.0,
    );
}

#[test]
fn a_car_takes_its_tyre_from_a_tir_path_relative_to_the_car_file() {
    let dir = std::env::temp_dir().join(format!("rigd-tir-car-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("example.tir"), EXAMPLE).unwrap();
    let road = rig_physics::builtin::car_text("road").unwrap();
    let text = road.replace(
        "coefficients = \"pacejka2006_205_60r15\"",
        "coefficients = \"example.tir\"",
    );
    let car_path = dir.join("car.toml");
    std::fs::write(&car_path, &text).unwrap();
    let spec = rig_physics::spec::CarSpec::from_toml(&text, car_path.to_str().unwrap()).unwrap();
    assert_eq!(spec.tyre.mf().fnomin, 6752.0);
    assert_eq!(spec.tyre.mf().version, MfVersion::Mf61);

    // A bad file is reported against the .tir, with its line.
    std::fs::write(dir.join("example.tir"), EXAMPLE.replace("PKY6 ", "PYK6 ")).unwrap();
    let err = rig_physics::spec::CarSpec::from_toml(&text, car_path.to_str().unwrap()).unwrap_err();
    assert!(err.origin.ends_with("example.tir"), "{err}");
    assert!(err.line > 0, "{err}");
    // A missing file names the car's field and the path.
    std::fs::remove_file(dir.join("example.tir")).unwrap();
    let err = rig_physics::spec::CarSpec::from_toml(&text, car_path.to_str().unwrap()).unwrap_err();
    assert_eq!(err.field, "tyre.coefficients");
    assert!(
        err.message.contains("cannot read the tyre property file"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

proptest::proptest! {
    /// Any text, and any corruption of a good file, gives a set or an error: never a panic.
    #[test]
    fn parser_never_panics_on_any_text(text in "(?s).{0,400}") {
        let _ = tir::parse(&text, "fuzz.tir");
    }

    #[test]
    fn parser_never_panics_on_a_corrupted_file(
        cut in 0usize..4000,
        insert in "[\\[\\]=$!'\"A-Z0-9 .\\n-]{0,12}",
    ) {
        let mut text = EXAMPLE.to_string();
        let at = cut.min(text.len());
        if text.is_char_boundary(at) {
            text.insert_str(at, &insert);
        }
        if let Ok(tyre) = tir::parse(&text, "fuzz.tir") {
            proptest::prop_assert!(tyre.mf.fnomin > 0.0 && tyre.unloaded_radius_m > 0.0);
        }
    }
}
