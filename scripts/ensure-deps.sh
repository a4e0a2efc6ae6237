#!/usr/bin/env bash
# Installs what rigd's run or test command needs on a fresh Debian/Ubuntu machine, only when
# missing, and says what it installs. Usage: scripts/ensure-deps.sh run|test|vmrig
#   run    the Rust toolchain, a C compiler, pkg-config and libudev-dev (gamepads: gilrs
#          links libudev)
#   test   run's, plus what the test suite's system checks use (tmux, systemd-analyze and
#          systemd-sysusers, cyclictest) and everything vmrig needs; the .deb test uses
#          dpkg-deb and dpkg, which every Debian/Ubuntu system has
#   vmrig  the QEMU harness of tests/vmrig: qemu-system-x86, busybox-static, cpio, kmod,
#          xz-utils (the kernel itself is fetched by tests/vmrig/harness/build.sh)
set -euo pipefail
mode="${1:-run}"

need_pkgs=()
have() { command -v "$1" >/dev/null 2>&1; }

if ! have cargo; then
    need_pkgs+=(cargo rustc)
fi
have cc || need_pkgs+=(gcc)
have pkg-config || need_pkgs+=(pkg-config)
# The gamepad feature (on by default) links libudev through gilrs.
{ have pkg-config && pkg-config --exists libudev; } || need_pkgs+=(libudev-dev)

if [ "$mode" = test ]; then
    have tmux || need_pkgs+=(tmux)                        # dashboard end-to-end test
    have python3 || need_pkgs+=(python3)                  # the soak's monitor, the test runner
    have systemd-analyze || need_pkgs+=(systemd)          # unit file verification
    have cyclictest || need_pkgs+=(rt-tests)              # loop latency comparison
fi
if [ "$mode" = test ] || [ "$mode" = vmrig ]; then
    # busybox must be the static build: the guest has no libc. The Debian package
    # busybox-static replaces (and conflicts with) the dynamic busybox.
    if ! have busybox || LC_ALL=C readelf -l "$(command -v busybox)" 2>/dev/null | grep 'program interpreter' >/dev/null; then
        need_pkgs+=(busybox-static)
    fi
    have qemu-system-x86_64 || need_pkgs+=(qemu-system-x86)
    have cpio || need_pkgs+=(cpio)
    have depmod || need_pkgs+=(kmod)
    have xz || need_pkgs+=(xz-utils)
fi

if [ "${#need_pkgs[@]}" -gt 0 ]; then
    echo "ensure-deps: installing ${need_pkgs[*]} (apt-get, needs root)" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    # Waits for another apt/dpkg run instead of failing on its lock.
    $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
        --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

if [ "$mode" = test ]; then
    rustup component list --installed 2>/dev/null | grep clippy >/dev/null || { have rustup && rustup component add clippy rustfmt; } || true
fi
