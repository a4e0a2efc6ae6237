#!/usr/bin/env bash
# Runs every test `cargo test --workspace` runs, with several test binaries at once: the test
# command's "run" step (scripts/test.sh builds them first with `cargo test --no-run`).
# Why not `cargo test`: it runs one binary after another, and most of rigd's own binaries spend
# their time waiting on real parts (rigd at 1 kHz, ptys, loopback listeners, tmux) with a core
# mostly idle: timed one by one, the daemon's binaries took 210 s of wall time for 26 s of CPU
# (docs/BENCHMARKS.md, "The test command's time"). Each binary is run as cargo runs it (from its
# package's directory, the same arguments), its output kept and printed only when it fails.
# Every job is in one of two lanes, written in the job list's lane column (set per package in
# LANES below; a package without one stops the run, so a new crate must be placed):
# - `rigd`: the daemon's and the dashboard's binaries, which start rigd or rig-dash (or the
#   real-time loop in-process) and wait on them. They run ONE AT A TIME, at nice 0: every rigd
#   pins its loop to the last core at SCHED_FIFO, so two side by side starve each other into
#   fault holds (a clean-clone run failed `fault_motion` and `motion_serial_e2e` on frame
#   timeouts with three at a time), and their timing checks get the CPU they ask for.
# - `cpu`: the CPU-bound crates' binaries (physics, protocols, config, the soak plot) and the
#   doc tests (`cargo test --doc`, one job). They run beside the rigd lane, TEST_JOBS - 1 at a
#   time, at nice TEST_CPU_NICE.
# The tests share no fixed port or tmux session name (each test picks its own), which is what
# lets the two lanes run side by side. Prints the slowest binaries at the end.
# Usage: scripts/test-run.sh [NAME...]   with NAMEs, only the jobs whose name contains one of
#        them (the names it prints: `daemon/test_guards`, `physics/`, `doc tests`).
#        TEST_JOBS=N binaries at once (default 3: the rigd lane beside 2 of the cpu lane);
#        TEST_JOBS=1 runs every job one by one, the rigd lane first, as `cargo test
#        --workspace` does. TEST_CPU_NICE=N the cpu lane's niceness (default 19; 0 on a
#        machine busy with other work at nice 0, which would otherwise leave it almost no CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${TEST_JOBS:-3}"
cpu_nice="${TEST_CPU_NICE:-19}"
scratch="$(mktemp -d /tmp/rigd-test-run.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
# Times of the last run (slowest first), so the long binaries start first and the lanes end
# together; kept in the target dir like any build output.
times_file="${CARGO_TARGET_DIR:-target}/test-run-times.txt"

# The test executables with their package's directory, from cargo's own build messages (a
# no-op build when the test command's build step ran).
cargo test --workspace --no-run --quiet --message-format=json >"$scratch/build.json"
python3 - "$scratch/build.json" "$times_file" "$@" >"$scratch/jobs" <<'EOF'
import json, os, sys
# The lane of each package's test binaries, by the package's directory name.
LANES = {
    "daemon": "rigd", "dash": "rigd",
    "types": "cpu", "rig-toml": "cpu", "physics": "cpu", "protocols": "cpu",
    "rig-config": "cpu", "plot": "cpu",
}
previous = {}
if os.path.exists(sys.argv[2]):
    for line in open(sys.argv[2]):
        seconds, name = line.split(maxsplit=1)
        previous[name.strip()] = float(seconds)
wanted = sys.argv[3:]
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
    lane = LANES.get(os.path.basename(package))
    if lane is None:
        sys.exit(f"test-run: no lane for the tests of {package}: add the package to LANES in scripts/test-run.sh")
    jobs.append((previous.get(name, 1e9), name, message["executable"], package, lane))
jobs.append((previous.get("doc tests", 1e9), "doc tests", "doc", os.getcwd(), "cpu"))
if wanted:
    jobs = [job for job in jobs if any(w in job[1] for w in wanted)]
    if not jobs:
        sys.exit(f"test-run: no job's name contains any of {wanted}")
for seconds, name, exe, package, lane in sorted(jobs, key=lambda j: -j[0]):
    print(f"{name}\t{exe}\t{package}\t{lane}")
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

# run_lane LANE NICE PARALLEL: the jobs of LANE at niceness NICE, PARALLEL at a time; their
# results on stdout.
run_lane() {
    awk -F'\t' -v lane="$1" -v nice="$2" '$4 == lane { print $1; print $2; print $3; print nice }' \
        "$scratch/jobs" | xargs -r -d '\n' -n 4 -P "$3" bash -c 'run_one "$@"' _ || true
}

start=$SECONDS
if [ "$jobs" -le 1 ]; then
    { run_lane rigd 0 1; run_lane cpu "$cpu_nice" 1; } >"$scratch/results"
else
    run_lane rigd 0 1 >"$scratch/results.rigd" &
    rigd_lane=$!
    run_lane cpu "$cpu_nice" $((jobs - 1)) >"$scratch/results.cpu"
    wait "$rigd_lane"
    cat "$scratch/results.rigd" "$scratch/results.cpu" >"$scratch/results"
fi
passed=$(grep -c $'\tok$' "$scratch/results" || true)
failed=$(grep -c $'\tFAILED$' "$scratch/results" || true)
total=$(wc -l <"$scratch/jobs")
# The times of the jobs that passed; a run of some jobs keeps the others' times from before.
{
    sort -rn "$scratch/results" | awk -F'\t' '$3 == "ok" { print $1, $2 }'
    if [ "$#" -gt 0 ] && [ -f "$times_file" ]; then cat "$times_file"; fi
} | awk '{ name = substr($0, index($0, " ") + 1) } !(name in seen) { seen[name]; print }' \
    | sort -rn >"$times_file.new" && mv "$times_file.new" "$times_file"
echo "test-run: $passed of $total test binaries passed, $failed failed, $jobs at a time: $((SECONDS - start)) s; the slowest:" >&2
sort -rn "$scratch/results" | head -n 8 | awk -F'\t' '{ printf "   %6.1f s  %s%s\n", $1, $2, ($3 == "ok" ? "" : "  FAILED") }' >&2
if [ "$failed" -ne 0 ] || [ "$passed" -ne "$total" ]; then
    grep $'\tFAILED$' "$scratch/results" | cut -f2 | sed 's/^/test-run: FAILED: /' >&2
    exit 1
fi
