#!/usr/bin/env bash
# Proves the repository stands alone: clones its committed HEAD into an empty temporary
# directory (nothing beside the clone, so no file outside the repository can be read) and
# runs the README's test command, scripts/test.sh, there. This is what CI runs (.ci/run).
#
# Uncommitted changes are not in the clone: commit first. Build artefacts are the one thing
# reused: cargo builds into CLEAN_CLONE_TARGET_DIR (default: this checkout's target/, created
# if missing), so a second run does not rebuild every dependency; CLEAN_CLONE_COLD=1 builds in
# the clone's own target/ instead (a cold build, as on a new machine). The vmrig kernel and
# its static build keep their own caches (/tmp/vmrig-rigd, /tmp/rigd-vmrig-target).
# Usage: scripts/test-clean-clone.sh   (from anywhere; exit code = scripts/test.sh's)
set -euo pipefail
cd "$(dirname "$0")/.."
checkout="$(pwd)"
command -v git >/dev/null || { echo "test-clean-clone: git is missing (apt-get install git)" >&2; exit 1; }
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    echo "test-clean-clone: note: uncommitted changes are not tested (the clone has HEAD only)" >&2
fi

scratch="$(mktemp -d /tmp/rigd-clean-clone.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
git clone --quiet --no-local --no-hardlinks "$checkout" "$scratch/rigd"
echo "== clean clone: $(git -C "$scratch/rigd" log -1 --format='%h %s') in $scratch/rigd" \
    "(beside it: $(ls -A "$scratch" | tr '\n' ' '))" >&2

if [ "${CLEAN_CLONE_COLD:-0}" = 1 ]; then
    target="$scratch/rigd/target"
else
    target="${CLEAN_CLONE_TARGET_DIR:-$checkout/target}"
fi
echo "== clean clone: cargo target dir $target" >&2
start=$(date +%s)
set +e
(cd "$scratch/rigd" && CARGO_TARGET_DIR="$target" scripts/test.sh)
rc=$?
set -e
echo "== clean clone: scripts/test.sh exited $rc after $(( $(date +%s) - start )) s" >&2
exit "$rc"
