"""The process kernel on an emulated board (issue 30, docs/OS.md):
moteip-mps2-os.elf (port/mps2/main.c with NODE_OS) runs echo and discard as
processes of the kernel (apps/os_apps.h) and a sensor process that sends a
batch of four readings every 400 ms to 192.0.2.1:5000, on the MPS2 AN385
under QEMU with its LAN9118 on a TAP in a fresh namespace. Linux echoes TCP
and UDP (fragmented) through the processes, uploads to discard, and receives
consecutive sensor batches.

Needs root, qemu-system-arm and the firmware in build-mps2/ (scripts/test.sh
builds it).
"""
from __future__ import annotations

import os
import secrets
import socket
import struct
import time

import pytest

from board_util import MPS2_OS_ELF, boot_mps2, ping6, tcp_echo, tcp_upload, udp_echo
from moteip_netns import Netns

BOARD_V4, BOARD_V6 = "192.0.2.2", "fd00::2"


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """One booted MPS2 (kernel firmware) for the module, and a UDP socket on
    192.0.2.1:5000 bound before the sensor's first batch can leave."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces, TAP devices)")
    if not MPS2_OS_ELF.is_file():
        pytest.fail(f"{MPS2_OS_ELF} not built (scripts/test.sh interop builds it)")
    tmp = tmp_path_factory.mktemp("mps2os")
    ns = Netns()
    qemu = sink = None
    try:
        qemu = boot_mps2(ns, tmp, secrets.token_bytes(16), elf=MPS2_OS_ELF)
        sink = ns.socket(socket.AF_INET, socket.SOCK_DGRAM, timeout=0.5)
        sink.bind(("192.0.2.1", 5000))
        deadline = time.monotonic() + 15
        while ping6(ns, BOARD_V4, check=False).returncode != 0:
            assert time.monotonic() < deadline, "the MPS2 does not answer ping"
            assert qemu.running(), qemu.log.read_text(errors="replace")
        yield ns, qemu, sink
    finally:
        if sink is not None:
            sink.close()
        if qemu is not None:
            qemu.kill()
        ns.delete()


@pytest.mark.parametrize("addr", [BOARD_V4, BOARD_V6])
def test_echo_process_tcp(board, addr):
    ns, *_ = board
    tcp_echo(ns, addr, 50_000, piece=2048)


@pytest.mark.parametrize("addr", [BOARD_V4, BOARD_V6])
def test_echo_process_udp_fragmented(board, addr):
    ns, *_ = board
    udp_echo(ns, addr, (1, 1000, 3000))


def test_discard_process_takes_an_upload(board):
    ns, *_ = board
    tcp_upload(ns, BOARD_V6, secrets.token_bytes(200_000))


def test_sensor_process_batches_arrive_in_order(board):
    *_, sink = board
    got = []
    deadline = time.monotonic() + 10
    while len(got) < 6 and time.monotonic() < deadline:
        try:
            msg, frm = sink.recvfrom(100)
        except TimeoutError:
            continue
        assert frm == (BOARD_V4, 5001)
        got.append(msg)
    assert len(got) >= 6, got
    seqs = []
    for msg in got:
        seq, *readings = struct.unpack("!H4H", msg)
        assert readings == [4 * seq + k for k in range(4)]
        seqs.append(seq)
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
