#!/usr/bin/env bash
# Checks the shipped systemd unit with `systemd-analyze verify`: a copy of systemd/rigd.service
# whose ExecStart points at the built binary (verify insists the executable exists), in a temp
# directory; also checks that the unit keeps the settings the runtime relies on.
# Usage: scripts/verify-systemd.sh [path/to/rigd]   (default: $CARGO_TARGET_DIR or target/, then
# debug/rigd, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-${CARGO_TARGET_DIR:-target}/debug/rigd}"
[ -x "$bin" ] || cargo build --quiet -p rigd
bin="$(realpath "$bin")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sed "s|^ExecStart=/usr/local/bin/rigd|ExecStart=$bin|" systemd/rigd.service > "$tmp/rigd.service"
systemd-analyze verify "$tmp/rigd.service"
for setting in Type=notify WatchdogSec= LimitRTPRIO= LimitMEMLOCK= RestartPreventExitStatus=2 ProtectSystem=strict DeviceAllow=char-input DeviceAllow=char-hidraw DeviceAllow=char-ttyUSB DeviceAllow=char-ttyACM SupplementaryGroups=input; do
    grep -q "^$setting" systemd/rigd.service || { echo "verify-systemd: rigd.service lost $setting" >&2; exit 1; }
done
# udev rules: every line is a comment, blank, or has a match/assignment; labels match GOTOs.
for label in $(grep -o 'GOTO="[a-z_]*"' systemd/60-rigd.rules | sort -u | sed 's/GOTO=//; s/"//g'); do
    grep -q "^LABEL=\"$label\"" systemd/60-rigd.rules || { echo "verify-systemd: 60-rigd.rules: GOTO $label has no LABEL" >&2; exit 1; }
done
echo "verify-systemd: systemd/rigd.service and systemd/60-rigd.rules ok"
