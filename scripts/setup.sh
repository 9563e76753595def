#!/usr/bin/env bash
# scripts/setup.sh -- install everything moteip needs to build, test and demo.
#
# Idempotent and fast when already done: Debian packages are checked with
# dpkg-query first (apt-get update/install only run if something is missing),
# and the Python venv (.venv) is only touched when requirements-dev.txt changed
# or the venv is missing/broken. Never prompts. Works as root (CI) or as a
# user with sudo.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

log() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

# --- Debian packages ---------------------------------------------------------
PACKAGES=(
    # build
    cmake ninja-build gcc libc6-dev binutils clang llvm libclang-rt-14-dev lld
    # footprint (cross compilers)
    gcc-arm-none-eabi libnewlib-arm-none-eabi gcc-avr avr-libc binutils-avr
    # interop tests and demo (curl: the HTTP tests; Debian 12's minimal image lacks it;
    # util-linux: setpriv, the border router's permission test)
    iproute2 iputils-ping netcat-openbsd tshark tcpdump curl util-linux
    # emulated boards (tests/interop/test_microbit.py, test_avr.py: tools/moteip-simavr
    # links the static libsimavr, which needs libelf; pkg-config finds them)
    qemu-system-arm simavr libsimavr-dev libelf-dev pkg-config
    # the simulator's scenario reader (sim/json.c); locales: the de_DE.UTF-8
    # locale its test reads numbers under (a comma decimal point, made below)
    libcjson-dev locales
    # python test runner
    python3 python3-venv python3-pip ca-certificates
    # tools (xz-utils: bench/lwip-cost unpacks lwIP's Debian source, a .tar.xz)
    valgrind jq xz-utils
    # moteip view: npm vendors its JavaScript (scripts/vendor-js.sh); its browser
    # test drives headless Chromium through chromedriver
    nodejs chromium chromium-driver
)

[ -r /etc/debian_version ] || log "warning: not a Debian system; package names assume Debian 12"
command -v dpkg-query >/dev/null 2>&1 || die "dpkg-query not found: this script needs Debian/Ubuntu (apt)"

missing=()
for p in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
    log "all ${#PACKAGES[@]} Debian packages present"
else
    log "installing missing packages: ${missing[*]}"
    SUDO=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 ||
            die "not root and sudo is not installed; run this script as root to install: ${missing[*]}"
        SUDO=(sudo)
        # Non-interactive environments (CI, no stdin) must not hang on a password prompt.
        if [ -n "${CI:-}" ] || [ ! -t 0 ]; then SUDO=(sudo -n); fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    # tshark asks whether non-root users may capture; answer "no" up front.
    echo "wireshark-common wireshark-common/install-setuid boolean false" |
        "${SUDO[@]}" debconf-set-selections
    apt_opts=(-y -q -o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0 -o Dpkg::Options::=--force-confdef
              -o Dpkg::Options::=--force-confold)
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" update
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install "${missing[@]}"
    # verify
    still=()
    for p in "${missing[@]}"; do
        status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        [ "$status" = "install ok installed" ] || still+=("$p")
    done
    [ ${#still[@]} -eq 0 ] || die "packages still missing after apt-get install: ${still[*]}"
    log "packages installed"
fi
# npm comes with some nodejs packages (NodeSource's) and separately with Debian's
if ! command -v npm >/dev/null 2>&1; then
    log "installing npm"
    SUDO=()
    [ "$(id -u)" -eq 0 ] || SUDO=(sudo -n)
    for step in update "install npm"; do
        # shellcheck disable=SC2086  # "install npm" is two words on purpose
        "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o DPkg::Lock::Timeout=300 \
            -o Dpkg::Use-Pty=0 $step || die "apt-get $step failed"
    done
fi

# --- a comma-decimal locale --------------------------------------------------
# tests/unit/sim/test_json.c reads and writes numbers under LC_NUMERIC=de_DE,
# where printf and strtod use a decimal comma: the scenario reader must not.
if ! locale -a 2>/dev/null | grep -qix 'de_DE\.utf-\?8'; then
    log "making the de_DE.UTF-8 locale"
    LSUDO=()
    [ "$(id -u)" -eq 0 ] || LSUDO=(sudo -n)
    "${LSUDO[@]}" localedef -i de_DE -f UTF-8 de_DE.UTF-8 || die "localedef -i de_DE -f UTF-8 failed"
fi

# --- the viewer's JavaScript library (pinned, integrity-checked by npm ci) ----
bash "$ROOT/scripts/vendor-js.sh" || die "scripts/vendor-js.sh failed"

# --- Python venv -------------------------------------------------------------
# Prefer Debian's interpreter (the one python3-venv belongs to) over whatever
# python3 comes first in PATH (pyenv, conda, ...).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || die "python3 not found"
VENV="$ROOT/.venv"
REQ="$ROOT/requirements-dev.txt"
STAMP="$VENV/.moteip-requirements.sha256"

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
    log "creating $VENV"
    rm -rf "$VENV"
    "$PY" -m venv "$VENV" || die "python3 -m venv failed (is python3-venv installed?)"
fi

# The editable install of python/ (the `moteip` command) is redone when its
# pyproject.toml changes too.
want=$(cat "$REQ" "$ROOT/python/pyproject.toml" | sha256sum | cut -d' ' -f1)
have=$(cat "$STAMP" 2>/dev/null || true)
if [ "$want" = "$have" ] && "$VENV/bin/python" -c 'import pytest, pytest_timeout, moteip, distributed, matplotlib, selenium, ruff, mypy' >/dev/null 2>&1; then
    log "python venv up to date ($("$VENV/bin/python" -m pytest --version 2>&1 | head -n1))"
else
    log "installing $(basename "$REQ") into .venv"
    PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
        "$VENV/bin/python" -m pip install -q -r "$REQ" || die "pip install -r $REQ failed"
    echo "$want" >"$STAMP"
    log "python venv ready ($("$VENV/bin/python" -m pytest --version 2>&1 | head -n1))"
fi

log "done"
