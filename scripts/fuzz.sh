#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets/: each decoder and parser rigd feeds outside input
# to, listed in docs/fuzzing.md) for SECONDS each, JOBS at a time, from the corpora kept in
# fuzz/corpus/<target>/. Fails, naming the input and how to replay it, when any target finds a
# crash. Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] (default 60)
#   FUZZ_JOBS=N       targets run at once (default 2)
#   FUZZ_TARGETS="a b" only these targets
#   FUZZ_TARGET_DIR    where the instrumented build goes (default /tmp/rigd-fuzz-target)
#   FUZZ_MERGE=1      fold the new inputs that add coverage into fuzz/corpus/ (minimised), for a
#                     long run whose findings should seed CI's short ones; commit the result
# Works on the stable toolchain: no cargo-fuzz, no nightly. The instrumentation cargo-fuzz adds
# (SanitizerCoverage: inline 8-bit counters, PC table, compare tracing) is made of stable -C
# flags; only AddressSanitizer would need nightly, and safe Rust needs it for nothing it checks.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
jobs="${FUZZ_JOBS:-2}"
host="$(rustc -vV | sed -n 's/^host: //p')"
# Kept apart from the workspace's target dir (the instrumentation flags would rebuild its cache)
# and outside the checkout, like vmrig's static build: a clean clone (CI) builds only what changed.
target_dir="${FUZZ_TARGET_DIR:-/tmp/rigd-fuzz-target}"
out="$target_dir/$host/release"

# --target keeps the flags off build scripts and proc macros (they would not link libFuzzer).
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module \
 -Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
 -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares \
 -Cdebug-assertions -Coverflow-checks"
build_start=$SECONDS
# Its own target dir whatever CARGO_TARGET_DIR says (the clean-clone CI run sets one): the
# binaries are looked for there. The targets need no daemon crate (the two daemon parsers are
# compiled in from their source), so this builds libFuzzer and the protocol, physics and config
# crates at opt-level 1 (fuzz/Cargo.toml): about 2 minutes cold on 2 cores, seconds when warm.
(cd "$root/fuzz" && CARGO_TARGET_DIR="$target_dir" \
    cargo build --quiet --locked --release --target "$host" --bins)
echo "fuzz: built the targets in $((SECONDS - build_start)) s" >&2

targets="${FUZZ_TARGETS:-$(sed -n 's/^name = "\(.*\)"$/\1/p' "$root/fuzz/Cargo.toml" | grep -vx rig-protocols-fuzz)}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# Targets that also start from other targets' corpora (read, not copied): auto-detection sees
# every game's datagrams, the field locator every TOML document rigd reads.
extra_corpora() {
    case "$1" in
        game_detect) printf '%s\n' "$root"/fuzz/corpus/game_{forza,f1,gt7,codemasters,ea_wrc,beamng,lfs} ;;
        toml_places) printf '%s\n' "$root"/fuzz/corpus/{config,car,track} ;;
    esac
}

# One target: new inputs go to a scratch corpus (the kept corpus is read, not written), crashes
# to fuzz/artifacts/<target>/. Prints one line: the target and how it ended.
run_one() {
    local target="$1"
    mkdir -p "$scratch/$target" "$root/fuzz/artifacts/$target" "$root/fuzz/corpus/$target"
    if "$out/$target" -max_total_time="$seconds" -rss_limit_mb=1024 -print_final_stats=1 \
        -artifact_prefix="$root/fuzz/artifacts/$target/" \
        "$scratch/$target" "$root/fuzz/corpus/$target" $(extra_corpora "$target") \
        >"$scratch/$target.log" 2>&1; then
        echo "fuzz: ok    $target: $(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$target.log") runs in ${seconds} s, corpus $(ls "$root/fuzz/corpus/$target" | wc -l) + $(ls "$scratch/$target" | wc -l) new"
    else
        echo "fuzz: FAIL  $target:"
        grep -E 'panicked|ERROR|SUMMARY|Test unit written' "$scratch/$target.log" | head -n 8 | sed 's/^/    /'
        return 1
    fi
}
export -f run_one extra_corpora
export seconds root scratch out

start=$SECONDS
failed=0
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run_one {}' || failed=1
echo "fuzz: $(printf '%s\n' $targets | wc -l) targets, ${seconds} s each, ${jobs} at a time: $((SECONDS - start)) s" >&2

if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    for target in $targets; do
        "$out/$target" -merge=1 "$root/fuzz/corpus/$target" "$scratch/$target" >/dev/null 2>&1
    done
    echo "fuzz: merged the new coverage into fuzz/corpus/ (git status shows what to commit)" >&2
fi
if [ "$failed" -ne 0 ]; then
    echo "fuzz: a target failed; replay its input with: $out/<target> fuzz/artifacts/<target>/<file>" >&2
    exit 1
fi
