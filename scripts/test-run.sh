#!/usr/bin/env bash
# Runs every test `cargo test --workspace` runs, with several test binaries at once: the test
# command's "run" step (scripts/test.sh builds them first with `cargo test --no-run`).
# Why not `cargo test`: it runs one binary after another, and most of rigd's own binaries spend
# their time waiting on real parts (rigd at 1 kHz, ptys, loopback listeners, tmux) with a core
# mostly idle: timed one by one, the daemon's binaries took 210 s of wall time for 26 s of CPU
# (docs/BENCHMARKS.md, "The test command's time"). Each binary is run as cargo runs it (from its
# package's directory, the same arguments), its output kept and printed only when it fails.
# The CPU-bound crates' binaries (physics, protocols, config) run at nice 19, so the timing
# checks of the daemon's end-to-end tests beside them get the CPU they ask for (their rigd's
# loop runs at SCHED_FIFO as root anyway); the tests share no fixed port or tmux session name
# (each test picks its own), which is what lets them run side by side. The doc tests run with
# `cargo test --doc` as one more job. Prints the slowest binaries at the end.
# Usage: scripts/test-run.sh   TEST_JOBS=N binaries at once (default 3: the lane of binaries
#        that start rigd, one at a time, beside N-1 CPU-bound ones); TEST_JOBS=1 runs them
#        one by one, as `cargo test --workspace` does. TEST_CPU_NICE=N the CPU-bound crates'
#        niceness (default 19; 0 on a machine busy with other work at nice 0, which would
#        otherwise leave them almost no CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${TEST_JOBS:-3}"
cpu_nice="${TEST_CPU_NICE:-19}"
scratch="$(mktemp -d /tmp/rigd-test-run.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
# Times of the last run (slowest first), so the long binaries start first and the pool ends
# together; kept in the target dir like any build output.
times_file="${CARGO_TARGET_DIR:-target}/test-run-times.txt"

# The test executables with their package's directory, from cargo's own build messages (a
# no-op build when the test command's build step ran).
cargo test --workspace --no-run --quiet --message-format=json >"$scratch/build.json"
python3 - "$scratch/build.json" "$times_file" "$cpu_nice" >"$scratch/jobs" <<'EOF'
import json, os, sys
previous = {}
if os.path.exists(sys.argv[2]):
    for line in open(sys.argv[2]):
        seconds, name = line.split(maxsplit=1)
        previous[name.strip()] = float(seconds)
jobs = []
for line in open(sys.argv[1]):
    message = json.loads(line)
    if message.get("reason") != "compiler-artifact" or not message.get("executable"):
        continue
    if not message["profile"]["test"]:
        continue  # rigd's and the tools' own binaries: the tests run them
    package = os.path.dirname(message["manifest_path"])
    name = f"{os.path.basename(package)}/{message['target']['name']}"
    kind = message["target"]["kind"][0]
    if kind != "test":
        name += f" ({kind} unit tests)"
    cpu_bound = os.path.basename(package) in ("physics", "protocols", "rig-config", "rig-toml", "types")
    jobs.append((previous.get(name, 1e9), name, message["executable"], package, sys.argv[3] if cpu_bound else 0))
jobs.append((previous.get("doc tests", 1e9), "doc tests", "doc", os.getcwd(), sys.argv[3]))
for seconds, name, exe, package, nice in sorted(jobs, key=lambda j: -j[0]):
    print(f"{name}\t{exe}\t{package}\t{nice}")
EOF

# run_one NAME EXE DIR NICE: one binary (or the doc tests) to its own log; prints
# "SECONDS<tab>NAME<tab>ok|FAILED".
run_one() {
    local name="$1" exe="$2" dir="$3" nice="$4" log t0 rc=0
    log="$scratch/$(echo "$name" | tr '/ ()' '____').log"
    t0=$EPOCHREALTIME
    if [ "$exe" = doc ]; then
        nice -n "$nice" cargo test --workspace --doc --quiet >"$log" 2>&1 || rc=$?
    else
        (cd "$dir" && nice -n "$nice" "$exe" --quiet) >"$log" 2>&1 || rc=$?
    fi
    local seconds
    seconds=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" -eq 0 ]; then
        printf '%s\t%s\tok\n' "$seconds" "$name"
    else
        printf '%s\t%s\tFAILED\n' "$seconds" "$name"
        { echo "---- $name (exit $rc):"; cat "$log"; } >&2
    fi
}
export -f run_one
export scratch

start=$SECONDS
# Two lanes. The binaries that start rigd (the daemon's and the dashboard's, niceness 0 in the
# jobs list) run one at a time: each rigd pins its loop to the same last core at SCHED_FIFO, so
# two side by side starve each other's loop into fault holds (a clean-clone run failed
# `fault_motion` and `motion_serial_e2e` on frame timeouts that way, three at a time). The
# CPU-bound crates' binaries run beside that lane, TEST_JOBS - 1 at a time at low priority
# (with TEST_CPU_NICE=0 they are niceness 0 too and join the one-at-a-time lane).
awk -F'\t' '$4 == 0' "$scratch/jobs" >"$scratch/jobs.rigd"
awk -F'\t' '$4 != 0' "$scratch/jobs" >"$scratch/jobs.cpu"
cpu_jobs=$(( jobs > 1 ? jobs - 1 : 1 ))
if [ "$jobs" -le 1 ]; then
    cat "$scratch/jobs.rigd" "$scratch/jobs.cpu" >"$scratch/jobs.all"
    tr '\t' '\n' <"$scratch/jobs.all" | xargs -d '\n' -n 4 -P 1 bash -c 'run_one "$@"' _ \
        >"$scratch/results" || true
else
    tr '\t' '\n' <"$scratch/jobs.rigd" | xargs -d '\n' -n 4 -P 1 bash -c 'run_one "$@"' _ \
        >"$scratch/results.rigd" &
    rigd_lane=$!
    tr '\t' '\n' <"$scratch/jobs.cpu" | xargs -d '\n' -n 4 -P "$cpu_jobs" bash -c 'run_one "$@"' _ \
        >"$scratch/results.cpu" || true
    wait "$rigd_lane" || true
    cat "$scratch/results.rigd" "$scratch/results.cpu" >"$scratch/results"
fi
passed=$(grep -c $'\tok$' "$scratch/results" || true)
failed=$(grep -c $'\tFAILED$' "$scratch/results" || true)
total=$(wc -l <"$scratch/jobs")
sort -rn "$scratch/results" | awk -F'\t' '$3 == "ok" { print $1, $2 }' >"$times_file.new" \
    && mv "$times_file.new" "$times_file"
echo "test-run: $passed of $total test binaries passed, $failed failed, $jobs at a time: $((SECONDS - start)) s; the slowest:" >&2
sort -rn "$scratch/results" | head -n 8 | awk -F'\t' '{ printf "   %6.1f s  %s%s\n", $1, $2, ($3 == "ok" ? "" : "  FAILED") }' >&2
if [ "$failed" -ne 0 ] || [ "$passed" -ne "$total" ]; then
    grep $'\tFAILED$' "$scratch/results" | cut -f2 | sed 's/^/test-run: FAILED: /' >&2
    exit 1
fi
