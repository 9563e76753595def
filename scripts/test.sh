#!/usr/bin/env bash
# scripts/test.sh -- set everything up and run every moteip test.
#
#   scripts/test.sh                 all parts
#   scripts/test.sh PART...         only these parts:
#     unit       ctest in build-asan/ (full profile), build-tiny/ (tiny) and build-micro/
#                (micro, IPv4 and IPv6 variants), all ASan+UBSan
#     release    build-only: -DCMAKE_BUILD_TYPE=Release (-O3, -Werror) of the full and
#                tiny profiles, so optimiser-only warnings fail the run
#     globals    no writable globals in libmoteip.a, no heap/clock/rand in src/, setup.sh
#                installs every program the tests call, includes follow DESIGN.md's floors
#                (tests/static), fuzz/README.md's hours table is fuzz/ledger.tsv's sums,
#                fuzz/reach.tsv is sound, the board scripts' hints fit their firmware
#     footprint  bench/footprint --check (cortex-m0plus + avr-atmega128) and its pytest
#     install    pytest tests/install: cmake --install of the tiny profile, and a consumer
#                project built against it with find_package(moteip) and with pkg-config
#     fuzz       libFuzzer harnesses via fuzz/run.sh, MOTEIP_FUZZ_SECONDS each (default 15), JOBS at once
#                (scripts/fuzz-long.sh for campaigns)
#     sim        pytest tests/sim: moteip-sim scenarios (determinism, physics checks,
#                pcap decoded by tshark, scenario errors); no root needed
#     tool       ruff check and mypy --strict over python/moteip (one test each), then
#                pytest tests/tool: the `moteip` command and Python package (TOML
#                scenarios, run, sweep, resume, Dask LocalCluster on loopback, plots,
#                reproduce, the viewer in headless Chromium, a wheel in a fresh venv,
#                docs/TUTORIAL.md); no root needed
#     interop    pytest over tests/ (but tests/static, tests/sim, tests/tool, tests/install): the stack on a TAP
#                in a network namespace against Linux, moteip-slip, the micro:bit firmware
#                under QEMU and the ATmega1284P firmware on simavr (moteip-simavr), each in
#                the tiny and the micro profile, behind
#                moteip-slip, the MPS2 AN385 firmware under QEMU on a TAP, and the micro
#                profile on a TUN (from build-micro/); needs root (uses sudo -n otherwise)
#
# Build trees: build/ (full profile, RelWithDebInfo; interop tests and the demo),
# build-asan/ (full, sanitized), build-tiny/ (tiny, sanitized), build-fuzz/ (clang,
# libFuzzer), build-release/ and build-release-tiny/ (Release, no tests),
# build-microbit/ (arm-none-eabi, the micro:bit firmware, tiny and micro), build-avr/
# (avr-gcc, the ATmega1284P firmware, tiny and micro), build-mps2/ (arm-none-eabi, the MPS2 AN385
# firmware), build-micro/ (micro, sanitized). Every part runs even if an earlier one failed; the exit status is
# non-zero if anything failed. The last line is "N passed, N failed", counting
# individual tests (ctest + pytest + fuzzers + the footprint check + ruff + mypy); a setup or
# build step that fails counts as one failure.
#
# Environment: MOTEIP_FUZZ_SECONDS (default 15), MOTEIP_SKIP_SETUP=1 (skip
# scripts/setup.sh), JOBS (build/test parallelism, default nproc).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

ALL_PARTS=(unit release globals footprint install fuzz sim tool interop)

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}

# --- arguments -----------------------------------------------------------------
PARTS=()
for arg in "$@"; do
    case "$arg" in
        -h|--help) usage; exit 0 ;;
        all) PARTS+=("${ALL_PARTS[@]}") ;;
        unit|ctest) PARTS+=(unit) ;;
        release) PARTS+=(release) ;;
        globals|static|no-globals) PARTS+=(globals) ;;
        footprint) PARTS+=(footprint) ;;
        install) PARTS+=(install) ;;
        fuzz) PARTS+=(fuzz) ;;
        sim) PARTS+=(sim) ;;
        tool|python) PARTS+=(tool) ;;
        interop|pytest) PARTS+=(interop) ;;
        *) echo "test.sh: unknown part '$arg' (parts: ${ALL_PARTS[*]}; see --help)" >&2; exit 2 ;;
    esac
done
[ ${#PARTS[@]} -gt 0 ] || PARTS=("${ALL_PARTS[@]}")
want() { local p; for p in "${PARTS[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }

JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export JOBS                 # tests/install builds the library with it
FUZZ_SECONDS=${MOTEIP_FUZZ_SECONDS:-15}
case "$FUZZ_SECONDS" in ''|*[!0-9]*) echo "test.sh: MOTEIP_FUZZ_SECONDS must be a whole number of seconds" >&2; exit 2 ;; esac
RES="$ROOT/out/test-results"
mkdir -p "$RES"
rm -f "$RES"/*.xml "$RES"/*.log

# --- bookkeeping -----------------------------------------------------------------
S_NAME=() S_STATUS=() S_DETAIL=()
TOTAL_PASS=0 TOTAL_FAIL=0 TOTAL_SKIP=0
START=$SECONDS

banner() { printf '\n==== %s ====\n' "$*"; }

# record NAME STATUS PASSED FAILED SKIPPED DETAIL
record() {
    S_NAME+=("$1"); S_STATUS+=("$2")
    TOTAL_PASS=$((TOTAL_PASS + $3)); TOTAL_FAIL=$((TOTAL_FAIL + $4)); TOTAL_SKIP=$((TOTAL_SKIP + $5))
    S_DETAIL+=("$6")
    printf -- '---- %s: %s%s\n' "$1" "$2" "${6:+ ($6)}"
}

# counts_detail PASSED FAILED SKIPPED -> "3 passed, 1 failed, 2 skipped"
counts_detail() {
    local d="$1 passed, $2 failed"
    [ "$3" -eq 0 ] || d="$d, $3 skipped"
    echo "$d"
}

PYBIN=$(command -v /usr/bin/python3 || command -v python3 || true)

# junit_counts FILE -> "passed failed skipped" (ctest --output-junit / pytest --junitxml)
junit_counts() {
    if [ -z "$PYBIN" ] || [ ! -s "$1" ]; then echo "0 0 0"; return; fi
    "$PYBIN" - "$1" <<'EOF' 2>/dev/null || echo "0 0 0"
import sys
import xml.etree.ElementTree as ET
p = f = s = 0
for tc in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    tags = {c.tag for c in tc}
    if tags & {"failure", "error"}:
        f += 1
    elif "skipped" in tags:
        s += 1
    else:
        p += 1
print(p, f, s)
EOF
}

# record_junit NAME RC XML
record_junit() {
    local name=$1 rc=$2 xml=$3 p f s status
    read -r p f s < <(junit_counts "$xml")
    # a crash or an error outside any test case still is a failure
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    if [ "$rc" -eq 0 ]; then status=PASS; else status=FAIL; fi
    record "$name" "$status" "$p" "$f" "$s" "$(counts_detail "$p" "$f" "$s")"
}

# --- setup -----------------------------------------------------------------------
if [ "${MOTEIP_SKIP_SETUP:-0}" = 1 ]; then
    banner "setup (skipped: MOTEIP_SKIP_SETUP=1)"
else
    banner "setup: scripts/setup.sh"
    t0=$SECONDS
    if bash scripts/setup.sh </dev/null; then
        S_NAME+=("setup"); S_STATUS+=("ok"); S_DETAIL+=("$((SECONDS - t0)) s")
    else
        record setup FAIL 0 1 0 "scripts/setup.sh failed; later parts will probably fail too"
    fi
fi
PYBIN=$(command -v /usr/bin/python3 || command -v python3 || true)
VENV_PY="$ROOT/.venv/bin/python"

# Sanitizer defaults (the user's own *SAN_OPTIONS come last and win). The
# fuzz part gets the caller's originals: fuzz/run.sh picks its own defaults.
ORIG_SAN_ENV=(-u ASAN_OPTIONS -u UBSAN_OPTIONS)
[ -z "${ASAN_OPTIONS+x}" ] || ORIG_SAN_ENV+=("ASAN_OPTIONS=$ASAN_OPTIONS")
[ -z "${UBSAN_OPTIONS+x}" ] || ORIG_SAN_ENV+=("UBSAN_OPTIONS=$UBSAN_OPTIONS")
export ASAN_OPTIONS="halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# LeakSanitizer needs ptrace, which some containers forbid: probe it once.
if want unit && command -v gcc >/dev/null 2>&1; then
    probe_dir=$(mktemp -d)
    printf '#include <stdlib.h>\nint main(void){ free(malloc(8)); return 0; }\n' >"$probe_dir/p.c"
    if gcc -fsanitize=address "$probe_dir/p.c" -o "$probe_dir/p" >/dev/null 2>&1 &&
        ! "$probe_dir/p" >/dev/null 2>&1; then
        echo "test.sh: LeakSanitizer does not work here (no ptrace?); running with detect_leaks=0"
        export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    fi
    rm -rf "$probe_dir"
fi

# --- builds ----------------------------------------------------------------------
declare -A BUILD_OK=()

# build DIR CMAKE-ARGS...   (env BUILD_TARGETS: build only these targets)
build() {
    local dir=$1 t0=$SECONDS; shift
    local targets=()
    [ -z "${BUILD_TARGETS:-}" ] || read -r -a targets <<<"$BUILD_TARGETS"
    banner "build $dir/ (cmake $*)${BUILD_TARGETS:+ targets: $BUILD_TARGETS}"
    if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then
        echo "test.sh: $dir/ was configured with another generator; reconfiguring from scratch"
        rm -rf "$dir"
    fi
    if cmake -S "$ROOT" -B "$dir" -G Ninja "$@" &&
        cmake --build "$dir" -j "$JOBS" ${targets[@]+--target "${targets[@]}"}; then
        BUILD_OK[$dir]=1
        S_NAME+=("build $dir/"); S_STATUS+=("ok"); S_DETAIL+=("$((SECONDS - t0)) s")
    else
        BUILD_OK[$dir]=0
        record "build $dir/" FAIL 0 1 0 "configure or compile failed, see above"
    fi
}

if want globals || want interop || want sim || want tool; then
    build build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMOTEIP_PROFILE=full \
        -DMOTEIP_SANITIZE=OFF -DMOTEIP_FUZZ=OFF -DMOTEIP_TESTS=ON
fi
if want unit; then
    build build-asan -DCMAKE_BUILD_TYPE=Debug -DMOTEIP_PROFILE=full \
        -DMOTEIP_SANITIZE=ON -DMOTEIP_FUZZ=OFF -DMOTEIP_TESTS=ON
    build build-tiny -DCMAKE_BUILD_TYPE=Debug -DMOTEIP_PROFILE=tiny \
        -DMOTEIP_SANITIZE=ON -DMOTEIP_FUZZ=OFF -DMOTEIP_TESTS=ON
fi
if want release; then
    # Build only: -O3 finds warnings (maybe-uninitialized, array bounds) that
    # -O0 and -O2 do not, and -Werror makes them fail here rather than for a user.
    build build-release -DCMAKE_BUILD_TYPE=Release -DMOTEIP_PROFILE=full \
        -DMOTEIP_SANITIZE=OFF -DMOTEIP_FUZZ=OFF -DMOTEIP_TESTS=OFF
    build build-release-tiny -DCMAKE_BUILD_TYPE=Release -DMOTEIP_PROFILE=tiny \
        -DMOTEIP_SANITIZE=OFF -DMOTEIP_FUZZ=OFF -DMOTEIP_TESTS=OFF
    for d in build-release build-release-tiny; do
        if [ "${BUILD_OK[$d]:-0}" = 1 ]; then record "release ($d/)" PASS 1 0 0 "built"; fi
    done
fi
if want interop; then
    # The firmware of the emulated boards (cross-compiled): the micro:bit for
    # tests/interop/test_microbit.py and test_microbit_micro.py, the
    # ATmega1284P for test_avr.py, the MPS2 AN385 (Cortex-M3 + LAN9118,
    # full profile) for test_mps2.py.
    build build-microbit -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake \
        -DMOTEIP_PORT=microbit -DMOTEIP_PROFILE=tiny -DCMAKE_BUILD_TYPE=MinSizeRel
    build build-avr -DCMAKE_TOOLCHAIN_FILE=cmake/avr-gcc.cmake \
        -DMOTEIP_PORT=avr -DMOTEIP_PROFILE=tiny -DCMAKE_BUILD_TYPE=MinSizeRel
    build build-mps2 -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake -DMOTEIP_ARM_CPU=cortex-m3 \
        -DMOTEIP_PORT=mps2 -DMOTEIP_PROFILE=full -DCMAKE_BUILD_TYPE=MinSizeRel
fi
if want unit || want interop; then
    build build-micro -DCMAKE_BUILD_TYPE=Debug -DMOTEIP_PROFILE=micro \
        -DMOTEIP_SANITIZE=ON -DMOTEIP_FUZZ=OFF -DMOTEIP_TESTS=ON
fi
if want fuzz; then
    # Only the library and the harnesses (fuzz/fuzz_*.c): the host port and
    # apps are not fuzz targets. No build type: -O1 -g with assertions on.
    fuzz_targets=moteip
    for f in fuzz/fuzz_*.c; do [ -f "$f" ] && fuzz_targets+=" $(basename "$f" .c)"; done
    BUILD_TARGETS=$fuzz_targets CC=clang build build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE= \
        "-DCMAKE_C_FLAGS=-O1 -g" -DMOTEIP_PROFILE=full -DMOTEIP_SANITIZE=OFF \
        -DMOTEIP_FUZZ=ON -DMOTEIP_TESTS=OFF
fi

# --- unit: ctest -------------------------------------------------------------------
run_ctest() {
    local dir=$1 name="unit ($1/)" rc=0 xml="$RES/ctest-$1.xml"
    banner "$name: ctest"
    if [ "${BUILD_OK[$dir]:-0}" != 1 ]; then
        record "$name" FAIL 0 1 0 "not run: $dir/ did not build"
        return
    fi
    ctest --test-dir "$dir" --output-on-failure -j "$JOBS" --timeout 300 \
        --no-tests=error --output-junit "$xml" || rc=$?
    record_junit "$name" "$rc" "$xml"
}
if want unit; then
    run_ctest build-asan
    run_ctest build-tiny
    run_ctest build-micro
fi

# --- pytest helper ---------------------------------------------------------------
# run_pytest NAME XML [--as-root] PYTEST-ARGS...
run_pytest() {
    local name=$1 xml=$2 rc=0; shift 2
    local prefix=()
    if [ "${1:-}" = --as-root ]; then
        shift
        if [ "$(id -u)" -ne 0 ]; then
            if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
                # shellcheck disable=SC2054  # the commas belong to --preserve-env
                prefix=(sudo -n --preserve-env=MOTEIP_BUILD_DIR,MOTEIP_MICRO_BUILD_DIR,MOTEIP_AVR_BUILD_DIR,MOTEIP_MPS2_BUILD_DIR,CI,ASAN_OPTIONS,UBSAN_OPTIONS)
            else
                echo "test.sh: not root and no passwordless sudo: tests needing root will skip"
            fi
        fi
    fi
    if [ ! -x "$VENV_PY" ]; then
        record "$name" FAIL 0 1 0 "no .venv (scripts/setup.sh failed?)"
        return
    fi
    MOTEIP_BUILD_DIR="$ROOT/build" MOTEIP_MICRO_BUILD_DIR="$ROOT/build-micro" \
        "${prefix[@]}" "$VENV_PY" -m pytest -q -rfEs \
        --timeout=600 -p no:cacheprovider --junitxml="$xml" "$@" </dev/null || rc=$?
    if [ "$rc" -eq 5 ]; then
        record "$name" SKIP 0 0 0 "no tests collected"
    else
        record_junit "$name" "$rc" "$xml"
    fi
}

# --- globals: no writable globals, no heap/clock ------------------------------------
if want globals; then
    banner "globals: nm libmoteip.a, no heap/clock in src/"
    if [ "${BUILD_OK[build]:-0}" != 1 ]; then
        record globals FAIL 0 1 0 "not run: build/ did not build"
    else
        run_pytest globals "$RES/pytest-globals.xml" \
            tests/static/test_no_globals.py tests/static/test_no_heap_no_clock.py \
            tests/static/test_setup_installs_tools.py tests/static/test_include_direction.py \
            tests/static/test_fuzz_hours.py tests/static/test_fuzz_reach.py \
            tests/static/test_run_scripts.py tests/static/test_static_tests_run.py
    fi
fi

# --- footprint ------------------------------------------------------------------
if want footprint; then
    banner "footprint: bench/footprint --check"
    rc=0
    if [ -n "$PYBIN" ]; then "$PYBIN" bench/footprint --check || rc=$?; else rc=127; fi
    if [ "$rc" -eq 0 ]; then
        record "footprint --check" PASS 1 0 0 "data == bss == 0 everywhere"
    else
        record "footprint --check" FAIL 0 1 0 "exit $rc, see above"
    fi
    banner "footprint: tests/static/test_footprint.py"
    run_pytest "footprint tests" "$RES/pytest-footprint.xml" tests/static/test_footprint.py
fi

# --- install: cmake --install and a consumer project ----------------------------
if want install; then
    banner "install: pytest tests/install"
    run_pytest install "$RES/pytest-install.xml" tests/install
fi

# --- fuzz ------------------------------------------------------------------------
if want fuzz; then
    banner "fuzz: fuzz/run.sh build-fuzz $FUZZ_SECONDS"
    if [ ! -f fuzz/run.sh ]; then
        echo "test.sh: fuzz/run.sh does not exist yet -- skipping the fuzzers"
        record fuzz SKIP 0 0 0 "fuzz/run.sh does not exist yet"
    elif [ "${BUILD_OK[build-fuzz]:-0}" != 1 ]; then
        record fuzz FAIL 0 1 0 "not run: build-fuzz/ did not build"
    else
        fuzzers=()
        for f in build-fuzz/fuzz_*; do [ -f "$f" ] && [ -x "$f" ] && fuzzers+=("$(basename "$f")"); done
        n=${#fuzzers[@]}
        if [ "$n" -eq 0 ]; then
            record fuzz SKIP 0 0 0 "no fuzz/fuzz_*.c harnesses built"
        else
            echo "fuzzers: ${fuzzers[*]} (${FUZZ_SECONDS} s each)"
            log="$RES/fuzz.log"
            set +e
            # JOBS harnesses at once, each on its own core for FUZZ_SECONDS.
            env "${ORIG_SAN_ENV[@]}" FUZZ_JOBS="$JOBS" timeout -k 30 $((FUZZ_SECONDS * n / JOBS + 600)) \
                bash fuzz/run.sh build-fuzz "$FUZZ_SECONDS" </dev/null 2>&1 | tee "$log"
            rc=${PIPESTATUS[0]}
            set -e
            if [ "$rc" -eq 0 ]; then
                record fuzz PASS "$n" 0 0 "$n fuzzers x ${FUZZ_SECONDS} s"
            else
                # which fuzzers failed: run.sh prints "NAME: FAILED ..." (else
                # count every fuzzer named on a line saying fail, else all)
                bad=0
                for f in "${fuzzers[@]}"; do
                    grep -qE "^$f: FAIL" "$log" && bad=$((bad + 1))
                done
                if [ "$bad" -eq 0 ]; then
                    for f in "${fuzzers[@]}"; do
                        grep -iE "(^|[^a-z])fail" "$log" | grep -qw -- "$f" && bad=$((bad + 1))
                    done
                fi
                [ "$bad" -gt 0 ] || bad=$n
                record fuzz FAIL $((n - bad)) "$bad" 0 "fuzz/run.sh exit $rc; $bad of $n fuzzers failed, see above and $log"
            fi
        fi
    fi
fi

# --- sim: moteip-sim scenarios ------------------------------------------------------
if want sim; then
    banner "sim: pytest tests/sim"
    if [ "${BUILD_OK[build]:-0}" != 1 ]; then
        record sim FAIL 0 1 0 "not run: build/ did not build"
    else
        run_pytest sim "$RES/pytest-sim.xml" tests/sim
    fi
fi

# run_check NAME CMD...: one command that passes or fails as a whole, counted as one test
run_check() {
    local name=$1 rc=0; shift
    "$@" </dev/null || rc=$?
    if [ "$rc" -eq 0 ]; then
        record "$name" PASS 1 0 0 "passed"
    else
        record "$name" FAIL 0 1 0 "exit $rc, see above"
    fi
}

# --- tool: the moteip command and Python package ------------------------------------
if want tool; then
    # lint and types of the front end (its experiments and the viewer's server
    # included); configured in python/pyproject.toml, pinned in requirements-dev.txt
    banner "tool: ruff check python/moteip"
    if [ -x "$VENV_PY" ]; then
        run_check "ruff check" "$VENV_PY" -m ruff check --no-cache python/moteip
        banner "tool: mypy --strict python/moteip"
        run_check "mypy --strict" "$VENV_PY" -m mypy --strict --config-file python/pyproject.toml \
            --cache-dir "$ROOT/out/mypy-cache" python/moteip
    else
        record "ruff check" FAIL 0 1 0 "no .venv (scripts/setup.sh failed?)"
        record "mypy --strict" FAIL 0 1 0 "no .venv (scripts/setup.sh failed?)"
    fi
    banner "tool: pytest tests/tool"
    if [ "${BUILD_OK[build]:-0}" != 1 ]; then
        record tool FAIL 0 1 0 "not run: build/ did not build"
    else
        run_pytest tool "$RES/pytest-tool.xml" tests/tool
    fi
fi

# --- interop (and any other pytest outside tests/static, tests/sim and tests/tool) ---
if want interop; then
    banner "interop: pytest tests (root, network namespaces)"
    if [ "${BUILD_OK[build]:-0}" != 1 ]; then
        record interop FAIL 0 1 0 "not run: build/ did not build"
    else
        run_pytest interop "$RES/pytest-interop.xml" --as-root tests --ignore=tests/static \
            --ignore=tests/sim --ignore=tests/tool --ignore=tests/install
    fi
fi

# --- summary ----------------------------------------------------------------------
banner "summary ($((SECONDS - START)) s)"
failed_parts=()
for i in "${!S_NAME[@]}"; do
    printf '  %-22s %-5s %s\n' "${S_NAME[$i]}" "${S_STATUS[$i]}" "${S_DETAIL[$i]}"
    [ "${S_STATUS[$i]}" != FAIL ] || failed_parts+=("${S_NAME[$i]}")
done
[ "$TOTAL_SKIP" -eq 0 ] || echo "  ($TOTAL_SKIP tests skipped)"
if [ ${#failed_parts[@]} -eq 0 ]; then
    echo "all parts passed"
else
    joined=$(printf '%s, ' "${failed_parts[@]}")
    echo "FAILED: ${joined%, }"
fi
echo "$TOTAL_PASS passed, $TOTAL_FAIL failed"
[ "$TOTAL_FAIL" -eq 0 ] && [ ${#failed_parts[@]} -eq 0 ]
