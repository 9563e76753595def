"""Multi-frame TCP segments across forwarders: both ways of forwarding 6LoWPAN
fragments (`link.fragments`: per-hop reassembly, RFC 8930 fragment forwarding
with its inter-frame gap), 1..6 hops, TCPlp's segment (462 data bytes: five
frames) and window (four segments), its MAC (CSMA-CA, 40 ms retry delay,
OpenThread's retry after a channel access failure). Every transfer completes
byte-exact; the forwarders reassemble or forward fragment by fragment as
their mode says."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from simrun import run_ok

SEGMENT = 462                  # TCPlp s.6.4: a five-frame segment's payload
MSS = SEGMENT + 12             # the MSS option counts the timestamps option


def scenario(hops: int, fragments: str, seed: int = 1, ber: float = 0.0) -> dict:
    link = {"fragments": fragments}
    if fragments == "forward":
        link["frag_gap_us"] = 12_000
    return {
        "name": f"frag-{fragments}-{hops}", "seed": seed, "duration_s": 600,
        "topology": {"type": "chain", "nodes": hops + 1, "spacing_m": 10},
        "medium": {"model": "unit_disk", "range_m": 10.5, "interference_range_m": 10.5,
                   "ber": ber},
        "mac": {"type": "csma_ca", "retry_delay_max_us": 40_000, "retry_on_busy": True},
        "link": link,
        "flows": [{"type": "tcp", "src": 0, "dst": hops, "bytes": 40 * SEGMENT, "mss": MSS,
                   "tx_buffer": 4 * SEGMENT, "rx_buffer": 4 * SEGMENT}],
    }


def run_all(scenarios: list[dict], tmp_path) -> list[dict]:
    def one(i_sc):
        i, sc = i_sc
        d = tmp_path / f"run{i}"
        d.mkdir()
        return run_ok(sc, d)
    with ThreadPoolExecutor(2) as ex:
        return list(ex.map(one, enumerate(scenarios)))


@pytest.mark.parametrize("fragments", ["reassemble", "forward"])
def test_five_frame_segments_cross_one_to_six_hops(tmp_path, fragments):
    hops = [1, 2, 3, 4, 5, 6]
    results = run_all([scenario(h, fragments) for h in hops], tmp_path)
    for h, res in zip(hops, results):
        f = res["flows"][0]
        assert f["complete"] and f["integrity_ok"] and f["hops"] == h, (h, f)
        # five frames a segment: every data segment is fragmented
        assert res["node_stats"][0]["stack"]["lowpan_frag_tx"] >= 5 * 40, h
        for fwd in res["node_stats"][1:h]:
            st = fwd["stack"]
            if fragments == "forward":
                assert st.get("lowpan_frag_forwarded", 0) >= 5 * 40, (h, fwd["id"], st)
                assert st.get("lowpan_reassembled", 0) == 0, (h, fwd["id"], st)
            else:
                assert st.get("lowpan_reassembled", 0) >= 40, (h, fwd["id"], st)
                assert st.get("lowpan_frag_forwarded", 0) == 0, (h, fwd["id"], st)


@pytest.mark.parametrize("fragments", ["reassemble", "forward"])
def test_six_hops_under_bit_errors(tmp_path, fragments):
    """BER 1e-4: a 127-byte frame is lost 9.7 % of the time, a five-frame
    segment almost half the time before link retries; both modes still
    deliver every byte in order."""
    results = run_all([scenario(6, fragments, seed=s, ber=1e-4) for s in (1, 2)], tmp_path)
    for res in results:
        f = res["flows"][0]
        assert f["complete"] and f["integrity_ok"], f


def test_segment_loss_and_cwnd_fields(tmp_path):
    """The flow's segment counters: every data segment the sender handed its
    link, every one that reached the receiver's IP, and the loss between
    them; none lost over a clean hop, some when frames of TCP data are
    dropped and the MAC does not retry; null when a relay owns the hook
    that counts arrivals. cwnd_at_window_fraction is a share of time."""
    clean = scenario(1, "reassemble")
    lossy = scenario(1, "reassemble")
    lossy["medium"]["frame_loss"] = {"tcp_data": 0.05}
    lossy["mac"]["max_retries"] = 0
    relay = scenario(2, "reassemble")
    relay["relay"] = {"mode": "dtc"}
    a, b, c = run_all([clean, lossy, relay], tmp_path)
    f = a["flows"][0]
    assert f["data_segments_sent"] == f["data_segments_arrived"] == 40
    assert f["segment_loss"] == 0
    assert 0.5 <= f["cwnd_at_window_fraction"] <= 1
    f = b["flows"][0]
    assert f["complete"] and f["data_segments_sent"] > 40
    assert f["segment_loss"] == pytest.approx(1 - f["data_segments_arrived"] / f["data_segments_sent"])
    assert 0.01 < f["segment_loss"] < 0.5, f      # ~5 %: the FRAG1 of each segment
    assert c["flows"][0]["segment_loss"] is None
