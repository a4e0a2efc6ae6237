#!/usr/bin/env bash
# Benchmarks rig-physics' World::step (1, 10, 100 cars, flat and circuit, and 100 robot cars)
# and, in the same run, the performance peer bench/rapier-peer (rapier3d's raycast vehicle on
# the same one-car scenario; its own crate outside the workspace, built here in
# target/rapier-peer, never needed by the tests). The headline ratio comes from PAIRS runs of
# the 1-car flat case next to one peer run each, alternating which goes first, so that the
# host's slow swings of speed (large on this VM) hit both sides of a pair alike; it prints each
# pair's ratio and the medians. NO_PEER=1 skips the peer (no rapier3d download or build).
# Both are built and run twice: for the portable x86-64 baseline (what `cargo build` and the
# .deb give), then for this CPU's level when it is higher (scripts/cpu-level.sh: x86-64-v3,
# what scripts/run-demo.sh builds), ours and the peer with the same target-cpu, each level in
# its own target dir (target/x86-64-v3, target/rapier-peer-x86-64-v3).
# Before timing it checks that every level computes the same bits (the state_hash example,
# 2 s of every built-in car on every track) and stops if not.
# LEVELS="x86-64-v3" (a space-separated list) runs those levels only.
# Usage: scripts/bench-physics.sh [PAIRS, default 9]   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs="${1:-9}"
peer_manifest="bench/rapier-peer/Cargo.toml"
levels="${LEVELS:-x86-64 $(scripts/cpu-level.sh)}"
levels="$(printf '%s\n' $levels | awk '!seen[$0]++' | xargs)"

# Builds ours and the peer for target-cpu $1; sets ours_bin and peer_bin.
build_level() {
    local level="$1" ours_dir=target peer_dir=target/rapier-peer
    # The baseline is rustc's default: no RUSTFLAGS, so the build is the one in target/ that
    # other commands share (a flag would change its fingerprint and rebuild it).
    if [ "$level" != x86-64 ]; then
        ours_dir="target/$level"
        peer_dir="target/rapier-peer-$level"
        export RUSTFLAGS="-C target-cpu=$level"
    fi
    echo "== building (release, target-cpu=$level) =="
    CARGO_TARGET_DIR="$ours_dir" cargo build --release -q -p rig-physics --benches --example state_hash
    hash_bin="$ours_dir/release/examples/state_hash"
    ours_bin=$(CARGO_TARGET_DIR="$ours_dir" cargo bench -q -p rig-physics --bench step --no-run \
        --message-format=json 2>/dev/null | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
    peer_bin="$peer_dir/release/rapier-peer"
    if [ "${NO_PEER:-0}" != 1 ]; then
        cargo build --release -q --locked --manifest-path "$peer_manifest" --target-dir "$peer_dir"
    fi
    unset RUSTFLAGS
}

ours_once() { RIG_BENCH_ROUNDS=1 "$ours_bin" "flat cars=1:" | grep -o '[0-9]* ns/car-step' | cut -d' ' -f1; }
peer_once() { "$peer_bin" 100000 1 | grep -o 'ns_per_vehicle_step=[0-9.]*' | cut -d= -f2; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Every case, then the pairs, for the level whose binaries build_level set.
run_level() {
    local level="$1"
    echo "$(date -u +%FT%TZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "== rig-physics, every case (target-cpu=$level) =="
    "$ours_bin"
    if [ "${NO_PEER:-0}" = 1 ]; then
        echo "NO_PEER=1: skipping the comparison with rapier3d"
        return
    fi
    echo "== pairs (target-cpu=$level): ours (1 car, flat, 200 000 steps) next to the peer (rapier3d DynamicRayCastVehicleController, 1 vehicle, 100 000 steps) =="
    local results=() pair o p r
    for pair in $(seq 1 "$pairs"); do
        if (( pair % 2 == 1 )); then o=$(ours_once); p=$(peer_once); else p=$(peer_once); o=$(ours_once); fi
        r=$(awk -v p="$p" -v o="$o" 'BEGIN { printf "%.2f", p / o }')
        printf "pair %d: ours %s ns/car-step, peer %s ns/vehicle-step, peer/ours %s\n" "$pair" "$o" "$p" "$r"
        results+=("$o $p $r")
    done
    local mo mp mr
    mo=$(printf '%s\n' "${results[@]}" | cut -d' ' -f1 | median)
    mp=$(printf '%s\n' "${results[@]}" | cut -d' ' -f2 | median)
    mr=$(printf '%s\n' "${results[@]}" | cut -d' ' -f3 | median)
    echo "== summary (target-cpu=$level; 1 car, flat, medians over $pairs pairs) =="
    echo "ours ${mo} ns/car-step, peer ${mp} ns/vehicle-step; peer/ours: median of the pairs ${mr}x, of the medians $(awk -v p="$mp" -v o="$mo" 'BEGIN { printf "%.2f", p / o }')x (target >= 3)"
}

# Build every level first, so that no build runs beside a measurement.
declare -A ours_of peer_of hash_of
for level in $levels; do
    build_level "$level"
    ours_of[$level]="$ours_bin"
    peer_of[$level]="$peer_bin"
    hash_of[$level]="$("$hash_bin" 2000 | tail -n 1)"
done
# Every level must compute the same bits (the same IEEE operations in the same order): the
# state hash of every built-in car on every track over 2 s, compared before any timing.
if [ "$(printf '%s\n' "${hash_of[@]}" | sort -u | wc -l)" != 1 ]; then
    for level in $levels; do echo "bench-physics: $level: ${hash_of[$level]}" >&2; done
    echo "bench-physics: the levels' physics differ in its bits; a faster step that changes results is no comparison (fix the lane code, see physics/src/math/lanes.rs)" >&2
    exit 1
fi
echo "== the same bits at every level ($levels): state hash over 2 s of every car on every track, $(printf '%s\n' "${hash_of[@]}" | head -n 1) =="
for level in $levels; do
    ours_bin="${ours_of[$level]}"
    peer_bin="${peer_of[$level]}"
    run_level "$level"
done
