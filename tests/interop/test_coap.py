"""CoAP (apps/coap.h, apps/coap_demo.h) on moteip-host --coap against
aiocoap, a complete CoAP implementation, from inside the test's namespace:
piggybacked GETs over IPv4 and IPv6, block-wise downloads (Block2) and
uploads (Block1) checked byte for byte, error codes; and hand-built
malformed messages from a raw socket, answered as RFC 7252 says."""
from __future__ import annotations

import json
import sys
import socket
import struct
import zlib

import pytest

from moteip_netns import STACK_V4, STACK_V6, assert_safe_addr

PORT = 5683
URIS = [f"coap://{STACK_V4}", f"coap://[{STACK_V6}]"]


def pattern(n: int) -> bytes:
    return bytes((7 * i + (i >> 8) + (i >> 16)) & 0xFF for i in range(n))


# Runs in the namespace: every request of `plan` through one aiocoap client
# context; prints one JSON object per request.
CLIENT = r'''
import asyncio, json, sys
import aiocoap
PLAN = json.loads(sys.argv[1])
async def main():
    ctx = await aiocoap.Context.create_client_context()
    out = []
    for method, uri, body in PLAN:
        msg = aiocoap.Message(code=getattr(aiocoap, method), uri=uri,
                              payload=bytes.fromhex(body))
        r = await asyncio.wait_for(ctx.request(msg).response, 60)
        out.append({"code": str(r.code), "payload": r.payload.hex(),
                    "format": None if r.opt.content_format is None else int(r.opt.content_format)})
    await ctx.shutdown()
    print(json.dumps(out))
asyncio.run(main())
'''


def aiocoap_run(host, plan: list[tuple[str, str, bytes]]) -> list[dict]:
    for _, uri, _ in plan:
        assert_safe_addr(uri.split("//")[1].split("/")[0].strip("[]"))
    arg = json.dumps([[m, u, b.hex()] for m, u, b in plan])
    res = host.ns.cmd([sys.executable, "-c", CLIENT, arg],
                      timeout=180)
    return json.loads(res.stdout)


@pytest.mark.parametrize("base,kernel", [(URIS[0], False), (URIS[1], False), (URIS[0], True)],
                         ids=["v4", "v6", "v4-process"])
def test_coap_get_blockwise_and_upload_against_aiocoap(make_host, base, kernel):
    """kernel: the endpoint runs as a process of the kernel (moteip-host --os,
    apps/os_apps.h), its datagrams arriving as events."""
    host = make_host(["--coap", str(PORT)] + (["--os"] if kernel else []))
    upload = bytes((i * 131 + 7) & 0xFF for i in range(20000))
    res = aiocoap_run(host, [
        ("GET", f"{base}/hello", b""),
        ("GET", f"{base}/bytes?n=50000", b""),
        ("GET", f"{base}/bytes?n=1", b""),
        ("POST", f"{base}/sink", upload),
        ("PUT", f"{base}/sink", b"short"),
        ("GET", f"{base}/.well-known/core", b""),
        ("GET", f"{base}/nope", b""),
        ("DELETE", f"{base}/hello", b""),
        ("GET", f"{base}/bytes?n=x", b""),
    ])
    hello, big, one, up, short, core, nope, delete, badq = res
    assert hello["code"].startswith("2.05") and bytes.fromhex(hello["payload"]) == b"hello from moteip"
    assert hello["format"] == 0
    assert big["code"].startswith("2.05") and big["format"] == 42
    assert bytes.fromhex(big["payload"]) == pattern(50000)
    assert bytes.fromhex(one["payload"]) == pattern(1)
    assert up["code"].startswith("2.04"), up
    assert bytes.fromhex(up["payload"]).decode() == f"{len(upload)} {zlib.crc32(upload)}"
    assert bytes.fromhex(short["payload"]).decode() == f"5 {zlib.crc32(b'short')}"
    assert b"</hello>" in bytes.fromhex(core["payload"]) and core["format"] == 40
    assert nope["code"].startswith("4.04")
    assert delete["code"].startswith("4.05")
    assert badq["code"].startswith("4.00")
    stats = host.stop()
    coap = stats["coap"]
    assert coap["bodies"] == 2, coap
    # Handled: 50000 B in 1024-byte blocks is 49 requests, 20000 B up 20
    # blocks, plus hello, n=1, short, core and the bad query (not found and
    # not allowed never reach a handler).
    assert coap["requests_served"] == 49 + 20 + 5, coap
    assert coap["drop_format"] == 0 and coap["send_errors"] == 0, coap
    if kernel:
        assert stats["os"]["coap"]["datagrams"] == coap["rx"] >= 49 + 20 + 5, stats["os"]


def _raw(host, family, addr, msg: bytes) -> bytes | None:
    s = host.socket(family, socket.SOCK_DGRAM, timeout=1.0)
    with s:
        s.connect((addr, PORT))
        s.send(msg)
        try:
            return s.recv(2048)
        except socket.timeout:
            return None


@pytest.mark.parametrize("family,addr", [(socket.AF_INET, STACK_V4), (socket.AF_INET6, STACK_V6)],
                         ids=["v4", "v6"])
def test_coap_malformed_messages_get_rst_or_nothing(make_host, family, addr):
    host = make_host(["--coap", str(PORT)])
    # CON with token length 9: message format error -> RST with the MID.
    assert _raw(host, family, addr, bytes([0x49, 0x01, 0x12, 0x34])) == bytes([0x70, 0, 0x12, 0x34])
    # CON with option nibble 15: RST.
    assert _raw(host, family, addr, bytes([0x40, 0x01, 0x00, 0x05, 0xF1, 0])) == bytes([0x70, 0, 0, 5])
    # NON with a bad option: nothing back.
    assert _raw(host, family, addr, bytes([0x50, 0x01, 0x00, 0x06, 0xF1, 0])) is None
    # Version 2: silently ignored.
    assert _raw(host, family, addr, bytes([0x80, 0x01, 0x00, 0x07])) is None
    # CoAP ping (empty CON) -> RST.
    assert _raw(host, family, addr, bytes([0x40, 0x00, 0xAB, 0xCD])) == bytes([0x70, 0, 0xAB, 0xCD])
    # GET /hello with an unrecognised critical option (9) -> 4.02 piggybacked.
    req = bytes([0x41, 0x01, 0x00, 0x08, 0x77, 0x91]) + b"x" + bytes([0x25]) + b"hello"
    # option 9 (delta 9, len 1) then Uri-Path 11 (delta 2, len 5)
    rep = _raw(host, family, addr, req)
    assert rep is not None and rep[:5] == bytes([0x61, 0x82, 0x00, 0x08, 0x77]), rep
    # Truncated token (TKL 4, two bytes): RST.
    assert _raw(host, family, addr, bytes([0x44, 0x01, 0x00, 0x09, 1, 2])) == bytes([0x70, 0, 0, 9])
    host.assert_running()
    stats = host.stop()
    coap = stats["coap"]
    # Format errors: TKL 9, nibble 15 (CON and NON), the cut token; RSTs for
    # the three CONs among them and the ping; one unrecognised option.
    assert coap["drop_format"] == 4, coap
    assert coap["drop_version"] == 1 and coap["drop_bad_option"] == 1 and coap["rst_sent"] == 4, coap
