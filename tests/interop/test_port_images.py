"""bench/footprint --images on the firmware test.sh built (build-microbit/
and build-avr/, each with its tiny and its micro firmware, build-mps2/):
every image's parts add up to what `size` says, its RAM (data + bss + the
stack it reserves) fits the chip, and docs/FOOTPRINT.md's "Linked firmware
images" table is within 3 % of each image's text (it was written by `sudo
bench/footprint --images --doc docs/FOOTPRINT.md`; the stack peaks there
need root and a workload, the interop tests of each board check theirs
against its reservation).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from moteip_netns import REPO


@pytest.fixture(scope="module")
def images():
    p = subprocess.run([sys.executable, str(REPO / "bench" / "footprint"), "--images",
                        "--no-build", "--no-run", "--json"], capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        pytest.fail(f"bench/footprint --images failed (scripts/test.sh interop builds the "
                    f"firmware):\n{p.stdout}{p.stderr}")
    return json.loads(p.stdout)


def test_every_port_has_an_image(images):
    assert set(images) == {"microbit", "microbit-micro", "avr", "avr-micro", "mps2"}, images.keys()


@pytest.mark.parametrize("port", ["microbit", "microbit-micro", "avr", "avr-micro", "mps2"])
def test_parts_add_up_and_ram_fits(images, port):
    r = images[port]
    for k in ("text", "data", "bss"):
        assert sum(v[k] for v in r["by_origin"].values()) == r[k], (k, r)
    # the micro images' stack is src/micro + checksum + SLIP: about 3 KB on Cortex-M0
    assert r["by_origin"]["stack (libmoteip.a)"]["text"] > (2000 if port.endswith("-micro")
                                                             else 4000), r
    assert r["data"] + r["bss"] + r["stack_reserved"] <= r["ram"], r
    assert r["text"] + r["data"] <= r["flash"], r


def test_footprint_doc_images_are_current(images):
    doc = (REPO / "docs" / "FOOTPRINT.md").read_text()
    assert "## Linked firmware images" in doc, "run sudo bench/footprint --images --doc docs/FOOTPRINT.md"
    rows = {}
    for line in doc.splitlines():
        m = re.match(r"\| `port/(\w+)`( \(micro\))? \|[^|]*\|[^|]*\| ([\d,]+) \|", line)
        if m:
            rows[m.group(1) + ("-micro" if m.group(2) else "")] = int(m.group(3).replace(",", ""))
    assert set(rows) == set(images), rows
    stale = [f"{p}: doc {rows[p]}, image {images[p]['text']}" for p in images
             if abs(rows[p] - images[p]["text"]) > 0.03 * images[p]["text"]]
    assert stale == [], ("docs/FOOTPRINT.md's images are stale (sudo bench/footprint --images "
                         "--doc docs/FOOTPRINT.md): " + "; ".join(stale))
