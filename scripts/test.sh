#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs missing system packages, checks formatting,
# builds every test, runs the 3-minute soak, lints, checks the systemd unit and the Debian
# package, runs every fuzz target, checks that the physics built for x86-64-v3 gives the
# portable build's bits, then every crate's tests, then rigd against the real kernel drivers
# in QEMU. Each step prints its time, and the last lines list them all.
# The soak (3 minutes of mostly waiting) runs in the background from the end of the build
# while the CPU-bound steps run at nice 19 beside it (clippy, systemd verify, the .deb, the
# fuzzers' build and run, the x86-64-v3 check): CFS then gives rigd and the soak's monitor the
# CPU they ask for, and the soak's verdict does not depend on load (docs/reliability.md). The
# tests run after the soak (they start rigd and listeners of their own); vmrig (QEMU, both
# cores) runs last.
# Extra checks: one line each at the end (owners add their own script here).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
times=()
report() {
    if [ -n "${soak_pid:-}" ] && kill -0 "$soak_pid" 2>/dev/null; then
        kill -TERM -- "-$soak_pid" 2>/dev/null || true
    fi
    echo "== step times:" >&2
    printf '   %s\n' "${times[@]}" >&2
    echo "== total: $((SECONDS - started)) s" >&2
}
trap report EXIT
# step NAME COMMAND...: runs COMMAND as a step and records how long it took.
step() {
    local name="$1" t0=$SECONDS
    shift
    echo "== $name" >&2
    "$@"
    times+=("$(printf '%5d s  %s' $((SECONDS - t0)) "$name")")
    echo "== $name: $((SECONDS - t0)) s" >&2
}

step "system packages" scripts/ensure-deps.sh test
step "cargo fmt --check" cargo fmt --all -- --check
# Every test binary and rigd first, then the 3-minute soak in the background (it runs the rigd
# built here), then the CPU-bound steps at nice 19 beside it, the tests once it is done.
step "cargo test: build (workspace, no run)" cargo test --workspace --no-run --quiet

# The soak in the background, in its own process group (setsid), so a failing step's exit can
# stop it with rigd and the monitor; its output goes to a log printed when it is waited for.
soak_log="$(mktemp /tmp/rigd-soak.XXXXXX)"
soak_t0=$SECONDS
echo "== soak: 3 minutes with everything on at once, in the background (docs/reliability.md)" >&2
SOAK_BUILT=1 setsid scripts/soak.sh --minutes 3 >"$soak_log" 2>&1 &
soak_pid=$!

# Beside the soak, at nice 19 (CFS gives rigd and the monitor the CPU they ask for): the steps
# that need no loopback ports, ptys or tmux sessions of their own, so none meets the soak's.
step "cargo clippy (all targets, -D warnings)" nice -n 19 cargo clippy --workspace --all-targets --quiet -- -D warnings
step "systemd-analyze verify (systemd/)" nice -n 19 scripts/verify-systemd.sh
step "deb: build the package, install it into a scratch root, remove, purge" nice -n 19 scripts/test-deb.sh
step "fuzz: every target 3 s, 2 at a time, from fuzz/corpus (docs/fuzzing.md)" nice -n 19 scripts/fuzz.sh 3
step "x86-64-v3 build: the same bits as the portable one (scripts/test-cpu-levels.sh)" nice -n 19 scripts/test-cpu-levels.sh

soak_rc=0
wait "$soak_pid" || soak_rc=$?
soak_pid=
cat "$soak_log" >&2
rm -f "$soak_log"
times+=("$(printf '%5d s  %s' $((SECONDS - soak_t0)) "soak (3 minutes, background since the build; the steps above ran beside it)")")
echo "== soak: $((SECONDS - soak_t0)) s, exit $soak_rc" >&2
[ "$soak_rc" -eq 0 ] || { echo "test: the soak missed a goal (its verdict above)" >&2; exit 1; }

# The tests start rigd, tmux sessions and loopback listeners of their own: after the soak.
# Two lanes (scripts/test-run.sh): the binaries that start rigd one at a time, two CPU-bound
# ones beside them at nice 19; the doc tests among the latter.
step "tests: every test binary and the doc tests, rigd's one at a time (scripts/test-run.sh)" scripts/test-run.sh

step "vmrig: rigd against the real kernel input/FF drivers (QEMU)" scripts/test-vmrig.sh
