#!/usr/bin/env python3
"""scripts/fetch-d3.py DEST_DIR -- the viewer's D3 bundle without npm.

`moteip view` draws with D3, pinned by version and sha512 integrity in
python/viewer-js/package-lock.json. scripts/vendor-js.sh installs it with
`npm ci` where npm exists; this script is the path without npm (a pip install
from a fresh clone, the wheel build): it downloads exactly the locked tarball
of the `d3` package from the npm registry, refuses it unless its sha512 is the
lock file's, and writes dist/d3.min.js and the licence into DEST_DIR as
d3.min.js and d3.LICENSE.txt. Nothing is written when the check fails.

Exit status: 0 done, 1 download or integrity failure, 2 usage.
"""
import base64
import hashlib
import io
import json
import sys
import tarfile
import urllib.request
from pathlib import Path

LOCK = Path(__file__).resolve().parent.parent / "python" / "viewer-js" / "package-lock.json"
REGISTRY = "https://registry.npmjs.org"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: scripts/fetch-d3.py DEST_DIR", file=sys.stderr)
        return 2
    dest = Path(argv[1])
    entry = json.loads(LOCK.read_text())["packages"]["node_modules/d3"]
    version, integrity = entry["version"], entry["integrity"]
    algo, want = integrity.split("-", 1)
    if algo != "sha512":
        print(f"fetch-d3: the lock's integrity is {algo}, expected sha512", file=sys.stderr)
        return 1
    url = entry.get("resolved") or f"{REGISTRY}/d3/-/d3-{version}.tgz"
    try:
        with urllib.request.urlopen(url, timeout=60) as rsp:
            data = rsp.read()
    except OSError as e:
        print(f"fetch-d3: {url}: {e}", file=sys.stderr)
        return 1
    got = base64.b64encode(hashlib.sha512(data).digest()).decode()
    if got != want:
        print(f"fetch-d3: {url}: sha512 {got} is not the lock file's {want}", file=sys.stderr)
        return 1
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        files = {}
        for name, out in (("package/dist/d3.min.js", "d3.min.js"), ("package/LICENSE", "d3.LICENSE.txt")):
            f = tar.extractfile(name)
            if f is None:
                print(f"fetch-d3: {url} has no {name}", file=sys.stderr)
                return 1
            files[out] = f.read()
    dest.mkdir(parents=True, exist_ok=True)
    for out, content in files.items():
        (dest / out).write_bytes(content)
    print(f"[fetch-d3] d3 {version} -> {dest / 'd3.min.js'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
