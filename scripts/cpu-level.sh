#!/usr/bin/env bash
# Prints the x86-64 level to build rigd for on this machine: `x86-64-v3` when the CPU has every
# feature of that level (AVX2, FMA, BMI1/2, F16C, LZCNT, MOVBE and the v2 set), else `x86-64`
# (the portable baseline every x86-64 CPU runs, which the .deb ships). The physics step built
# for x86-64-v3 runs 20-25 % faster on the same CPU and gives the same bits: Rust never fuses a
# multiply and an add on its own, so the wider instructions do the same IEEE operations in the
# same order (docs/BENCHMARKS.md, session 17). A binary built for x86-64-v3 stops with
# "Illegal instruction" on a CPU without those features: build it where it runs.
# RIG_CPU=x86-64 (or any level rustc knows) overrides the detection.
# Usage: scripts/cpu-level.sh            e.g. RUSTFLAGS="-C target-cpu=$(scripts/cpu-level.sh)"
set -euo pipefail
if [ -n "${RIG_CPU:-}" ]; then
    echo "$RIG_CPU"
    exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
    echo "cpu-level: not an x86-64 machine ($(uname -m)); build without a target-cpu" >&2
    echo native
    exit 0
fi
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
for f in cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3 avx avx2 bmi1 bmi2 f16c fma abm movbe xsave; do
    case "$flags" in
        *" $f "*) ;;
        *) echo x86-64; exit 0 ;;
    esac
done
echo x86-64-v3
