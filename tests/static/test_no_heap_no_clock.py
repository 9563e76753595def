"""The stack uses no heap and no clock/RNG of the C library.

Memory is static inside struct mip_stack (no malloc family); time comes from
the caller (mip_stack_poll(now)), randomness from the stack's own seeded RNG,
so a simulator can run many deterministic nodes in one process. Ports
(port/, outside the scanned folders) may use the OS. Comments and string
literals are ignored.
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCAN_DIRS = [ROOT / "src", ROOT / "include"]

# not preceded by an identifier character, '.' or '->' (a struct member
# called free() is fine), then optional whitespace and '('
_PRE = r"(?<![\w.>])"
FORBIDDEN_HEAP = re.compile(_PRE + r"(malloc|calloc|realloc|free)\s*\(")
FORBIDDEN_CLOCK = re.compile(_PRE + r"(time|clock_gettime|gettimeofday|rand|srand)\s*\(")

_TOKENS = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def _strip(code):
    """Blank out comments and string/char literals, keeping line numbers."""
    def repl(m):
        s = m.group(0)
        if s.startswith(("/", )):
            return re.sub(r"[^\n]", " ", s)
        return s[0] + " " * (len(s) - 2) + s[-1]
    return _TOKENS.sub(repl, code)


def _sources():
    for d in SCAN_DIRS:
        for f in sorted(d.rglob("*")):
            if f.suffix not in (".c", ".h") or not f.is_file():
                continue
            yield f


def _find(pattern):
    hits = []
    for f in _sources():
        code = _strip(f.read_text(encoding="utf-8", errors="replace"))
        for n, line in enumerate(code.splitlines(), 1):
            m = pattern.search(line)
            if m:
                hits.append(f"{f.relative_to(ROOT)}:{n}: {m.group(1)}(")
    return hits


def test_sources_exist():
    assert any(_sources()), "no C sources found under src/ or include/"


def test_no_heap():
    hits = _find(FORBIDDEN_HEAP)
    assert not hits, "heap allocation in the stack (use struct mip_stack storage):\n  " + \
        "\n  ".join(hits)


def test_no_libc_clock_or_rand():
    hits = _find(FORBIDDEN_CLOCK)
    assert not hits, ("libc clock/rand in the stack (time is passed in by the caller, "
                      "randomness comes from the stack's RNG):\n  " + "\n  ".join(hits))
