#!/usr/bin/env bash
# port/mps2/run.sh -- boot the MPS2 AN385 firmware under QEMU with its
# LAN9118 on a TAP, inside a network namespace of its own.
#
#   cmake --workflow --preset mps2           # builds build-mps2/
#   sudo port/mps2/run.sh [ELF]              # default build-mps2/port/mps2/moteip-mps2.elf
#
# The board is 192.0.2.2 and fd00::2 (MAC 02:00:00:00:00:02), Linux is
# 192.0.2.1 and fd00::1 on the TAP mtap0 in namespace moteip-mps2-PID. The
# script provisions a fresh 16-byte seed (QEMU's loader, at 0x21000000),
# prints the commands to reach the board and waits; Ctrl-C stops QEMU and
# deletes the namespace. Needs root and qemu-system-arm.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ELF=${1:-$ROOT/build-mps2/port/mps2/moteip-mps2.elf}
NS=moteip-mps2-$$
TAP=mtap0

die() { echo "run.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (a network namespace and a TAP device): sudo $0"
[ -f "$ELF" ] || die "no firmware at $ELF: build it with 'cmake --workflow --preset mps2'"
command -v qemu-system-arm >/dev/null || die "qemu-system-arm is not installed (scripts/setup.sh)"

DIR=$(mktemp -d)
QEMU_PID=
cleanup() {
    [ -z "$QEMU_PID" ] || kill "$QEMU_PID" 2>/dev/null || true
    wait 2>/dev/null || true
    ip netns del "$NS" 2>/dev/null || true
    rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

ip netns add "$NS"
ip -n "$NS" link set lo up
head -c 16 /dev/urandom >"$DIR/seed.bin"
ip netns exec "$NS" qemu-system-arm -M mps2-an385 -display none -monitor none -serial none \
    -kernel "$ELF" -nic "tap,ifname=$TAP,script=no,downscript=no,model=lan9118,mac=02:00:00:00:00:02" \
    -device "loader,file=$DIR/seed.bin,addr=0x21000000,force-raw=on" >"$DIR/qemu.log" 2>&1 &
QEMU_PID=$!
for _ in $(seq 100); do ip -n "$NS" link show "$TAP" >/dev/null 2>&1 && break; sleep 0.05; done
ip -n "$NS" link show "$TAP" >/dev/null 2>&1 || die "QEMU did not start: $(cat "$DIR/qemu.log")"
ip -n "$NS" link set "$TAP" up
ip -n "$NS" addr add 192.0.2.1/24 dev "$TAP"
ip -n "$NS" addr add fd00::1/64 dev "$TAP" nodad

cat <<EOT
MPS2 AN385 running (QEMU pid $QEMU_PID, namespace $NS).
  ip netns exec $NS ping -s 4000 192.0.2.2
  ip netns exec $NS ping -6 fd00::2
  ip netns exec $NS curl -s http://192.0.2.2/bytes/1048576 | sha256sum
  ip netns exec $NS nc -N 192.0.2.2 9 < some-file       # discard (7: echo)
Ctrl-C to stop.
EOT
wait "$QEMU_PID"
