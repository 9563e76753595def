"""Finding, building and running the `moteip-sim` binary.

Where the binary comes from, in order:

1. `$MOTEIP_SIM`: the path of a `moteip-sim` to use as it is;
2. the repository this package sits in (an editable install from `python/`):
   `$MOTEIP_BUILD_DIR` or `build/` at its root, configured with CMake and
   Ninja like `scripts/test.sh` does and brought up to date with
   `cmake --build` (a no-op taking a fraction of a second when nothing
   changed);
3. `moteip-sim` on the PATH;
4. an installed package (`pip install ./python`) used from inside a moteip
   checkout: that checkout's `build/moteip-sim` if it was built.

Otherwise a one-line message says how to get one.

A run hands the simulator a scenario as JSON text, and gets its result as a
dict. The JSON goes through a temporary file because the simulator reads a
path; nothing else is shared between runs, so runs can go in parallel.

A real-time run (`realtime=SPEED`, moteip-sim --realtime) lasts on the wall
clock: the simulator's stderr (its "realtime: running" line, lag warnings)
is passed through as it comes, and an interrupt ends the run early with its
result (the simulator takes SIGINT as "stop here").
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable

from .errors import RunError, ScenarioError
from .jsontypes import JsonObj

#: The repository root when this package is used from a checkout.
REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
#: The simulator a wheel carries (`pip install ./python` builds it: scikit-build-core).
PACKAGED_SIM = pathlib.Path(__file__).resolve().parent / "bin" / "moteip-sim"

_CMAKE_ARGS = ["-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DMOTEIP_PROFILE=full",
               "-DMOTEIP_SANITIZE=OFF", "-DMOTEIP_FUZZ=OFF", "-DMOTEIP_TESTS=ON"]


def _is_checkout(root: pathlib.Path) -> bool:
    return (root / "CMakeLists.txt").is_file() and (root / "sim" / "main.c").is_file()


def _in_checkout() -> bool:
    return _is_checkout(REPO_ROOT)


def _enclosing_checkout() -> pathlib.Path | None:
    """The moteip checkout the current directory is in, if any."""
    here = pathlib.Path.cwd().resolve()
    for d in (here, *here.parents):
        if _is_checkout(d):
            return d
    return None


#: The message when there is no simulator at all (an installed package).
NOT_FOUND = ("moteip-sim not found: set MOTEIP_SIM=/path/to/moteip-sim or put it on the PATH "
             "(build it in a moteip checkout: cmake -S . -B build -G Ninja && "
             "cmake --build build --target moteip-sim)")


def build_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("MOTEIP_BUILD_DIR", REPO_ROOT / "build"))


def find_simulator(build: bool = True, log: Callable[[str], None] | None = None) -> pathlib.Path:
    """The path of a usable moteip-sim, building it first when `build` is set
    and this is a checkout. Raises RunError saying what to do when none is
    found or the build fails. `log(str)` receives progress lines."""
    env = os.environ.get("MOTEIP_SIM")
    if env:
        p = pathlib.Path(env)
        if not (p.is_file() and os.access(p, os.X_OK)):
            raise RunError(f"MOTEIP_SIM={env}: not an executable file")
        return p
    if _in_checkout():
        bdir = build_dir()
        sim = bdir / "moteip-sim"
        if build:
            _build(bdir, log)
        if sim.is_file():
            return sim
        raise RunError(f"{sim} is missing: build it with "
                       f"`cmake -S {REPO_ROOT} -B {bdir} -G Ninja && cmake --build {bdir} "
                       f"--target moteip-sim`, or set MOTEIP_SIM")
    packaged = PACKAGED_SIM
    if packaged.is_file() and os.access(packaged, os.X_OK):
        return packaged
    found = shutil.which("moteip-sim")
    if found:
        return pathlib.Path(found)
    root = _enclosing_checkout()
    if root is not None and (root / "build" / "moteip-sim").is_file():
        return root / "build" / "moteip-sim"
    raise RunError(NOT_FOUND)


def _build(bdir: pathlib.Path, log: Callable[[str], None] | None) -> None:
    for tool in ("cmake", "ninja"):
        if shutil.which(tool) is None:
            raise RunError(f"{tool} is not installed: run scripts/setup.sh first")
    steps = []
    cache = bdir / "CMakeCache.txt"
    if not cache.is_file() or "CMAKE_GENERATOR:INTERNAL=Ninja" not in cache.read_text(errors="replace"):
        if cache.is_file():
            raise RunError(f"{bdir} was configured with another generator than Ninja; "
                           f"remove it or point MOTEIP_BUILD_DIR elsewhere")
        steps.append(["cmake", "-S", str(REPO_ROOT), "-B", str(bdir), *_CMAKE_ARGS])
    steps.append(["cmake", "--build", str(bdir), "--target", "moteip-sim",
                  "-j", str(os.cpu_count() or 2)])
    if len(steps) == 2 and log is not None:
        log(f"configuring and building moteip-sim in {bdir} (the first time takes a minute)")
    for cmd in steps:
        t0 = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            tail = "\n".join((p.stdout + p.stderr).strip().splitlines()[-25:])
            raise RunError(f"building moteip-sim failed ({' '.join(cmd)}):\n{tail}")
        if log is not None and ("no work to do" not in p.stdout or cmd[1] == "-S"):
            log(f"built moteip-sim in {bdir} ({time.monotonic() - t0:.1f} s)")


#: Simulators running now, from any thread: stop_children() ends them when the command is
#: stopped (a sweep's runs sit in worker threads that a signal does not reach).
_children: set[subprocess.Popen[str]] = set()
_children_lock = threading.Lock()


def stop_children() -> None:
    """Sends SIGTERM to every simulator this process started and has not yet waited for."""
    with _children_lock:
        for p in _children:
            if p.poll() is None:
                p.terminate()


def _run(sim: pathlib.Path, path: str, args: list[str],
         timeout: float | None) -> subprocess.CompletedProcess[str]:
    p = subprocess.Popen([str(sim), path, *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    with _children_lock:
        _children.add(p)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RunError(f"moteip-sim did not finish within {timeout} s") from None
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        with _children_lock:
            _children.discard(p)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def _clean_message(stderr: str, tmp: str, name: str) -> str:
    """The simulator's message with its temporary file named as the user's."""
    lines = []
    for line in stderr.strip().splitlines():
        if line.startswith("moteip-sim: "):
            line = line[len("moteip-sim: "):]
        if line.startswith("usage:"):
            continue
        lines.append(line.replace(tmp, name))
    return "\n".join(lines)


WARNING = "warning: "


def check(scenario_json: str, name: str, sim: str | os.PathLike[str],
          strict: bool = False) -> list[str]:
    """Validates a scenario with the simulator's own loader (`--check`):
    the one definition of the schema. Raises ScenarioError naming `name` and
    the key. Returns the simulator's warnings (e.g. a static route out of
    radio range), each "warning: ..."; with `strict` they are a
    ScenarioError."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="moteip-") as f:
        f.write(scenario_json)
        f.flush()
        p = _run(pathlib.Path(sim), f.name, ["--check"] + (["--strict"] if strict else []), 60)
        if p.returncode == 2:
            raise ScenarioError(_clean_message(p.stderr, f.name, name))
        if p.returncode != 0:
            raise RunError(f"moteip-sim --check failed (exit {p.returncode}): "
                           f"{_clean_message(p.stderr, f.name, name)}")
        return [line for line in _clean_message(p.stderr, f.name, name).splitlines()
                if line.startswith(WARNING)]


def _seed_of(scenario_json: str) -> int:
    """The seed a run without --seed uses: the scenario's, else 1 (sim/scenario.c)."""
    try:
        s = json.loads(scenario_json).get("seed", 1)
    except (json.JSONDecodeError, AttributeError):
        return 1
    return s if isinstance(s, int) and not isinstance(s, bool) else 1


def _run_live(sim: pathlib.Path, path: str, args: list[str], name: str) -> tuple[int, str]:
    """Runs the simulator with its stderr passed through line by line (the
    temporary file named as the user's); returns (exit status, stderr). An
    interrupt is handed on to the simulator, which ends its run early."""
    p = subprocess.Popen([str(sim), path, *args], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    lines = []
    assert p.stderr is not None  # stderr=PIPE
    while True:
        try:
            for line in p.stderr:
                if line.startswith(("moteip-sim: realtime:", "moteip-sim: warning:")):
                    sys.stderr.write("moteip: " + _clean_message(line, path, name) + "\n")
                    sys.stderr.flush()
                else:
                    lines.append(line)      # an error: the caller raises it
            break
        except KeyboardInterrupt:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
    return p.wait(), "".join(lines)


def run_json(scenario_json: str, seed: int | None = None, sim: str | os.PathLike[str] | None = None,
             pcap: str | os.PathLike[str] | None = None, trace: str | os.PathLike[str] | None = None,
             name: str = "scenario", timeout: float | None = None,
             pcap_node: int | None = None, pcap_view: str | None = None,
             realtime: float | None = None) -> JsonObj:
    """Runs one scenario (JSON text) and returns the simulator's result.
    `pcap_node` / `pcap_view` are moteip-sim's --pcap-node / --pcap-view;
    `realtime` paces the run to the wall clock at that speed (1: real time).

    Also the task a Dask worker runs: when `sim` is not a file on this
    machine, the worker finds its own (`find_simulator(build=False)`)."""
    simp = pathlib.Path(sim) if sim is not None else None
    if simp is None or not simp.is_file():
        simp = find_simulator(build=False)
    args = []
    if seed is not None:
        args += ["--seed", str(seed)]
    if pcap is not None:
        args += ["--pcap", str(pcap)]
        if pcap_node is not None:
            args += ["--pcap-node", str(pcap_node)]
        if pcap_view is not None:
            args += ["--pcap-view", pcap_view]
    if trace is not None:
        args += ["--trace", str(trace)]
    with tempfile.TemporaryDirectory(prefix="moteip-") as tmp:
        path = os.path.join(tmp, "scenario.json")
        with open(path, "w") as f:
            f.write(scenario_json)
        if realtime is not None:
            out = os.path.join(tmp, "result.json")
            rc, err = _run_live(simp, path, args + ["--realtime", "--speed", repr(float(realtime)),
                                                    "--out", out], name)
            text = pathlib.Path(out).read_text() if rc == 0 else ""
        else:
            p = _run(simp, path, args, timeout)
            rc, err, text = p.returncode, p.stderr, p.stdout
        if rc == 2:
            raise ScenarioError(_clean_message(err, path, name))
        if rc != 0:
            why = f"signal {-rc}" if rc < 0 else f"exit {rc}"
            used = seed if seed is not None else _seed_of(scenario_json)
            raise RunError(f"moteip-sim failed on {name} (seed {used}, {why}): "
                           f"{_clean_message(err, path, name)}")
    try:
        result = json.loads(text)
    except json.JSONDecodeError as e:
        raise RunError(f"moteip-sim printed a result that is not JSON ({e})") from None
    if not isinstance(result, dict):
        raise RunError(f"moteip-sim printed a result that is not a JSON object "
                       f"({type(result).__name__})")
    return result
