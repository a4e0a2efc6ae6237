#!/usr/bin/env bash
# The soak run: rigd with everything on at once for HOURS (robot cars; every telemetry format
# at 1 kHz to loopback listeners, one of which goes away for 15 s every minute; a motion
# platform on a pty read as an SMC3 board; a DIY serial handbrake and shifter on a pty; the
# dashboard in tmux; a config reload every 5 minutes), sampled once a minute: RSS, open fds,
# threads, CPU, loop wake p99, late ticks, dropped time, motion frames written, telemetry sent
# and received per destination. Ends with a verdict against the goals in docs/reliability.md
# (exit 1 when one is missed) and writes series.csv, summary.json and soak.svg (the series
# plotted) under target/soak/<date>/.
# Usage: scripts/soak.sh HOURS            e.g. scripts/soak.sh 1
#        scripts/soak.sh --minutes M      e.g. scripts/soak.sh --minutes 3 (the test command's)
#   SOAK_PROFILE=release   soak the release build (default: the test profile the tests build)
#   SOAK_NO_TMUX=1         run rigd without its dashboard
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
case "${1:-}" in
    --minutes) minutes="${2:?--minutes needs a number}" ;;
    ''|-h|--help) sed -n '2,15p' "$0" >&2; exit 2 ;;
    *) minutes="$(awk -v h="$1" 'BEGIN { if (h + 0 <= 0) exit 1; print h * 60 }')" \
           || { echo "soak: HOURS must be a positive number, e.g. 1 or 0.05" >&2; exit 2; } ;;
esac
command -v python3 >/dev/null || {
    echo "soak: installing python3 (the monitor)" >&2
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends python3 >/dev/null
}
profile="${SOAK_PROFILE:-test}"
cargo build --quiet --profile "$profile" -p rigd --bin rigd
dir=debug
case "$profile" in dev|test) ;; *) dir="$profile" ;; esac
out="$root/target/soak/$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$out"
echo "soak: ${minutes} min of rigd ($profile build), results in $out; load: $(uptime)" >&2
extra=()
[ "${SOAK_NO_TMUX:-0}" = 1 ] && extra+=(--no-tmux)
exec python3 "$root/scripts/soak/monitor.py" --rigd "$root/target/$dir/rigd" \
    --minutes "$minutes" --out "$out" "${extra[@]}"
