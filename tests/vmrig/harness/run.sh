#!/usr/bin/env bash
# Boots the vmrig guest that build.sh made under QEMU, keeps its serial console as the log,
# and turns the log into an exit code: 0 only if the guest program ran to the end with exit
# code 0, every check line says PASS and every module loaded. Its last line is
# `vmrig: N passed, N failed` (N = the guest's `RIGD-VMRIG <check> PASS|FAIL` lines, plus one
# failure for a failed module, a non-zero guest exit or a guest that never finished).
#
# Usage: tests/vmrig/harness/run.sh [--out DIR] [--timeout SECONDS] [--accel auto|tcg|kvm]
#                                   [--log FILE]
#
#   --out DIR      build.sh's artefacts (default $VMRIG_OUT or /tmp/vmrig-rigd)
#   --timeout S    wall-clock limit for the whole VM (default 240); QEMU is killed after it
#   --accel A      auto (default) = kvm only when /dev/kvm is usable and the CPU has vmx or svm,
#                  else tcg. Nested hosts that offer /dev/kvm without vmx/svm (PVM-style) cannot
#                  run a stock kernel under KVM: it hangs without output, so auto avoids them.
#   --log FILE     serial log (default DIR/serial.log)
#
# Needs qemu-system-x86_64 (scripts/ensure-deps.sh vmrig installs qemu-system-x86).
set -euo pipefail

out="${VMRIG_OUT:-/tmp/vmrig-rigd}"
timeout_s=240
accel=auto
log=""
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --timeout) timeout_s="$2"; shift 2 ;;
        --accel) accel="$2"; shift 2 ;;
        --log) log="$2"; shift 2 ;;
        -h | --help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "vmrig run: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
log="${log:-$out/serial.log}"
die() { echo "[vmrig run] error: $*" >&2; exit 1; }

command -v qemu-system-x86_64 >/dev/null ||
    die "qemu-system-x86_64 is missing: run scripts/ensure-deps.sh vmrig (installs qemu-system-x86)"
for f in vmlinux initramfs.cpio.gz; do
    [ -s "$out/$f" ] || die "$out/$f is missing: run tests/vmrig/harness/build.sh first"
done

if [ "$accel" = auto ]; then
    accel=tcg
    if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then accel=kvm; fi
fi
case "$accel" in
    kvm) accel_args=(-accel kvm -cpu host) ;;
    tcg) accel_args=(-accel tcg,thread=multi -cpu max) ;;
    *) die "--accel must be auto, tcg or kvm (got '$accel')" ;;
esac

# A short boot: no legacy keyboard/mouse probing, one UART, no timer or TSC self-checks.
cmdline="console=ttyS0 quiet panic=-1 mitigations=off i8042.nokbd i8042.noaux 8250.nr_uarts=1 no_timer_check tsc=reliable"
echo "[vmrig run] accel=$accel timeout=${timeout_s}s log=$log" >&2
started=$(date +%s)
set +e
timeout --kill-after=5 "$timeout_s" qemu-system-x86_64 "${accel_args[@]}" -smp 2 -m 512 \
    -nodefaults -no-reboot -display none -serial stdio \
    -kernel "$out/vmlinux" -initrd "$out/initramfs.cpio.gz" -append "$cmdline" \
    < /dev/null > "$log" 2>&1
qemu_rc=$?
set -e
echo "[vmrig run] guest ran $(( $(date +%s) - started )) s, qemu exit $qemu_rc" >&2

lines="$(tr -d '\r' < "$log")"
passed=$(grep -acE '^RIGD-VMRIG [^ ]+ PASS' <<< "$lines" || true)
failed=$(grep -acE '^RIGD-VMRIG [^ ]+ FAIL' <<< "$lines" || true)
problem() { echo "[vmrig run] $*" >&2; failed=$((failed + 1)); }
[ "$qemu_rc" -eq 0 ] || problem "qemu exited with $qemu_rc (124 = killed after ${timeout_s}s)"
while read -r module; do
    [ -n "$module" ] && problem "module did not load: ${module#VMRIG-MODULE-FAILED }"
done < <(grep -a '^VMRIG-MODULE-FAILED' <<< "$lines" || true)
guest_rc="$(sed -n 's/^VMRIG-GUEST-EXIT rc=\([0-9]*\).*/\1/p' <<< "$lines" | tail -n1)"
if [ -z "$guest_rc" ] || ! grep -aq '^VMRIG-DONE' <<< "$lines"; then
    problem "the guest did not finish; last lines of $log:"
    tail -n 20 <<< "$lines" >&2
elif [ "$guest_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    problem "the guest program exited with $guest_rc without a FAIL line (panic?)"
fi
[ "$passed" -gt 0 ] || problem "no check passed"

echo "vmrig: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
