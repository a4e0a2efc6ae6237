#!/usr/bin/env bash
# CPU of rigd idling as a service with nothing plugged in, next to the driving case: rigd runs
# headless (`run --no-display`, as under systemd) on the service configuration
# (examples/rigd.toml, what the README installs as /etc/rigd/rigd.toml) on a machine without
# wheel or gamepad, for SECONDS (default 60) after a 3 s warm-up; then the same configuration
# with `--robot`, the robot driving at the full rate (the loop as it runs while someone
# drives, final spin included). CPU % of one core from /proc/PID/stat (utime + stime, every
# thread of the process).
#
# Usage: scripts/bench-idle.sh [SECONDS]     (env: RIGD=path/to/rigd to skip the release build,
#                                             CONFIG=file for another service configuration)
# Target (issue 19): idle under 2 % of one core.
set -euo pipefail
cd "$(dirname "$0")/.."

run_seconds=${1:-60}
config=${CONFIG:-examples/rigd.toml}
rigd=${RIGD:-target/release/rigd}
if [[ -z "${RIGD:-}" ]]; then
    cargo build --release --quiet -p rigd
fi
ticks_per_second=$(getconf CLK_TCK)

# measure LABEL ARGS...: runs rigd with ARGS, prints its CPU share over run_seconds.
measure() {
    local label=$1
    shift
    local log
    log=$(mktemp)
    env -u NOTIFY_SOCKET -u WATCHDOG_USEC -u JOURNAL_STREAM \
        "$rigd" --config "$config" run --no-display "$@" </dev/null >/dev/null 2>"$log" &
    local pid=$!
    sleep 3
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "bench-idle: rigd ($label) exited early:" >&2
        cat "$log" >&2
        exit 1
    fi
    local t0 t1 n0 n1
    t0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    n0=$(date +%s%N)
    sleep "$run_seconds"
    t1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    n1=$(date +%s%N)
    kill -TERM "$pid"
    wait "$pid" || true
    awk -v t0="$t0" -v t1="$t1" -v hz="$ticks_per_second" -v n0="$n0" -v n1="$n1" \
        -v label="$label" 'BEGIN {
        wall = (n1 - n0) / 1e9
        cpu = (t1 - t0) / hz
        printf "  %-44s %6.2f s CPU in %5.1f s = %6.2f %% of one core\n", label, cpu, wall, 100 * cpu / wall
    }'
    local driver
    driver=$(grep -m1 -o "who drives: .*" "$log" || true)
    echo "    ${driver:-who drives: (not logged)}"
    rm -f "$log"
}

echo "rigd CPU, $config, ${run_seconds} s each (idle target < 2 %)"
measure "idle (service, no devices)"
measure "driving (--robot, full rate)" --robot
