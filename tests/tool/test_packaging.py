"""`pip install ./python` (not editable) in a fresh venv gives a working `moteip`,
with its simulator and the viewer's assets, from any directory.

The wheel is built from python/ as pip builds it: scikit-build-core runs the
repository's CMake for moteip-sim (no build isolation: the build needs nothing
from PyPI beyond the suite's venv) and puts it in the package as
moteip/bin/moteip-sim, beside D3. It is installed with --no-deps into a venv
made for the test, so the core has no dependency at all; then the venv is given
the suite's site-packages (a .pth line) for the extras. Everything runs from a
directory outside the checkout, with no PYTHONPATH, no MOTEIP_SIM and no build
tree on the PATH: the `moteip` found is the installed one, the scenarios of
`moteip reproduce` are the package's own copies, and the simulator is the
wheel's.
"""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

import pytest

import moteip
from moteip.simulator import NOT_FOUND


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    from conftest import ROOT as repo_root
    d = tmp_path_factory.mktemp("pkg")
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                        "--disable-pip-version-check", "-q", "-w", str(d / "dist"),
                        str(repo_root / "python")],
                       capture_output=True, text=True, timeout=600,
                       env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert p.returncode == 0, p.stderr
    (wheel,) = (d / "dist").glob("moteip-*.whl")
    env = d / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    # no PYTHONPATH: pip would take a moteip it finds there for installed
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install",
                        "--no-deps", "--disable-pip-version-check", "-q", str(wheel)],
                       capture_output=True, text=True, timeout=300, env=clean)
    assert p.returncode == 0, p.stderr
    return {"dir": d, "env": env, "wheel": wheel}


def run(venv, *args, env=None, cwd=None, timeout=300):
    e = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MOTEIP_SIM", "MOTEIP_BUILD_DIR",
                                                         "MOTEIP_EXAMPLES", "VIRTUAL_ENV")}
    e["PATH"] = f"{venv['env'] / 'bin'}:/usr/bin:/bin"
    e.update(env or {})
    work = venv["dir"] / "elsewhere"
    work.mkdir(exist_ok=True)
    return subprocess.run([str(venv["env"] / "bin" / args[0]), *args[1:]], cwd=cwd or work, env=e,
                          capture_output=True, text=True, timeout=timeout)


def test_the_wheel_holds_the_examples_and_the_viewer(venv):
    import zipfile

    names = set(zipfile.ZipFile(venv["wheel"]).namelist())
    assert {"moteip/examples/chain10-ber.toml", "moteip/examples/dtc.toml",
            "moteip/viewer/d3.min.js", "moteip/viewer/viewer.js", "moteip/viewer/viewer.html",
            "moteip/viewer/viewer.css", "moteip/viewer/d3.LICENSE.txt"} <= names


def test_installed_package_is_not_the_checkout(venv, repo_root):
    p = run(venv, "python", "-c", "import moteip; print(moteip.__file__)")
    assert p.returncode == 0, p.stderr
    path = pathlib.Path(p.stdout.strip())
    assert venv["env"] in path.parents and repo_root not in path.parents


def test_version(venv):
    p = run(venv, "moteip", "--version")
    assert (p.returncode, p.stdout) == (0, f"moteip {moteip.__version__}\n")


def test_the_wheel_carries_the_simulator(venv):
    import zipfile

    info = zipfile.ZipFile(venv["wheel"]).getinfo("moteip/bin/moteip-sim")
    assert info.external_attr >> 16 & 0o111, "moteip-sim is not executable in the wheel"
    assert not venv["wheel"].name.endswith("-any.whl"), "a wheel with a native program is not 'any'"


def test_no_simulator_is_one_clear_line(venv, repo_root):
    """Only a package whose simulator was removed has none: then one line says what to do."""
    (venv["dir"] / "elsewhere").mkdir(exist_ok=True)
    shutil.copy(repo_root / "examples" / "tcp-1hop.toml", venv["dir"] / "elsewhere")
    where = run(venv, "python", "-c", "import moteip.simulator as s; print(s.PACKAGED_SIM)").stdout.strip()
    sim = pathlib.Path(where)
    hidden = sim.with_name("moteip-sim.hidden")
    sim.rename(hidden)
    try:
        p = run(venv, "moteip", "run", "tcp-1hop.toml")
    finally:
        hidden.rename(sim)
    assert (p.returncode, p.stdout, p.stderr) == (1, "", f"moteip: {NOT_FOUND}\n")


def test_missing_extras_say_which_to_install(venv, sim_path, scenario_text):
    sim = {"MOTEIP_SIM": str(sim_path)}
    (venv["dir"] / "elsewhere" / "udp3.toml").write_text(scenario_text["udp3"])
    p = run(venv, "moteip", "sweep", "udp3.toml", "--runs", "1", "--dask", "local", "--no-progress", env=sim)
    assert p.returncode == 1
    assert p.stderr.splitlines()[-1] == ("moteip: --dask needs dask.distributed, which is not installed: "
                                         "pip install 'moteip[dask]'")
    p = run(venv, "moteip", "sweep", "udp3.toml", "--runs", "1", "--no-progress", "--out", "sw", env=sim)
    assert p.returncode == 0, p.stderr
    p = run(venv, "moteip", "plot", "sw", "--x", "seed", "--y", "flows.0.delivery_ratio", env=sim)
    assert p.returncode == 1 and p.stderr == ("moteip: plot needs matplotlib, which is not installed: "
                                              "pip install 'moteip[plot]'\n"), p.stderr


def test_reproduce_chain_ber_and_view_outside_the_checkout(venv):
    """The wheel alone: its own simulator runs the experiment, and `moteip view` writes a
    page with its D3 (no npm, no checkout)."""
    # the core alone: the numbers, and a word about the plots
    p = run(venv, "moteip", "reproduce", "chain-ber", "--runs", "1", "--no-progress")
    assert p.returncode == 0, p.stderr
    assert "scenario: examples/chain10-ber.toml" in p.stdout
    assert "plots: none (plot needs matplotlib, which is not installed: pip install 'moteip[plot]')" in p.stdout
    out = venv["dir"] / "elsewhere" / "out" / "chain-ber"
    runs = sorted((out / "runs").glob("*.json"))
    assert len(runs) == 10
    page = venv["dir"] / "elsewhere" / "view.html"
    p = run(venv, "moteip", "view", str(out), "--run", runs[0].stem, "--out", str(page), "--no-browser")
    assert p.returncode == 0, p.stderr
    html = page.read_text()
    assert "d3js.org" in html and '<script type="application/json" id="data">{' in html
    # with the extras (the suite's site-packages): the plots too, from the runs on disk
    site = pathlib.Path(run(venv, "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
                        .stdout.strip())
    (site / "suite.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    p = run(venv, "moteip", "reproduce", "chain-ber", "--runs", "1", "--no-progress")
    assert p.returncode == 0, p.stderr
    assert "0 to run" in p.stderr or "10 on disk" in p.stderr
    assert (out / "goodput-vs-ber.png").read_bytes()[:4] == b"\x89PNG"
    (site / "suite.pth").unlink()
