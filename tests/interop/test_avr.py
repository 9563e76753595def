"""The ATmega1284P firmware (port/avr/: the same tiny SLIP node as the
micro:bit, port/common/slip_node.c, on an 8-bit AVR with 16 KB of RAM)
under simavr, run by tools/moteip-simavr with USART0 at 115200 baud on a
Unix socket that moteip-slip bridges to a TUN in a fresh namespace: Linux
pings it, echoes bytes through its TCP and UDP echo services, uploads to
its discard service and curls /bytes/N from its HTTP server with the body
checked byte for byte. simavr is cycle-accurate: the runner counts the
cycles the CPU worked, and a test checks the cycles per received KB and per
ping that bench/avr-cycles reports (docs/BENCHMARKS.md). Then its RAM: the
stack stayed within its reservation, and its counters show no SLIP errors.

The line is 115200 baud, as a board would use: about 10 KB/s each way, so
the transfers here are kept to what shows the paths (the micro:bit's tests
under QEMU, which has no baud-rate timing, move more).

Needs root, moteip-simavr (libsimavr-dev) and the firmware in build-avr/
(scripts/test.sh builds both; MOTEIP_AVR_BUILD_DIR overrides).
"""
from __future__ import annotations

import os
import secrets
import time

import pytest

from board_util import (AVR_CFLAGS, AVR_DATA, AVR_ELF, SIMAVR_BIN, SimavrBoard,
                        assert_closed_ports_refuse, avr_stack_peak, elf_size, elf_symbols,
                        http_get, ping6, serial_board, stack_counters, stack_rng_state, tcp_echo,
                        tcp_upload, udp_echo)
from slip_util import BOARD_V4, BOARD_V6, SLIP_BIN, TUN
from tcp_util import body_pattern

RAM_SIZE = 16 * 1024
AVR_MICRO_ELF = AVR_ELF.with_name("moteip-avr-micro.elf")


def avr_nm_symbols() -> dict[str, int]:
    return elf_symbols(AVR_ELF, "avr-nm")


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """One booted ATmega1284P for the module: (namespace, board, bridge, tmp)."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces, TUN devices)")
    for f in (SLIP_BIN, SIMAVR_BIN, AVR_ELF):
        if not f.is_file():
            pytest.fail(f"{f} not built (scripts/test.sh interop builds it)")
    tmp = tmp_path_factory.mktemp("avr")
    with serial_board(tmp, lambda ns, d: SimavrBoard(ns, d, AVR_ELF), BOARD_V6) as (
            ns, avr, bridge):
        yield ns, avr, bridge, tmp


@pytest.mark.parametrize("size", [0, 56, 1232])
def test_ping6(board, size):
    """One request at a time: at 115200 baud 1232 bytes take 0.25 s there
    and back."""
    ns, *_ = board
    ping6(ns, BOARD_V6, count=2, size=size, interval=0.5)


def test_ping6_link_local(board):
    """From Linux's own link-local address, once its DAD is over (until
    then replies to a tentative address are dropped)."""
    ns, *_ = board
    deadline = time.monotonic() + 10
    while ns.ip(["-6", "addr", "show", "dev", TUN, "tentative"]).stdout.strip():
        assert time.monotonic() < deadline, "Linux's link-local address stays tentative"
        time.sleep(0.1)
    ping6(ns, f"fe80::2%{TUN}", count=2)


def test_ping6_fragmented(board):
    """1272 data bytes: Linux fragments the request over the 1280-byte link
    MTU, the board reassembles it and fragments its reply."""
    ns, *_ = board
    ping6(ns, BOARD_V6, count=2, size=1272, interval=0.8)


@pytest.mark.parametrize("n", [1, 700, 6000])
def test_tcp_echo(board, n):
    ns, *_ = board
    tcp_echo(ns, BOARD_V6, n)


def test_udp_echo(board):
    ns, *_ = board
    udp_echo(ns, BOARD_V6, (1, 100, 1232))


@pytest.mark.parametrize("n", [0, 1, 1460, 65536])
def test_http_bytes(board, n):
    ns, _, _, tmp = board
    status, body = http_get(ns, tmp, BOARD_V6, f"/bytes/{n}", timeout=90)
    assert status == "200"
    assert body == body_pattern(n)


def test_http_404(board):
    ns, _, _, tmp = board
    status, _ = http_get(ns, tmp, BOARD_V6, "/nothing")
    assert status == "404"


def test_closed_ports_refuse(board):
    ns, *_ = board
    assert_closed_ports_refuse(ns, BOARD_V6)


def test_cycles_per_received_kb_and_per_ping(board):
    """The runner's cycle counter across an upload of 16 KB to discard and
    across 20 pings: the CPU works (is not asleep) for a bounded number of
    cycles per received KB and per ping, and sleeps the rest. The bounds
    are three times what bench/avr-cycles measured (docs/BENCHMARKS.md:
    about 500,000 cycles per KB, 50,000 per ping); a bound that fails means
    the receive path got much dearer, or the board stopped sleeping."""
    ns, avr, _, _ = board
    s0 = avr.stats()
    tcp_upload(ns, BOARD_V6, secrets.token_bytes(16384))
    s1 = avr.stats()
    ping6(ns, BOARD_V6, count=20, size=56)
    s2 = avr.stats()
    per_kb = (s1["active_cycles"] - s0["active_cycles"]) / 16
    per_ping = (s2["active_cycles"] - s1["active_cycles"]) / 20
    print(f"ATmega1284P: {per_kb:,.0f} cycles per received KB, {per_ping:,.0f} per ping")
    assert s1["uart_rx_bytes"] - s0["uart_rx_bytes"] > 16384
    assert 50_000 < per_kb < 1_500_000, per_kb
    assert 5_000 < per_ping < 150_000, per_ping
    # asleep most of the time: 20 pings 50 ms apart leave the CPU idle
    assert s2["sleep_cycles"] - s1["sleep_cycles"] > 5 * (s2["active_cycles"] - s1["active_cycles"])


def test_zz_stack_within_its_reservation(board):
    """Last in the module: after everything above, the painted RAM shows
    the deepest the stack went; it stays inside the 1,792 bytes
    port/avr/CMakeLists.txt keeps free (AVR_STACK_SIZE, in the ELF as
    __moteip_stack_reserve), and the board's counters show no broken SLIP."""
    ns, avr, bridge, tmp = board
    ram = avr.read_memory()
    syms = avr_nm_symbols()
    reserved = syms["__moteip_stack_reserve"]
    st = avr_stack_peak(ram, syms, reserved)
    size = elf_size(AVR_ELF, "avr-size")
    print(f"ATmega1284P: text {size['text']} data {size['data']} bss {size['bss']}; "
          f"stack peak {st['peak']} of {st['reserved']} reserved")
    assert 128 < st["peak"] <= st["reserved"], st
    assert size["data"] + size["bss"] + st["reserved"] <= RAM_SIZE
    stats = bridge.stats()
    assert stats["drop_bad_escape"] == stats["drop_too_big"] == stats["drop_not_ip"] == 0, stats
    c = stack_counters(ram, AVR_DATA, syms, tmp, AVR_CFLAGS, "avr-gcc")
    assert c["rx_frames"] > 100 and c["icmp_echo_replied"] > 10, c
    assert c["drop_slip_too_big"] == c["drop_slip_bad_escape"] == c["drop_tx_driver"] == 0, c


def test_entropy_comes_from_the_eeprom_seed(board):
    """The ATmega1284P has no RNG: the stack is seeded from the 16 bytes
    provisioned in EEPROM and a boot counter (port/avr/board.c). The
    runner's --seed provisions them: the same seed gives the same PRNG
    state after boot, another seed another state."""
    ns, _, _, tmp = board
    syms = avr_nm_symbols()
    states = []
    for i, seed in enumerate(("11" * 16, "11" * 16, "22" * 16)):
        d = tmp / f"boot{i}"
        d.mkdir()
        b = SimavrBoard(ns, d, AVR_ELF, extra=["--seed", seed])
        try:
            time.sleep(0.3)
            ram = b.read_memory()
        finally:
            b.kill()
        states.append(stack_rng_state(ram, AVR_DATA, syms, d, AVR_CFLAGS, "avr-gcc"))
    assert any(states[0]), "the PRNG state is all zero: not seeded"
    assert states[0] == states[1] and states[0] != states[2], states


def test_micro_profile_firmware(tmp_path):
    """The micro profile's firmware (port/common/micro_node.c: IPv4, uIP's
    one-buffer model, ping and TCP discard) on the same board: Linux pings
    it and uploads 8 KB, and its cycles per received KB and per ping stay
    within three times bench/avr-cycles --micro's (docs/BENCHMARKS.md:
    about 250,000 and 33,000)."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces, TUN devices)")
    for f in (SLIP_BIN, SIMAVR_BIN, AVR_MICRO_ELF):
        if not f.is_file():
            pytest.fail(f"{f} not built (scripts/test.sh interop builds it)")
    with serial_board(tmp_path, lambda ns, d: SimavrBoard(ns, d, AVR_MICRO_ELF), BOARD_V4) as (
            ns, avr, bridge):
        s0 = avr.stats()
        ping6(ns, BOARD_V4, count=10, size=56)
        s1 = avr.stats()
        tcp_upload(ns, BOARD_V4, secrets.token_bytes(8192))
        s2 = avr.stats()
        per_ping = (s1["active_cycles"] - s0["active_cycles"]) / 10
        per_kb = (s2["active_cycles"] - s1["active_cycles"]) / 8
        print(f"ATmega1284P, micro: {per_kb:,.0f} cycles per received KB, {per_ping:,.0f} per ping")
        assert 20_000 < per_kb < 750_000, per_kb
        assert 3_000 < per_ping < 100_000, per_ping
        stats = bridge.stats()
        assert stats["drop_bad_escape"] == stats["drop_too_big"] == 0, stats
