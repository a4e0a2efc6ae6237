#!/usr/bin/env bash
# Builds what the vmrig guest boots: the stock Debian kernel (uncompressed vmlinux, booted
# through PVH) and a busybox initramfs holding our init, the kernel modules the tests need
# (with their dependencies) and the guest program run as /guest-run.
#
# Usage: tests/vmrig/harness/build.sh --guest BIN [--out DIR] [--module NAME]...
#
#   --guest BIN    program run by the guest as /guest-run (required); static, or dynamically
#                  linked with the shared libraries it needs (ldd) copied into the initramfs
#   --out DIR      artefacts: vmlinux, initramfs.cpio.gz, kernel-release, modules.txt, and the
#                  kernel package cache under DIR/kernel (default $VMRIG_OUT or /tmp/vmrig-rigd)
#   --module NAME  one more kernel module (dependencies resolved), e.g. hid-thrustmaster
#
# Env: VMRIG_KERNEL_PKG   kernel image package to use instead of what linux-image-amd64
#                         depends on (e.g. to pin one kernel for a bisection).
#
# Needs busybox-static, cpio, kmod, xz-utils, ldd and apt-get (scripts/ensure-deps.sh vmrig
# installs the first four). The kernel package is downloaded once (about 70 MB) and kept.
set -euo pipefail

HARNESS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${VMRIG_OUT:-/tmp/vmrig-rigd}"
guest=""
extra_modules=()
while [ $# -gt 0 ]; do
    case "$1" in
        --guest) guest="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --module) extra_modules+=("$2"); shift 2 ;;
        -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "vmrig build: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
say() { echo "[vmrig build] $*" >&2; }
die() { echo "[vmrig build] error: $*" >&2; exit 1; }

[ -n "$guest" ] || die "--guest BIN is required (the program the guest runs)"
[ -f "$guest" ] || die "guest program $guest not found (build it first)"
for tool in busybox cpio depmod modprobe xz dpkg-deb apt-get apt-cache readelf gzip ldd; do
    command -v "$tool" >/dev/null ||
        die "'$tool' is missing: run scripts/ensure-deps.sh vmrig (installs busybox-static cpio kmod xz-utils)"
done

# Modules the guest tests use; modprobe adds what they depend on (hid, usbcore, ff-memless,
# udc-core, libcomposite, configfs...). usb_f_hid carries the emulated G29, usb_f_fs
# (FunctionFS) the emulated HID PID base, each on its own dummy_hcd controller.
modules=(evdev uinput uhid hid-generic hid-logitech usbhid dummy_hcd usb_f_hid usb_f_fs)
modules+=("${extra_modules[@]}")

is_static() { ! LC_ALL=C readelf -l "$1" 2>/dev/null | grep -q 'program interpreter'; }

mkdir -p "$out/kernel"
out="$(cd "$out" && pwd)"

# ---- the kernel package ------------------------------------------------------------------
# Debian's linux-image-amd64 is a meta package; the kernel itself is the linux-image-<release>
# package it depends on. apt-cache needs package lists: fetch them once if there are none.
kernel_package() {
    apt-cache depends linux-image-amd64 2>/dev/null |
        awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}
pkg="${VMRIG_KERNEL_PKG:-}"
if [ -z "$pkg" ]; then
    pkg="$(kernel_package)"
    if [ -z "$pkg" ]; then
        say "no package lists for linux-image-amd64 yet: apt-get update"
        apt-get -o DPkg::Lock::Timeout=600 -qq update >&2 || die "apt-get update failed (needs root and a Debian mirror)"
        pkg="$(kernel_package)"
    fi
fi
[ -n "$pkg" ] || die "cannot resolve the kernel behind linux-image-amd64 (is this Debian? set VMRIG_KERNEL_PKG=linux-image-<release>-amd64)"

deb="$(ls "$out/kernel/${pkg}"_*.deb 2>/dev/null | head -n1 || true)"
if [ -z "$deb" ]; then
    say "downloading $pkg (once; kept in $out/kernel)"
    # As root, apt hands downloads to its _apt user, who may not write here: keep them as root.
    sandbox=(); [ "$(id -u)" -ne 0 ] || sandbox=(-o APT::Sandbox::User=root)
    (cd "$out/kernel" && apt-get -qq "${sandbox[@]}" download "$pkg" >&2) || die "apt-get download $pkg failed"
    deb="$(ls "$out/kernel/${pkg}"_*.deb | head -n1)"
fi
tree="$out/kernel/tree"
if [ "$(cat "$tree/.deb" 2>/dev/null)" != "$(basename "$deb")" ]; then
    say "unpacking $(basename "$deb")"
    rm -rf "$tree"
    mkdir -p "$tree"
    dpkg-deb -x "$deb" "$tree"
    depmod -b "$tree" "$(ls "$tree/lib/modules" | head -n1)"
    basename "$deb" > "$tree/.deb"
fi
release="$(ls "$tree/lib/modules" | head -n1)"
echo "$release" > "$out/kernel-release"

# Under TCG the bzImage spends seconds decompressing itself; QEMU boots the ELF vmlinux inside
# it directly (PVH entry point). The payload is an xz stream starting at its magic bytes.
vmlinuz="$tree/boot/vmlinuz-$release"
if [ ! -s "$out/vmlinux" ] || [ "$vmlinuz" -nt "$out/vmlinux" ]; then
    rm -f "$out/vmlinux" "$out/vmlinux.part"
    offset="$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$vmlinuz" | head -n1 | cut -d: -f1 || true)"
    if [ -n "$offset" ]; then
        tail -c +"$((offset + 1))" "$vmlinuz" | xz -dc --single-stream > "$out/vmlinux.part" 2>/dev/null || true
    fi
    if [ -s "$out/vmlinux.part" ] && [ "$(head -c4 "$out/vmlinux.part" | tail -c3)" = ELF ]; then
        mv "$out/vmlinux.part" "$out/vmlinux"
    else
        say "no xz-compressed ELF inside $vmlinuz: booting the bzImage (slower under TCG)"
        rm -f "$out/vmlinux.part"
        cp "$vmlinuz" "$out/vmlinux"
    fi
fi

# ---- the initramfs -----------------------------------------------------------------------
root="$out/initramfs"
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,etc/vmrig,lib/modules}
cp "$(command -v busybox)" "$root/bin/busybox"
is_static "$root/bin/busybox" || die "$(command -v busybox) is dynamically linked: install busybox-static"

# Module parameters: dummy_hcd makes two host/UDC pairs (dummy_udc.0 for the G29, dummy_udc.1
# for the PID base), so both wheels can be plugged in at once.
module_params() {
    case "$1" in
        dummy_hcd.ko) echo " num=2" ;;
    esac
}

# insmod order = modprobe's dependency order; a module already listed is skipped. Compressed
# modules (.ko.xz/.ko.zst/.ko.gz, as newer Debian kernels ship them) are stored unpacked
# because busybox insmod reads plain ELF only.
for m in "${modules[@]}"; do
    modprobe -d "$tree" -S "$release" --show-depends "$m" ||
        die "module $m not found in $pkg"
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' > "$out/modules.paths"
: > "$root/etc/vmrig/modules"
while read -r path; do
    name="$(basename "$path")"
    case "$name" in
        *.ko) cp "$path" "$root/lib/modules/$name" ;;
        *.ko.xz) name="${name%.xz}"; xz -dc "$path" > "$root/lib/modules/$name" ;;
        *.ko.gz) name="${name%.gz}"; gzip -dc "$path" > "$root/lib/modules/$name" ;;
        *.ko.zst) name="${name%.zst}"; zstd -qdc "$path" > "$root/lib/modules/$name" ||
            die "$path is zstd-compressed: install zstd" ;;
        *) die "unexpected module file $path" ;;
    esac
    echo "$name$(module_params "$name")" >> "$root/etc/vmrig/modules"
done < "$out/modules.paths"
cp "$root/etc/vmrig/modules" "$out/modules.txt"

install -m 0755 "$HARNESS/init" "$root/init"
install -m 0755 "$guest" "$root/guest-run"
# A dynamically linked guest (the default-feature build links libudev through gilrs, which has
# no static library) gets its shared libraries and the loader at the paths ldd names, so the
# guest's loader finds them where the host's does.
if ! is_static "$guest"; then
    LC_ALL=C ldd "$guest" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
        while read -r lib; do
            mkdir -p "$root$(dirname "$lib")"
            cp -L "$lib" "$root$lib"
        done
    [ -n "$(ls "$root"/lib64/ld-linux* 2>/dev/null)" ] || die "ldd named no loader for $guest"
fi

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$out/initramfs.cpio.gz"
say "kernel $release, $(wc -l < "$out/modules.txt") modules, initramfs $(du -h "$out/initramfs.cpio.gz" | cut -f1) in $out"
