"""Fixtures for the moteip interop tests; the machinery is in
moteip_netns.py (tests import helpers from there, never from conftest).

Run as root:  python3 -m pytest tests/interop -q
(moteip-host from $MOTEIP_BUILD_DIR, default build/ at the repository root)

Every namespace a fixture creates is deleted afterwards, whatever happened.
"""
from __future__ import annotations

import pytest

from moteip_netns import MoteipHost, Netns, require_root_and_binary


@pytest.fixture
def netns():
    """A fresh, empty network namespace (loopback up), always deleted."""
    require_root_and_binary()
    ns = Netns()
    try:
        yield ns
    finally:
        ns.delete()


@pytest.fixture
def make_host(netns, tmp_path):
    """Factory: make_host(extra_args=[...], ...) starts moteip-host in the
    test's namespace (one per namespace) and waits until it answers ping
    unless wait=False. The host is killed and the namespace deleted after
    the test."""
    hosts: list[MoteipHost] = []

    def make(extra_args: list[str] | None = None, *, wait: bool = True, **kw) -> MoteipHost:
        h = MoteipHost(netns, tmp_path, extra_args, **kw)
        hosts.append(h)
        if wait:
            h.wait_answering()
        return h

    try:
        yield make
    finally:
        for h in hosts:
            h.kill()


@pytest.fixture
def host(make_host) -> MoteipHost:
    """moteip-host on mtap0 in a fresh namespace, answering ping."""
    return make_host()


