#!/usr/bin/env bash
# Wake-up latency of rigd's real-time loop next to cyclictest (Debian rt-tests) in the same run,
# with the same interval (1000 us), policy (SCHED_FIFO), priority (80), core (the last one),
# memory locking and PM QoS (/dev/cpu_dma_latency = 0, cyclictest's default). The two run one
# after the other, alternating, ROUNDS times; each prints p50/p99/p99.9/max and late counts, then
# the ratios rigd / cyclictest. Latency = wake-up time minus the absolute deadline for both.
# Percentiles are nearest-rank over 1 us buckets, reported as the bucket's upper edge for both.
# Needs root (or LimitRTPRIO/CAP_SYS_NICE and access to /dev/cpu_dma_latency).
# rigd runs with its default final spin: it sleeps until spin_us before each deadline and
# spins to it, so its tick starts on time when the wake-up comes late (cyclictest has no such
# mode; it is rigd's answer to the same wake-up path). SPIN_US=0 compares the pure sleep like
# for like, SPIN_US=N any other spin.
# With ROUNDS > 1 it ends with the median of the rounds' p99 ratios (the verdict).
# Usage: [RIGD_BIN=path] [SPIN_US=N] scripts/bench-loop.sh [SECONDS per run, default 60] [ROUNDS, default 1] [ROBOTS, default 0]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
rounds="${2:-1}"
robots="${3:-0}"
# shellcheck source=scripts/bench-loop-common.sh
. scripts/bench-loop-common.sh
# RIGD_BIN=path skips the build and uses that binary.
bin="${RIGD_BIN:-target/release/rigd}"
[ -n "${RIGD_BIN:-}" ] || cargo build --release --quiet -p rigd
tmp="$(in_memory_tmpdir)"
trap 'rm -rf "$tmp"' EXIT
write_loop_config "$tmp/bench.toml" "$robots" "${SPIN_US:-}"

run_rigd() {
    "$bin" --config "$tmp/bench.toml" bench loop --seconds "$seconds" 2>"$tmp/rigd.err"
}
# measured NAME COMMAND...: runs COMMAND into the variable NAME and the RT core's steal during it
# (ms) into NAME_steal.
measured() {
    local name="$1" before output; shift
    before="$(rt_core_steal_ms)"
    output="$("$@")" || { cat "$tmp/rigd.err" >&2; exit 1; }
    printf -v "$name" '%s' "$output"
    printf -v "${name}_steal" '%s' "$(( $(rt_core_steal_ms) - before ))"
}

printf "bench-loop: %s s per run, %s round(s), core %s, SCHED_FIFO %s, %s us interval, %s robot car(s), rigd spin %s, %s, kernel %s\n" \
    "$seconds" "$rounds" "$core" "$priority" "$interval_us" "$robots" "${SPIN_US:-(its default)}" "$(date -u +%FT%TZ)" "$(uname -r)"
# One line per round for the verdict: p99 ratio, >1 ms counts rigd and cyclictest, steal of each.
: > "$tmp/rounds"
for round in $(seq 1 "$rounds"); do
    # Alternate which one runs first, so slow drifts of the host's load hit both alike.
    if (( round % 2 == 1 )); then
        measured ct run_cyclictest "$seconds"; measured rg run_rigd
    else
        measured rg run_rigd; measured ct run_cyclictest "$seconds"
    fi
    grep -q "not granted" "$tmp/rigd.err" && cat "$tmp/rigd.err" >&2
    rg_wake="$(echo "$rg" | grep '^wake latency')"
    rg_late="$(echo "$rg" | grep '^late wake-ups')"
    rg_work="$(echo "$rg" | grep '^tick work')"
    rg_step="$(echo "$rg" | grep '^physics step')"
    rg_spin="$(echo "$rg" | sed -n 's/.* spin \([0-9]*\) us.*/\1/p')"
    field() { echo "$1" | sed -n "s/.* $2 \([0-9.]*\).*/\1/p"; }
    r_p50=$(field "$rg_wake" p50); r_p99=$(field "$rg_wake" p99); r_p999=$(field "$rg_wake" p99.9); r_max=$(field "$rg_wake" max)
    r_l100=$(echo "$rg_late" | sed -n 's/.*>100us \([0-9]*\).*/\1/p')
    r_l250=$(echo "$rg_late" | sed -n 's/.*>250us \([0-9]*\).*/\1/p')
    r_l1ms=$(echo "$rg_late" | sed -n 's/.*>1ms \([0-9]*\);.*/\1/p')
    c_p50=$(field "$ct" p50); c_p99=$(field "$ct" p99); c_p999=$(field "$ct" p99.9); c_max=$(field "$ct" max)
    c_l100=$(echo "$ct" | sed -n 's/.*late>100us \([0-9]*\).*/\1/p')
    c_l250=$(echo "$ct" | sed -n 's/.*late>250us \([0-9]*\).*/\1/p')
    c_l1ms=$(echo "$ct" | sed -n 's/.*late>1ms \([0-9]*\).*/\1/p')
    echo "round $round (rigd's final spin $rg_spin us)"
    printf "  %-11s %8s %8s %8s %8s %10s %10s %9s %9s\n" "" "p50 us" "p99 us" "p99.9 us" "max us" ">100us" ">250us" ">1ms" "steal ms"
    printf "  %-11s %8s %8s %8s %8s %10s %10s %9s %9s\n" cyclictest "$c_p50" "$c_p99" "$c_p999" "$c_max" "$c_l100" "$c_l250" "$c_l1ms" "$ct_steal"
    printf "  %-11s %8s %8s %8s %8s %10s %10s %9s %9s\n" rigd "$r_p50" "$r_p99" "$r_p999" "$r_max" "$r_l100" "$r_l250" "$r_l1ms" "$rg_steal"
    echo "  rigd $rg_work"
    echo "  rigd $rg_step"
    echo "$(awk -v rp="$r_p99" -v cp="$c_p99" 'BEGIN { printf "%.3f", rp / cp }') $r_l1ms $c_l1ms $rg_steal $ct_steal" >> "$tmp/rounds"
    awk -v rp="$r_p99" -v cp="$c_p99" -v rl="$r_l1ms" -v cl="$c_l1ms" 'BEGIN {
        printf "  ratio rigd/cyclictest: p99 %.2f (target <= 1.00: %s); >1ms late %s vs %s (target rigd <= cyclictest: %s)\n",
            rp / cp, (rp <= cp ? "met" : "NOT met"), rl, cl, (rl + 0 <= cl + 0 ? "met" : "NOT met") }'
done
# Single rounds swing widely on a VM (the host's noise sets the tail), so with several rounds
# the verdict is the median of the rounds' p99 ratios and the sum of the >1 ms counts. Whether
# the counts differ by more than the host's noise is a paired sign-flip test over the rounds'
# differences (20 000 random sign assignments, fixed seed): p is the chance of a difference at
# least as large in either direction if both programs saw the same late wake-ups.
if (( rounds > 1 )); then
    awk "$awk_median"'
        { n++; ratio[n] = $1; met += ($1 <= 1.0); d[n] = $2 - $3; lr += $2; lc += $3; lm += ($2 <= $3); sr += $4; sc += $5 }
        END {
            m = median(ratio, n)
            observed = lr - lc; if (observed < 0) observed = -observed
            srand(1); trials = 20000
            for (k = 0; k < trials; k++) {
                s = 0; for (i = 1; i <= n; i++) s += (rand() < 0.5 ? d[i] : -d[i])
                if (s >= observed || -s >= observed) extreme++
            }
            printf "over %d rounds: median p99 ratio rigd/cyclictest %.2f (target <= 1.00: %s), p99 met in %d of %d rounds\n",
                n, m, (m <= 1.0 ? "met" : "NOT met"), met, n
            printf "  >1ms late: %d (rigd) vs %d (cyclictest) in all (target: %s), met in %d of %d rounds; sign-flip p = %.3f%s\n",
                lr, lc, (lr <= lc ? "met" : "NOT met"), lm, n, extreme / trials, (extreme / trials < 0.05 ? "" : " (within the noise of this many rounds)")
            printf "  steal on core %s (the host running something else on it): %d ms during rigd, %d ms during cyclictest\n", core, sr, sc
        }' core="$core" "$tmp/rounds"
fi
