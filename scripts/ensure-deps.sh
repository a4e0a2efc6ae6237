#!/usr/bin/env bash
# Installs what rigd's run or test command needs on a fresh Debian/Ubuntu machine, only when
# missing, and says what it installs. Usage: scripts/ensure-deps.sh run|test
set -euo pipefail
mode="${1:-run}"

need_pkgs=()
have() { command -v "$1" >/dev/null 2>&1; }

if ! have cargo; then
    need_pkgs+=(cargo rustc)
fi
have cc || need_pkgs+=(gcc)
have pkg-config || need_pkgs+=(pkg-config)

if [ "$mode" = test ]; then
    have tmux || need_pkgs+=(tmux)                        # dashboard end-to-end test
    have systemd-analyze || need_pkgs+=(systemd)          # unit file verification
    have cyclictest || need_pkgs+=(rt-tests)              # loop latency comparison
    have qemu-system-x86_64 || need_pkgs+=(qemu-system-x86) # real kernel drivers (vmrig)
    have busybox || need_pkgs+=(busybox-static)
    have cpio || need_pkgs+=(cpio)
    have depmod || need_pkgs+=(kmod)
fi

if [ "${#need_pkgs[@]}" -gt 0 ]; then
    echo "ensure-deps: installing ${need_pkgs[*]} (apt-get, needs root)" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

if [ "$mode" = test ]; then
    rustup component list --installed 2>/dev/null | grep -q clippy || { have rustup && rustup component add clippy rustfmt; } || true
fi
