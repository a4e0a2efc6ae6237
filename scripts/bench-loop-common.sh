# Shared by scripts/bench-loop.sh and scripts/bench-loop-ab.sh (sourced, not run): the loop
# settings both measure at, cyclictest (installed when missing) at those settings, and rigd's
# config for them.
# The settings: the last core, SCHED_FIFO 80, 1000 us.
core=$(( $(nproc) - 1 ))
priority=80
interval_us=1000

command -v cyclictest >/dev/null || {
    echo "bench-loop: installing rt-tests (cyclictest)" >&2
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get install -y -qq --no-install-recommends rt-tests >/dev/null
}

# write_loop_config FILE ROBOTS [SPIN_US]: rigd at the settings above, memory locked and PM QoS
# held as cyclictest does by default; without SPIN_US, rigd's default final spin.
write_loop_config() {
    cat > "$1" <<TOML
[sim]
robots = $2
[loop]
rate_hz = $(( 1000000 / interval_us ))
core = $core
priority = $priority
lock_memory = true
pm_qos = "dma-latency"
pm_qos_latency_us = 0
TOML
    [ -z "${3:-}" ] || echo "spin_us = $3" >> "$1"
}

# in_memory_tmpdir: a new temporary directory in RAM (/dev/shm) where there is one. rigd's
# stderr goes to a file there: on a VM a file on the virtual disk is written back during the
# run, the host's block I/O takes the RT core's vCPU away (steal) and those late wake-ups would
# count against rigd only (cyclictest's output goes to a pipe).
in_memory_tmpdir() {
    mktemp -d -p /dev/shm 2>/dev/null || mktemp -d
}

# rt_core_steal_ms: time the host has taken the RT core's vCPU away so far (steal, /proc/stat),
# in ms; 0 on bare metal. A run's difference shows how much of its tail the host made.
rt_core_steal_ms() {
    awk -v cpu="cpu$core" -v hz="$(getconf CLK_TCK)" '$1 == cpu { print int($9 * 1000 / hz) }' /proc/stat
}

# awk_median: an awk function, median(a, n), of a[1..n] (sorts a in place); prepend it to an
# awk program that needs one.
awk_median='
    function median(a, n,    i, j, t) {
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return (n % 2 == 1) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }'

# cyclictest histogram (1 us buckets up to 20 ms) -> the same numbers rigd prints.
cyclictest_stats() {
    awk '
        /^[0-9]+[ \t]+[0-9]+/ { n = $1 + 0; c = $2 + 0; count[n] += c; total += c; if (c > 0 && n > maxb) maxb = n; next }
        /# Max Latencies/ { max = $4 + 0 }
        /# Histogram Overflows/ { over = $4 + 0 }
        END {
            total += over
            split("50 99 99.9", ps, " ")
            for (i = 1; i <= 3; i++) {
                rank = int((ps[i] / 100.0) * total); if (rank < (ps[i] / 100.0) * total) rank++; if (rank < 1) rank = 1
                seen = 0; val[i] = max
                for (b = 0; b <= maxb; b++) { seen += count[b]; if (seen >= rank) { val[i] = b + 1; break } }
            }
            for (b = 0; b <= maxb; b++) { if (b >= 100) l100 += count[b]; if (b >= 250) l250 += count[b]; if (b >= 1000) l1000 += count[b] }
            l100 += over; l250 += over; l1000 += over
            printf "samples %d p50 %d p99 %d p99.9 %d max %d late>100us %d late>250us %d late>1ms %d\n", total, val[1], val[2], val[3], max, l100, l250, l1000
        }'
}

# run_cyclictest SECONDS: one run at the settings above, as cyclictest_stats prints it.
run_cyclictest() {
    cyclictest -q -m --policy=fifo -p "$priority" -a "$core" -i "$interval_us" -D "${1}s" -h 20000 | cyclictest_stats
}
