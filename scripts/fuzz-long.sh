#!/usr/bin/env bash
# scripts/fuzz-long.sh -- fuzz every harness for longer than CI does, and keep
# what it finds: new corpus entries are merged into fuzz/corpus/.
#
#   scripts/fuzz-long.sh SECONDS [HARNESS...]
#
# SECONDS of fuzzing per harness (libFuzzer -max_total_time), all harnesses
# of BUILD_DIR unless some are named (fuzz_wire, fuzz_tcp, ...). For each:
#
#   1. fuzz from a temporary copy of fuzz/corpus/<harness>/ (the same flags
#      as fuzz/run.sh: -timeout=10 -rss_limit_mb=2048, -max_len 2048 for
#      fuzz_wire, 4096 otherwise), crash artifacts to a temporary directory;
#   2. unless it crashed, merge (libFuzzer -merge=1) what it found into the
#      committed corpus: only inputs that reach code edges the committed
#      entries do not are kept (-use_counters=0: a new hit count alone does
#      not earn a file, which keeps the repository small), named
#      merged-<sha1>, beside the seed-* and regress-* files
#      (fuzz/make_corpus.py leaves them alone);
#   3. report its executions, new entries and CPU time (user + system of
#      the fuzzing and the merge), and append them as one row to the ledger
#      (fuzz/ledger.tsv, through fuzz/hours.py add; a harness that stopped
#      on a finding counts too, as "stopped").
#
# The last line is the cumulative CPU time of the run. With the default
# ledger, fuzz/README.md's table is brought up to date from it (fuzz/hours.py
# --update); add a row for the campaign to its history ("Longer runs").
#
# Environment:
#   BUILD_DIR  libFuzzer build (default build-fuzz; configured and built
#              with clang as scripts/test.sh does when it has no fuzz_*)
#   JOBS       harnesses fuzzed at once (default 1; each uses one core)
#   FUZZ_COMMIT  the commit BUILD_DIR was built from, for the ledger
#              (default: HEAD's)
#   FUZZ_LEDGER  the ledger to append to (default fuzz/ledger.tsv; empty:
#              record nothing, for trial runs)
#
# Exit status: 0 when every harness ran clean, 1 when one crashed (its
# artifact and log are kept and named), 2 on usage errors.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

usage() {
    sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ $# -ge 1 ] || usage
seconds=$1
shift
case $seconds in '' | *[!0-9]*) usage ;; esac
[ "$seconds" -ge 1 ] || usage
BUILD_DIR=${BUILD_DIR:-build-fuzz}
JOBS=${JOBS:-1}
case $JOBS in '' | *[!0-9]*) usage ;; esac
[ "$JOBS" -ge 1 ] || JOBS=1
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}

shopt -s nullglob
have=("$BUILD_DIR"/fuzz_*)
if [ ${#have[@]} -eq 0 ]; then
    targets=moteip
    for f in fuzz/fuzz_*.c; do targets+=" $(basename "$f" .c)"; done
    # shellcheck disable=SC2086  # the target list splits on purpose
    CC=clang cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE= \
        "-DCMAKE_C_FLAGS=-O1 -g" -DMOTEIP_PROFILE=full -DMOTEIP_SANITIZE=OFF \
        -DMOTEIP_FUZZ=ON -DMOTEIP_TESTS=OFF >/dev/null &&
        cmake --build "$BUILD_DIR" -j "$JOBS" --target $targets >/dev/null ||
        { echo "fuzz-long.sh: building $BUILD_DIR failed" >&2; exit 2; }
fi

harnesses=()
if [ $# -gt 0 ]; then
    for h in "$@"; do
        [ -x "$BUILD_DIR/$h" ] || { echo "fuzz-long.sh: no harness $BUILD_DIR/$h" >&2; exit 2; }
        harnesses+=("$h")
    done
else
    for bin in "$BUILD_DIR"/fuzz_*; do
        [ -f "$bin" ] && [ -x "$bin" ] && harnesses+=("$(basename "$bin")")
    done
fi
[ ${#harnesses[@]} -gt 0 ] || { echo "fuzz-long.sh: no fuzz_* in $BUILD_DIR" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/moteip-fuzz-long.XXXXXX")
day=$(date -u +%F)
commit=${FUZZ_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}
LEDGER=${FUZZ_LEDGER-$ROOT/fuzz/ledger.tsv}

# cpu_of CMD...: runs CMD, appends its children's user + system seconds to
# $work/$name/cpu (bash `times` of a subshell counts only what it ran).
cpu_of() {
    (
        "$@"
        rc=$?
        times >"$work/$name/times"   # a builtin: no fork, its own children
        awk 'NR == 2 { gsub(/[ms]/, " "); print $1 * 60 + $2 + $3 * 60 + $4 }' \
            "$work/$name/times" >>"$work/$name/cpu"
        exit $rc
    )
}

# One harness: fuzz, merge, write its report line to $work/NAME/report.
one() {
    local name=$1 bin="$ROOT/$BUILD_DIR/$1" dir="$work/$1" committed="$ROOT/fuzz/corpus/$1"
    local max_len=4096 rc execs before after cpu new=0 f sha
    [ "$name" = fuzz_wire ] && max_len=2048
    mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/merged" "$committed"
    : >"$dir/cpu"
    cp "$committed"/* "$dir/corpus/" 2>/dev/null
    cpu_of "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$dir/artifacts/" \
        "$dir/corpus" >"$dir/fuzz.log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log" | tail -n 1)
    crashes=("$dir"/artifacts/*)
    if [ $rc -ne 0 ] || [ ${#crashes[@]} -ne 0 ]; then
        cpu=$(awk '{ s += $1 } END { printf "%.0f", s }' "$dir/cpu")
        {
            echo "$name: FAILED (exit $rc, ${execs:-?} execs, ${cpu} s CPU); nothing merged"
            for f in "${crashes[@]}"; do echo "  artifact: $f  (reproduce: $bin $f)"; done
            echo "  log: $dir/fuzz.log"
            grep -m 3 'CHECK FAILED\|^SUMMARY:' "$dir/fuzz.log" | sed 's/^/  | /'
        } >"$dir/report"
        echo "$cpu" >"$dir/cpu_total"
        echo "${execs:--} 0 stopped" >"$dir/ledger_row"
        return 1
    fi
    # Merge into a copy of the committed corpus: what -merge=1 adds there is
    # exactly what covers something the committed entries do not.
    cp "$committed"/* "$dir/merged/" 2>/dev/null
    before=$(find "$dir/merged" -type f | wc -l)
    cpu_of "$bin" -merge=1 -use_counters=0 -timeout=10 -rss_limit_mb=2048 \
        -max_len="$max_len" "$dir/merged" "$dir/corpus" >"$dir/merge.log" 2>&1
    for f in "$dir"/merged/*; do
        [ -e "$committed/$(basename "$f")" ] && continue
        sha=$(sha1sum "$f" | cut -c1-40)
        [ -e "$committed/merged-$sha" ] || { cp "$f" "$committed/merged-$sha"; new=$((new + 1)); }
    done
    after=$((before + new))
    cpu=$(awk '{ s += $1 } END { printf "%.0f", s }' "$dir/cpu")
    echo "$cpu" >"$dir/cpu_total"
    echo "${execs:--} $new ok" >"$dir/ledger_row"
    echo "$name: ok, ${execs:-0} execs, +$new corpus entries ($before -> $after), ${cpu} s CPU" \
        >"$dir/report"
}

echo "fuzz-long.sh: ${harnesses[*]}, ${seconds} s each, JOBS=$JOBS"
failed=0
running=0
for h in "${harnesses[@]}"; do
    if [ "$running" -ge "$JOBS" ]; then
        wait -n || failed=1
        running=$((running - 1))
    fi
    one "$h" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
done

total=0
appended=0
for h in "${harnesses[@]}"; do
    cat "$work/$h/report"
    total=$((total + $(cat "$work/$h/cpu_total" 2>/dev/null || echo 0)))
    if [ -n "$LEDGER" ] && read -r execs new outcome <"$work/$h/ledger_row"; then
        python3 "$ROOT/fuzz/hours.py" add --ledger "$LEDGER" --date "$day" \
            --commit "${commit:-unknown}" --seconds "$seconds" --harness "$h" \
            --cpu "$(cat "$work/$h/cpu_total")" --execs "$execs" --new "$new" \
            --outcome "$outcome" && appended=$((appended + 1)) || failed=1
    fi
done
if [ -n "$LEDGER" ]; then
    echo "ledger: $appended of ${#harnesses[@]} rows appended to $LEDGER"
    # the README's table follows the repository's own ledger
    if [ "$LEDGER" = "$ROOT/fuzz/ledger.tsv" ]; then
        python3 "$ROOT/fuzz/hours.py" --update || failed=1
    fi
fi
if [ $failed -eq 0 ]; then
    rm -rf "$work"
else
    echo "logs and artifacts kept in $work"
fi
echo "cumulative CPU time: ${total} s ($(awk -v t="$total" 'BEGIN { printf "%.1f", t / 3600 }') h) over ${#harnesses[@]} harnesses"
exit $failed
