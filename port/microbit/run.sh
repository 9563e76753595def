#!/usr/bin/env bash
# port/microbit/run.sh -- boot the micro:bit firmware under QEMU and bridge
# its UART to Linux with moteip-slip, inside a network namespace of its own.
#
#   cmake --workflow --preset microbit       # builds build-microbit/
#   sudo port/microbit/run.sh [ELF]          # default build-microbit/port/microbit/moteip-microbit.elf
#   port/microbit/run.sh --hints [ELF]       # only print the commands that reach that firmware
#
# The board is fd00::2 (link-local fe80::2), Linux is fd00::1 on the TUN
# msl0 in namespace moteip-microbit-PID. The micro profile's firmware
# (ELF moteip-microbit-micro.elf) is IPv4: the board is 192.0.2.2, Linux
# 192.0.2.1, and it serves ping and TCP discard (port 9). The script prints the commands to
# reach the board and waits; Ctrl-C stops QEMU and the bridge and deletes
# the namespace. Needs root (namespace, TUN), qemu-system-arm, and
# moteip-slip (built into build/ if missing).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ELF=${1:-$ROOT/build-microbit/port/microbit/moteip-microbit.elf}
SLIP=$ROOT/build/moteip-slip
NS=moteip-microbit-$$
TUN=msl0

die() { echo "run.sh: $*" >&2; exit 1; }

# The commands that reach the board. The micro profile's firmware is the one
# named *-micro.elf; "microbit" itself contains "micro", so match the suffix.
hints() {
    case $(basename "$ELF") in
    *-micro.elf) cat <<EOF
  ip netns exec $NS ping -4 192.0.2.2
  head -c 10000 /dev/urandom | ip netns exec $NS nc -4 -N 192.0.2.2 9   # TCP discard
EOF
        ;;
    *) cat <<EOF
  ip netns exec $NS ping -6 fd00::2
  ip netns exec $NS curl -g 'http://[fd00::2]/bytes/1000' | od -A d -t x1 | head
  ip netns exec $NS nc -6 fd00::2 7          # TCP echo
EOF
        ;;
    esac
}
# --hints [ELF]: print them and stop (nothing is booted; no root needed)
if [ "${1:-}" = --hints ]; then
    ELF=${2:-$ELF}
    hints
    exit 0
fi
[ "$(id -u)" -eq 0 ] || die "needs root (a network namespace and a TUN device): sudo $0"
[ -f "$ELF" ] || die "no firmware at $ELF: build it with 'cmake --workflow --preset microbit'"
command -v qemu-system-arm >/dev/null || die "qemu-system-arm is not installed (scripts/setup.sh)"
if [ ! -x "$SLIP" ]; then
    echo "run.sh: building moteip-slip into build/"
    cmake -S "$ROOT" -B "$ROOT/build" -G Ninja >/dev/null
    cmake --build "$ROOT/build" --target moteip-slip >/dev/null
fi

DIR=$(mktemp -d)
QEMU_PID= SLIP_PID=
cleanup() {
    [ -z "$SLIP_PID" ] || kill "$SLIP_PID" 2>/dev/null || true
    [ -z "$QEMU_PID" ] || kill "$QEMU_PID" 2>/dev/null || true
    wait 2>/dev/null || true
    ip netns del "$NS" 2>/dev/null || true
    rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

ip netns add "$NS"
ip -n "$NS" link set lo up
# QEMU listens on a Unix socket for the UART; moteip-slip connects to it.
ip netns exec "$NS" qemu-system-arm -M microbit -display none -monitor none \
    -kernel "$ELF" -serial "unix:$DIR/uart,server=on,wait=off" >"$DIR/qemu.log" 2>&1 &
QEMU_PID=$!
ip netns exec "$NS" "$SLIP" --serial "unix:$DIR/uart" --tun "$TUN" --retry-ms 50 \
    >"$DIR/slip.out" &
SLIP_PID=$!
for _ in $(seq 100); do grep -q '^ready' "$DIR/slip.out" 2>/dev/null && break; sleep 0.05; done
grep -q '^ready' "$DIR/slip.out" || die "moteip-slip did not start: $(cat "$DIR/qemu.log")"
ip -n "$NS" addr add fd00::1/64 dev "$TUN" nodad
ip -n "$NS" addr add 192.0.2.1/24 dev "$TUN"

echo "micro:bit running (QEMU pid $QEMU_PID, moteip-slip pid $SLIP_PID, namespace $NS)."
hints
echo "Ctrl-C to stop."
wait "$QEMU_PID"
