//! Tyre property files (`.tir`, the TYDEX/ADAMS syntax MF-Tyre, PAC2002 and every fitting
//! tool exchange): text -> a Magic Formula coefficient set ([`Mf61`]) with the file's units
//! converted to SI and its scaling factors folded into the coefficients.
//!
//! Why here: a car's `[tyre] coefficients` names a built-in set or a `.tir` path; this module
//! owns reading such files and telling the user, with file and line, what is wrong in one.
//!
//! Syntax: `[SECTION]` headers; `KEY = value` lines, the value a number (Fortran `D`
//! exponents allowed) or a quoted string; `$` and `!` start a comment anywhere outside quotes.
//! Read sections: `[UNITS]`, `[MODEL]`, `[DIMENSION]`, `[OPERATING_CONDITIONS]`,
//! `[VERTICAL]`, `[INCLINATION_ANGLE_RANGE]`, `[LONGITUDINAL_COEFFICIENTS]`, `[LATERAL_COEFFICIENTS]`,
//! `[ALIGNING_COEFFICIENTS]`, `[SCALING_COEFFICIENTS]`; any other section (`[MDI_HEADER]`,
//! `[SHAPE]`, `[STRUCTURAL]`, `[OVERTURNING_COEFFICIENTS]`, `[TURNSLIP_COEFFICIENTS]`, ...)
//! is skipped unread, since nothing it holds is modelled. In the four coefficient sections
//! every key must be a known MF 5.2 / 6.1 name (a typo is an error, not a silent 0); the other
//! read sections take any key and read the ones listed in docs/tyres.md.
//!
//! Versions: `FITTYP = 61` is MF 6.1; `FITTYP = 6` or `21` (or `PROPERTY_FILE_FORMAT =
//! 'PAC2002'` without a FITTYP) is MF 5.2 ([`MfVersion`]). Coefficients a file leaves out are
//! 0 (PKY4: 2, scaling factors: 1) except the ones every fit has ([`REQUIRED`]), whose absence
//! is reported. Inflation-pressure terms are read but the tyre runs at its nominal pressure:
//! a file whose `INFLPRES` differs from `NOMPRES` is refused.

use super::mf61::{GripScale, Mf61, MfVersion, DEFAULT_CAMBER_RANGE_RAD};
use crate::data::DataError;
use std::collections::BTreeMap;

/// What a `.tir` file gives the car's tyre.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TirTyre {
    /// The coefficients, SI, scaling factors folded in.
    pub mf: Mf61,
    /// The file's friction scales LMUX, LMUY (they multiply the car's and the surface's).
    pub grip: GripScale,
    /// `[DIMENSION] UNLOADED_RADIUS`, m.
    pub unloaded_radius_m: f64,
    /// `[VERTICAL] VERTICAL_STIFFNESS`, N/m, when the file gives it.
    pub vertical_stiffness_n_per_m: Option<f64>,
}

/// Sections whose keys are read.
const READ_SECTIONS: &[&str] = &[
    "UNITS",
    "MODEL",
    "DIMENSION",
    "OPERATING_CONDITIONS",
    "VERTICAL",
    "INCLINATION_ANGLE_RANGE",
    LONG,
    LAT,
    ALIGN,
    SCALING,
];
/// Sections a file must have.
const REQUIRED_SECTIONS: &[&str] = &["UNITS", "MODEL", "DIMENSION", "VERTICAL", LONG, LAT, ALIGN];
const LONG: &str = "LONGITUDINAL_COEFFICIENTS";
const LAT: &str = "LATERAL_COEFFICIENTS";
const ALIGN: &str = "ALIGNING_COEFFICIENTS";
const SCALING: &str = "SCALING_COEFFICIENTS";

/// Known keys of the coefficient sections (MF 5.2, 6.1 and 6.2 names; the pressure, turn-slip
/// relaxation and gyroscopic ones are accepted and not used).
const LONG_KEYS: &[&str] = &[
    "PCX1", "PDX1", "PDX2", "PDX3", "PEX1", "PEX2", "PEX3", "PEX4", "PKX1", "PKX2", "PKX3", "PHX1",
    "PHX2", "PVX1", "PVX2", "PPX1", "PPX2", "PPX3", "PPX4", "RBX1", "RBX2", "RBX3", "RCX1", "REX1",
    "REX2", "RHX1", "PTX1", "PTX2", "PTX3",
];
const LAT_KEYS: &[&str] = &[
    "PCY1", "PDY1", "PDY2", "PDY3", "PEY1", "PEY2", "PEY3", "PEY4", "PEY5", "PKY1", "PKY2", "PKY3",
    "PKY4", "PKY5", "PKY6", "PKY7", "PHY1", "PHY2", "PHY3", "PVY1", "PVY2", "PVY3", "PVY4", "PPY1",
    "PPY2", "PPY3", "PPY4", "PPY5", "RBY1", "RBY2", "RBY3", "RBY4", "RCY1", "REY1", "REY2", "RHY1",
    "RHY2", "RVY1", "RVY2", "RVY3", "RVY4", "RVY5", "RVY6", "PTY1", "PTY2",
];
const ALIGN_KEYS: &[&str] = &[
    "QBZ1", "QBZ2", "QBZ3", "QBZ4", "QBZ5", "QBZ6", "QBZ9", "QBZ10", "QCZ1", "QDZ1", "QDZ2",
    "QDZ3", "QDZ4", "QDZ6", "QDZ7", "QDZ8", "QDZ9", "QDZ10", "QDZ11", "QEZ1", "QEZ2", "QEZ3",
    "QEZ4", "QEZ5", "QHZ1", "QHZ2", "QHZ3", "QHZ4", "PPZ1", "PPZ2", "SSZ1", "SSZ2", "SSZ3", "SSZ4",
    "QTZ1", "MBELT",
];
/// Scaling factors folded into the coefficients.
const FOLDED_SCALES: &[&str] = &[
    "LFZO", "LFZ0", "LCX", "LMUX", "LEX", "LKX", "LHX", "LVX", "LCY", "LMUY", "LEY", "LKY", "LKYC",
    "LKZC", "LHY", "LVY", "LTR", "LRES", "LXAL", "LYKA", "LVYKA", "LS",
];
/// Scaling factors of outputs rigd does not compute (overturning and rolling moments,
/// parking, relaxation, gyroscopic, speed): accepted, not used.
const UNUSED_SCALES: &[&str] = &[
    "LMX", "LVMX", "LMY", "LMP", "LSGKP", "LSGAL", "LGYR", "LCZ", "LMUV", "LIP", "LKZ",
];
/// Scaling factors that change modelled outputs in ways not implemented (MF 5.2's camber
/// scales): accepted only at 1.
const UNIT_ONLY_SCALES: &[&str] = &["LGAX", "LGAY", "LGAZ"];

/// Coefficients every fit has: a file without them is refused.
pub const REQUIRED: &[(&str, &str)] = &[
    ("DIMENSION", "UNLOADED_RADIUS"),
    ("VERTICAL", "FNOMIN"),
    (LONG, "PCX1"),
    (LONG, "PDX1"),
    (LONG, "PKX1"),
    (LAT, "PCY1"),
    (LAT, "PDY1"),
    (LAT, "PKY1"),
    (LAT, "PKY2"),
    (ALIGN, "QBZ1"),
    (ALIGN, "QCZ1"),
    (ALIGN, "QDZ1"),
];

/// One `KEY = value` of a read section.
#[derive(Debug, Clone)]
struct Entry {
    value: Value,
    line: usize,
    column: usize,
}

#[derive(Debug, Clone)]
enum Value {
    Number(f64),
    Text(String),
}

/// The file's entries by (section, key), and where each section starts.
struct Document<'a> {
    origin: &'a str,
    line_count: usize,
    sections: BTreeMap<String, usize>,
    entries: BTreeMap<(String, String), Entry>,
}

fn error(origin: &str, line: usize, column: usize, field: &str, message: String) -> DataError {
    DataError {
        origin: origin.to_string(),
        line,
        column,
        field: field.to_string(),
        message,
    }
}

/// The line without its comment (`$` or `!` outside quotes).
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '$' || c == '!' => return &line[..i],
            None => {}
        }
    }
    line
}

fn known_keys(section: &str) -> Option<Vec<&'static str>> {
    match section {
        LONG => Some(LONG_KEYS.to_vec()),
        LAT => Some(LAT_KEYS.to_vec()),
        ALIGN => Some(ALIGN_KEYS.to_vec()),
        SCALING => Some(
            FOLDED_SCALES
                .iter()
                .chain(UNUSED_SCALES)
                .chain(UNIT_ONLY_SCALES)
                .copied()
                .collect(),
        ),
        _ => None,
    }
}

fn parse_value(text: &str) -> Option<Value> {
    let first = text.chars().next()?;
    if first == '\'' || first == '"' {
        let inner = text[1..].strip_suffix(first)?;
        if inner.contains(first) {
            return None;
        }
        return Some(Value::Text(inner.to_string()));
    }
    let number = text.replace(['D', 'd'], "E");
    number
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(Value::Number)
}

impl<'a> Document<'a> {
    fn parse(text: &str, origin: &'a str) -> Result<Document<'a>, DataError> {
        let mut doc = Document {
            origin,
            line_count: 0,
            sections: BTreeMap::new(),
            entries: BTreeMap::new(),
        };
        let mut section: Option<String> = None;
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            doc.line_count = line;
            let content = strip_comment(raw);
            let trimmed = content.trim();
            if trimmed.is_empty() {
                continue;
            }
            let column = content.len() - content.trim_start().len() + 1;
            if let Some(rest) = trimmed.strip_prefix('[') {
                let Some(name) = rest.strip_suffix(']') else {
                    return Err(error(
                        origin,
                        line,
                        column,
                        "section",
                        format!("'{trimmed}' opens a section without closing it; write [NAME]"),
                    ));
                };
                let name = name.trim().to_ascii_uppercase();
                if doc.sections.insert(name.clone(), line).is_some() {
                    return Err(error(
                        origin,
                        line,
                        column,
                        &name,
                        format!("section [{name}] appears twice; merge the two into one"),
                    ));
                }
                section = Some(name);
                continue;
            }
            let Some(current) = section.as_deref() else {
                // Text before the first section (a banner) is not read.
                continue;
            };
            if !READ_SECTIONS.contains(&current) {
                continue;
            }
            let Some((key, value)) = trimmed.split_once('=') else {
                return Err(error(
                    origin,
                    line,
                    column,
                    current,
                    format!("'{trimmed}' in [{current}] is not a KEY = value line; write it as KEY = value or comment it out with $"),
                ));
            };
            let key = key.trim().to_ascii_uppercase();
            let field = format!("{current}.{key}");
            if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(error(
                    origin,
                    line,
                    column,
                    &field,
                    format!("'{key}' is not a key name (letters, digits and _ only)"),
                ));
            }
            if let Some(known) = known_keys(current) {
                if !known.contains(&key.as_str()) {
                    return Err(error(
                        origin,
                        line,
                        column,
                        &field,
                        format!(
                            "unknown key {key} in [{current}]; fix its spelling or remove it \
                             (docs/tyres.md lists the keys of MF 5.2 and 6.1 this section takes)"
                        ),
                    ));
                }
            }
            let value_text = value.trim();
            let Some(value) = parse_value(value_text) else {
                return Err(error(
                    origin,
                    line,
                    column,
                    &field,
                    format!("'{value_text}' is neither a finite number nor a quoted string; write e.g. {key} = 1.0"),
                ));
            };
            let entry = Entry {
                value,
                line,
                column,
            };
            if doc
                .entries
                .insert((current.to_string(), key.clone()), entry)
                .is_some()
            {
                return Err(error(
                    origin,
                    line,
                    column,
                    &field,
                    format!("{key} is given twice in [{current}]; keep one"),
                ));
            }
        }
        for required in REQUIRED_SECTIONS {
            if !doc.sections.contains_key(*required) {
                return Err(error(
                    origin,
                    doc.line_count,
                    1,
                    required,
                    format!(
                        "the file has no [{required}] section (it ends here); add it with its keys"
                    ),
                ));
            }
        }
        Ok(doc)
    }

    fn entry(&self, section: &str, key: &str) -> Option<&Entry> {
        self.entries.get(&(section.to_string(), key.to_string()))
    }

    /// Where `section.key` is, or where its section starts.
    fn place(&self, section: &str, key: &str) -> (usize, usize) {
        match self.entry(section, key) {
            Some(e) => (e.line, e.column),
            None => (self.sections.get(section).copied().unwrap_or(0), 1),
        }
    }

    fn fail(&self, section: &str, key: &str, message: String) -> DataError {
        let (line, column) = self.place(section, key);
        error(
            self.origin,
            line,
            column,
            &format!("{section}.{key}"),
            message,
        )
    }

    fn number(&self, section: &str, key: &str) -> Result<Option<f64>, DataError> {
        match self.entry(section, key) {
            None => Ok(None),
            Some(Entry {
                value: Value::Number(v),
                ..
            }) => Ok(Some(*v)),
            Some(Entry {
                value: Value::Text(t),
                ..
            }) => Err(self.fail(
                section,
                key,
                format!("{key} = '{t}' must be a number, not a string; remove the quotes"),
            )),
        }
    }

    fn text(&self, section: &str, key: &str) -> Result<Option<String>, DataError> {
        match self.entry(section, key) {
            None => Ok(None),
            Some(Entry {
                value: Value::Text(t),
                ..
            }) => Ok(Some(t.trim().to_string())),
            Some(Entry {
                value: Value::Number(v),
                ..
            }) => Err(self.fail(
                section,
                key,
                format!(
                    "{key} = {v} must be a quoted name, e.g. '{}'",
                    example_unit(key)
                ),
            )),
        }
    }

    fn or(&self, section: &str, key: &str, default: f64) -> Result<f64, DataError> {
        Ok(self.number(section, key)?.unwrap_or(default))
    }

    fn required(&self, section: &str, key: &str) -> Result<f64, DataError> {
        self.number(section, key)?.ok_or_else(|| {
            self.fail(
                section,
                key,
                format!("[{section}] has no {key}, which every MF fit has; add {key} = <value> from the tyre's fit"),
            )
        })
    }
}

fn example_unit(key: &str) -> &'static str {
    match key {
        "LENGTH" => "meter",
        "FORCE" => "newton",
        "ANGLE" => "radians",
        "MASS" => "kg",
        "TIME" => "second",
        _ => "...",
    }
}

/// SI factors of the file's units.
struct Units {
    length: f64,
    force: f64,
}

fn unit_factor(doc: &Document, key: &str, table: &[(&[&str], f64)]) -> Result<f64, DataError> {
    let Some(name) = doc.text("UNITS", key)? else {
        return Err(doc.fail(
            "UNITS",
            key,
            format!("[UNITS] has no {key}; add {key} = '{}'", example_unit(key)),
        ));
    };
    let lower = name.to_ascii_lowercase();
    table
        .iter()
        .find(|(names, _)| names.contains(&lower.as_str()))
        .map(|(_, factor)| *factor)
        .ok_or_else(|| {
            let known: Vec<&str> = table.iter().map(|(names, _)| names[0]).collect();
            doc.fail(
                "UNITS",
                key,
                format!(
                    "unknown {key} unit '{name}'; use one of {}",
                    known.join(", ")
                ),
            )
        })
}

fn units(doc: &Document) -> Result<Units, DataError> {
    let length = unit_factor(
        doc,
        "LENGTH",
        &[
            (&["meter", "metre", "m"], 1.0),
            (&["millimeter", "millimetre", "mm"], 1e-3),
            (&["centimeter", "centimetre", "cm"], 1e-2),
            (&["kilometer", "kilometre", "km"], 1e3),
            (&["inch", "in"], 0.0254),
            (&["foot", "feet", "ft"], 0.3048),
        ],
    )?;
    let force = unit_factor(
        doc,
        "FORCE",
        &[
            (&["newton", "n"], 1.0),
            (&["kilonewton", "kn"], 1e3),
            (&["pound_force", "lbf"], 4.448_221_615_260_5),
            (&["kilogram_force", "kgf"], 9.806_65),
        ],
    )?;
    // The MF coefficients are per radian; a file in degrees would need every slope rescaled.
    let angle = unit_factor(
        doc,
        "ANGLE",
        &[
            (&["radians", "radian", "rad"], 1.0),
            (&["degrees", "degree", "deg"], -1.0),
        ],
    )?;
    if angle < 0.0 {
        return Err(doc.fail(
            "UNITS",
            "ANGLE",
            "the Magic Formula coefficients are read per radian; export the file with ANGLE = 'radians'".to_string(),
        ));
    }
    unit_factor(
        doc,
        "MASS",
        &[
            (&["kg", "kilogram"], 1.0),
            (&["gram", "g"], 1e-3),
            (&["pound_mass", "lbm"], 0.453_592_37),
            (&["tonne", "t"], 1e3),
        ],
    )?;
    unit_factor(
        doc,
        "TIME",
        &[
            (&["second", "sec", "s"], 1.0),
            (&["millisecond", "ms"], 1e-3),
            (&["minute", "min"], 60.0),
            (&["hour", "h"], 3600.0),
        ],
    )?;
    Ok(Units { length, force })
}

fn version(doc: &Document) -> Result<MfVersion, DataError> {
    match doc.number("MODEL", "FITTYP")? {
        Some(61.0) => Ok(MfVersion::Mf61),
        Some(6.0 | 21.0) => Ok(MfVersion::Mf52),
        Some(v) => Err(doc.fail(
            "MODEL",
            "FITTYP",
            format!("FITTYP = {v} is not a version rigd evaluates; use a file fitted for MF 6.1 (FITTYP = 61) or MF 5.2 (FITTYP = 6 or 21)"),
        )),
        None => match doc.text("MODEL", "PROPERTY_FILE_FORMAT")? {
            Some(format) if format.eq_ignore_ascii_case("PAC2002") => Ok(MfVersion::Mf52),
            _ => Err(doc.fail(
                "MODEL",
                "FITTYP",
                "[MODEL] has no FITTYP; add FITTYP = 61 (MF 6.1) or FITTYP = 21 (MF 5.2)".to_string(),
            )),
        },
    }
}

/// A positive dimension (converted by `factor`), or its absence.
fn positive(
    doc: &Document,
    section: &str,
    key: &str,
    factor: f64,
) -> Result<Option<f64>, DataError> {
    match doc.number(section, key)? {
        Some(v) if v <= 0.0 => Err(doc.fail(
            section,
            key,
            format!("{key} = {v} must be positive; give the tyre's real value"),
        )),
        other => Ok(other.map(|v| v * factor)),
    }
}

/// Parses a `.tir` file; `origin` names it in errors (its path).
pub fn parse(text: &str, origin: &str) -> Result<TirTyre, DataError> {
    let doc = Document::parse(text, origin)?;
    let units = units(&doc)?;
    let version = version(&doc)?;
    for (section, key) in REQUIRED {
        doc.required(section, key)?;
    }
    let radius = positive(&doc, "DIMENSION", "UNLOADED_RADIUS", units.length)?.unwrap_or(0.0);
    for key in ["WIDTH", "RIM_RADIUS", "RIM_WIDTH", "ASPECT_RATIO"] {
        positive(&doc, "DIMENSION", key, 1.0)?;
    }
    let fnomin = positive(&doc, "VERTICAL", "FNOMIN", units.force)?.unwrap_or(0.0);
    let vertical_stiffness = positive(
        &doc,
        "VERTICAL",
        "VERTICAL_STIFFNESS",
        units.force / units.length,
    )?;
    if let (Some(inflation), Some(nominal)) = (
        doc.number("OPERATING_CONDITIONS", "INFLPRES")?,
        doc.number("OPERATING_CONDITIONS", "NOMPRES")?,
    ) {
        if inflation != nominal {
            return Err(doc.fail(
                "OPERATING_CONDITIONS",
                "INFLPRES",
                format!("INFLPRES = {inflation} differs from NOMPRES = {nominal}; rigd runs the tyre at its nominal pressure (the pressure terms are not evaluated): set INFLPRES = NOMPRES"),
            ));
        }
    }

    let scale = |key: &str| -> Result<f64, DataError> {
        let value = doc.or(SCALING, key, 1.0)?;
        if value < 0.0 {
            return Err(doc.fail(
                SCALING,
                key,
                format!("{key} = {value} must not be negative; scaling factors are 1 for the fit as measured"),
            ));
        }
        Ok(value)
    };
    for key in UNIT_ONLY_SCALES {
        if scale(key)? != 1.0 {
            return Err(doc.fail(
                SCALING,
                key,
                format!("{key} (MF 5.2's camber scale) is only supported at 1; fold it into the camber coefficients and set {key} = 1"),
            ));
        }
    }
    let lfzo = if doc.entry(SCALING, "LFZO").is_some() {
        scale("LFZO")?
    } else {
        scale("LFZ0")?
    };
    let (lcx, lmux, lex, lkx, lhx, lvx) = (
        scale("LCX")?,
        scale("LMUX")?,
        scale("LEX")?,
        scale("LKX")?,
        scale("LHX")?,
        scale("LVX")?,
    );
    let (lcy, lmuy, ley, lky, lkyc, lkzc) = (
        scale("LCY")?,
        scale("LMUY")?,
        scale("LEY")?,
        scale("LKY")?,
        scale("LKYC")?,
        scale("LKZC")?,
    );
    let (lhy, lvy, ltr, lres, lxal, lyka, lvyka, ls) = (
        scale("LHY")?,
        scale("LVY")?,
        scale("LTR")?,
        scale("LRES")?,
        scale("LXAL")?,
        scale("LYKA")?,
        scale("LVYKA")?,
        scale("LS")?,
    );
    if lmux == 0.0 || lmuy == 0.0 || lfzo == 0.0 {
        return Err(doc.fail(
            SCALING,
            if lfzo == 0.0 {
                "LFZO"
            } else if lmux == 0.0 {
                "LMUX"
            } else {
                "LMUY"
            },
            "a zero friction or nominal-load scale leaves no tyre; use 1 for the fit as measured"
                .to_string(),
        ));
    }
    let x = |key: &str| doc.or(LONG, key, 0.0);
    let y = |key: &str| doc.or(LAT, key, 0.0);
    let z = |key: &str| doc.or(ALIGN, key, 0.0);
    // MF 6.1 has no PHY3 (its camber shift goes through PKY6/PKY7); a 6.1 file listing it
    // for compatibility keeps it unused.
    let [default_low, default_high] = DEFAULT_CAMBER_RANGE_RAD;
    let cammin = doc.or("INCLINATION_ANGLE_RANGE", "CAMMIN", default_low)?;
    let cammax = doc.or("INCLINATION_ANGLE_RANGE", "CAMMAX", default_high)?;
    if !(cammin <= 0.0 && cammax >= 0.0 && cammax - cammin <= 3.0) {
        return Err(doc.fail(
            "INCLINATION_ANGLE_RANGE",
            "CAMMIN",
            format!("the inclination range CAMMIN = {cammin} .. CAMMAX = {cammax} rad must contain 0 and be at most 3 rad wide"),
        ));
    }
    let mf = Mf61 {
        version,
        camber_range_rad: [cammin, cammax],
        fnomin: fnomin * lfzo,
        r0: radius,
        pcx1: x("PCX1")? * lcx,
        pdx1: x("PDX1")?,
        pdx2: x("PDX2")?,
        pex1: x("PEX1")? * lex,
        pex2: x("PEX2")? * lex,
        pex3: x("PEX3")? * lex,
        pex4: x("PEX4")?,
        pkx1: x("PKX1")? * lkx,
        pkx2: x("PKX2")? * lkx,
        pkx3: x("PKX3")?,
        phx1: x("PHX1")? * lhx,
        phx2: x("PHX2")? * lhx,
        pvx1: x("PVX1")? * lvx,
        pvx2: x("PVX2")? * lvx,
        pdx3: x("PDX3")?,
        rbx1: x("RBX1")? * lxal,
        rbx2: x("RBX2")?,
        rbx3: x("RBX3")? * lxal,
        rcx1: x("RCX1")?,
        rex1: x("REX1")?,
        rex2: x("REX2")?,
        rhx1: x("RHX1")?,
        pcy1: y("PCY1")? * lcy,
        pdy1: y("PDY1")?,
        pdy2: y("PDY2")?,
        pey1: y("PEY1")? * ley,
        pey2: y("PEY2")? * ley,
        pey3: y("PEY3")?,
        pky1: y("PKY1")? * lky,
        pky2: y("PKY2")?,
        pky4: doc.or(LAT, "PKY4", 2.0)?,
        phy1: y("PHY1")? * lhy,
        phy2: y("PHY2")? * lhy,
        pvy1: y("PVY1")? * lvy,
        pvy2: y("PVY2")? * lvy,
        pdy3: y("PDY3")?,
        pey4: y("PEY4")?,
        pey5: y("PEY5")?,
        pky3: y("PKY3")?,
        pky5: y("PKY5")?,
        pky6: y("PKY6")? * lkyc,
        pky7: y("PKY7")? * lkyc,
        phy3: y("PHY3")? * lkyc,
        pvy3: y("PVY3")? * lkyc,
        pvy4: y("PVY4")? * lkyc,
        rby1: y("RBY1")? * lyka,
        rby2: y("RBY2")?,
        rby3: y("RBY3")?,
        rby4: y("RBY4")? * lyka,
        rcy1: y("RCY1")?,
        rey1: y("REY1")?,
        rey2: y("REY2")?,
        rhy1: y("RHY1")?,
        rhy2: y("RHY2")?,
        rvy1: y("RVY1")? * lvyka,
        rvy2: y("RVY2")? * lvyka,
        rvy3: y("RVY3")? * lvyka,
        rvy4: y("RVY4")?,
        rvy5: y("RVY5")?,
        rvy6: y("RVY6")?,
        qbz1: z("QBZ1")? * lky,
        qbz2: z("QBZ2")? * lky,
        qbz3: z("QBZ3")? * lky,
        qbz9: z("QBZ9")? * lky,
        qbz10: z("QBZ10")?,
        qcz1: z("QCZ1")?,
        qdz1: z("QDZ1")? * ltr,
        qdz2: z("QDZ2")? * ltr,
        qdz6: z("QDZ6")? * lres,
        qdz7: z("QDZ7")? * lres,
        qez1: z("QEZ1")?,
        qez2: z("QEZ2")?,
        qez3: z("QEZ3")?,
        qez4: z("QEZ4")?,
        qhz1: z("QHZ1")?,
        qhz2: z("QHZ2")?,
        ssz1: z("SSZ1")? * ls,
        ssz2: z("SSZ2")? * ls,
        qbz4: z("QBZ4")?,
        qbz5: z("QBZ5")?,
        qbz6: z("QBZ6")?,
        qdz3: z("QDZ3")?,
        qdz4: z("QDZ4")?,
        qdz8: z("QDZ8")? * lkzc,
        qdz9: z("QDZ9")? * lkzc,
        qdz10: z("QDZ10")? * lkzc,
        qdz11: z("QDZ11")? * lkzc,
        qez5: z("QEZ5")?,
        qhz3: z("QHZ3")?,
        qhz4: z("QHZ4")?,
        ssz3: z("SSZ3")? * ls,
        ssz4: z("SSZ4")? * ls,
    };
    Ok(TirTyre {
        mf,
        grip: GripScale {
            mu_x: lmux,
            mu_y: lmuy,
        },
        unloaded_radius_m: radius,
        vertical_stiffness_n_per_m: vertical_stiffness,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_outside_quotes_are_cut() {
        assert_eq!(strip_comment("A = 1 $ note"), "A = 1 ");
        assert_eq!(strip_comment("A = 'x$y' ! note"), "A = 'x$y' ");
        assert_eq!(strip_comment("!whole line"), "");
    }

    #[test]
    fn fortran_exponents_and_quotes_parse() {
        assert!(matches!(parse_value("1.5D+02"), Some(Value::Number(v)) if v == 150.0));
        assert!(matches!(parse_value("'meter'"), Some(Value::Text(t)) if t == "meter"));
        assert!(parse_value("'open").is_none());
        assert!(parse_value("nan").is_none());
    }
}
