"""`cmake --install` gives a tree a firmware project can build against,
both ways: find_package(moteip) with the exported moteip::moteip and
moteip::apps targets, and pkg-config (moteip.pc, moteip-apps.pc). The
library is built for the tiny profile with MOTEIP_DEFINES=MIP_CONF_LOWPAN=0,
and the consumer (tests/install/consumer/: two stacks in memory, a ping and
a UDP echo) must see that configuration through the target and the .pc
file alone (it fails to compile otherwise) and run; built with other values it is
refused by mip_stack_init. The installed port helpers build a SLIP node on a host
"board" (tests/install/hostboard/) that answers pings, and a full-profile build
installs the host tools.

Run by scripts/test.sh install (about 30 s on 2 cores: one library build).
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONSUMER = Path(__file__).resolve().parent / "consumer"
JOBS = os.environ.get("JOBS", "2")


def run(args, **kw):
    p = subprocess.run(args, capture_output=True, text=True, timeout=600, **kw)
    assert p.returncode == 0, f"{' '.join(map(str, args))}\n{p.stdout}\n{p.stderr}"
    return p


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """An installed moteip (tiny profile, no 6LoWPAN), built from this tree."""
    for tool in ("cmake", "ninja", "pkg-config", "cc"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is not installed (scripts/setup.sh)")
    tmp = tmp_path_factory.mktemp("install")
    build, prefix = tmp / "build", tmp / "prefix"
    run(["cmake", "-S", str(REPO), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
         "-DMOTEIP_PROFILE=tiny", "-DMOTEIP_TESTS=OFF", "-DMOTEIP_DEFINES=MIP_CONF_LOWPAN=0"])
    run(["cmake", "--build", str(build), "-j", JOBS, "--target", "moteip", "moteip_apps"])
    run(["cmake", "--install", str(build), "--prefix", str(prefix)])
    return prefix


def test_installed_tree(prefix):
    for f in ("include/moteip/stack.h", "include/moteip/wire/tcp.h", "include/moteip/apps/udp_echo.h",
              "lib/libmoteip.a", "lib/libmoteip_apps.a", "lib/cmake/moteip/moteipConfig.cmake",
              "lib/cmake/moteip/moteipConfigVersion.cmake", "lib/cmake/moteip/moteipTargets.cmake",
              "lib/pkgconfig/moteip.pc", "lib/pkgconfig/moteip-apps.pc"):
        assert (prefix / f).is_file(), f
    pc = (prefix / "lib/pkgconfig/moteip.pc").read_text()
    assert "-DMOTEIP_PROFILE_TINY=1" in pc and "-DMIP_CONF_LOWPAN=0" in pc, pc


def test_consumer_with_find_package(prefix, tmp_path):
    build = tmp_path / "b"
    run(["cmake", "-S", str(CONSUMER), "-B", str(build), "-G", "Ninja",
         f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_C_FLAGS=-DEXPECT_LOWPAN=0"])
    run(["cmake", "--build", str(build)])
    out = run([str(build / "consumer")]).stdout
    assert "tiny profile, 1 pong, 1 echo" in out, out


def test_consumer_with_pkg_config(prefix, tmp_path):
    """The tree moved elsewhere first: the .pc files find it from where they are."""
    moved = tmp_path / "moved"
    shutil.copytree(prefix, moved)
    env = dict(os.environ, PKG_CONFIG_PATH=str(moved / "lib" / "pkgconfig"))
    flags = run(["pkg-config", "--cflags", "--libs", "moteip-apps"], env=env).stdout.split()
    incs = {os.path.normpath(f[2:]) for f in flags if f.startswith("-I")}
    assert str(moved / "include") in incs and "-DMIP_CONF_LOWPAN=0" in flags, flags
    exe = tmp_path / "consumer"
    run(["cc", "-std=c11", "-DEXPECT_LOWPAN=0", str(CONSUMER / "main.c"), "-o", str(exe), *flags])
    out = run([str(exe)]).stdout
    assert "tiny profile, 1 pong, 1 echo" in out, out


@pytest.mark.parametrize("define", ["-DMIP_CONF_LOWPAN=1", "-DMIP_PBUF_COUNT=3",
                                    "-DMOTEIP_PROFILE_FULL=1"])
def test_consumer_with_another_configuration_is_refused(prefix, tmp_path, define):
    """A firmware compiled with other MIP_CONF_* values (or sizes, or profile) than the
    installed library: the compiler says only "redefined", and before mip_stack_init
    compared the builds the program wrote past its struct mip_stack. Now init refuses
    with MIP_ERR_CONFIG, touching nothing, and names the difference."""
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = run(["pkg-config", "--cflags", "--libs", "moteip-apps"], env=env).stdout.split()
    if define == "-DMOTEIP_PROFILE_FULL=1":      # the other profile, not a second one
        flags = [f for f in flags if f != "-DMOTEIP_PROFILE_TINY=1"]
    else:
        flags = [f for f in flags if not f.startswith(define.split("=")[0])]
    exe = tmp_path / "consumer"
    run(["cc", "-std=c11", "-w", define, str(CONSUMER / "main.c"), "-o", str(exe), *flags])
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "consumer: mip_stack_init refused this build: " in p.stderr, p.stderr
    named = {"-DMIP_CONF_LOWPAN=1": "MIP_CONF_LOWPAN: library 0, program 1",
             "-DMIP_PBUF_COUNT=3": "sizeof(struct mip_stack): library ",
             "-DMOTEIP_PROFILE_FULL=1": "MOTEIP_PROFILE_FULL: library 0, program 1"}[define]
    assert named in p.stderr, p.stderr


HOSTBOARD = Path(__file__).resolve().parent / "hostboard"


def _slip(frame: bytes) -> bytes:
    body = frame.replace(b"\xdb", b"\xdb\xdd").replace(b"\xc0", b"\xdb\xdc")
    return b"\xc0" + body + b"\xc0"


def _unslip(stream: bytes) -> list[bytes]:
    frames = []
    for part in stream.split(b"\xc0"):
        if part:
            frames.append(part.replace(b"\xdb\xdc", b"\xc0").replace(b"\xdb\xdd", b"\xdb"))
    return frames


def _ping6(seq: int, payload: bytes) -> bytes:
    """An ICMPv6 echo request fd00::1 -> fd00::2 (slip_node.c's address)."""
    import struct

    src = bytes([0xfd] + [0] * 14 + [1])
    dst = bytes([0xfd] + [0] * 14 + [2])
    msg = struct.pack("!BBHHH", 128, 0, 0, 0x77, seq) + payload
    pseudo = src + dst + struct.pack("!IxxxB", len(msg), 58)
    data = pseudo + msg + (b"\0" if len(msg) % 2 else b"")
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    msg = msg[:2] + struct.pack("!H", ~s & 0xFFFF) + msg[4:]
    return struct.pack("!IHBB", 0x60000000, len(msg), 58, 64) + src + dst + msg


def test_installed_port_helpers_build_a_bare_metal_node(prefix, tmp_path):
    """share/moteip/port/common/ holds the SLIP node (slip_node.c: the main.c of a
    firmware whose link is a serial line) and the board interface. Built against the
    installed tree with a board.h of its own, as a firmware would, here one whose "UART"
    is a pipe: it answers a SLIP-framed ping."""
    common = prefix / "share" / "moteip" / "port" / "common"
    for f in ("slip_node.c", "micro_node.c", "board_api.h", "tick_clock.h", "cortexm.h"):
        assert (common / f).is_file(), f
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = run(["pkg-config", "--cflags", "--libs", "moteip-apps"], env=env).stdout.split()
    exe = tmp_path / "node"
    run(["cc", "-std=c11", "-Wall", "-Werror", f"-I{HOSTBOARD}", f"-I{common}",
         str(common / "slip_node.c"), str(HOSTBOARD / "board.c"), "-o", str(exe), *flags])
    pings = b"".join(_slip(_ping6(seq, bytes(range(seq, seq + 40)))) for seq in (1, 2, 3))
    p = subprocess.run([str(exe)], input=pings, capture_output=True, timeout=30)
    assert p.returncode == 0, p.stderr
    replies = [f for f in _unslip(p.stdout) if len(f) > 40 and f[6] == 58 and f[40] == 129]
    assert [f[46:48] for f in replies] == [b"\0\1", b"\0\2", b"\0\3"], p.stdout.hex()
    for seq, f in zip((1, 2, 3), replies, strict=True):
        assert f[48:] == bytes(range(seq, seq + 40))


def test_cmake_install_installs_the_host_tools(tmp_path):
    """`cmake --install` of a full-profile Linux build puts moteip-sim, moteip-slip and
    moteip-host in bin/ (a library-only build installs without them: OPTIONAL)."""
    build = REPO / "build"
    cache = build / "CMakeCache.txt"
    if not (cache.is_file() and "MOTEIP_PROFILE:STRING=full" in cache.read_text()):
        build = tmp_path / "build"
        run(["cmake", "-S", str(REPO), "-B", str(build), "-G", "Ninja",
             "-DCMAKE_BUILD_TYPE=Release", "-DMOTEIP_PROFILE=full", "-DMOTEIP_TESTS=OFF"])
    run(["cmake", "--build", str(build), "-j", JOBS, "--target", "moteip-sim", "moteip-slip",
         "moteip-host"])
    prefix = tmp_path / "prefix"
    run(["cmake", "--install", str(build), "--prefix", str(prefix)])
    for tool in ("moteip-sim", "moteip-slip", "moteip-host"):
        exe = prefix / "bin" / tool
        assert exe.is_file() and os.access(exe, os.X_OK), tool
        p = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=30)
        assert p.returncode == 0 and "usage" in (p.stdout + p.stderr).lower(), (tool, p)
