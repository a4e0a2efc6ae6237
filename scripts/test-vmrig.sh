#!/usr/bin/env bash
# rigd against the real kernel input and force-feedback drivers (hid-logitech/lg4ff, uinput,
# usbhid) in a throw-away QEMU guest, with the repository's own harness (tests/vmrig/harness,
# described in tests/vmrig/README.md). Builds the guest tests (tests/vmrig/guest.rs, the
# `vmrig_guest` example of rigd), builds the stock Debian kernel and a
# busybox initramfs around it, boots it and fails unless every guest check passes.
# Installs qemu-system-x86, busybox-static, cpio, kmod and xz-utils with apt-get when missing.
#
# Env: VMRIG_OUT (artefacts and the kernel package cache, default /tmp/vmrig-rigd),
#      VMRIG_TARGET_DIR (cargo target dir of the static build, kept apart from target/ because
#      its flags differ; default /tmp/rigd-vmrig-target), VMRIG_TIMEOUT (default 480 s: the guest
#      run took up to about 185 s on an overloaded host before the rumble-panic check, and
#      316-322 s with it at load 15-17 with six other builds beside it).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${VMRIG_OUT:-/tmp/vmrig-rigd}"
target_dir="${VMRIG_TARGET_DIR:-/tmp/rigd-vmrig-target}"
scripts/ensure-deps.sh vmrig

echo "== vmrig: build of the guest tests" >&2
start=$(date +%s)
# Dev profile without debug info and with light optimisation: quick to build, small initramfs.
# Default features, as users build rigd: gilrs (gamepads, the rumble stage) links libudev,
# which has no static library, so the program is dynamically linked and build.sh copies the
# shared libraries it needs into the initramfs.
CARGO_PROFILE_DEV_DEBUG=0 CARGO_PROFILE_DEV_OPT_LEVEL=1 \
    CARGO_INCREMENTAL=0 cargo build --quiet \
    --target x86_64-unknown-linux-gnu --target-dir "$target_dir" \
    -p rigd --example vmrig_guest
guest="$target_dir/x86_64-unknown-linux-gnu/debug/examples/vmrig_guest"
echo "== vmrig: build took $(( $(date +%s) - start )) s; kernel and initramfs" >&2
tests/vmrig/harness/build.sh --out "$out" --guest "$guest"
echo "== vmrig: boot and run" >&2
set +e
tests/vmrig/harness/run.sh --out "$out" --timeout "${VMRIG_TIMEOUT:-480}" > "$out/summary.txt"
rc=$?
set -e
tr -d '\r' < "$out/serial.log" | grep -aE '^(RIGD-VMRIG|VMRIG-|vmrig_guest)' || true
if [ "$rc" -ne 0 ]; then
    echo "test-vmrig: FAILED (serial log: $out/serial.log)" >&2
    cat "$out/summary.txt"
    exit 1
fi
echo "test-vmrig: all guest checks passed in $(( $(date +%s) - start )) s" >&2
cat "$out/summary.txt"
