#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs missing system packages, checks formatting and
# lints, runs every crate's tests, then the checks that need real system parts, the fuzzers
# and the 3-minute soak. Each step prints its time, and the last lines list them all.
# The soak (3 minutes of mostly waiting) runs in the background from the end of `cargo test`
# while the short steps after it run at nice 19 (systemd verify, the .deb, the fuzzers' build
# and run): CFS then gives rigd and the soak's monitor the CPU they ask for, and the soak's
# verdict does not depend on load (docs/reliability.md). vmrig (QEMU, both cores) runs after.
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
step "cargo clippy (all targets, -D warnings)" cargo clippy --workspace --all-targets --quiet -- -D warnings
run_tests() { cargo test --workspace --quiet 2>&1 | tee /tmp/rigd-test.log; }
step "cargo test (workspace)" run_tests

# The soak and the fuzzers add about 5 minutes here and would take CI (about 1.45x slower,
# a cold fuzz build) past its 30-minute budget now that cargo test takes 12 minutes: they run
# with RIGD_TEST_LONG=1 (docs/reliability.md, docs/fuzzing.md).
long="${RIGD_TEST_LONG:-0}"
# The soak in the background; its output goes to a log printed when it is waited for.
if [ "$long" = 1 ]; then
soak_log="$(mktemp /tmp/rigd-soak.XXXXXX)"
soak_t0=$SECONDS
echo "== soak: 3 minutes with everything on at once, in the background (docs/reliability.md)" >&2
# Its own process group (setsid), so a failing step's exit can stop it with rigd and the monitor.
setsid scripts/soak.sh --minutes 3 >"$soak_log" 2>&1 &
soak_pid=$!
fi

step "systemd-analyze verify (systemd/)" nice -n 19 scripts/verify-systemd.sh
step "deb: build the package, install it into a scratch root, remove, purge" nice -n 19 scripts/test-deb.sh
if [ "$long" = 1 ]; then
step "fuzz: every target 3 s, 2 at a time, from fuzz/corpus (docs/fuzzing.md)" nice -n 19 scripts/fuzz.sh 3

soak_rc=0
wait "$soak_pid" || soak_rc=$?
soak_pid=
cat "$soak_log" >&2
rm -f "$soak_log"
times+=("$(printf '%5d s  %s' $((SECONDS - soak_t0)) "soak (3 minutes, background since the end of cargo test)")")
echo "== soak: $((SECONDS - soak_t0)) s, exit $soak_rc" >&2
[ "$soak_rc" -eq 0 ] || { echo "test: the soak missed a goal (its verdict above)" >&2; exit 1; }
fi

step "vmrig: rigd against the real kernel input/FF drivers (QEMU)" scripts/test-vmrig.sh
