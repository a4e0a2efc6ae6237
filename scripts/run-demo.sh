#!/usr/bin/env bash
# The demo: builds rigd in release mode and runs it on the embedded defaults (road car on the
# built-in circuit, native telemetry on loopback, the dashboard in this terminal) with
# `--robot`: the robot drives while no wheel is found (without it rigd would idle until one
# appears). Extra arguments go to `rigd run`. Ctrl-C stops it cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh run
echo "run-demo: building rigd (release) ..." >&2
cargo build --release --quiet -p rigd -p rig-dash
exec target/release/rigd run --robot "$@"
