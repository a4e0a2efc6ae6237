#!/usr/bin/env bash
# The physics built for x86-64-v3 (what scripts/run-demo.sh builds on a CPU with AVX2, with
# the lanes in AVX registers) must compute the same bits as the portable build the tests use:
# on such a CPU this builds rig-physics' state_hash example and its lane tests with
# `-C target-cpu=x86-64-v3` (test profile, in the target dir's x86-64-v3/), runs the
# register-lanes-vs-portable bit test there, and compares the state hash of 2 s of every
# built-in car on every built-in track with the portable build's (target/debug, built by
# `cargo test --no-run`).
# On a CPU without x86-64-v3 it says so and passes: there is nothing to run the build on.
# Usage: scripts/test-cpu-levels.sh   (the test command runs it; needs the test build first)
set -euo pipefail
cd "$(dirname "$0")/.."
level="$(scripts/cpu-level.sh)"
if [ "$level" != x86-64-v3 ]; then
    echo "cpu-levels: this CPU has no x86-64-v3 ($level): the v3 build is not checked here" >&2
    exit 0
fi
target_dir="${CARGO_TARGET_DIR:-target}"
portable="$target_dir/debug/examples/state_hash"
[ -x "$portable" ] || cargo build --quiet --profile test -p rig-physics --example state_hash
# Inside the target dir (CI keeps it between runs), as scripts/run-demo.sh's build.
export RUSTFLAGS="-C target-cpu=x86-64-v3" CARGO_TARGET_DIR="$target_dir/x86-64-v3"
cargo build --quiet --profile test -p rig-physics --example state_hash
lanes="$(cargo test --quiet --profile test -p rig-physics --lib \
    register_lanes_give_the_portable_lanes_bits 2>&1)" || { echo "$lanes" >&2; exit 1; }
case "$lanes" in
    *"1 passed"*) ;;
    *) echo "$lanes" >&2; echo "cpu-levels: the lane bit test did not run (renamed?)" >&2; exit 1 ;;
esac
want="$("$portable" 2000 | tail -n 1)"
got="$("$CARGO_TARGET_DIR/debug/examples/state_hash" 2000 | tail -n 1)"
if [ "$want" != "$got" ]; then
    echo "cpu-levels: the x86-64-v3 build computes other bits than the portable one: $got, portable $want (2 s of every car on every track; fix the lane code in physics/src/math/lanes.rs)" >&2
    exit 1
fi
echo "cpu-levels: the lanes' bit test passes in the x86-64-v3 build, and it gives the portable build's bits ($got)" >&2
