#!/usr/bin/env bash
# Two rigd builds' loops side by side with cyclictest: each round runs cyclictest, then build A,
# then build B, SECONDS each, under the settings of scripts/bench-loop.sh (SCHED_FIFO 80 on the
# last core, 1000 us, mlockall, /dev/cpu_dma_latency = 0) with the pure sleep (spin_us = 0, so
# the final spin hides no change to the wake-up path). For judging a change to the loop on a
# host whose noise drifts from minute to minute: the three share every round. Prints
# p50/p99/>250us/>1ms per run, then the medians of the p99s and of each build's p99 ratio to
# cyclictest's.
# Usage: scripts/bench-loop-ab.sh RIGD_A RIGD_B [SECONDS per run, default 15] [ROUNDS, default 8]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 RIGD_A RIGD_B [SECONDS] [ROUNDS]" >&2; exit 2; }
bin_a="$1"; bin_b="$2"; seconds="${3:-15}"; rounds="${4:-8}"
# shellcheck source=scripts/bench-loop-common.sh
. scripts/bench-loop-common.sh
tmp="$(in_memory_tmpdir)"
trap 'rm -rf "$tmp"' EXIT
write_loop_config "$tmp/bench.toml" 0 0

# "p50 p99 late250 late1ms" from one run's report (cyclictest_stats' line or rigd's report).
summary() {
    local report; report="$(cat)"
    for pattern in ' p50 ' ' p99 ' '>250us ' '>1ms '; do
        printf '%s ' "$(echo "$report" | sed -n "s/.*$pattern\([0-9]*\).*/\1/p" | head -1)"
    done
    echo
}
run_rigd() {
    "$1" --config "$tmp/bench.toml" bench loop --seconds "$seconds" 2>/dev/null
}

echo "bench-loop-ab: A=$bin_a B=$bin_b, $seconds s per run, $rounds round(s), core $core, $(date -u +%FT%TZ)"
: > "$tmp/rows"
for round in $(seq 1 "$rounds"); do
    read -r c50 c99 c250 c1 < <(run_cyclictest "$seconds" | summary)
    read -r a50 a99 a250 a1 < <(run_rigd "$bin_a" | summary)
    read -r b50 b99 b250 b1 < <(run_rigd "$bin_b" | summary)
    printf "round %d: cyclictest p50 %s p99 %s >250us %s >1ms %s | A p50 %s p99 %s >250us %s >1ms %s | B p50 %s p99 %s >250us %s >1ms %s\n" \
        "$round" "$c50" "$c99" "$c250" "$c1" "$a50" "$a99" "$a250" "$a1" "$b50" "$b99" "$b250" "$b1"
    echo "$c99 $a99 $b99" >> "$tmp/rows"
done
awk "$awk_median"'
    { n++; c[n] = $1; a[n] = $2; b[n] = $3; ra[n] = $2 / $1; rb[n] = $3 / $1 }
    END {
        printf "medians over %d rounds: p99 cyclictest %.1f, A %.1f, B %.1f us; p99 ratio to cyclictest A %.2f, B %.2f\n",
            n, median(c, n), median(a, n), median(b, n), median(ra, n), median(rb, n)
    }' "$tmp/rows"
