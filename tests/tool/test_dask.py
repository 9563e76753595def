"""Sweeps on Dask: a LocalCluster started by `moteip sweep --dask local`, and
an external scheduler on 127.0.0.1 given by address. Same bytes as the
local pool. Nothing here listens or connects beyond 127.0.0.1."""
from __future__ import annotations

import errno
import logging
import socket

import pytest

VARY = ["--vary", "medium.ber=0,1e-3", "--runs", "3"]


@pytest.fixture(scope="module")
def cluster():
    import distributed  # a dependency of moteip: missing means a broken install, not a skip

    c = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                 dashboard_address=None, silence_logs=logging.ERROR)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def local_pool_summary(cli, udp3, tmp_path):
    r = cli("sweep", "udp3.toml", *VARY, "--jobs", "2", "--out", "pool")
    assert r.rc == 0, r
    return (tmp_path / "pool" / "summary.json").read_bytes()


def test_dask_local_cluster_gives_the_same_summary(cli, local_pool_summary, tmp_path):
    r = cli("sweep", "udp3.toml", *VARY, "--dask", "local", "--jobs", "2", "--no-progress",
            "--out", "dl", timeout=180)
    assert r.rc == 0, r
    err = r.stderr.splitlines()
    assert err[0] == "sweep udp3.toml: 2 points x 3 seeds = 6 runs on dask local -> dl"
    assert err[1].startswith("dask: LocalCluster with 2 workers at tcp://127.0.0.1:")
    assert (tmp_path / "dl" / "summary.json").read_bytes() == local_pool_summary
    assert len(list((tmp_path / "dl" / "runs").iterdir())) == 6


def test_external_scheduler_by_address(cli, cluster, local_pool_summary, tmp_path):
    addr = cluster.scheduler_address
    assert addr.startswith("tcp://127.0.0.1:")
    r = cli("sweep", "udp3.toml", *VARY, "--dask", addr, "--no-progress", "--out", "dx", timeout=180)
    assert r.rc == 0, r
    err = r.stderr.splitlines()
    assert err[0] == f"sweep udp3.toml: 2 points x 3 seeds = 6 runs on dask {addr} -> dx"
    assert err[1].startswith(f"dask: connected to {addr} (1 worker")  # 1 worker(s)
    assert (tmp_path / "dx" / "summary.json").read_bytes() == local_pool_summary
    # resuming on the cluster: nothing left to run, nothing submitted
    r = cli("sweep", "udp3.toml", *VARY, "--dask", addr, "--no-progress", "--out", "dx", timeout=180)
    assert r.rc == 0, r
    assert r.stderr == "sweep udp3.toml: 2 points x 3 seeds = 6 runs (6 on disk, 0 to run) -> dx\n"


def test_external_scheduler_from_the_api(cluster, udp3, tmp_path):
    import moteip

    s = moteip.sweep(udp3, vary={"medium.ber": [0, 1e-3]}, runs=2, out=tmp_path / "api",
                     dask=cluster.scheduler_address, log=None, progress=False)
    assert [p["runs"] for p in s["summary"]["points"]] == [2, 2]
    assert len(s["runs"]) == 4


def test_bad_scheduler_address_form(cli, udp3):
    r = cli("sweep", "udp3.toml", "--runs", "1", "--dask", "foo", "--out", "bad")
    assert r.rc == 2, r
    assert "moteip: --dask 'foo': expected a scheduler address such as tcp://host:8786, or 'local'\n" \
        in r.stderr
    assert "Traceback" not in r.stderr


def test_unreachable_scheduler(cli, udp3):
    with socket.socket() as s:  # the precondition: nothing listens on 127.0.0.1:1
        assert s.connect_ex(("127.0.0.1", 1)) == errno.ECONNREFUSED
    r = cli("sweep", "udp3.toml", "--runs", "1", "--dask", "tcp://127.0.0.1:1", "--out", "bad", timeout=60)
    assert r.rc == 1, r
    assert "moteip: --dask tcp://127.0.0.1:1: cannot reach the scheduler (" in r.stderr
    assert "Traceback" not in r.stderr
