#!/usr/bin/env bash
# What the committed corpora reach: source coverage of every harness's files.
#
#   fuzz/coverage.sh [BUILD_DIR]       (default build-fuzzcov)
#
# Builds the harnesses with clang's source-based coverage
# (-fprofile-instr-generate -fcoverage-mapping) in BUILD_DIR, replays each
# harness's committed corpus once (-runs=0: no fuzzing), and prints, per
# harness, the region coverage of the files fuzz/reach.tsv names for it,
# then the whole stack's files (src/, apps/) under every corpus together.
# A harness whose own files sit far below the rest is one whose inputs stop
# short of its target: fuzz_coap's sent zero UDP checksums and reached 0 %
# of the CoAP endpoint, fuzz_micro*'s never completed a handshake, and
# TCP header compression (src/core/lowpan_tcphc.c) had no harness at all
# (4 %); this script found all three (2026-11-29). fuzz/run.sh's reach
# check keeps the functions of reach.tsv covered from then on.
#
# Needs clang, llvm-profdata and llvm-cov (scripts/setup.sh installs them).
# Writes only BUILD_DIR. Exit status 0, or 1 when a replay crashed.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build-fuzzcov}
case $BUILD in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
for tool in clang llvm-profdata llvm-cov; do
    command -v "$tool" >/dev/null 2>&1 || { echo "coverage.sh: $tool not found (scripts/setup.sh)" >&2; exit 2; }
done

mkdir -p "$BUILD"
CC=clang cmake -S "$ROOT" -B "$BUILD" -G Ninja -DMOTEIP_FUZZ=ON -DMOTEIP_TESTS=OFF \
    -DCMAKE_BUILD_TYPE= -DCMAKE_C_FLAGS="-fprofile-instr-generate -fcoverage-mapping" \
    >"$BUILD/configure.log" 2>&1 || { echo "coverage.sh: configure failed ($BUILD/configure.log)" >&2; exit 2; }
cmake --build "$BUILD" >"$BUILD/build.log" 2>&1 ||
    { echo "coverage.sh: build failed ($BUILD/build.log)" >&2; exit 2; }

prof="$BUILD/profiles"
rm -rf "$prof"
mkdir -p "$prof"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1}
failed=0
harnesses=()
for bin in "$BUILD"/fuzz_*; do
    [ -f "$bin" ] && [ -x "$bin" ] || continue
    name=$(basename "$bin")
    harnesses+=("$name")
    LLVM_PROFILE_FILE="$prof/$name.profraw" "$bin" -runs=0 -rss_limit_mb=2048 \
        "$ROOT/fuzz/corpus/$name" >"$prof/$name.log" 2>&1 ||
        { echo "coverage.sh: $name crashed on its corpus ($prof/$name.log)" >&2; failed=1; }
    llvm-profdata merge -sparse "$prof/$name.profraw" -o "$prof/$name.profdata"
done

# Per harness: its reach.tsv files, under its own corpus.
printf '%-22s %-34s %8s %8s\n' harness file regions covered
for name in "${harnesses[@]}"; do
    files=$(awk -F'\t' -v h="$name" 'NR > 1 && $1 == h { print $3 }' "$ROOT/fuzz/reach.tsv" | sort -u)
    [ -n "$files" ] || continue
    for f in $files; do
        llvm-cov report "$BUILD/$name" -instr-profile "$prof/$name.profdata" "$ROOT/$f" 2>/dev/null |
            awk -v h="$name" -v f="$f" '$1 != "TOTAL" && $2 ~ /^[0-9]+$/ {
                printf "%-22s %-34s %8s %8s\n", h, f, $2, $4; exit }'
    done
done

# Everything together: the stack's files under all corpora.
llvm-profdata merge -sparse "$prof"/*.profraw -o "$prof/all.profdata"
objects=()
for name in "${harnesses[@]:1}"; do objects+=(-object "$BUILD/$name"); done
echo
echo "all corpora together (src/, apps/):"
llvm-cov report "$BUILD/${harnesses[0]}" "${objects[@]}" -instr-profile "$prof/all.profdata" \
    -ignore-filename-regex='/fuzz/|/sim/|^/usr/' 2>/dev/null |
    awk -v root="$ROOT/" '$2 ~ /^[0-9]+$/ && $1 != "TOTAL" { f = $1; sub(root, "", f);
                           printf "  %-34s %6s regions %8s\n", f, $2, $4 }' | sort -k4 -n
exit $failed
