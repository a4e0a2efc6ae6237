#!/usr/bin/env bash
# Two rigd builds' loops side by side with cyclictest: each round runs cyclictest, then build A,
# then build B, SECONDS each, under the same settings as scripts/bench-loop.sh (SCHED_FIFO 80
# on the last core, 1000 us, mlockall, /dev/cpu_dma_latency = 0). For judging a change to the
# loop on a host whose noise drifts from minute to minute: the three share every round. Prints
# p50/p99/>250us/>1ms per run, then the medians of the p99s and of each build's p99 ratio to
# cyclictest's.
# Usage: scripts/bench-loop-ab.sh RIGD_A RIGD_B [SECONDS per run, default 15] [ROUNDS, default 8]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 RIGD_A RIGD_B [SECONDS] [ROUNDS]" >&2; exit 2; }
bin_a="$1"; bin_b="$2"; seconds="${3:-15}"; rounds="${4:-8}"
core=$(( $(nproc) - 1 ))
command -v cyclictest >/dev/null || { echo "bench-loop-ab: needs cyclictest (apt-get install rt-tests)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/bench.toml" <<TOML
[loop]
core = $core
priority = 80
lock_memory = true
pm_qos = "dma-latency"
pm_qos_latency_us = 0
TOML

# Prints "p50 p99 late250 late1ms" for one run.
run_cyclictest() {
    cyclictest -q -m --policy=fifo -p 80 -a "$core" -i 1000 -D "${seconds}s" -h 20000 | awk '
        /^[0-9]+[ \t]+[0-9]+/ { n = $1 + 0; c = $2 + 0; count[n] += c; total += c; if (c > 0 && n > maxb) maxb = n; next }
        /# Histogram Overflows/ { over = $4 + 0 }
        END {
            total += over
            split("50 99", ps, " ")
            for (i = 1; i <= 2; i++) {
                rank = int((ps[i] / 100.0) * total); if (rank < (ps[i] / 100.0) * total) rank++; if (rank < 1) rank = 1
                seen = 0
                for (b = 0; b <= maxb; b++) { seen += count[b]; if (seen >= rank) { val[i] = b + 1; break } }
            }
            for (b = 0; b <= maxb; b++) { if (b >= 250) l250 += count[b]; if (b >= 1000) l1000 += count[b] }
            print val[1], val[2], l250 + over, l1000 + over
        }'
}
run_rigd() {
    "$1" --config "$tmp/bench.toml" bench loop --seconds "$seconds" 2>/dev/null | awk '
        /^wake latency/ { p50 = $7; p99 = $9 }
        /^late wake-ups/ { l250 = $6; l1ms = $8; sub(";", "", l1ms) }
        END { print p50, p99, l250, l1ms }'
}

echo "bench-loop-ab: A=$bin_a B=$bin_b, $seconds s per run, $rounds round(s), core $core, $(date -u +%FT%TZ)"
: > "$tmp/rows"
for round in $(seq 1 "$rounds"); do
    read -r c50 c99 c250 c1 < <(run_cyclictest)
    read -r a50 a99 a250 a1 < <(run_rigd "$bin_a")
    read -r b50 b99 b250 b1 < <(run_rigd "$bin_b")
    printf "round %d: cyclictest p50 %s p99 %s >250us %s >1ms %s | A p50 %s p99 %s >250us %s >1ms %s | B p50 %s p99 %s >250us %s >1ms %s\n" \
        "$round" "$c50" "$c99" "$c250" "$c1" "$a50" "$a99" "$a250" "$a1" "$b50" "$b99" "$b250" "$b1"
    echo "$c99 $a99 $b99" >> "$tmp/rows"
done
awk '
    function median(a, n,    i, j, t) {
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return (n % 2 == 1) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { n++; c[n] = $1; a[n] = $2; b[n] = $3; ra[n] = $2 / $1; rb[n] = $3 / $1 }
    END {
        printf "medians over %d rounds: p99 cyclictest %.1f, A %.1f, B %.1f us; p99 ratio to cyclictest A %.2f, B %.2f\n",
            n, median(c, n), median(a, n), median(b, n), median(ra, n), median(rb, n)
    }' "$tmp/rows"
