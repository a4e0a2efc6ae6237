#!/usr/bin/env bash
# The soak run: rigd with everything on at once for HOURS (robot cars; every telemetry format
# at 1 kHz to loopback listeners, one of which goes away for 15 s every minute; a motion
# platform on a pty read as an SMC3 board; a DIY serial handbrake and shifter on a pty; the
# dashboard in tmux; a config reload every 5 minutes), sampled once a minute: RSS, open fds,
# threads, CPU, loop wake p99, late ticks, dropped time, motion frames written, telemetry sent
# and received per destination. Ends with a verdict against the goals in docs/reliability.md
# (exit 1 when one is missed) and writes series.csv, summary.json and soak.svg (the series
# drawn by rig-soak-plot, scripts/soak/plot) under target/soak/<date>/.
# In HOURS mode it also runs cyclictest beside rigd for the soak's whole length, on the loop's
# core at its settings (1 ms, no memory lock or PM QoS) and one SCHED_FIFO priority above it
# (81, so rigd's final spin cannot delay it), and checks rigd's ticks late by more than 1 ms
# against cyclictest's wake-ups over the same minutes of the same host (docs/reliability.md).
# Usage: scripts/soak.sh HOURS            e.g. scripts/soak.sh 1
#        scripts/soak.sh --minutes M      e.g. scripts/soak.sh --minutes 3 (the test command's)
#   SOAK_PROFILE=release   soak the release build (default: the test profile the tests build)
#   SOAK_NO_TMUX=1         run rigd without its dashboard
#   SOAK_CYCLICTEST=0|1    the cyclictest comparison off or on (default: on in HOURS mode)
#   SOAK_BUILT=1           skip the build (the caller has just built the test profile)
#   SOAK_CORE=N            pin rigd's loop (and cyclictest) to core N (default: the last core, as rigd does)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
case "${1:-}" in
    --minutes) minutes="${2:?--minutes needs a number}"; compare="${SOAK_CYCLICTEST:-0}" ;;
    ''|-h|--help) sed -n '2,18p' "$0" >&2; exit 2 ;;
    *) minutes="$(awk -v h="$1" 'BEGIN { if (h + 0 <= 0) exit 1; print h * 60 }')" \
           || { echo "soak: HOURS must be a positive number, e.g. 1 or 0.05" >&2; exit 2; }
       compare="${SOAK_CYCLICTEST:-1}" ;;
esac
command -v python3 >/dev/null || {
    echo "soak: installing python3 (the monitor)" >&2
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends python3 >/dev/null
}
profile="${SOAK_PROFILE:-test}"
if [ "${SOAK_BUILT:-0}" = 1 ]; then
    # The test command built it just before, and runs clippy beside the soak: a cargo call here
    # would wait for clippy's lock on the target dir and start the soak that much later.
    :
elif [ "$profile" = test ]; then
    # Exactly what `cargo test --workspace` builds (rigd's and rig-soak-plot's binaries among
    # it): a `cargo build -p` would resolve other features for the shared dependencies and
    # build rigd a second time. In the test command this is a no-op.
    cargo test --workspace --no-run --quiet
else
    cargo build --quiet --profile "$profile" -p rigd --bin rigd -p rig-soak-plot
fi
dir=debug
case "$profile" in dev|test) ;; *) dir="$profile" ;; esac
bin="${CARGO_TARGET_DIR:-$root/target}/$dir"
out="$root/target/soak/$(date -u +%Y%m%d-%H%M%S)"
core="${SOAK_CORE:-$(( $(nproc) - 1 ))}"
mkdir -p "$out"
echo "soak: ${minutes} min of rigd ($profile build, loop on core $core), results in $out; load: $(uptime)" >&2
extra=()
[ "${SOAK_NO_TMUX:-0}" = 1 ] && extra+=(--no-tmux)

# cyclictest for SECONDS on the soak loop's core, in the background: its histogram goes to
# $out/cyclictest.txt. Priority 81, one above the loop's 80: rigd spins the last half period
# before each deadline (docs/runtime.md), and a cyclictest wake-up at the same priority would
# wait out that spin; one above, it preempts the spin, and what it takes from rigd is its few
# microseconds per wake-up.
start_cyclictest() {
    command -v cyclictest >/dev/null || scripts/ensure-deps.sh test
    cyclictest -q --laptop --policy=fifo -p 81 -a "$core" -i 1000 -D "${1}s" -h 20000 \
        > "$out/cyclictest.txt" &
    cyclictest_pid=$!
}
# cyclictest's wake-ups late by 1 ms or more: the histogram's buckets from 1000 us, and its overflows.
cyclictest_late() {
    awk '/^[0-9]+[ \t]+[0-9]+/ { if ($1 + 0 >= 1000) late += $2 } /# Histogram Overflows/ { late += $4 }
         END { print late + 0 }' "$out/cyclictest.txt"
}
if [ "$compare" = 1 ]; then
    soak_s="$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')"
    echo "soak: cyclictest beside rigd for ${soak_s} s" >&2
    start_cyclictest "$soak_s"
fi
rc=0
python3 "$root/scripts/soak/monitor.py" --rigd "$bin/rigd" --minutes "$minutes" --out "$out" \
    --core "$core" "${extra[@]}" || rc=$?
if [ "$compare" = 1 ]; then
    wait "$cyclictest_pid"
    ct_late="$(cyclictest_late)"
    rigd_late="$(python3 -c 'import json, sys; print(int(json.load(open(sys.argv[1]))["samples"][-1]["late_1ms"]))' "$out/summary.json")"
    # "No worse than cyclictest": rigd's count at most cyclictest's over the same minutes plus
    # three standard deviations of a count (sqrt n, Poisson) and 3, so a handful of rare
    # events on either side does not decide it.
    verdict="$(awk -v r="$rigd_late" -v c="$ct_late" \
        'BEGIN { bound = c + 3 * sqrt(c) + 3; print (r <= bound ? "PASS" : "FAIL"), bound }')"
    echo "soak: ${verdict%% *}  loop late ticks > 1 ms no worse than cyclictest's beside it: rigd $rigd_late, cyclictest $ct_late (bound ${verdict#* })"
    [ "${verdict%% *}" = PASS ] || rc=1
fi
"$bin/rig-soak-plot" "$out/series.csv" "$out/soak.svg"
echo "soak: plot $out/soak.svg" >&2
exit "$rc"
