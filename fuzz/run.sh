#!/usr/bin/env bash
# Runs every libFuzzer harness built in BUILD_DIR for SECONDS each.
#
#   fuzz/run.sh BUILD_DIR [SECONDS]        (SECONDS defaults to 30)
#
# For each harness, every committed seed (fuzz/corpus/<harness>/, including
# the regress-* reproducers of past bugs) is first replayed on its own as a
# regression test: a seed that fails is named and fails the run. The passing
# seeds together must then reach every function fuzz/reach.tsv lists for the
# harness (libFuzzer's -print_coverage=1), or the run fails. Fuzzing then
# starts from a temporary copy of the passing seeds, so the repository is
# never written to. Crash artifacts go to a temporary directory whose path is
# printed with the crash's stack.
#
# FUZZ_JOBS harnesses run at once (default 1; scripts/test.sh passes its JOBS):
# each uses one core for SECONDS, so the wall time is about
# harnesses x SECONDS / FUZZ_JOBS. Reports print in harness order.
#
# Exit status: 0 when every harness ran clean, 1 when any crashed (or hit a
# sanitizer report, a timeout or the memory limit), 2 on usage errors.
set -u

usage() {
    echo "usage: $0 BUILD_DIR [SECONDS]" >&2
    exit 2
}

[ $# -ge 1 ] && [ $# -le 2 ] || usage
build_dir=$1
seconds=${2:-30}
[ -d "$build_dir" ] || { echo "$0: no such directory: $build_dir" >&2; exit 2; }
case $seconds in '' | *[!0-9]*) usage ;; esac

fuzz_dir=$(cd "$(dirname "$0")" && pwd)
# UBSan checks are compiled in recover mode: make the first report fatal so
# libFuzzer records it as a crash (caller's settings win).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
work=$(mktemp -d "${TMPDIR:-/tmp}/moteip-fuzz.XXXXXX")

shopt -s nullglob
harnesses=()
for bin in "$build_dir"/fuzz_*; do
    [ -f "$bin" ] && [ -x "$bin" ] && harnesses+=("$bin")
done
if [ ${#harnesses[@]} -eq 0 ]; then
    echo "$0: no fuzz_* executables in $build_dir (configure with -DMOTEIP_FUZZ=ON, CC=clang)" >&2
    rm -rf "$work"
    exit 2
fi

jobs=${FUZZ_JOBS:-1}
case $jobs in '' | *[!0-9]*) usage ;; esac
[ "$jobs" -ge 1 ] || jobs=1

# run_one BIN: regression replay then fuzzing of one harness; prints its
# report on stdout and returns 1 when it failed.
run_one() {
    local bin=$1 name corpus artifacts log rc execs seed why a
    name=$(basename "$bin")
    corpus="$work/$name/corpus"
    artifacts="$work/$name/artifacts"
    log="$work/$name/log"
    mkdir -p "$corpus" "$artifacts"

    # 1. Regression: replay every committed seed on its own, so a failure
    #    names its seed. Failing seeds are left out of the fuzzing corpus
    #    (they would stop the run at once) and fail the harness. The
    #    merged-* entries of scripts/fuzz-long.sh (many) go in one process,
    #    one by one only when that fails.
    local bad_seeds=() singles=() merged=() crashes=() max_len
    for seed in "$fuzz_dir/corpus/$name"/*; do
        [ -f "$seed" ] || continue
        case $(basename "$seed") in
            merged-*) merged+=("$seed") ;;
            *) singles+=("$seed") ;;
        esac
    done
    if [ ${#merged[@]} -gt 0 ]; then
        if "$bin" "${merged[@]}" >"$work/$name/seed.log" 2>&1; then
            cp "${merged[@]}" "$corpus/"
        else
            singles+=("${merged[@]}")
        fi
    fi
    for seed in ${singles[@]+"${singles[@]}"}; do
        if "$bin" "$seed" >"$work/$name/seed.log" 2>&1; then
            cp "$seed" "$corpus/"
        else
            bad_seeds+=("$(basename "$seed")")
            {
                echo "=== $seed"
                cat "$work/$name/seed.log"
            } >>"$work/$name/regressions.log"
        fi
    done

    # 2. Reach: the passing seeds, replayed together, must cover each
    #    function fuzz/reach.tsv names for this harness. Until 2026-11-29
    #    fuzz_coap's records never got past the stack's UDP checksum check,
    #    so its hours fuzzed no part of the CoAP endpoint; this catches a
    #    harness whose inputs stop short of what it claims.
    local unreached=() h fn file
    "$bin" -runs=0 -print_coverage=1 -rss_limit_mb=2048 "$corpus" >"$work/$name/reach.log" 2>&1
    while IFS=$'\t' read -r h fn file; do
        [ "$h" = "$name" ] || continue
        if grep -qE "^COVERED_FUNC: .* $fn [^ ]*/$file:[0-9]+\$" "$work/$name/reach.log"; then
            continue
        elif grep -qE "^UNCOVERED_FUNC: .* $fn [^ ]*/$file:[0-9]+\$" "$work/$name/reach.log"; then
            unreached+=("$fn ($file): no seed reaches it")
        else
            unreached+=("$fn ($file): not in the binary (inlined or renamed? fix fuzz/reach.tsv)")
        fi
    done < <(tail -n +2 "$fuzz_dir/reach.tsv")

    max_len=4096
    [ "$name" = fuzz_wire ] && max_len=2048

    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len="$max_len" -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
    rc=$?

    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    crashes=("$artifacts"/*)
    if [ $rc -eq 0 ] && [ ${#crashes[@]} -eq 0 ] && [ ${#bad_seeds[@]} -eq 0 ] &&
       [ ${#unreached[@]} -eq 0 ]; then
        echo "$name: ok, ${execs:-0} execs"
        return 0
    fi

    echo "$name: FAILED (exit $rc, ${execs:-?} execs, ${#bad_seeds[@]} failing seeds," \
         "${#unreached[@]} functions of fuzz/reach.tsv not reached)"
    for fn in ${unreached[@]+"${unreached[@]}"}; do
        echo "  reach: $fn (replay: $bin -runs=0 -print_coverage=1 $fuzz_dir/corpus/$name)"
    done
    for seed in "${bad_seeds[@]}"; do
        why=$(awk -v f="$fuzz_dir/corpus/$name/$seed" '
                $0 == "=== " f { on = 1; next }
                /^=== / { on = 0 }
                on && /CHECK FAILED|^SUMMARY:|runtime error:/ { print; exit }' \
              "$work/$name/regressions.log")
        echo "  seed $seed: ${why:-crashed}"
        echo "    reproduce: $bin $fuzz_dir/corpus/$name/$seed"
    done
    [ ${#bad_seeds[@]} -gt 0 ] && echo "  seed logs: $work/$name/regressions.log"
    [ $rc -eq 0 ] && [ ${#crashes[@]} -eq 0 ] && return 1
    for a in "${crashes[@]}"; do
        echo "  artifact: $a"
        echo "  reproduce: $bin $a"
    done
    [ ${#crashes[@]} -eq 0 ] && echo "  (no artifact written; full log: $log)"
    echo "  log: $log"
    # The harness's own message, then the sanitizer / libFuzzer report with
    # its stack (from the first report line to the SUMMARY line).
    grep -m 5 'CHECK FAILED' "$log" | sed 's/^/  | /'
    awk '/^==[0-9]+==|^ERROR: |runtime error:/ { on = 1 }
         on { print "  | " $0; n++ }
         /^SUMMARY:/ && on { exit }
         n >= 80 { exit }' "$log"
    return 1
}

# A pool of $jobs background runs; each writes its report to a file, printed
# in harness order once all are done (interleaved output would be unreadable).
failed=0
pids=()
for i in "${!harnesses[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    bin=${harnesses[$i]}
    mkdir -p "$work/$(basename "$bin")"
    run_one "$bin" >"$work/$(basename "$bin")/report" 2>&1 &
    pids[$i]=$!
done
for i in "${!harnesses[@]}"; do
    wait "${pids[$i]}" || failed=1
    cat "$work/$(basename "${harnesses[$i]}")/report"
done

if [ $failed -eq 0 ]; then
    rm -rf "$work"
else
    echo "crash artifacts and logs kept in $work"
fi
exit $failed
