#!/usr/bin/env bash
# port/avr/run.sh -- boot the ATmega1284P firmware on simavr (through
# tools/moteip-simavr) and bridge its USART0 to Linux with moteip-slip,
# inside a network namespace of its own.
#
#   cmake --workflow --preset avr            # builds build-avr/
#   sudo port/avr/run.sh [ELF]               # default build-avr/port/avr/moteip-avr.elf
#
# The board is fd00::2 (link-local fe80::2), Linux is fd00::1 on the TUN
# msl0 in namespace moteip-avr-PID. The script prints the commands to reach
# the board and waits; Ctrl-C stops the emulator and the bridge and deletes
# the namespace, and prints the cycles the CPU worked. Needs root
# (namespace, TUN), libsimavr-dev (scripts/setup.sh); moteip-slip and
# moteip-simavr are built into build/ if missing.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ELF=${1:-$ROOT/build-avr/port/avr/moteip-avr.elf}
SLIP=$ROOT/build/moteip-slip
SIM=$ROOT/build/moteip-simavr
NS=moteip-avr-$$
TUN=msl0

die() { echo "run.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (a network namespace and a TUN device): sudo $0"
[ -f "$ELF" ] || die "no firmware at $ELF: build it with 'cmake --workflow --preset avr'"
if [ ! -x "$SLIP" ] || [ ! -x "$SIM" ]; then
    echo "run.sh: building moteip-slip and moteip-simavr into build/"
    cmake -S "$ROOT" -B "$ROOT/build" -G Ninja >/dev/null
    cmake --build "$ROOT/build" --target moteip-slip moteip-simavr >/dev/null ||
        die "cannot build moteip-simavr: is libsimavr-dev installed (scripts/setup.sh)?"
fi

DIR=$(mktemp -d)
SIM_PID= SLIP_PID=
cleanup() {
    [ -z "$SLIP_PID" ] || kill "$SLIP_PID" 2>/dev/null || true
    [ -z "$SIM_PID" ] || kill "$SIM_PID" 2>/dev/null || true
    wait 2>/dev/null || true
    [ -f "$DIR/stats.json" ] && echo "cycles: $(cat "$DIR/stats.json")"
    ip netns del "$NS" 2>/dev/null || true
    rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

ip netns add "$NS"
ip -n "$NS" link set lo up
# The runner listens on a Unix socket for USART0; moteip-slip connects to it.
ip netns exec "$NS" "$SIM" --uart "unix:$DIR/uart" --stats-json "$DIR/stats.json" "$ELF" \
    >"$DIR/sim.out" 2>"$DIR/sim.log" &
SIM_PID=$!
for _ in $(seq 100); do grep -q '^ready' "$DIR/sim.out" 2>/dev/null && break; sleep 0.05; done
grep -q '^ready' "$DIR/sim.out" || die "moteip-simavr did not start: $(cat "$DIR/sim.log")"
ip netns exec "$NS" "$SLIP" --serial "unix:$DIR/uart" --tun "$TUN" --retry-ms 50 \
    >"$DIR/slip.out" &
SLIP_PID=$!
for _ in $(seq 100); do grep -q '^ready' "$DIR/slip.out" 2>/dev/null && break; sleep 0.05; done
grep -q '^ready' "$DIR/slip.out" || die "moteip-slip did not start"
ip -n "$NS" addr add fd00::1/64 dev "$TUN" nodad

cat <<EOT
ATmega1284P running (moteip-simavr pid $SIM_PID, moteip-slip pid $SLIP_PID, namespace $NS).
  ip netns exec $NS ping -6 fd00::2
  ip netns exec $NS curl -g 'http://[fd00::2]/bytes/1000' | od -A d -t x1 | head
  ip netns exec $NS nc -6 fd00::2 7          # TCP echo (9: discard)
  kill -USR1 $SIM_PID; cat $DIR/stats.json   # cycles so far
Ctrl-C to stop.
EOT
wait "$SIM_PID"
