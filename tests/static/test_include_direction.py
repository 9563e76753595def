"""Includes run one way: down DESIGN.md's floors, never up, never sideways.

The floors, bottom up (DESIGN.md, *Include direction*):

    0  base (the instance's random generator), wire (pure codecs)
    1  mac
    2  core, micro (the micro profile's stack of its own, beside core)
    3  tcp, relay, route (routing protocols: RPL)
    4  os (the process kernel and the stack as a service)
    5  apps
    6  port/<board>, port/common, tools/<tool>, sim

A file may include headers of its own folder, of any lower floor, and the
open ground headers (below). It may not include a header of a higher floor
(the only way up is a callback registered at init), nor one of another
folder on its own floor, unless the pair is in JOINS with its reason
(DESIGN.md joins none of base/wire, core/micro or tcp/relay).

Where a header belongs:
- src/<folder>/*.h, apps/*.h, sim/*.h, port/<x>/*.h, tools/<x>/*.h: that folder.
- include/moteip/wire/*.h: wire.
- include/moteip/<name>.h: the folder of the module that implements it
  (PUBLIC below; every public header must be listed there, so a new one
  forces the decision). Two kinds implement nothing:
  * open ground headers (PUBLIC value None: config.h, timer.h, byte_ring.h)
    hold only constants, types and inline helpers and include no other
    moteip header; every floor may include them.
  * umbrella headers (PUBLIC value UMBRELLA: moteip.h) belong to the floor
    of the highest header they include, so including one counts as
    including everything behind it.
  Public headers are checked like sources: each may include only what its
  own folder may.

A quoted include is resolved against the including file's directory, then
include/, then by file name among the scanned folders' headers (a name
that two folders hold is an error unless the including folder has one).
The one indirection: port/common's "board.h" is the header of the board
being built, which implements port/common/board_api.h, so it counts as
that contract (ALIASES). System headers (<stdint.h>) are not checked.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FLOOR = {
    "base": 0, "wire": 0,
    "mac": 1,
    "core": 2, "micro": 2,
    "tcp": 3, "relay": 3, "route": 3,
    "os": 4,
    "apps": 5,
    "port": 6, "tools": 6, "sim": 6,        # port/<x> and tools/<x>: by their first part
}
GROUND = "ground"          # the open ground headers: anyone may include them
UMBRELLA = "umbrella"

# include/moteip/<name>.h -> the folder that implements it.
PUBLIC = {
    "addr.h": "core", "ip.h": "core", "neigh.h": "core", "netif.h": "core",
    "pbuf.h": "core", "ping.h": "core", "reass.h": "core", "route.h": "core",
    "stack.h": "core", "stats.h": "core", "udp.h": "core", "routing.h": "core",
    "slaac.h": "core", "nd6lo.h": "core",
    "mac.h": "mac", "radio.h": "mac", "rdc.h": "mac",
    "micro.h": "micro",
    "relay.h": "relay",
    "cctrl_split.h": "relay",
    "rpl.h": "route", "rpl_down.h": "route", "geo.h": "route",
    "rng.h": "base",
    "cipher.h": "base", "crc32.h": "base", "dec.h": "base",
    "status.h": "wire",
    "tcp.h": "tcp", "tcp_parts.h": "tcp",
    "os.h": "os", "os_net.h": "os", "loader.h": "os", "mt.h": "os",
    "config.h": None, "timer.h": None, "byte_ring.h": None, "pt.h": None,
    "moteip.h": UMBRELLA,
}

# (from folder, to folder): why DESIGN.md allows it.
JOINS = {
    ("sim", "port/linux"): "the border router opens its host TUN/TAP with the Linux port's driver; "
                           "--zep-mirror parses its address with the ZEP radio's",
    ("port/avr", "port/common"): "a board builds the shared SLIP node on board_api.h",
    ("tools/moteip-simavr", "port/avr"): "the AT86RF233 model reads the driver's transcription of "
                                         "the datasheet's register map (one copy)",
    ("tools/moteip-simavr", "port/linux"): "--at86rf233's air is ZEP: the Linux ZEP radio's endpoint "
                                           "parser and frame check",
    ("port/microbit", "port/common"): "a board builds the shared SLIP node on board_api.h",
    ("port/mps2", "port/common"): "the Cortex-M reset handler and the tick clock",
}

# (including folder, quoted name) -> the header it stands for.
ALIASES = {("port/common", "board.h"): "port/common/board_api.h"}

SCAN = ["src", "apps", "sim", "port", "tools", "include/moteip"]
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def folder_of(rel: str) -> str:
    """The folder a source or private header belongs to (not include/)."""
    parts = rel.split("/")
    if parts[0] == "src":
        return parts[1]
    if parts[0] in ("port", "tools") and len(parts) > 2:
        return f"{parts[0]}/{parts[1]}"
    return parts[0]


def floor_of(folder: str) -> int:
    return -1 if folder == GROUND else FLOOR[folder.split("/")[0]]


class Tree:
    def __init__(self, root: Path, public: dict, joins: dict, aliases: dict):
        self.root, self.public, self.joins, self.aliases = root, public, joins, aliases
        self.files = sorted(p.relative_to(root).as_posix()
                            for d in SCAN if (root / d).is_dir()
                            for p in (root / d).rglob("*") if p.suffix in (".c", ".h"))
        self.by_name: dict[str, list[str]] = {}
        for f in self.files:
            if f.endswith(".h") and not f.startswith("include/"):
                self.by_name.setdefault(f.rsplit("/", 1)[-1], []).append(f)
        self.errors: list[str] = []
        self._public_folder: dict[str, str] = {}

    def includes(self, rel: str) -> list[tuple[str, str]]:
        text = (self.root / rel).read_text(errors="replace")
        return INCLUDE_RE.findall(text)

    def resolve(self, rel: str, kind: str, name: str) -> str | None:
        """The repository path an include names, or None for a system header."""
        if name.startswith("moteip/"):
            target = f"include/{name}"
            if not (self.root / target).is_file():
                self.errors.append(f"{rel}: {name} does not exist")
                return None
            return target
        if kind == "<":
            return None
        alias = self.aliases.get((folder_of(rel), name))
        if alias:
            return alias
        here = (self.root / rel).parent / name
        if here.is_file():
            return here.resolve().relative_to(self.root.resolve()).as_posix()
        cands = self.by_name.get(name.rsplit("/", 1)[-1], [])
        mine = [c for c in cands if folder_of(c) == folder_of(rel)]
        if len(mine) == 1 or len(cands) == 1:
            return (mine or cands)[0]
        if cands:
            self.errors.append(f"{rel}: \"{name}\" is ambiguous: {', '.join(cands)}")
        return None          # not in the scanned tree: a toolchain or generated header

    def header_folder(self, target: str, seen: tuple = ()) -> str:
        """The folder a header belongs to (public headers by PUBLIC)."""
        if not target.startswith("include/"):
            return folder_of(target)
        if target.startswith("include/moteip/wire/"):
            return "wire"
        if target in self._public_folder:
            return self._public_folder[target]
        name = target[len("include/moteip/"):]
        if name not in self.public:
            self.errors.append(f"{target}: not in PUBLIC; say which folder implements it")
            return GROUND
        owner = self.public[name]
        if owner is None:
            owner = GROUND
        elif owner == UMBRELLA:
            if target in seen:
                self.errors.append(f"{target}: includes itself")
                return GROUND
            owner = GROUND
            for kind, inc in self.includes(target):
                t = self.resolve(target, kind, inc)
                if t is not None:
                    f = self.header_folder(t, seen + (target,))
                    if floor_of(f) > floor_of(owner):
                        owner = f
        self._public_folder[target] = owner
        return owner

    def allowed(self, src: str, dst: str) -> bool:
        if src == dst or dst == GROUND:
            return True
        if src == GROUND:
            return False        # a ground header includes no other moteip header
        if floor_of(dst) < floor_of(src):
            return True
        return (src, dst) in self.joins

    def violations(self) -> list[str]:
        out = []
        for rel in self.files:
            src = self.header_folder(rel) if rel.startswith("include/") else folder_of(rel)
            if src == UMBRELLA:
                continue
            for kind, name in self.includes(rel):
                target = self.resolve(rel, kind, name)
                if target is None:
                    continue
                dst = self.header_folder(target)
                if not self.allowed(src, dst):
                    way = "up" if floor_of(dst) > floor_of(src) else "sideways"
                    out.append(f"{rel} ({src}, floor {floor_of(src)}) includes {name} "
                               f"({dst}, floor {floor_of(dst)}): {way}")
        return out + self.errors


def test_includes_follow_the_floors():
    tree = Tree(ROOT, PUBLIC, JOINS, ALIASES)
    assert len(tree.files) > 100, tree.files
    bad = tree.violations()
    assert bad == [], "includes against DESIGN.md's direction:\n  " + "\n  ".join(bad)


def test_every_public_header_is_placed():
    names = {p.name for p in (ROOT / "include" / "moteip").glob("*.h")}
    assert names == set(PUBLIC), ("PUBLIC and include/moteip/ differ: "
                                  f"{sorted(names ^ set(PUBLIC))}")


def test_public_headers_sit_where_they_are_implemented():
    """PUBLIC stays true: a header's functions are defined in the folder
    named for it (moving rng.c back to core/ would fail here)."""
    stale = []
    for name, owner in PUBLIC.items():
        if owner in (None, UMBRELLA):
            continue
        funcs = set(re.findall(r"\b(mip_\w+)\s*\(",
                               (ROOT / "include" / "moteip" / name).read_text()))
        if not funcs:
            continue                                  # types and constants only
        text = "".join(p.read_text() for p in (ROOT / "src" / owner).glob("*.c"))
        defined = {f for f in funcs
                   if re.search(rf"^\w[^;=\n]*\b{f}\s*\([^;]*$", text, re.M)}
        if not defined:
            stale.append(f"{name}: none of its functions is defined in src/{owner}/")
    assert stale == [], "PUBLIC is stale:\n  " + "\n  ".join(stale)


def test_nothing_under_src_includes_a_port():
    tree = Tree(ROOT, PUBLIC, JOINS, ALIASES)
    hits = [f"{rel}: {name}" for rel in tree.files if rel.startswith("src/")
            for kind, name in tree.includes(rel)
            if (t := tree.resolve(rel, kind, name)) and t.startswith("port/")]
    assert hits == [], "src/ includes port code:\n  " + "\n  ".join(hits)


# Synthetic trees: the check must catch each kind of wrong include, and
# accept the legal ones. (files, expected violation substrings)
CASES = {
    "mac includes core (up)": (
        {"src/mac/m.c": '#include "moteip/stack.h"\n'}, ["src/mac/m.c (mac, floor 1)", "up"]),
    "core includes tcp (up)": (
        {"src/core/c.c": '#include <moteip/tcp.h>\n'}, ["src/core/c.c", "up"]),
    "tcp includes relay (sideways)": (
        {"src/tcp/t.c": '#include "../relay/relay_internal.h"\n',
         "src/relay/relay_internal.h": ""}, ["src/tcp/t.c", "sideways"]),
    "relay includes tcp.h (sideways)": (
        {"src/relay/r.c": '#include "moteip/tcp.h"\n'}, ["src/relay/r.c", "sideways"]),
    "wire includes the generator (sideways)": (
        {"src/wire/w.c": '#include "moteip/rng.h"\n'}, ["src/wire/w.c", "sideways"]),
    "apps include sim (up)": (
        {"apps/a.c": '#include "evq.h"\n', "sim/evq.h": ""}, ["apps/a.c", "up"]),
    "mac includes the umbrella (up through it)": (
        {"src/mac/m.c": '#include "moteip/moteip.h"\n'}, ["moteip.h (core, floor 2): up"]),
    "public header reaches up": (
        {"include/moteip/rng.h": '#include "moteip/stack.h"\n'}, ["include/moteip/rng.h", "up"]),
    "wire header includes the generator": (
        {"include/moteip/wire/x.h": '#include "moteip/rng.h"\n'}, ["sideways"]),
    "unlisted public header": (
        {"include/moteip/new.h": "", "src/core/c.c": '#include "moteip/new.h"\n'},
        ["not in PUBLIC"]),
    "ambiguous quoted name": (
        {"sim/s.c": '#include "x.h"\n', "port/linux/x.h": "", "apps/x.h": ""}, ["ambiguous"]),
    "legal: down, own folder, ground, umbrella from apps, joined": (
        {"src/mac/m.c": '#include "moteip/rng.h"\n#include "moteip/wire/ieee802154.h"\n'
                        '#include "mac_proto.h"\n#include "moteip/config.h"\n',
         "src/mac/mac_proto.h": "",
         "apps/a.c": '#include "moteip/moteip.h"\n#include <stdint.h>\n',
         "sim/s.c": '#include "linux_tap.h"\n', "port/linux/linux_tap.h": "",
         "port/common/n.c": '#include "board.h"\n'}, []),
}


def _write_public_headers(root: Path) -> None:
    """Real public headers' include lines, so umbrella floors are computed
    as in the tree (moteip.h -> stack.h -> core)."""
    for name in PUBLIC:
        src = ROOT / "include" / "moteip" / name
        dst = root / "include" / "moteip" / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        lines = [ln for ln in src.read_text().splitlines() if INCLUDE_RE.match(ln)]
        dst.write_text("\n".join(lines) + "\n")
    (root / "include" / "moteip" / "wire").mkdir(exist_ok=True)
    for src in (ROOT / "include" / "moteip" / "wire").glob("*.h"):
        (root / "include" / "moteip" / "wire" / src.name).write_text("")


@pytest.mark.parametrize("case", list(CASES))
def test_check_catches_bad_trees(tmp_path, case):
    files, want = CASES[case]
    _write_public_headers(tmp_path)
    (tmp_path / "port" / "common").mkdir(parents=True)
    (tmp_path / "port" / "common" / "board_api.h").write_text("")
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    bad = Tree(tmp_path, PUBLIC, JOINS, ALIASES).violations()
    if not want:
        assert bad == [], bad
        return
    assert bad, f"{case}: no violation found"
    joined = "\n".join(bad)
    for w in want:
        assert w in joined, f"{case}: {w!r} not in\n{joined}"
