"""Key paths (medium.ber, flows[0].dst), --vary specs and --set values."""
from __future__ import annotations

import pytest

from moteip import UsageError
from moteip.scenario import (canonical_key, get_key, key_str, parse_key, parse_value, parse_vary,
                             set_key)


@pytest.mark.parametrize("key,parts", [
    ("flows[0].dst", ("flows", 0, "dst")),
    ("flows.0.dst", ("flows", 0, "dst")),
    ("medium.ber", ("medium", "ber")),
    ("seed", ("seed",)),
    ("flows[12].sender.profile", ("flows", 12, "sender", "profile")),
    ("topology.positions[3][1]", ("topology", "positions", 3, 1)),
    ("_x.y_2", ("_x", "y_2")),
])
def test_parse_key(key, parts):
    assert parse_key(key) == parts
    assert parse_key(key_str(parts)) == parts


def test_both_spellings_are_one_key():
    assert parse_key("flows[0].dst") == parse_key("flows.0.dst")
    assert canonical_key("flows.0.dst") == canonical_key("flows[0].dst") == "flows[0].dst"
    assert canonical_key("flows.1.sender.profile") == "flows[1].sender.profile"
    assert key_str(("a", 0, 1, "b")) == "a[0][1].b"


@pytest.mark.parametrize("key", ["", "x..y", "0a", "flows.", ".a", "a b", " a", "a[", "a[x]",
                                 "flows[0]dst", "a.-1", "a=1"])
def test_parse_key_rejects(key):
    with pytest.raises(UsageError) as ei:
        parse_key(key)
    assert str(ei.value) == f"key {key!r}: expected a dotted path such as medium.ber or flows[0].dst"
    with pytest.raises(UsageError):
        canonical_key(key)


def test_parse_key_rejects_non_strings():
    with pytest.raises(UsageError):
        parse_key(3)


@pytest.mark.parametrize("spec,key,values", [
    ("k=1,2", "k", [1, 2]),
    ("medium.ber=0,1e-5,1e-4", "medium.ber", [0, 1e-05, 0.0001]),
    ("topology.nodes=2..5", "topology.nodes", [2, 3, 4, 5]),
    ("k=-2..1", "k", [-2, -1, 0, 1]),
    ("k=3..3", "k", [3]),
    ('medium.model=unit_disk,"prr"', "medium.model", ["unit_disk", "prr"]),
    ("k=true", "k", [True]),
    ("k=true,false", "k", [True, False]),
    ("flows.0.sender.profile=full,tiny", "flows[0].sender.profile", ["full", "tiny"]),
    ("k = 1 , 2.5 ", "k", [1, 2.5]),
])
def test_parse_vary(spec, key, values):
    k, v = parse_vary(spec)
    assert (k, v) == (key, values)
    assert [type(x) for x in v] == [type(x) for x in values]  # 1 stays int, 1e-5 float, true bool


@pytest.mark.parametrize("spec,msg", [
    ("k", "--vary 'k': expected KEY=V1,V2,... (e.g. medium.ber=0,1e-5)"),
    ("k=1,,2", "--vary 'k=1,,2': expected KEY=V1,V2,... with no empty value"),
    ("k=", "--vary 'k=': expected KEY=V1,V2,... with no empty value"),
    ("k=5..2", "--vary 'k=5..2': empty range 5..2"),
    ("a..b=1", "key 'a..b': expected a dotted path such as medium.ber or flows[0].dst"),
])
def test_parse_vary_rejects(spec, msg):
    with pytest.raises(UsageError) as ei:
        parse_vary(spec)
    assert str(ei.value) == msg


@pytest.mark.parametrize("text,value", [("1", 1), ("1e-4", 1e-4), ("-3", -3), ("true", True),
                                        ('"tiny"', "tiny"), ("tiny", "tiny"), (" 2 ", 2),
                                        ("unit_disk", "unit_disk")])
def test_parse_value(text, value):
    assert parse_value(text) == value and type(parse_value(text)) is type(value)


def test_parse_value_empty():
    with pytest.raises(UsageError, match="^empty value$"):
        parse_value("  ")


def test_set_key_sets_and_creates_tables():
    d = {"flows": [{"dst": 1}], "medium": {"ber": 0}}
    set_key(d, parse_key("flows[0].dst"), "last", "--set")
    set_key(d, parse_key("medium.ber"), 1e-4, "--set")
    set_key(d, parse_key("mac.retry_delay_max_us"), 40000, "--set")
    set_key(d, parse_key("flows.0.sender.profile"), "tiny", "--set")
    assert d == {"flows": [{"dst": "last", "sender": {"profile": "tiny"}}],
                 "medium": {"ber": 1e-4}, "mac": {"retry_delay_max_us": 40000}}
    assert get_key(d, parse_key("flows[0].sender.profile")) == "tiny"
    assert get_key(d, parse_key("flows[1].dst"), "none") == "none"
    assert get_key(d, parse_key("medium.ber.x"), "none") == "none"


@pytest.mark.parametrize("nflows,noun", [(1, "element"), (2, "elements")])
def test_set_key_past_the_end_of_flows(nflows, noun):
    d = {"flows": [{"dst": 1} for _ in range(nflows)]}
    with pytest.raises(UsageError) as ei:
        set_key(d, parse_key("flows[5].dst"), 1, "--vary")
    assert str(ei.value) == f"--vary: flows[5]: the scenario's flows has {nflows} {noun}"


def test_set_key_through_a_non_table_or_non_array():
    with pytest.raises(UsageError) as ei:
        set_key({"medium": {"ber": 0}}, parse_key("medium.ber.x"), 1, "--set")
    assert str(ei.value) == "--set: medium.ber.x: medium.ber is not a table"
    with pytest.raises(UsageError) as ei:
        set_key({"medium": {"ber": 0}}, parse_key("medium[0]"), 1, "--set")
    assert str(ei.value) == "--set: medium[0]: medium is not an array"
    with pytest.raises(UsageError) as ei:
        set_key({}, parse_key("flows[0].dst"), 1, "--vary")  # a missing array is empty
    assert str(ei.value) == "--vary: flows[0]: the scenario's flows has 0 elements"
