#!/usr/bin/env bash
# Builds the Debian package rigd_<version>_<arch>.deb with dpkg-deb from a release build (reused
# when target/release is up to date: the portable x86-64 build, which scripts/run-demo.sh
# makes only on a CPU without AVX2, see scripts/cpu-level.sh) and the files in pkg/deb/.
# Prints the package's path as the last line of stdout. Install it with
#   sudo apt install ./target/debian/rigd_*.deb
# What goes where:
#   /usr/bin/rigd, /usr/bin/rig-dash               the binaries (debug info stripped)
#   /usr/lib/systemd/system/rigd.service           systemd/rigd.service, ExecStart /usr/bin/rigd
#   /usr/lib/udev/rules.d/60-rigd.rules            systemd/60-rigd.rules
#   /usr/lib/sysusers.d/rigd.conf                  systemd/sysusers-rigd.conf (the rigd user)
#   /etc/rigd/rigd.toml                            examples/rigd.toml, a conffile
#   /usr/share/man/man1/                           rigd(1), rigd-<command>(1), rig-dash(1)
#   /usr/share/{bash-completion,zsh,fish}/...      completions for both binaries
#   /usr/share/doc/rigd/                           copyright, changelog, README, docs/, examples/
# Man pages and completions come from the binaries' own clap definitions (`rigd
# generate-assets DIR`, `rig-dash --generate-assets DIR`). Maintainer scripts: pkg/deb/.
# Usage: scripts/build-deb.sh [--profile PROFILE]   (env: CARGO_TARGET_DIR; the .deb goes to
# $target/debian/). PROFILE is the cargo profile of the binaries, `release` by default; the
# package test (scripts/test-deb.sh) packs `test`'s, the binaries `cargo test --workspace`
# builds (with `test` this runs `cargo test --workspace --no-run`: a no-op after the tests),
# since it checks the packaging and not the optimiser (a release build from cold takes
# minutes of CI time). Ship only release packages.
set -euo pipefail
profile=release
case "${1:-}" in
    --profile) profile="${2:?build-deb: --profile needs a cargo profile name (release, dev or test)}" ;;
    "") ;;
    *) echo "build-deb: unknown argument '$1' (usage: scripts/build-deb.sh [--profile release|dev])" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
umask 022
scripts/ensure-deps.sh run
command -v dpkg-deb >/dev/null || { echo "build-deb: dpkg-deb is missing: this needs a Debian or Ubuntu system (other distributions: docs/install.md)" >&2; exit 1; }

target="${CARGO_TARGET_DIR:-target}"
echo "build-deb: building rigd and rig-dash ($profile profile) ..." >&2
if [ "$profile" = test ]; then
    # The binaries `cargo test --workspace` builds, as it built them (a `cargo build -p` would
    # resolve other features for the shared dependencies and build rigd again).
    cargo test --workspace --no-run --quiet
else
    cargo build --profile "$profile" --quiet -p rigd -p rig-dash
fi
# dev and test build into debug/ (test inherits dev).
case "$profile" in dev|test) bin="$target/debug" ;; *) bin="$target/$profile" ;; esac

version="$("$bin/rigd" --version | awk '{print $2}')"
arch="$(dpkg --print-architecture)"
stage="$(mktemp -d /tmp/rigd-deb.XXXXXX)"
trap 'rm -rf "$stage"' EXIT
root="$stage/root"

# Binaries, without debug sections (Debian ships those in -dbgsym packages).
install -d "$root/usr/bin"
for exe in rigd rig-dash; do
    install -m 0755 "$bin/$exe" "$root/usr/bin/$exe"
    strip --strip-debug --remove-section=.comment "$root/usr/bin/$exe"
done

# systemd and udev glue. The unit's ExecStart names /usr/local/bin (the manual install).
install -d "$root/usr/lib/systemd/system" "$root/usr/lib/udev/rules.d" "$root/usr/lib/sysusers.d"
sed 's|^ExecStart=/usr/local/bin/rigd |ExecStart=/usr/bin/rigd |' systemd/rigd.service \
    > "$root/usr/lib/systemd/system/rigd.service"
grep -q '^ExecStart=/usr/bin/rigd ' "$root/usr/lib/systemd/system/rigd.service" ||
    { echo "build-deb: systemd/rigd.service has no ExecStart=/usr/local/bin/rigd line to point at /usr/bin" >&2; exit 1; }
chmod 0644 "$root/usr/lib/systemd/system/rigd.service"
install -m 0644 systemd/60-rigd.rules "$root/usr/lib/udev/rules.d/60-rigd.rules"
install -m 0644 systemd/sysusers-rigd.conf "$root/usr/lib/sysusers.d/rigd.conf"

# The default configuration (a conffile: kept on remove and on upgrade if edited).
install -d "$root/etc/rigd"
install -m 0644 examples/rigd.toml "$root/etc/rigd/rigd.toml"

# Man pages and completions, from clap.
"$bin/rigd" generate-assets "$stage/assets"
"$bin/rig-dash" --generate-assets "$stage/assets"
install -d "$root/usr/share/man/man1"
for page in "$stage"/assets/man/*.1; do
    gzip -9n < "$page" > "$root/usr/share/man/man1/$(basename "$page").gz"
done
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
install -m 0644 "$stage"/assets/bash/* "$root/usr/share/bash-completion/completions/"
install -m 0644 "$stage"/assets/zsh/* "$root/usr/share/zsh/vendor-completions/"
install -m 0644 "$stage"/assets/fish/* "$root/usr/share/fish/vendor_completions.d/"

# Documentation.
doc="$root/usr/share/doc/rigd"
install -d "$doc/docs" "$doc/examples"
install -m 0644 pkg/deb/copyright "$doc/copyright"
gzip -9n < README.md > "$doc/README.md.gz"
for md in docs/*.md; do gzip -9n < "$md" > "$doc/docs/$(basename "$md").gz"; done
install -m 0644 examples/*.toml "$doc/examples/"
# A native package's changelog: this version, dated by the commit it was built from.
date_rfc="$(git log -1 --format=%aD 2>/dev/null || date -R)"
commit="$(git log -1 --format=%h 2>/dev/null || echo unknown)"
printf 'rigd (%s) unstable; urgency=medium\n\n  * Built from commit %s.\n\n -- rigd maintainers <rigd@example.invalid>  %s\n' \
    "$version" "$commit" "$date_rfc" | gzip -9n > "$doc/changelog.gz"

# Shared-library dependencies, read from the binaries: each NEEDED library's package, libc6
# at least the newest GLIBC symbol version they use.
depends=()
owner() { { dpkg -S "$1" 2>/dev/null || true; } | awk -F: 'NR == 1 {print $1}'; }
for lib in $(objdump -p "$root/usr/bin/rigd" "$root/usr/bin/rig-dash" | awk '/NEEDED/ {print $2}' | sort -u); do
    path="$(ldconfig -p | awk -v l="$lib" '$1 == l && !found {print $NF; found = 1}')"
    pkg=""
    [ -z "$path" ] || pkg="$(owner "$path")"
    [ -n "$pkg" ] || [ -z "$path" ] || pkg="$(owner "$(realpath "$path")")"
    [ -n "$pkg" ] || { echo "build-deb: no package owns $lib (${path:-not in the ldconfig cache}); cannot write Depends" >&2; exit 1; }
    if [ "$pkg" = libc6 ]; then
        glibc="$(objdump -T "$root/usr/bin/rigd" "$root/usr/bin/rig-dash" | grep -o 'GLIBC_[0-9.]*[0-9]' | sed 's/GLIBC_//' | sort -uV | tail -n1)"
        pkg="libc6 (>= $glibc)"
    fi
    depends+=("$pkg")
done
depends_line="$(printf '%s\n' "${depends[@]}" | sort -u | paste -sd, | sed 's/,/, /g')"

install -d -m 0755 "$root/DEBIAN"
installed_kb="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@INSTALLED_SIZE@/$installed_kb/" \
    -e "s/@DEPENDS@/$depends_line/" pkg/deb/control.in > "$root/DEBIAN/control"
echo /etc/rigd/rigd.toml > "$root/DEBIAN/conffiles"
for script in postinst prerm postrm; do
    install -m 0755 "pkg/deb/$script" "$root/DEBIAN/$script"
done
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
    > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

out_dir="$target/debian"
mkdir -p "$out_dir"
deb="$out_dir/rigd_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "build-deb: $deb ($(du -h "$deb" | cut -f1); Depends: $depends_line)" >&2
echo "$deb"
