#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets/: the rig-protocols telemetry and game decoders,
# rigd's HID descriptor parser, its recording decoder and rig-physics' .tir parser) for a while each.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 30)
# Needs cargo-fuzz (installed on first use). libFuzzer's sanitizer flags are nightly-only;
# RUSTC_BOOTSTRAP=1 lets the stable toolchain accept them, so no nightly install is needed.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds="${1:-30}"
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
export RUSTC_BOOTSTRAP=1
for target in $(cargo fuzz list); do
    echo "== fuzz target ${target}: ${seconds} s"
    cargo fuzz run "${target}" -- -max_total_time="${seconds}" -max_len=1400
done
