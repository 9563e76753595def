"""The micro profile's firmware on the micro:bit (port/common/micro_node.c
built by port/microbit/ as moteip-microbit-micro.elf: IPv4 192.0.2.2,
uIP's one-buffer model, ping and TCP discard on port 9, no UDP) under
QEMU's `microbit` machine, its UART bridged by moteip-slip to a TUN in a
fresh namespace, as test_microbit.py runs the tiny firmware. It is the
firmware test_avr.py::test_micro_profile_firmware runs on the ATmega1284P.

Linux pings it up to what its 576-byte buffer holds (and one byte more,
which it drops and survives), uploads to its discard service with the
bytes it counted checked, and finds a closed TCP port refused. Then its
RAM is read through QMP: the stack stayed within the linker script's
reservation, the stack's counters show what the tests did and no broken
datagram, and its ISN key came from the RNG.

micro_node offers no TCP echo (only discard, the service bench/avr-cycles
measures), so there is no echo test here.

Needs root, qemu-system-arm and the firmware in build-microbit/
(scripts/test.sh builds it; MOTEIP_MICROBIT_BUILD_DIR overrides).
"""
from __future__ import annotations

import os
import secrets
import socket
import struct
import time

import pytest

from board_util import (MICROBIT_ELF, QemuBoard, elf_size, elf_symbols, ping6, probe_constants,
                        serial_board, stack_peak, tcp_upload)
from moteip_netns import REPO
from slip_util import BOARD_V4, SLIP_BIN

MICRO_ELF = MICROBIT_ELF.with_name("moteip-microbit-micro.elf")
RAM_BASE, RAM_SIZE = 0x20000000, 16 * 1024
# as port/common/micro_firmware.cmake builds the library
MICRO_CFLAGS = ["-mcpu=cortex-m0", "-mthumb", "-Os", "-DMOTEIP_PROFILE_MICRO=1",
                "-DMIP_CONF_IPV6=0"]
MAX_PING = 576 - 20 - 8          # MIP_MICRO_BUF_SIZE less the IPv4 and ICMP headers
DISCARD, CLOSED = 9, 1234


def micro_stat_names() -> list[str]:
    """The counters' names in the order of MIP_MICRO_STATS (micro.h)."""
    import re
    text = (REPO / "include" / "moteip" / "micro.h").read_text()
    block = text[text.index("#define MIP_MICRO_STATS(X)"):]
    block = block[:block.index("\n\n")]
    return re.findall(r"X\((\w+)\)", block)


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """One booted micro:bit with the micro firmware: (ns, board, bridge, tmp)."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces, TUN devices)")
    for f in (SLIP_BIN, MICRO_ELF):
        if not f.is_file():
            pytest.fail(f"{f} not built (scripts/test.sh interop builds it)")
    tmp = tmp_path_factory.mktemp("microbit-micro")
    with serial_board(tmp, lambda ns, d: QemuBoard(ns, d, MICRO_ELF), BOARD_V4) as (
            ns, qemu, bridge):
        yield ns, qemu, bridge, tmp


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """Where micro_node.c's `node` keeps what the tests read, on this
    target: offsets in struct micro_node (its first member is the struct
    mip_micro) and the number of counters."""
    tmp = tmp_path_factory.mktemp("probe")
    c = probe_constants({"discarded": "offsetof(struct micro_node, discarded)",
                         "stat": "offsetof(struct mip_micro, stat)",
                         "count": "MIP_MICRO_STAT_COUNT",
                         "key": "offsetof(struct mip_micro, key)",
                         "key_size": "sizeof(((struct mip_micro *)0)->key)"},
                        tmp, MICRO_CFLAGS, header="micro_node.c",
                        incdirs=(REPO / "port" / "common", REPO / "port" / "microbit"))
    names = micro_stat_names()
    assert c["count"] == len(names), (c, names)
    return {**c, "names": names, "node": elf_symbols(MICRO_ELF)["node"]}


def read_node(board, layout) -> dict:
    """The node's counters (16 bits each), its discarded byte count and its
    ISN key, from a RAM dump."""
    _, qemu, _, tmp = board
    ram = qemu.read_memory(RAM_BASE, RAM_SIZE, tmp)
    at = layout["node"] - RAM_BASE
    stats = dict(zip(layout["names"], struct.unpack_from(
        f"<{layout['count']}H", ram, at + layout["stat"])))
    return {"stats": stats, "ram": ram,
            "discarded": struct.unpack_from("<I", ram, at + layout["discarded"])[0],
            "key": ram[at + layout["key"]:at + layout["key"] + layout["key_size"]]}


@pytest.mark.parametrize("size", [0, 56, MAX_PING])
def test_ping(board, size):
    ns, *_ = board
    ping6(ns, BOARD_V4, count=3, size=size)


def test_ping_over_the_buffer_is_dropped(board):
    """One byte more than the 576-byte buffer holds: the SLIP decoder drops
    the frame (no reply), and the board answers the next ping."""
    ns, *_ = board
    assert ping6(ns, BOARD_V4, size=MAX_PING + 1, check=False).returncode != 0
    ping6(ns, BOARD_V4, count=2, size=56)


@pytest.mark.parametrize("n", [1, 548, 20000])
def test_upload_to_discard_counts_every_byte(board, layout, n):
    """n bytes to the discard service: the board closes once the stream
    ends, and its discard counter grew by exactly n."""
    ns, *_ = board
    before = read_node(board, layout)["discarded"]
    tcp_upload(ns, BOARD_V4, secrets.token_bytes(n), port=DISCARD)
    assert read_node(board, layout)["discarded"] - before == n


def test_closed_port_refused(board, layout):
    """A SYN to a port nobody listens on is answered with RST; a UDP
    datagram (UDP is off in this firmware) draws no answer and is dropped
    and counted."""
    ns, *_ = board
    s0 = read_node(board, layout)["stats"]
    s = ns.socket(socket.AF_INET, socket.SOCK_STREAM, timeout=5)
    try:
        with pytest.raises(ConnectionRefusedError):
            s.connect((BOARD_V4, CLOSED))
    finally:
        s.close()
    u = ns.socket(socket.AF_INET, socket.SOCK_DGRAM, timeout=1)
    try:
        u.sendto(b"x" * 100, (BOARD_V4, CLOSED))
        with pytest.raises((socket.timeout, ConnectionRefusedError)):
            u.recv(100)
    finally:
        u.close()
    s1 = read_node(board, layout)["stats"]
    assert s1["tcp_rst_tx"] - s0["tcp_rst_tx"] >= 1, (s0, s1)
    # micro.c counts UDP with the switch off under drop_proto (micro.h's
    # comment on drop_udp says "or UDP is off"): either, exactly once
    udp = ("drop_udp", "drop_proto")
    assert sum(s1[k] - s0[k] for k in udp) == 1, (s0, s1)


def test_zz_stack_within_its_reservation_and_counters(board, layout):
    """Last in the module: the painted RAM shows the deepest the stack
    went, inside STACK_SIZE; the stack counted what the tests sent and no
    datagram with a broken checksum or length, and SLIP framing was never
    broken on the Linux side."""
    ns, qemu, bridge, tmp = board
    node = read_node(board, layout)
    syms = elf_symbols(MICRO_ELF)
    st = stack_peak(node["ram"], RAM_BASE, syms)
    size = elf_size(MICRO_ELF)
    print(f"micro:bit, micro: text {size['text']} data {size['data']} bss {size['bss']}; "
          f"stack peak {st['peak']} of {st['reserved']} reserved")
    assert 64 < st["peak"] <= st["reserved"], st
    assert size["data"] + size["bss"] + st["reserved"] <= RAM_SIZE
    c = node["stats"]
    assert c["rx"] > 50 and c["tx"] > 50, c
    # (drop_ip_hdr is not 0: Linux sends its IPv6 router solicitations and
    # MLD reports on the TUN, version 6 to an IPv4 build)
    assert c["drop_short"] == c["drop_ip_cksum"] == c["drop_cksum"] == 0, c
    assert c["tcp_timeout"] == 0, c
    stats = bridge.stats()
    assert stats["drop_bad_escape"] == stats["drop_too_big"] == stats["drop_not_ip"] == 0, stats


def test_isn_key_comes_from_the_rng(board, layout):
    """The ISN key (RFC 6528's secret) is seeded from the nRF51 RNG via
    board_entropy: QEMU's -seed makes that peripheral deterministic, so the
    same seed gives the same key and another seed another."""
    ns, _, _, tmp = board
    keys = []
    for i, seed in enumerate((1, 1, 2)):
        d = tmp / f"boot{i}"
        d.mkdir()
        q = QemuBoard(ns, d, MICRO_ELF, extra=["-seed", str(seed)])
        try:
            time.sleep(0.5)                   # boot: 8 RNG bytes take a few ms
            ram = q.read_memory(RAM_BASE, RAM_SIZE, d)
        finally:
            q.kill()
        at = layout["node"] - RAM_BASE + layout["key"]
        keys.append(ram[at:at + layout["key_size"]])
    assert any(keys[0]), "the ISN key is all zero: not seeded"
    assert keys[0] == keys[1] and keys[0] != keys[2], keys
