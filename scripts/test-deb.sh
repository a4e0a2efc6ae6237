#!/usr/bin/env bash
# Checks the Debian package end to end: builds it (scripts/build-deb.sh --profile test: the
# packaging is what is checked, and `cargo test` has built these binaries already), checks its control data and file list, installs it into a scratch root
# (dpkg --root with its own admin dir; the maintainer scripts run outside the root with
# $DPKG_ROOT set, so they touch nothing of this machine), then checks there: the files and
# their modes, the rigd user created by the postinst (systemd-sysusers --root), the installed
# rigd's `check-config` on the installed /etc/rigd/rigd.toml, `systemd-analyze verify` on the
# installed unit, the man pages and completions. Then `dpkg --remove` must keep the conffile
# and `dpkg --purge` must remove it. lintian, when installed, is run too (informational).
# Usage: scripts/test-deb.sh [path/to/rigd_VERSION_ARCH.deb]   (default: build it)
set -euo pipefail
deb="${1:+$(realpath "$1")}"
cd "$(dirname "$0")/.."

fail() { echo "test-deb: FAILED: $*" >&2; exit 1; }
[ -n "$deb" ] || deb="$(scripts/build-deb.sh --profile test | tail -n1)"
[ -f "$deb" ] || fail "no package at '$deb'"

scratch="$(mktemp -d /tmp/rigd-test-deb.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
# dpkg --root needs root, or fakeroot around it (then the files belong to the caller).
as_root=()
dpkg_force=(--force-script-chrootless --force-depends)
if [ "$(id -u)" -ne 0 ]; then
    command -v fakeroot >/dev/null || fail "not root and no fakeroot (apt-get install fakeroot)"
    as_root=(fakeroot)
    dpkg_force+=(--force-not-root)
fi

# --- The package itself: control data, conffiles, file list.
dpkg-deb --info "$deb" >/dev/null || fail "dpkg-deb --info cannot read $deb"
field() { dpkg-deb --field "$deb" "$1"; }
version="$(field Version)"
[ "$(field Package)" = rigd ] || fail "Package is '$(field Package)'"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || fail "Architecture is '$(field Architecture)'"
[ "$(basename "$deb")" = "rigd_${version}_$(field Architecture).deb" ] || fail "file name $(basename "$deb") does not match its control data"
depends="$(field Depends)"
for dep in 'libc6 (>= ' libudev1 'systemd | systemd-standalone-sysusers'; do
    [[ "$depends" == *"$dep"* ]] || fail "Depends lacks '$dep': $depends"
done
control_files="$(dpkg-deb --ctrl-tarfile "$deb" | tar -t)"
for file in control postinst prerm postrm conffiles md5sums; do
    grep -qx "./$file" <<<"$control_files" || fail "control archive lacks $file"
done
[ "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles)" = /etc/rigd/rigd.toml ] ||
    fail "conffiles is not exactly /etc/rigd/rigd.toml"
for script in postinst prerm postrm; do
    dpkg-deb --ctrl-tarfile "$deb" | tar -xO "./$script" | sh -n || fail "$script is not valid sh"
done
contents="$(dpkg-deb --contents "$deb")"
# Every file the package must hold, with its mode; and nothing owned by anyone but root.
expected=(
    "-rwxr-xr-x ./usr/bin/rigd"
    "-rwxr-xr-x ./usr/bin/rig-dash"
    "-rw-r--r-- ./usr/lib/systemd/system/rigd.service"
    "-rw-r--r-- ./usr/lib/udev/rules.d/60-rigd.rules"
    "-rw-r--r-- ./usr/lib/sysusers.d/rigd.conf"
    "-rw-r--r-- ./etc/rigd/rigd.toml"
    "-rw-r--r-- ./usr/share/man/man1/rigd.1.gz"
    "-rw-r--r-- ./usr/share/man/man1/rigd-run.1.gz"
    "-rw-r--r-- ./usr/share/man/man1/rigd-check-config.1.gz"
    "-rw-r--r-- ./usr/share/man/man1/rig-dash.1.gz"
    "-rw-r--r-- ./usr/share/bash-completion/completions/rigd"
    "-rw-r--r-- ./usr/share/bash-completion/completions/rig-dash"
    "-rw-r--r-- ./usr/share/zsh/vendor-completions/_rigd"
    "-rw-r--r-- ./usr/share/zsh/vendor-completions/_rig-dash"
    "-rw-r--r-- ./usr/share/fish/vendor_completions.d/rigd.fish"
    "-rw-r--r-- ./usr/share/fish/vendor_completions.d/rig-dash.fish"
    "-rw-r--r-- ./usr/share/doc/rigd/copyright"
    "-rw-r--r-- ./usr/share/doc/rigd/changelog.gz"
    "-rw-r--r-- ./usr/share/doc/rigd/README.md.gz"
    "-rw-r--r-- ./usr/share/doc/rigd/examples/rigd.toml"
)
for entry in "${expected[@]}"; do
    mode="${entry%% *}" path="${entry#* }"
    awk -v m="$mode" -v p="$path" '$1 == m && $6 == p {found = 1} END {exit !found}' <<<"$contents" ||
        fail "package lacks $path with mode $mode"
done
awk '$2 != "root/root" {print; bad = 1} END {exit bad}' <<<"$contents" || fail "files not owned by root/root (above)"
# The binaries carry no debug info (read whole: grep -q under pipefail would hide a match).
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/rigd > "$scratch/rigd-bin"
sections="$(objdump -h "$scratch/rigd-bin")"
! grep -Eq '\.debug_(info|line) ' <<<"$sections" || fail "usr/bin/rigd still has debug info"
if command -v lintian >/dev/null; then
    echo "test-deb: lintian (informational):" >&2
    lintian --no-tag-display-limit "$deb" >&2 || true
fi

# --- Install into a scratch root with a fresh dpkg database.
root="$scratch/root"
admin="$root/var/lib/dpkg"
mkdir -p "$admin/info" "$admin/updates" "$admin/triggers"
touch "$admin/status" "$admin/available"
dpkg_root() {
    "${as_root[@]}" dpkg --root="$root" --admindir="$admin" --log=/dev/null "${dpkg_force[@]}" "$@"
}
status() { dpkg-query --admindir="$admin" -W -f='${db:Status-Abbrev}' rigd 2>/dev/null || true; }
dpkg_root --install "$deb" > "$scratch/install.log" 2>&1 || { cat "$scratch/install.log" >&2; fail "dpkg --install"; }
[ "$(status)" = "ii " ] || fail "rigd is not installed after dpkg --install (status '$(status)')"
for path in usr/bin/rigd usr/bin/rig-dash usr/lib/systemd/system/rigd.service \
    usr/lib/udev/rules.d/60-rigd.rules usr/lib/sysusers.d/rigd.conf etc/rigd/rigd.toml; do
    [ -s "$root/$path" ] || fail "$path is missing or empty in the scratch root"
done
cmp -s examples/rigd.toml "$root/etc/rigd/rigd.toml" || fail "/etc/rigd/rigd.toml is not examples/rigd.toml"

# The postinst ran systemd-sysusers into the root: the rigd user, its group, and the groups
# the unit relies on; running it again (all of sysusers.d there) must keep it so.
check_user() {
    grep -q '^rigd:x:[0-9]*:[0-9]*:[^:]*:/var/empty:' "$root/etc/passwd" || fail "no rigd user in the root's /etc/passwd ($1)"
    grep -q '^rigd:x:' "$root/etc/group" || fail "no rigd group in the root's /etc/group ($1)"
    for group in input dialout; do
        grep -Eq "^$group:x:[0-9]+:(.*,)?rigd(,|\$)" "$root/etc/group" || fail "rigd is not in group $group ($1)"
    done
    local uid
    uid="$(awk -F: '$1 == "rigd" {print $3}' "$root/etc/passwd")"
    [ "$uid" -lt 1000 ] || fail "rigd's uid $uid is not a system uid ($1)"
}
check_user "after the postinst"
"${as_root[@]}" systemd-sysusers --root="$root" || fail "systemd-sysusers --root rejects the installed sysusers.d"
check_user "after systemd-sysusers --root"

# The installed binaries run and accept the installed config.
[ "$("$root/usr/bin/rigd" --version)" = "rigd $version" ] || fail "installed rigd --version is not $version"
"$root/usr/bin/rig-dash" --version >/dev/null || fail "installed rig-dash does not run"
"$root/usr/bin/rigd" check-config "$root/etc/rigd/rigd.toml" > "$scratch/check.log" 2>&1 ||
    { cat "$scratch/check.log" >&2; fail "installed rigd check-config rejects the installed /etc/rigd/rigd.toml"; }

# The installed unit: ExecStart is the packaged binary, and systemd-analyze verify accepts it.
# verify insists that ExecStart exists on this machine and needs the host's targets (the
# scratch root has neither): it checks a copy whose ExecStart names the installed binary by
# its path in the root, as scripts/verify-systemd.sh does for the repository's unit.
unit="$root/usr/lib/systemd/system/rigd.service"
grep -qx 'ExecStart=/usr/bin/rigd --config /etc/rigd/rigd.toml run' "$unit" || fail "installed unit's ExecStart is not /usr/bin/rigd"
mkdir "$scratch/unit"
sed "s|^ExecStart=/usr/bin/rigd |ExecStart=$root/usr/bin/rigd |" "$unit" > "$scratch/unit/rigd.service"
systemd-analyze verify --man=no "$scratch/unit/rigd.service" > "$scratch/verify.log" 2>&1 ||
    { cat "$scratch/verify.log" >&2; fail "systemd-analyze verify rejects the installed unit"; }

# Man pages are roff with the right names, completions parse.
for page in rigd rigd-run rig-dash; do
    grep -q "^\.TH $page 1" <<<"$(zcat "$root/usr/share/man/man1/$page.1.gz")" || fail "$page.1 is not its man page"
done
bash -n "$root/usr/share/bash-completion/completions/rigd" || fail "bash completion does not parse"
bash -c "source '$root/usr/share/bash-completion/completions/rigd' && complete -p rigd" >/dev/null ||
    fail "bash completion does not register for rigd"
grep -q 'check-config' "$root/usr/share/zsh/vendor-completions/_rigd" || fail "zsh completion lacks check-config"
grep -q "complete -c rigd" "$root/usr/share/fish/vendor_completions.d/rigd.fish" || fail "fish completion lacks rigd"
if command -v zsh >/dev/null; then zsh -n "$root/usr/share/zsh/vendor-completions/_rigd" || fail "zsh completion does not parse"; fi
if command -v fish >/dev/null; then fish -n "$root/usr/share/fish/vendor_completions.d/rigd.fish" || fail "fish completion does not parse"; fi

# --- Remove keeps the (edited) conffile, purge removes it.
echo "# edited by test-deb" >> "$root/etc/rigd/rigd.toml"
dpkg_root --remove rigd > "$scratch/remove.log" 2>&1 || { cat "$scratch/remove.log" >&2; fail "dpkg --remove"; }
[ "$(status)" = "rc " ] || fail "after dpkg --remove the status is '$(status)', not rc (config-files)"
[ ! -e "$root/usr/bin/rigd" ] || fail "dpkg --remove left /usr/bin/rigd"
[ ! -e "$unit" ] || fail "dpkg --remove left the unit"
tail -n1 "$root/etc/rigd/rigd.toml" | grep -q 'edited by test-deb' || fail "dpkg --remove did not keep /etc/rigd/rigd.toml"
dpkg_root --purge rigd > "$scratch/purge.log" 2>&1 || { cat "$scratch/purge.log" >&2; fail "dpkg --purge"; }
[ -z "$(status)" ] || [ "$(status)" = "un " ] || fail "after dpkg --purge the status is '$(status)'"
[ ! -e "$root/etc/rigd" ] || fail "dpkg --purge left $(find "$root/etc/rigd")"

echo "test-deb: $(basename "$deb") ok: installs into a scratch root (user, config, unit verified), remove keeps the config, purge removes it"
