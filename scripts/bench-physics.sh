#!/usr/bin/env bash
# Benchmarks rig-physics' World::step (1, 10, 100 cars, flat and circuit, and 100 robot cars)
# and, in the same run, the performance peer bench/rapier-peer (rapier3d's raycast vehicle on
# the same one-car scenario; its own crate outside the workspace, built here in
# target/rapier-peer, never needed by the tests). The headline ratio comes from PAIRS runs of
# the 1-car flat case next to one peer run each, alternating which goes first, so that the
# host's slow swings of speed (large on this VM) hit both sides of a pair alike; it prints each
# pair's ratio and the medians. NO_PEER=1 skips the peer (no rapier3d download or build).
# Usage: scripts/bench-physics.sh [PAIRS, default 9]   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs="${1:-9}"
peer_manifest="bench/rapier-peer/Cargo.toml"
peer_bin=target/rapier-peer/release/rapier-peer

echo "== building (release) =="
cargo build --release -q -p rig-physics --benches
ours_bin=$(cargo bench -q -p rig-physics --bench step --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
if [ "${NO_PEER:-0}" != 1 ]; then
    cargo build --release -q --locked --manifest-path "$peer_manifest" --target-dir target/rapier-peer
fi
echo "$(date -u +%FT%TZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== rig-physics, every case =="
"$ours_bin"

if [ "${NO_PEER:-0}" = 1 ]; then
    echo "NO_PEER=1: skipping the comparison with rapier3d"
    exit 0
fi
ours_once() { RIG_BENCH_ROUNDS=1 "$ours_bin" "flat cars=1:" | grep -o '[0-9]* ns/car-step' | cut -d' ' -f1; }
peer_once() { "$peer_bin" 100000 1 | grep -o 'ns_per_vehicle_step=[0-9.]*' | cut -d= -f2; }
echo "== pairs: ours (1 car, flat, 200 000 steps) next to the peer (rapier3d DynamicRayCastVehicleController, 1 vehicle, 100 000 steps) =="
results=()
for pair in $(seq 1 "$pairs"); do
    if (( pair % 2 == 1 )); then o=$(ours_once); p=$(peer_once); else p=$(peer_once); o=$(ours_once); fi
    r=$(awk -v p="$p" -v o="$o" 'BEGIN { printf "%.2f", p / o }')
    printf "pair %d: ours %s ns/car-step, peer %s ns/vehicle-step, peer/ours %s\n" "$pair" "$o" "$p" "$r"
    results+=("$o $p $r")
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mo=$(printf '%s\n' "${results[@]}" | cut -d' ' -f1 | median)
mp=$(printf '%s\n' "${results[@]}" | cut -d' ' -f2 | median)
mr=$(printf '%s\n' "${results[@]}" | cut -d' ' -f3 | median)
echo "== summary (1 car, flat, medians over $pairs pairs) =="
echo "ours ${mo} ns/car-step (target <= 1500), peer ${mp} ns/vehicle-step; peer/ours: median of the pairs ${mr}x, of the medians $(awk -v p="$mp" -v o="$mo" 'BEGIN { printf "%.2f", p / o }')x (target >= 3)"
