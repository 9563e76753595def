"""`moteip view`: a run in the browser.

    moteip view out/chain10-ber/run-seed1.json      # a run of `moteip run`
    moteip view out/chain10-ber                     # a sweep: its first run, or --run ID-sSEED
    moteip view run.jsonl                           # a trace of `moteip run --trace`
    moteip view RUN --out run.html                  # one self-contained file instead of a server

The page is built from the run's trace (`moteip-sim --trace`: the network at
time 0, then every transmission and reception), its result (per-node
counters and energy, flows) and its capture (`--pcap`: the frames' bytes,
decoded by tshark when it is installed). A run without a trace is run again
from the scenario and seed it was made with (the simulator is deterministic),
into a directory beside it: RESULT.view/ for a run, DIR/view/ID-sSEED/ for a
sweep.

The drawing is D3 (python/viewer-js, vendored by scripts/vendor-js.sh); the
page's own code is viewer.js. Served pages are on 127.0.0.1 only.
"""
from __future__ import annotations

import http.server
import json
import os
import pathlib
import shutil
import struct
import subprocess
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

from ..errors import RunError, UsageError
from ..jsontypes import JsonObj

#: moteip-sim to run again for a trace (None: find_simulator), and where progress lines go
Sim = str | os.PathLike[str] | None
Log = Callable[[str], None] | None

HERE = pathlib.Path(__file__).resolve().parent

#: Frames whose decoded headers are put in the page; beyond that a served page
#: decodes on request and a static file shows the bytes only.
DETAILS_MAX = 3000


@dataclass
class RunFiles:
    label: str                         # what the page calls the run
    trace: pathlib.Path
    result: JsonObj | None = None
    pcap: pathlib.Path | None = None
    notes: list[str] = field(default_factory=list)


# --- finding the run ----------------------------------------------------------------------

def _read_json(p: pathlib.Path, what: str) -> Any:
    """Any JSON value: each caller checks the shape it needs."""
    try:
        return json.loads(p.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise UsageError(f"{p}: cannot read the {what} ({e})") from None


def _regenerate(scenario_json: str, seed: int, where: pathlib.Path, name: str, sim: Sim,
                expected: JsonObj | None, log: Log) -> RunFiles:
    """Runs the scenario again with a trace and a capture into `where`
    (reused when it is there already)."""
    from ..simulator import find_simulator, run_json

    trace, pcap, res = where / "trace.jsonl", where / "frames.pcap", where / "result.json"
    if not (trace.is_file() and pcap.is_file() and res.is_file()):
        where.mkdir(parents=True, exist_ok=True)
        simp = sim or find_simulator(build=True, log=log)
        if log:
            log(f"view: running {name} seed {seed} again for its trace -> {where}")
        result = run_json(scenario_json, seed, simp, pcap=pcap, trace=trace, name=name)
        res.write_text(json.dumps(result, indent=1) + "\n")
    result = _read_json(res, "result")
    notes = []
    if expected is not None and expected != result:
        notes.append("The simulator changed since this run was made: the view shows the same "
                     "scenario and seed run by the current simulator, whose result differs.")
    return RunFiles(f"{name} seed {seed}", trace, result, pcap, notes)


def locate(path: str | os.PathLike[str], run: str | None = None, sim: Sim = None,
           log: Log = None) -> RunFiles:
    """The trace, result and capture of what `path` names (see the module doc)."""
    p = pathlib.Path(path)
    if not p.exists():
        raise UsageError(f"{path}: no such file or directory")
    if p.is_dir() and (p / "sweep.json").is_file():
        return _from_sweep(p, run, sim, log)
    if run is not None:
        raise UsageError(f"--run {run}: only for a sweep directory")
    if p.is_dir():
        runs = sorted(p.glob("run-seed*.json"), key=lambda q: q.stat().st_mtime)
        runs = [q for q in runs if not q.name.endswith(".scenario.json")]
        if not runs:
            raise UsageError(f"{path}: neither a sweep (sweep.json) nor a run directory "
                             f"(run-seedN.json of `moteip run`)")
        p = runs[-1]
    if p.suffix == ".jsonl":
        res = p.with_suffix(".json")
        pcap = p.with_suffix(".pcap")
        return RunFiles(p.stem, p, _read_json(res, "result") if res.is_file() else None,
                        pcap if pcap.is_file() else None)
    result = _read_json(p, "result")
    if not isinstance(result, dict) or "node_stats" not in result:
        raise UsageError(f"{p}: not a result of moteip-sim (no node_stats)")
    trace = p.with_suffix(".jsonl")
    if trace.is_file():
        pcap = p.with_suffix(".pcap")
        return RunFiles(f"{result.get('scenario')} seed {result.get('seed')}", trace, result,
                        pcap if pcap.is_file() else None)
    scen = p.with_name(p.stem + ".scenario.json")
    if not scen.is_file():
        raise UsageError(f"{p}: no trace beside it ({trace.name}) and no scenario to run again "
                         f"({scen.name}, written by `moteip run`)")
    return _regenerate(scen.read_text(), result.get("seed", 1), p.with_name(p.stem + ".view"),
                       str(result.get("scenario", p.stem)), sim, result, log)


def _from_sweep(d: pathlib.Path, run: str | None, sim: Sim, log: Log) -> RunFiles:
    manifest = _read_json(d / "sweep.json", "sweep manifest")
    ids = [f"{pt['id']}-s{s}" for pt in manifest.get("points", []) for s in manifest.get("seeds", [])]
    if not ids:
        raise UsageError(f"{d}: the sweep has no runs")
    rid = run or ids[0]
    if rid not in ids:
        raise UsageError(f"--run {rid}: not a run of this sweep; runs: {', '.join(ids[:8])}"
                         + (" ..." if len(ids) > 8 else ""))
    pid, _, seed = rid.rpartition("-s")
    scen = d / "scenarios" / f"{pid}.json"
    if not scen.is_file():
        raise UsageError(f"{scen}: missing (the sweep directory is incomplete)")
    res = d / "results" / f"{rid}.json"
    expected = _read_json(res, "result") if res.is_file() else None
    params = next(pt["params"] for pt in manifest["points"] if pt["id"] == pid)
    name = manifest.get("scenario", d.name)
    files = _regenerate(scen.read_text(), int(seed), d / "view" / rid, name, sim, expected, log)
    if params:
        files.label += " (" + ", ".join(f"{k} = {json.dumps(v)}" for k, v in params.items()) + ")"
    return files


# --- the trace -------------------------------------------------------------------------------

RECEPTION = {"rx": 0, "collision": 1, "corrupt": 2}


def _stream_lines(path: pathlib.Path) -> Iterator[str]:
    """The lines of a finished trace, read as they are used (a long run's trace is large)."""
    f = open(path, encoding="utf-8")
    return _close_after(f)


def _close_after(f: Any) -> Iterator[str]:
    with f:
        try:
            yield from f
        except UnicodeDecodeError:
            raise UsageError(f"{f.name}: not a moteip-sim trace (not UTF-8)") from None


def load_trace(path: pathlib.Path, growing: bool = False) -> JsonObj:
    """The trace as the page's columns (lists of numbers, not one object per
    event: a long run has hundreds of thousands). `growing`: a run still writes
    it, so a missing file is an empty trace and a last line without its newline
    is not read yet."""
    nodes: dict[int, JsonObj] = {}
    links: list[list[Any]] = []
    hops: list[list[Any]] = []
    tx: dict[str, list[int]] = {"t": [], "end": [], "node": [], "len": []}
    rx: dict[str, list[int]] = {"t": [], "node": [], "tx": [], "kind": []}
    drops: list[list[Any]] = []
    states: list[list[Any]] = []
    others: list[list[Any]] = []
    last_tx: dict[int, int] = {}
    if growing:        # a snapshot up to the last complete line
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except FileNotFoundError:
            text = ""
        except OSError as e:
            raise UsageError(f"{path}: cannot read the trace ({e.strerror})") from None
        lines: Iterable[str] = text[:text.rfind("\n") + 1].splitlines()
    else:
        try:
            lines = _stream_lines(path)
        except OSError as e:
            raise UsageError(f"{path}: cannot read the trace ({e.strerror})") from None
    for n, line in enumerate(lines, 1):
        try:
            rec = json.loads(line)
            ev, node, t = rec["ev"], int(rec["node"]), int(rec["t_us"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise UsageError(f"{path}:{n}: not a moteip-sim trace line") from None
        if ev == "tx":
            last_tx[node] = len(tx["t"])
            tx["t"].append(t)
            tx["end"].append(int(rec.get("end_us", t)))
            tx["node"].append(node)
            tx["len"].append(int(rec.get("len", 0)))
        elif ev in RECEPTION:
            rx["t"].append(t)
            rx["node"].append(node)
            rx["tx"].append(last_tx.get(int(rec.get("from", -1)), -1))
            rx["kind"].append(RECEPTION[ev])
        elif ev == "node":
            nodes[node] = {"id": node, "x": rec.get("x"), "y": rec.get("y")}
        elif ev == "link":
            links.append([node, int(rec["to"]), float(rec.get("prr", 1))])
        elif ev == "hop":
            hops.append([int(rec["flow"]), node, int(rec["to"]), bool(rec.get("back"))])
        elif ev == "link_fail":
            drops.append([t, node, {k: v for k, v in rec.items() if k not in ("t_us", "node")}])
        elif isinstance(rec.get("state"), str):
            # radio / duty-cycle states, from simulators that trace them
            states.append([t, node, rec["state"]])
        else:
            others.append([t, node, ev, {k: v for k, v in rec.items()
                                         if k not in ("t_us", "node", "ev")}])
    ids = set(nodes) | set(tx["node"]) | set(rx["node"])
    for i in ids:
        nodes.setdefault(i, {"id": i, "x": None, "y": None})
    return {"nodes": [nodes[i] for i in sorted(nodes)], "links": links, "hops": hops, "tx": tx,
            "rx": rx, "drops": drops, "states": states, "others": others}


# --- the capture -----------------------------------------------------------------------------

def pcap_records(path: pathlib.Path) -> tuple[int, list[tuple[int, int]]]:
    """(link type, [(time in us, captured length)]) of a classic pcap file."""
    data = path.read_bytes()
    if len(data) < 24 or data[:4] != b"\xd4\xc3\xb2\xa1":
        raise UsageError(f"{path}: not a little-endian classic pcap file")
    linktype = struct.unpack_from("<I", data, 20)[0]
    out, off = [], 24
    while off + 16 <= len(data):
        sec, usec, incl, _ = struct.unpack_from("<IIII", data, off)
        out.append((sec * 1_000_000 + usec, incl))
        off += 16 + incl
    return linktype, out


def match_frames(tx: JsonObj, linktype: int, records: list[tuple[int, int]]) -> list[int]:
    """The pcap frame number (1-based) of each transmission, 0 when the capture
    has none (a link ACK in an IP view). The records follow the transmissions
    in order; the first record of a radio view of an IPHC network is the
    6LoWPAN context (at time 0), sent by no node."""
    out = [0] * len(tx["t"])
    k = 0
    for i, (t, n) in enumerate(zip(tx["t"], tx["len"], strict=True)):
        while k < len(records) and records[k][0] < t:
            k += 1          # the context record, or records of another view
        if k < len(records) and records[k][0] == t and (linktype != 195 or records[k][1] == n):
            out[i] = k + 1
            k += 1
    return out


def _tshark() -> str | None:
    return shutil.which("tshark")


def _tshark_env(cfg: pathlib.Path) -> JsonObj:
    cfg.mkdir(parents=True, exist_ok=True)
    return dict(os.environ, WIRESHARK_CONFIG_DIR=str(cfg))   # default preferences


def summaries(pcap: pathlib.Path) -> dict[int, tuple[str, str]]:
    """{frame number: (protocol, info)} from tshark's summary columns."""
    exe = _tshark()
    if exe is None:
        return {}
    p = subprocess.run([exe, "-r", str(pcap), "-T", "fields", "-E", "separator=/t",
                        "-e", "frame.number", "-e", "_ws.col.Protocol", "-e", "_ws.col.Info"],
                       capture_output=True, text=True, timeout=600,
                       env=_tshark_env(pcap.parent / ".wireshark"))
    out = {}
    for line in p.stdout.splitlines():
        cols = line.split("\t")
        if len(cols) >= 3 and cols[0].isdigit():
            out[int(cols[0])] = (cols[1], cols[2])
    return out


def details(pcap: pathlib.Path, frame: int | None = None) -> dict[int, str]:
    """{frame number: tshark's protocol tree (-V)} of every frame, or of one."""
    exe = _tshark()
    if exe is None:
        return {}
    args = [exe, "-r", str(pcap), "-V"]
    if frame is not None:
        args += ["-Y", f"frame.number == {int(frame)}"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=600,
                       env=_tshark_env(pcap.parent / ".wireshark"))
    out = {}
    for block in p.stdout.split("\n\n"):
        head = block.lstrip("\n").split(" ", 2)
        if len(head) >= 2 and head[0] == "Frame" and head[1].rstrip(":").isdigit():
            # the frame's own section (capture times, file offsets) shrunk to its title
            lines = block.strip("\n").splitlines()
            keep = [lines[0]] + [ln for i, ln in enumerate(lines[1:], 1)
                                 if not ln.startswith(" ") or any(not x.startswith(" ") for x in lines[1:i])]
            out[int(head[1].rstrip(":"))] = "\n".join(keep)
    return out


def frame_kind(proto: str, length: int) -> str:
    p = proto.lower()
    for key, kind in (("tcp", "tcp"), ("udp", "udp"), ("icmp", "icmp"), ("6lowpan", "fragment")):
        if key in p:
            return kind
    if length == 5:
        return "link ack"
    return "other" if proto else "frame"


# --- the page --------------------------------------------------------------------------------

def build(files: RunFiles, details_max: int = DETAILS_MAX, growing: bool = False) -> JsonObj:
    """Everything the page shows, as one JSON-able dict (`growing`: the run is still
    writing the trace)."""
    tr = load_trace(files.trace, growing)
    tx = tr["tx"]
    frame_no = [0] * len(tx["t"])
    summ: dict[int, tuple[str, str]] = {}
    det: dict[int, str] = {}
    notes = list(files.notes)
    linktype = None
    if files.pcap is not None:
        linktype, recs = pcap_records(files.pcap)
        frame_no = match_frames(tx, linktype, recs)
        summ = summaries(files.pcap)
        if _tshark() is None:
            notes.append("tshark is not installed: frames are shown without their decoded headers "
                         "(scripts/setup.sh installs it).")
        elif len(recs) <= details_max:
            det = details(files.pcap)
    else:
        notes.append("No capture beside the trace: frames are shown without their headers.")
    kinds: list[str] = []
    kind_idx: dict[str, int] = {}
    info: list[str] = []
    tx["kind"] = []
    for i, no in enumerate(frame_no):
        proto, text = summ.get(no, ("", ""))
        k = frame_kind(proto, tx["len"][i])
        if k not in kind_idx:
            kind_idx[k] = len(kinds)
            kinds.append(k)
        tx["kind"].append(kind_idx[k])
        info.append(f"{proto}: {text}" if proto else "")
    tx["frame"] = frame_no
    tx["info"] = info
    result = files.result or {}
    return {
        "title": files.label,
        "notes": notes,
        "result": {k: result.get(k) for k in ("scenario", "seed", "nodes", "sim_time_s", "events",
                                               "totals", "flows", "radio")},
        "node_stats": result.get("node_stats", []),
        "kinds": kinds,
        "linktype": linktype,
        "details": {str(k): v for k, v in det.items()},
        # why a static page has no decoded headers: tshark missing, or a capture
        # larger than details_max (decoding every frame would make the page huge)
        "tshark": _tshark() is not None,
        "details_max": details_max,
        "details_complete": bool(det) and len(det) >= sum(1 for n in frame_no if n),
        **tr,
    }


def _json_script(data: object) -> str:
    """JSON safe inside a <script> element whatever its strings hold: no "<" at all, so
    neither "</script>" nor "<!--" can change how the page is tokenised."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


def _script(text: str) -> str:
    """Text safe inside a <script> element."""
    return text.replace("</", "<\\/")


def render(data: JsonObj) -> str:
    """One self-contained HTML page: D3, the page's code and the data inline."""
    d3 = HERE / "d3.min.js"
    if not d3.is_file():
        raise RunError(f"{d3} is missing: run scripts/vendor-js.sh (it needs npm) in the "
                       f"moteip checkout, then reinstall the package")
    page = (HERE / "viewer.html").read_text()
    return (page.replace("/*STYLE*/", (HERE / "viewer.css").read_text())
                .replace("/*D3*/", _script(d3.read_text()))
                .replace("/*VIEWER*/", _script((HERE / "viewer.js").read_text()))
                .replace("/*DATA*/", _json_script(data)))


def write(data: JsonObj, out: str | os.PathLike[str]) -> pathlib.Path:
    p = pathlib.Path(out)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(render(data))
    except OSError as e:
        raise UsageError(f"--out {out}: cannot write: {e.strerror or e}") from None
    return p


class Live:
    """The page's data of a run in progress (`moteip run --realtime --view`): rebuilt
    from its trace as it grows, then once more with the result and the capture when the
    run ends. Readers wait for a version newer than the one they have."""

    def __init__(self, label: str, trace: pathlib.Path, interval_s: float = 0.5) -> None:
        self.label, self.trace, self.interval_s = label, trace, interval_s
        self.cond = threading.Condition()
        self.version = 0
        self.data = self._build(None, None)
        self._size = -1
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, name="moteip-live", daemon=True)
        self._thread.start()

    def _build(self, result: JsonObj | None, pcap: pathlib.Path | None) -> JsonObj:
        notes = [] if result is not None else [
            "A live run: the page follows its trace; headers are decoded when it ends."]
        d = build(RunFiles(self.label, self.trace, result, pcap, notes), growing=result is None)
        if result is None:
            d["notes"] = notes           # not "no capture": it comes at the end
        d["live"] = result is None
        return d

    def _publish(self, data: JsonObj) -> None:
        with self.cond:
            self.data = data
            self.version += 1
            self.cond.notify_all()

    def _follow(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                size = self.trace.stat().st_size
            except OSError:
                continue
            if size != self._size:
                self._size = size
                self._publish(self._build(None, None))

    def finish(self, result: JsonObj, pcap: pathlib.Path | None) -> None:
        """The run ended: the last version has the result, the capture, live false."""
        self._stop.set()
        self._thread.join()
        self._publish(self._build(result, pcap))

    def wait(self, seen: int, timeout: float) -> tuple[int, JsonObj]:
        with self.cond:
            self.cond.wait_for(lambda: self.version != seen, timeout)
            return self.version, self.data


class _Handler(http.server.BaseHTTPRequestHandler):
    page: bytes = b""
    pcap: pathlib.Path | None = None
    cache: dict[int, str] = {}
    lock = threading.Lock()
    live: Live | None = None

    def log_message(self, format: str, *args: Any) -> None:  # no request log on the terminal
        pass

    def _send(self, code: int, body: bytes, ctype: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _events(self, live: Live) -> None:
        """Server-sent events: the page's data at every new version, until the run's end."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        seen = -1
        try:
            while True:
                version, data = live.wait(seen, 15.0)
                if version == seen:
                    self.wfile.write(b": still running\n\n")    # keeps proxies from timing out
                else:
                    seen = version      # json.dumps writes no raw newline: one data line
                    self.wfile.write(b"data: " + json.dumps(data, separators=(",", ":")).encode()
                                     + b"\n\n")
                    if not data.get("live"):
                        break
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass                        # the page went away

    def do_GET(self) -> None:  # noqa: N802 (the http.server name)
        if self.path in ("/", "/index.html"):
            page = self.page if self.live is None else render(self.live.wait(-1, 0)[1]).encode()
            self._send(200, page, "text/html; charset=utf-8")
        elif self.path == "/events" and self.live is not None:
            self._events(self.live)
        elif self.path.startswith("/frame/") and self.path[7:].isdigit() and self.pcap is not None:
            n = int(self.path[7:])
            with self.lock:
                if n not in self.cache:
                    self.cache.update(details(self.pcap, n))
                text = self.cache.get(n)
            if text is None:
                self._send(404, b"no such frame", "text/plain; charset=utf-8")
            else:
                self._send(200, json.dumps({"frame": n, "text": text}).encode(), "application/json")
        else:
            self._send(404, b"not found", "text/plain; charset=utf-8")


def _server(data: JsonObj | None, pcap: pathlib.Path | None, port: int,
            live: Live | None = None) -> http.server.ThreadingHTTPServer:
    attrs: dict[str, Any] = {"pcap": pcap, "live": live, "cache": {}, "lock": threading.Lock()}
    if data is not None:
        attrs["page"] = render(data).encode()
        attrs["cache"] = dict((int(k), v) for k, v in data["details"].items())
    handler = type("Handler", (_Handler,), attrs)
    try:
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as e:
        raise UsageError(f"--port {port}: cannot listen on 127.0.0.1 ({e.strerror or e})") from None
    httpd.daemon_threads = True
    return httpd


def serve(data: JsonObj, pcap: pathlib.Path | None, port: int = 0,
          ready: Callable[[str], None] | None = None) -> None:
    """Serves the page on 127.0.0.1:port (0: a free port) until interrupted;
    `ready(url)` is called once it listens. Frames not in the page are decoded
    on request (/frame/N)."""
    with _server(data, pcap, port) as httpd:
        if ready is not None:
            ready(f"http://127.0.0.1:{httpd.server_address[1]}/")
        httpd.serve_forever()


class LiveServer:
    """`moteip run --realtime --view`: a loopback page that follows the run as it goes
    (server-sent events at /events), started before the run and kept until stopped."""

    def __init__(self, label: str, trace: pathlib.Path, port: int = 0) -> None:
        self.live = Live(label, trace)
        self.httpd = _server(None, None, port, self.live)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="moteip-view",
                                        daemon=True)
        self._thread.start()

    def finish(self, result: JsonObj, pcap: pathlib.Path | None) -> None:
        handler = cast("type[_Handler]", self.httpd.RequestHandlerClass)
        handler.pcap = pcap             # frames are decoded on click from now on
        self.live.finish(result, pcap)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
