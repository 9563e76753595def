#!/usr/bin/env bash
# moteip demo: build moteip-host, run it on a TAP inside a private network
# namespace, and talk to it from Linux: ping (IPv4, IPv6, a fragmented
# 4000-byte ping) and a UDP echo round trip; then print the stack's counters.
#
#   sudo scripts/demo-tap.sh            (MOTEIP_SKIP_SETUP=1 skips scripts/setup.sh,
#                                    MOTEIP_BUILD_DIR overrides build/)
#
# Everything happens inside a namespace created here and deleted on exit,
# whatever happens: no traffic reaches any real network.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${MOTEIP_BUILD_DIR:-$REPO/build}
NS="moteip-demo-$$"
TAP=mtap0
LINUX_V4=192.0.2.1   STACK_V4=192.0.2.2
LINUX_V6=fd00::1     STACK_V6=fd00::2
WORK=""
HOST_PID=""

say()  { printf '\n\033[1m== %s\033[0m\n' "$*"; }
die()  { echo "demo-tap.sh: $*" >&2; exit 1; }
in_ns() { ip netns exec "$NS" "$@"; }

cleanup() {
    local rc=$?
    if [ -n "$HOST_PID" ] && kill -0 "$HOST_PID" 2>/dev/null; then
        kill -TERM "$HOST_PID" 2>/dev/null || true
        sleep 0.5
        kill -KILL "$HOST_PID" 2>/dev/null || true
    fi
    ip netns del "$NS" 2>/dev/null || true
    [ -n "$WORK" ] && rm -rf "$WORK"
    if [ $rc -ne 0 ]; then echo "demo-tap.sh: FAILED (exit $rc); namespace $NS removed" >&2; fi
    exit $rc
}

[ "$(id -u)" -eq 0 ] || die "needs root (network namespace and TAP device): run with sudo"

if [ -z "${MOTEIP_SKIP_SETUP:-}" ] && [ -f "$REPO/scripts/setup.sh" ]; then
    say "setup (scripts/setup.sh)"
    bash "$REPO/scripts/setup.sh"
fi
for tool in cmake ninja ip ping; do
    command -v "$tool" >/dev/null || die "'$tool' not found (run scripts/setup.sh)"
done

say "build ($BUILD)"
cmake -S "$REPO" -B "$BUILD" -G Ninja >/dev/null
cmake --build "$BUILD" --target moteip-host
[ -x "$BUILD/moteip-host" ] || die "build produced no $BUILD/moteip-host"

trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
WORK=$(mktemp -d /tmp/moteip-demo.XXXXXX)

say "namespace $NS with TAP $TAP: Linux is $LINUX_V4/24 and $LINUX_V6/64"
ip netns add "$NS"
ip -n "$NS" link set lo up
ip -n "$NS" tuntap add dev "$TAP" mode tap
ip -n "$NS" addr add "$LINUX_V4/24" dev "$TAP"
ip -n "$NS" addr add "$LINUX_V6/64" dev "$TAP" nodad
ip -n "$NS" link set "$TAP" up

say "start moteip-host (the stack is $STACK_V4/24 and $STACK_V6/64)"
# `ip netns exec` execs the program, so $! is moteip-host itself.
ip netns exec "$NS" "$BUILD/moteip-host" --tap "$TAP" \
    --addr "$STACK_V4/24" --addr "$STACK_V6/64" \
    --stats-json "$WORK/stats.json" >"$WORK/host.out" 2>"$WORK/host.err" &
HOST_PID=$!
for _ in $(seq 100); do
    grep -q ' up,' "$WORK/host.out" 2>/dev/null && break
    kill -0 "$HOST_PID" 2>/dev/null || { cat "$WORK/host.err" >&2; die "moteip-host exited"; }
    sleep 0.1
done
grep -q ' up,' "$WORK/host.out" || die "moteip-host did not come up"
cat "$WORK/host.out"

say "Linux pings the stack over IPv4"
in_ns ping -4 -n -c 3 -i 0.2 -W 2 "$STACK_V4"

say "Linux pings the stack over IPv6"
in_ns ping -6 -n -c 3 -i 0.2 -W 2 "$STACK_V6"

say "4000-byte pings: Linux fragments them, the stack reassembles and replies in fragments"
in_ns ping -4 -n -c 2 -i 0.2 -W 2 -s 4000 "$STACK_V4"
in_ns ping -6 -n -c 2 -i 0.2 -W 2 -s 4000 "$STACK_V6"

say "UDP echo (port 7) round trips"
udp_echo() {   # address, message
    local reply
    if command -v nc >/dev/null && nc -h 2>&1 | grep -qi openbsd; then
        reply=$(printf '%s' "$2" | in_ns timeout 5 nc -u -w1 "$1" 7 || true)
    else
        reply=$(in_ns timeout 5 python3 -c '
import socket, sys
addr, msg = sys.argv[1], sys.argv[2].encode()
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.sendto(msg, (addr, 7))
sys.stdout.write(s.recv(65535).decode())
' "$1" "$2" || true)
    fi
    echo "  sent to $1:7: '$2'   reply: '$reply'"
    [ "$reply" = "$2" ] || die "UDP echo via $1 failed"
}
udp_echo "$STACK_V4" "hello moteip over IPv4"
udp_echo "$STACK_V6" "hello moteip over IPv6"

say "stop moteip-host (SIGTERM) and show its counters"
kill -TERM "$HOST_PID"
rc=0; wait "$HOST_PID" || rc=$?
HOST_PID=""
[ "$rc" -eq 0 ] || { cat "$WORK/host.err" >&2; die "moteip-host exited $rc"; }
python3 - "$WORK/stats.json" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
nonzero = {k: v for k, v in stats["counters"].items() if v}
width = max(map(len, nonzero)) if nonzero else 0
for k, v in nonzero.items():
    print(f"  {k:<{width}}  {v}")
print(f"  ({len(stats['counters']) - len(nonzero)} other counters are 0; "
      f"pbuf_high_water {stats['pbuf_high_water']})")
PY

say "demo OK"
