#!/usr/bin/env bash
# rigd against the real kernel input and force-feedback drivers (hid-logitech/lg4ff, uinput)
# in a throw-away QEMU guest (shared/vmrig). Builds the guest-side tests
# (tests/vmrig/guest.rs, the `vmrig_guest` example of rigd) as a static binary, boots the
# guest with it as /guest-run and fails unless every guest check passes.
#
# Env: VMRIG_OUT (artefacts, default /tmp/vmrig-rigd), VMRIG_TARGET_DIR (cargo target dir for
# the static build, kept apart from the shared target; default /tmp/rigd-vmrig-target),
# VMRIG_SHARED (the vmrig scripts; default ../shared/vmrig beside the repo).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
VMRIG="${VMRIG_SHARED:-$ROOT/../shared/vmrig}"
OUT="${VMRIG_OUT:-/tmp/vmrig-rigd}"
TARGET_DIR="${VMRIG_TARGET_DIR:-/tmp/rigd-vmrig-target}"
[ -x "$VMRIG/run-test.sh" ] || { echo "test-vmrig: $VMRIG/run-test.sh not found (clone shared/ beside the repo or set VMRIG_SHARED)" >&2; exit 1; }

echo "== vmrig: static build of the guest tests" >&2
start=$(date +%s)
# Dev profile without debug info and with light optimisation: quick to build, small initramfs.
RUSTFLAGS='-C target-feature=+crt-static' CARGO_PROFILE_DEV_DEBUG=0 CARGO_PROFILE_DEV_OPT_LEVEL=1 \
    CARGO_INCREMENTAL=0 cargo build --quiet \
    --target x86_64-unknown-linux-gnu --target-dir "$TARGET_DIR" \
    -p rigd --example vmrig_guest
BIN="$TARGET_DIR/x86_64-unknown-linux-gnu/debug/examples/vmrig_guest"
echo "== vmrig: build took $(( $(date +%s) - start )) s; initramfs" >&2
"$VMRIG/build-initramfs.sh" -o "$OUT" --add "$BIN:/guest-run" >/dev/null
echo "== vmrig: boot and run (TCG)" >&2
set +e
"$VMRIG/run-test.sh" -o "$OUT" -t none --timeout 240 --log "$OUT/serial.log"
rc=$?
set -e
tr -d '\r' < "$OUT/serial.log" | grep -aE '^(RIGD-VMRIG|vmrig_guest)' || true
if [ "$rc" -ne 0 ]; then
    echo "test-vmrig: FAILED (serial log: $OUT/serial.log)" >&2
    exit 1
fi
echo "test-vmrig: all guest checks passed in $(( $(date +%s) - start )) s" >&2
