//! `rig-soak-plot SERIES.csv OUT.svg`: the soak run's series drawn as SVG (scripts/soak.sh runs
//! it after the monitor wrote `series.csv`). Exit 2 when the file is not a soak series.

use std::process::ExitCode;

use anyhow::Context;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [csv, out] = args.as_slice() else {
        eprintln!(
            "usage: rig-soak-plot SERIES.csv OUT.svg (the files of a soak run, scripts/soak.sh)"
        );
        return ExitCode::from(2);
    };
    match plot(csv, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rig-soak-plot: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn plot(csv: &str, out: &str) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(csv).with_context(|| format!("cannot read {csv}"))?;
    let series = rig_soak_plot::parse(&text).with_context(|| csv.to_string())?;
    let drawing = rig_soak_plot::svg(&series)
        .map_err(anyhow::Error::msg)
        .context("cannot draw the plot")?;
    std::fs::write(out, drawing).with_context(|| format!("cannot write {out}"))
}
