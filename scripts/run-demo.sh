#!/usr/bin/env bash
# The demo: builds rigd in release mode and runs it on the embedded defaults (road car on the
# built-in circuit, native telemetry on loopback, the dashboard in this terminal) with
# `--robot`: the robot drives while no wheel is found (without it rigd would idle until one
# appears). Extra arguments go to `rigd run`. Ctrl-C stops it cleanly.
# It builds for this machine's CPU level (scripts/cpu-level.sh): on a CPU with AVX2 that is
# x86-64-v3, in target/x86-64-v3 (the physics step 20-25 % faster, the same bits); elsewhere
# the portable build in target/release. RIG_CPU=x86-64 forces the portable build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh run
level="$(scripts/cpu-level.sh)"
if [ "$level" = x86-64 ]; then
    dir=target
else
    dir="target/$level"
    export RUSTFLAGS="-C target-cpu=$level"
fi
echo "run-demo: building rigd (release, for this CPU: $level) in $dir ..." >&2
CARGO_TARGET_DIR="$dir" cargo build --release --quiet -p rigd -p rig-dash
exec "$dir/release/rigd" run --robot "$@"
