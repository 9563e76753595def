"""No writable globals: the host static library libmoteip.a must not define
any symbol in .data/.bss/common/small-data (nm types D d B b C G g S s).

moteip keeps all state in the caller's struct mip_stack, so several stacks
(simulated nodes) can live in one process and a mote's RAM use is visible in
one sizeof(). `const` tables belong in .rodata.

Uses the library in $MOTEIP_BUILD_DIR (default: build/, configured with the
default full profile if it is not configured yet) and rebuilds it first.
"""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WRITABLE_TYPES = set("DdBbCGgSs")
# With the host compiler's default -fPIE, a const table holding pointers
# (e.g. a `static const struct ops`) is placed in .data.rel.ro: writable only
# while the dynamic loader relocates it, read-only after (RELRO). On a mote
# (no PIE) the same table is .rodata. nm reports it as 'd', so allow it.
RELRO_PREFIX = ".data.rel.ro"


def _run(cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kw)


def _build_lib(target):
    if shutil.which("cmake") is None or shutil.which("nm") is None:
        pytest.fail("cmake and nm are required (run scripts/setup.sh)")
    build = Path(os.environ.get("MOTEIP_BUILD_DIR", ROOT / "build"))
    if not (build / "CMakeCache.txt").exists():
        gen = ["-G", "Ninja"] if shutil.which("ninja") else []
        p = _run(["cmake", "-S", str(ROOT), "-B", str(build), *gen,
                  "-DCMAKE_BUILD_TYPE=RelWithDebInfo"])
        assert p.returncode == 0, f"configuring {build} failed:\n{p.stdout}"
    p = _run(["cmake", "--build", str(build), "--target", target])
    assert p.returncode == 0, f"building {target} in {build} failed:\n{p.stdout}"
    lib = build / f"lib{target}.a"
    assert lib.exists(), f"{lib} not found after the build"
    return lib


@pytest.mark.parametrize("target", ["moteip_micro4", "moteip_micro6", "moteip_micro4r"])
def test_micro_has_no_writable_globals(target):
    """The micro profile (src/micro + the checksum) keeps all in struct mip_micro."""
    lib = _build_lib(target)
    p = _run(["nm", "-A", str(lib)])
    assert p.returncode == 0, p.stdout
    bad = [line for line in p.stdout.splitlines()
           if len(line.rpartition(":")[2].split()) == 3
           and line.rpartition(":")[2].split()[1] in WRITABLE_TYPES]
    assert not bad, "writable static storage in the micro profile:\n  " + "\n  ".join(bad)


@pytest.fixture(scope="module")
def libmoteip():
    if shutil.which("cmake") is None or shutil.which("nm") is None:
        pytest.fail("cmake and nm are required (run scripts/setup.sh)")
    build = Path(os.environ.get("MOTEIP_BUILD_DIR", ROOT / "build"))
    if not (build / "CMakeCache.txt").exists():
        gen = ["-G", "Ninja"] if shutil.which("ninja") else []
        p = _run(["cmake", "-S", str(ROOT), "-B", str(build), *gen,
                  "-DCMAKE_BUILD_TYPE=RelWithDebInfo"])
        assert p.returncode == 0, f"configuring {build} failed:\n{p.stdout}"
    p = _run(["cmake", "--build", str(build), "--target", "moteip"])
    assert p.returncode == 0, f"building libmoteip.a in {build} failed:\n{p.stdout}"
    lib = build / "libmoteip.a"
    assert lib.exists(), f"{lib} not found after the build"
    return lib


def _sections(lib):
    """{(object, symbol): section} from objdump -t."""
    p = _run(["objdump", "-t", str(lib)])
    assert p.returncode == 0, p.stdout
    out, obj = {}, None
    for line in p.stdout.splitlines():
        if "file format" in line:           # "ipv4.c.o:     file format elf64-x86-64"
            obj = line.split(":")[0].strip()
            continue
        # 0000000000000000 l     O .data.rel.ro.local	0000000000000018 eth_ops
        if "\t" in line:
            left, right = line.split("\t", 1)
            fields = left.split()
            rfields = right.split()
            if fields and len(rfields) >= 2:
                out[(obj, rfields[-1])] = fields[-1]
    return out


def test_no_writable_globals(libmoteip):
    p = _run(["nm", "-A", str(libmoteip)])
    assert p.returncode == 0, p.stdout
    sections = None
    offenders = []
    for line in p.stdout.splitlines():
        # libmoteip.a:ipv4.c.o:0000000000000000 d some_table
        head, _, rest = line.rpartition(":")
        fields = rest.split()
        if len(fields) != 3 or fields[1] not in WRITABLE_TYPES:
            continue
        _, typ, name = fields
        obj = head.split(":")[-1]
        if typ in "Dd":
            if sections is None:
                sections = _sections(libmoteip)
            sec = sections.get((obj, name), "")
            if sec.startswith(RELRO_PREFIX):
                continue
            offenders.append(f"{obj}: {typ} {name} (section {sec or '?'})")
        else:
            offenders.append(f"{obj}: {typ} {name}")
    if offenders:
        print("writable globals in libmoteip.a:")
        for o in offenders:
            print("  " + o)
    assert not offenders, (
        "libmoteip.a has writable static storage (move it into struct mip_stack, or make "
        "it const):\n  " + "\n  ".join(offenders))
