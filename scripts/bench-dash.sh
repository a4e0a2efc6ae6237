#!/usr/bin/env bash
# CPU and memory of rig-dash drawing at FPS (default 30) while fed 1000 native packets per
# second on loopback, measured from /proc/PID/stat over SECONDS (default 10) after a 2 s warm-up.
# rig-dash runs in a detached tmux session of fixed size (120x40), so it draws into a real
# terminal; the tmux server's own CPU is not counted.
#
# Usage: scripts/bench-dash.sh [SECONDS]      (env: FPS=30 RATE_HZ=1000)
# Target (issue 6): under 5 % of one core at 30 fps and 1 kHz; RSS under 30 MB.
set -euo pipefail
cd "$(dirname "$0")/.."

run_seconds=${1:-10}
fps=${FPS:-30}
rate_hz=${RATE_HZ:-1000}

command -v tmux >/dev/null || { echo "bench-dash: tmux is needed (apt-get install tmux)" >&2; exit 1; }
cargo build --release --quiet -p rig-dash --bin rig-dash --example feed

port=$((40000 + RANDOM % 20000))
socket="rig-dash-bench-$$"
tmux -L "$socket" new-session -d -s bench -x 120 -y 40 \
    "exec target/release/rig-dash --listen 127.0.0.1:$port --fps $fps"
cleanup() {
    tmux -L "$socket" kill-server 2>/dev/null || true
    [[ -n "${feed_pid:-}" ]] && kill "$feed_pid" 2>/dev/null || true
}
trap cleanup EXIT
sleep 0.5
pid=$(tmux -L "$socket" display-message -p -t bench '#{pane_pid}')

target/release/examples/feed "127.0.0.1:$port" "$rate_hz" $((run_seconds + 4)) &
feed_pid=$!
sleep 2

ticks_per_second=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
start_ticks=$(cpu_ticks)
start_ns=$(date +%s%N)
sleep "$run_seconds"
end_ticks=$(cpu_ticks)
end_ns=$(date +%s%N)
rss_kb=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
peak_kb=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
screen=$(tmux -L "$socket" capture-pane -p -t bench)
status_line=$(grep -m1 "pkt/s" <<<"$screen" || true)

awk -v t0="$start_ticks" -v t1="$end_ticks" -v hz="$ticks_per_second" \
    -v n0="$start_ns" -v n1="$end_ns" -v rss="$rss_kb" -v peak="$peak_kb" \
    -v fps="$fps" -v rate="$rate_hz" 'BEGIN {
    wall = (n1 - n0) / 1e9
    cpu = (t1 - t0) / hz
    printf "rig-dash at %d fps, fed %d native packets/s, over %.1f s\n", fps, rate, wall
    printf "  CPU: %.2f s = %.2f %% of one core (target < 5 %%)\n", cpu, 100 * cpu / wall
    printf "  RSS: %.1f MB now, %.1f MB peak (target < 30 MB)\n", rss / 1024, peak / 1024
}'
echo "  screen status line: $status_line"
grep -q "rigd native from" <<<"$status_line" || { echo "bench-dash: rig-dash did not show the feed" >&2; exit 1; }
