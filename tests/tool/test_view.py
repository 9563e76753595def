"""`moteip view`: a run in the browser.

The browser test loads the page of a 10-hop run, served on 127.0.0.1, in
headless Chromium (Debian's chromium and chromium-driver, from
scripts/setup.sh, driven by Selenium), takes a screenshot, and checks that
the nodes, links, the flow's path and the frames rendered (DOM counts), that
clicking a frame shows its headers decoded by tshark, and that the console
has no errors. A second page, from a trace with radio-state events (which a
duty-cycling simulator writes), must draw them. The screenshots are kept in
out/test-results/ (view-*.png).
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from moteip import viewer
from test_realtime import PING3

CHAIN10 = """\
name = "view10"
seed = 2
duration_s = 600
stop_when_done = true

[topology]
type = "chain"
nodes = 11
spacing_m = 10

[medium]
model = "unit_disk"
range_m = 10.5
interference_range_m = 20.5
ber = 1e-4

[mac]
type = "csma_ca"
retry_delay_max_us = 40000

[[flows]]
type = "tcp"
src = 0
dst = "last"
bytes = 3000
mss = 88
rx_buffer = 304
"""

CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1400,1300"]


@pytest.fixture(scope="module")
def run10(tmp_path_factory):
    """A 10-hop run of `moteip run` (its result and scenario, no trace)."""
    d = tmp_path_factory.mktemp("view")
    (d / "view10.toml").write_text(CHAIN10)
    from conftest import MOTEIP
    p = subprocess.run([*MOTEIP, "run", "view10.toml"], cwd=d, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    return d / "out" / "view10" / "run-seed2.json"


@pytest.fixture(scope="module")
def browser():
    for exe in ("/usr/bin/chromium", "/usr/bin/chromedriver"):
        if not os.access(exe, os.X_OK):
            pytest.fail(f"{exe} is missing: run scripts/setup.sh (it installs chromium and chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    profile = tempfile.mkdtemp(prefix="moteip-chromium-")
    for a in CHROME_FLAGS + [f"--user-data-dir={profile}"]:
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    yield drv
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)


def count(drv, css: str) -> int:
    return drv.execute_script(f"return document.querySelectorAll({json.dumps(css)}).length")


def console_errors(drv) -> list[dict]:
    return [e for e in drv.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


def keep_screenshot(drv, repo_root, tmp_path, name: str) -> pathlib.Path:
    shot = tmp_path / name
    drv.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    res = repo_root / "out" / "test-results"
    res.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, res / name)
    return shot


@pytest.fixture(scope="module")
def served(run10, moteip_argv_module):
    """`moteip view RUN --no-browser` serving on a free port of 127.0.0.1."""
    p = subprocess.Popen([*moteip_argv_module, "view", str(run10), "--no-browser"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.startswith("moteip view: http://127.0.0.1:"), (line, p.stderr.read() if p.poll() else "")
    yield line.split()[2]
    p.terminate()
    p.wait(timeout=10)


@pytest.fixture(scope="module")
def moteip_argv_module():
    from conftest import MOTEIP
    return list(MOTEIP)


def test_view_runs_the_scenario_again_for_its_trace(run10):
    files = viewer.locate(run10)
    assert files.trace == run10.with_name("run-seed2.view") / "trace.jsonl"
    assert files.notes == []           # the same simulator: the same result
    data = viewer.build(files)
    assert [n["id"] for n in data["nodes"]] == list(range(11))
    assert len(data["links"]) == 20 and {h[1] for h in data["hops"]} == set(range(11))
    assert len(data["tx"]["t"]) == files.result["totals"]["frames_tx"]
    # every transmission found its frame in the capture (after the context record)
    assert data["tx"]["frame"] == list(range(2, len(data["tx"]["t"]) + 2))
    assert "tcp" in data["kinds"] and "link ack" in data["kinds"]
    assert data["details_complete"]


def test_page_in_headless_chromium(browser, served, repo_root, tmp_path):
    t0 = time.monotonic()
    browser.get(served)
    assert browser.title == "moteip view"
    assert count(browser, "#topology circle.node") == 11
    assert count(browser, "#topology line.link") == 10
    assert count(browser, "#topology line.path") == 20           # there and back
    frames = count(browser, "#timeline rect.frame")
    assert frames > 500
    assert count(browser, "#timeline rect.reception") > frames     # two neighbours hear most
    assert count(browser, "#nodes tbody tr") == 11 and count(browser, "#energy rect.bar") == 11
    # click a data frame: its headers, decoded by tshark on the server
    browser.execute_script(
        "const d = moteipView.data; moteipView.selectTx(d.tx.kind.indexOf(d.kinds.indexOf('tcp')))")
    deadline = time.monotonic() + 10
    text = ""
    while time.monotonic() < deadline:
        text = browser.execute_script("return document.querySelector('#details pre').textContent")
        if "Transmission Control Protocol" in text:
            break
        time.sleep(0.05)
    assert "IEEE 802.15.4" in text and "6LoWPAN" in text and "Transmission Control Protocol" in text
    assert "fd00::ff:fe00:0" in text                             # the context came from the capture
    assert count(browser, "#timeline rect.frame.selected") == 1
    # stepping moves the cursor to the next frame
    before = browser.execute_script("return document.querySelector('#clock').textContent")
    browser.find_element("id", "next").click()
    assert browser.execute_script("return document.querySelector('#clock').textContent") != before
    keep_screenshot(browser, repo_root, tmp_path, "view-chain10.png")
    assert console_errors(browser) == []
    assert time.monotonic() - t0 < 30


def test_radio_states_and_unknown_events_are_drawn(browser, run10, repo_root, tmp_path):
    """A trace with the radio states a duty-cycled MAC produces (any event with a
    "state") and events this viewer does not know: the page draws the states and
    stays free of errors."""
    files = viewer.locate(run10)
    lines = files.trace.read_text().splitlines()
    extra = []
    for n in range(11):
        for k, st in enumerate(["listen", "sleep", "tx", "sleep"]):
            extra.append(json.dumps({"t_us": 1000 + 200000 * k + n, "node": n, "ev": "radio", "state": st}))
        extra.append(json.dumps({"t_us": 5000, "node": n, "ev": "energy", "mj": 1.5}))
    trace = tmp_path / "states.jsonl"
    trace.write_text("\n".join(lines[:40] + extra + lines[40:]) + "\n")
    shutil.copy(files.pcap, trace.with_suffix(".pcap"))
    shutil.copy(files.trace.with_name("result.json"), trace.with_suffix(".json"))
    page = viewer.write(viewer.build(viewer.locate(trace)), tmp_path / "states.html")
    browser.get(page.as_uri())
    assert count(browser, "#timeline rect.state") == 44
    assert count(browser, "#legend span.state") == 3          # listen, sleep, tx
    assert count(browser, "#timeline circle.event") >= 11     # the unknown "energy" events
    assert count(browser, "#topology circle.node") == 11
    keep_screenshot(browser, repo_root, tmp_path, "view-states.png")
    assert console_errors(browser) == []


def test_static_file_of_a_sweep_run(cli, udp3, tmp_path):
    r = cli("sweep", "udp3.toml", "--vary", "medium.ber=0,1e-3", "--runs", "2", "--out", "sw",
            "--no-progress")
    assert r.rc == 0, r
    runs = sorted(p.stem for p in (tmp_path / "sw" / "runs").glob("*.json"))
    r = cli("view", "sw", "--run", runs[-1], "--out", "v.html")
    assert r.rc == 0, r
    assert r.stdout == "v.html\n"
    html = (tmp_path / "v.html").read_text()
    data = json.loads(html.split('<script type="application/json" id="data">')[1].split("</script>")[0])
    assert data["title"].startswith("udp3.toml seed ") and "medium.ber" in data["title"]
    assert (tmp_path / "sw" / "view" / runs[-1] / "trace.jsonl").is_file()
    assert data["notes"] == []


@pytest.mark.parametrize("args, message", [
    (["nowhere"], "nowhere: no such file or directory"),
    (["sw", "--run", "abc-s9"], "--run abc-s9: not a run of this sweep; runs: "),
    (["udp3.toml"], "udp3.toml: cannot read the result"),
    (["res.json"], "res.json: no trace beside it (res.jsonl) and no scenario to run again "
                   "(res.scenario.json, written by `moteip run`)"),
])
def test_view_errors_exit_2(cli, udp3, tmp_path, args, message):
    assert cli("sweep", "udp3.toml", "--runs", "1", "--out", "sw", "--no-progress").rc == 0
    assert cli("run", "udp3.toml", "--out", "res.json").rc == 0
    (tmp_path / "res.scenario.json").unlink()
    r = cli("view", *args, "--out", "x.html")
    assert r.rc == 2 and message in r.stderr, r


def test_crafted_trace_cannot_run_script(browser, run10, tmp_path):
    """An outside audit ran script from a trace: a radio-state string went into the page as
    HTML. Every string of a trace (states, event names) is shown as text, so a crafted trace
    draws its markup literally and runs nothing."""
    files = viewer.locate(run10)
    lines = files.trace.read_text().splitlines()
    evil_state = '<img src=x onerror="window.__pwned=1">'
    evil_event = '</script><script>window.__pwned=2</script><!--'
    extra = [json.dumps({"t_us": 1000 + n, "node": n, "ev": "radio", "state": evil_state})
             for n in range(3)]
    extra.append(json.dumps({"t_us": 2000, "node": 0, "ev": evil_event}))
    trace = tmp_path / "evil.jsonl"
    trace.write_text("\n".join(lines[:40] + extra + lines[40:]) + "\n")
    shutil.copy(files.pcap, trace.with_suffix(".pcap"))
    shutil.copy(files.trace.with_name("result.json"), trace.with_suffix(".json"))
    page = viewer.write(viewer.build(viewer.locate(trace)), tmp_path / "evil.html")
    assert "</script><script>window.__pwned" not in page.read_text()
    browser.get(page.as_uri())
    time.sleep(0.5)                       # an onerror handler runs once the image fails
    assert browser.execute_script("return window.__pwned === undefined")
    assert browser.execute_script("return document.querySelectorAll('#legend img').length") == 0
    legend = browser.execute_script("return document.querySelector('#legend').textContent")
    assert "radio " + evil_state in legend
    assert console_errors(browser) == []


def test_a_large_capture_does_not_claim_tshark_is_missing(browser, run10, tmp_path):
    """A static page of a capture larger than details_max carries no decoded headers
    because of its size: with tshark installed it said "tshark was not installed"."""
    assert shutil.which("tshark"), "tshark is installed by scripts/setup.sh"
    files = viewer.locate(run10)
    page = viewer.write(viewer.build(files, details_max=0), tmp_path / "big.html")
    browser.get(page.as_uri())
    text = browser.execute_script(
        "const v = window.moteipView; const i = v.data.tx.frame.findIndex(n => n > 0);"
        "v.selectTx(i); return document.querySelector('#details pre.decoded').textContent;")
    assert "tshark was not installed" not in text, text
    assert "the capture has more than 0 frames" in text, text
    notes = browser.execute_script("return document.querySelector('#notes').textContent")
    assert "tshark is not installed" not in notes


def assert_drawn(drv, shot: pathlib.Path, selectors: list[str]) -> None:
    """The screenshot compared for structure: where the page lays out each element, the
    picture holds a drawing (many colours), not an empty box. Fonts and antialiasing
    differ between Chromium builds; whether a chart was drawn at all does not."""
    from PIL import Image

    img = Image.open(shot).convert("RGB")
    ratio = drv.execute_script("return window.devicePixelRatio") or 1
    for css in selectors:
        drv.execute_script(f"document.querySelector({json.dumps(css)}).scrollIntoView()")
        drv.save_screenshot(str(shot))
        img = Image.open(shot).convert("RGB")
        r = drv.execute_script(f"const b = document.querySelector({json.dumps(css)})"
                               ".getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom];")
        box = [max(0, int(v * ratio)) for v in r]
        box[2], box[3] = min(box[2], img.width), min(box[3], img.height)
        assert box[2] - box[0] > 50 and box[3] - box[1] > 20, (css, box)
        colours = img.crop(box).getcolors(maxcolors=100000) or []
        assert len(colours) >= 8, f"{css}: {len(colours)} colours in {box}: nothing drawn"


def states_trace(run10, tmp_path) -> pathlib.Path:
    """run10's trace with radio states for every node, as --trace-radio writes them."""
    files = viewer.locate(run10)
    lines = files.trace.read_text().splitlines()
    extra = []
    for n in range(11):
        t = 0
        for k in range(40):         # listen 30 %, off 70 %: 10 ms periods
            extra.append(json.dumps({"t_us": t, "node": n, "ev": "radio", "state": "listen"}))
            extra.append(json.dumps({"t_us": t + 3000, "node": n, "ev": "radio", "state": "off"}))
            t += 10000
    trace = tmp_path / "radio.jsonl"
    trace.write_text("\n".join(lines + extra) + "\n")
    shutil.copy(files.pcap, trace.with_suffix(".pcap"))
    shutil.copy(files.trace.with_name("result.json"), trace.with_suffix(".json"))
    return trace


def test_radio_over_time_and_the_packet_list(browser, run10, repo_root, tmp_path):
    """The radio-over-time chart (duty cycle per bin and energy so far, from the trace's
    radio states and the result's currents) and the packet list with its node, kind and
    flow filters."""
    page = viewer.write(viewer.build(viewer.locate(states_trace(run10, tmp_path))), tmp_path / "r.html")
    browser.get(page.as_uri())
    series = browser.execute_script("return window.moteipView.radioSeries")
    # 30 % listen in every 10 ms for the first 0.4 s of every node, then off: the bins of
    # that time average 30 % (a bin is not a whole number of periods), and later ones 0
    first = [b["duty"] for b in series if b["t"] <= 0.39e6]
    assert len(first) >= 5 and sum(first) / len(first) == pytest.approx(30, abs=1.5), first
    assert all(b["duty"] == 0 for b in series if b["t"] > 0.42e6)
    assert series[-1]["e"] > 0 and all(a["e"] <= b["e"] for a, b in zip(series, series[1:]))
    assert count(browser, "#radio-time path.duty") == 1 and count(browser, "#radio-time path.energy-line") == 1
    rows = count(browser, "#packets tbody tr")
    n_tx = browser.execute_script("return window.moteipView.data.tx.t.length")
    assert rows == min(n_tx, 400) and rows > 20
    assert browser.execute_script("return window.moteipView.packetsMatched") == n_tx
    # filter by node: every row is that node's
    browser.execute_script("const s = document.querySelector('#pkt-node'); s.value = '3';"
                           "s.dispatchEvent(new Event('change'));")
    nodes = browser.execute_script(
        "return [...document.querySelectorAll('#packets tbody tr')].map(r => r.cells[2].textContent)")
    assert nodes and set(nodes) == {"3"}
    # kind and flow together narrow it further, and a click selects the frame
    browser.execute_script("for (const [id, v] of [['#pkt-node', ''], ['#pkt-kind', '0'], ['#pkt-flow', '0']]) {"
                           "const s = document.querySelector(id); s.value = v; s.dispatchEvent(new Event('change')); }")
    kinds = browser.execute_script(
        "return [...document.querySelectorAll('#packets tbody tr')].map(r => r.cells[3].textContent)")
    kind0 = browser.execute_script("return window.moteipView.data.kinds[0]")
    assert kinds and set(kinds) == {kind0}
    assert 0 < browser.execute_script("return window.moteipView.packetsMatched") < n_tx
    browser.execute_script("document.querySelector('#packets tbody tr').click()")
    assert count(browser, "#packets tr.selected") == 1
    assert "frame sent by node" in browser.execute_script("return document.querySelector('#details h3').textContent")
    # a node's own chart
    browser.execute_script("window.moteipView.selectNode(4)")
    assert "node 4" in browser.execute_script("return document.querySelector('#radio-note').textContent")
    shot = keep_screenshot(browser, repo_root, tmp_path, "view-radio-packets.png")
    assert_drawn(browser, shot, ["#topology", "#timeline", "#radio-time", "#packets", "#energy"])
    assert console_errors(browser) == []


#: test_realtime.py's three-node ping, with pings through the whole run (30, 0.1 s
#: apart), so that the page sees the trace grow whenever it connects
LIVE = PING3.format(duration=4).replace("count = 4\ninterval_s = 0.2", "count = 30\ninterval_s = 0.1")
assert "count = 30" in LIVE


def test_a_realtime_run_is_viewed_live(browser, moteip_argv_module, repo_root, tmp_path):
    """`moteip run --realtime --view`: a loopback page follows the run as its trace grows
    (server-sent events), then shows the finished run with its result until stopped."""
    (tmp_path / "live.toml").write_text(LIVE)
    p = subprocess.Popen([*moteip_argv_module, "run", "live.toml", "--realtime", "--view",
                          "--no-browser", "--out", "r.json", "--pcap", "r.pcap"],
                         cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        assert line.startswith("moteip view: http://127.0.0.1:") and line.rstrip().endswith("(live)"), line
        url = line.split()[2]
        browser.get(url)
        seen = []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            badge = browser.execute_script("return document.querySelector('#live').textContent")
            seen.append(badge)
            if badge == "live: finished":
                break
            time.sleep(0.2)
        growing = [int(b.split()[1]) for b in seen if b.startswith("live: ") and b.split()[1].isdigit()]
        assert len(set(growing)) >= 2 and growing == sorted(growing), seen   # it grew while we watched
        assert seen[-1] == "live: finished", seen[-5:]
        assert browser.execute_script("return window.moteipView.data.result.sim_time_s") == 4
        n_tx = browser.execute_script("return window.moteipView.data.tx.t.length")
        assert n_tx >= 16 and count(browser, "#packets tbody tr") == n_tx   # 4 pings, 2 hops
        assert browser.execute_script("return window.moteipView.data.live") is False
        keep_screenshot(browser, repo_root, tmp_path, "view-live.png")
        assert console_errors(browser) == []
        out = ""
        while "shows the finished run" not in out:
            out = p.stdout.readline()
            assert out, "moteip ended before Ctrl-C"
        p.send_signal(signal.SIGINT)
        p.wait(timeout=10)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, p.stderr.read()
    assert json.loads((tmp_path / "r.json").read_text())["sim_time_s"] == 4


def test_view_needs_realtime(cli, udp3):
    r = cli("run", "udp3.toml", "--view")
    assert r.rc == 2 and "--view needs --realtime" in r.stderr, r
