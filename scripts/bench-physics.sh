#!/usr/bin/env bash
# Benchmarks rig-physics' World::step (1, 10, 100 cars) and, in the same run, the performance
# peer ../shared/peers/rapier-vehicle (rapier3d raycast vehicle, read-only: built in its own
# target dir), then prints ours vs peer per car-step and the ratio.
# Usage: scripts/bench-physics.sh   (from anywhere; the repo sits beside shared/)
set -euo pipefail
cd "$(dirname "$0")/.."
peer_manifest="../shared/peers/rapier-vehicle/Cargo.toml"

echo "== building (release) =="
cargo build --release -q -p rig-physics --benches
if [ -f "$peer_manifest" ]; then
    cargo build --release -q --manifest-path "$peer_manifest" --target-dir target/peer
fi

echo "== rig-physics =="
ours_out=$(cargo bench -q -p rig-physics --bench step 2>/dev/null)
echo "$ours_out"

if [ ! -f "$peer_manifest" ]; then
    echo "peer not found at $peer_manifest: skipping the comparison"
    exit 0
fi
echo "== peer: rapier3d DynamicRayCastVehicleController (5 runs of 100000 steps, 1 vehicle) =="
peer_bin=target/peer/release/rapier-vehicle-bench
peer_runs=()
for _ in 1 2 3 4 5; do
    line=$("$peer_bin" 100000 1 | grep -o 'ns_per_vehicle_step=[0-9.]*' | cut -d= -f2)
    peer_runs+=("$line")
    echo "peer ns/vehicle-step: $line"
done
peer=$(printf '%s\n' "${peer_runs[@]}" | sort -n | sed -n 3p)
ours=$(echo "$ours_out" | grep 'track=flat cars=1:' | grep -o '[0-9]* ns/car-step' | cut -d' ' -f1)
ratio=$(awk -v p="$peer" -v o="$ours" 'BEGIN { printf "%.2f", p / o }')
echo "== summary (1 car, flat, medians) =="
echo "ours ${ours} ns/car-step, peer ${peer} ns/vehicle-step: ours is ${ratio}x faster"
