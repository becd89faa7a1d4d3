"""Protocol lines: what the runner writes is compact ASCII JSON, one object per line; what it
reads is what the json module reads."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.protocol import BadReply, decide_message, decode_reply, encode
from games.rules import GAMES, get_game

STANDARD = json.JSONEncoder(separators=(",", ":"))

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@pytest.mark.parametrize("game_id", GAMES)
def test_decide_lines_are_the_bytes_the_standard_encoder_writes(game_id):
    game, rng = get_game(game_id), random.Random(5)
    for seed in range(3):
        state = game.new_match(seed)
        request = 0
        while state.to_play is not None:
            request += 1
            message = decide_message(request, game.observation(state, state.to_play), 0.25)
            assert encode(message) == (STANDARD.encode(message) + "\n").encode("ascii")
            state = game.apply(state, rng.choice(state.legal_actions()))


@given(json_values)
def test_any_json_value_becomes_one_ascii_line_that_reads_back_as_itself(value):
    message = {"type": "decide", "request": 1, "observation": {"value": value}, "time_left": 1}
    line = encode(message)
    assert line.isascii()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == message


@pytest.mark.parametrize(
    "value",
    ["naïve ♠", 2**70, -(2**64), {1: "a key that is no string"}],
    ids=["not ascii", "past 64 bits", "below -2**63", "integer key"],
)
def test_what_the_fast_encoder_leaves_is_written_as_the_standard_encoder_writes_it(value):
    message = {"type": "decide", "observation": {"value": value}}
    assert encode(message) == (STANDARD.encode(message) + "\n").encode("ascii")


def _json_reading(line: bytes) -> object:
    """What the json module makes of ``line``, or ``BadReply`` for what it refuses."""
    try:
        value = json.JSONDecoder().decode(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return BadReply
    return value if type(value) is dict else BadReply


def _reading(line: bytes) -> object:
    try:
        return decode_reply(line)
    except BadReply:
        return BadReply


@given(
    json_values,
    st.sampled_from(["", " ", "\t", "\r", " \r", "\n"]),
    st.sampled_from(["", " ", "\t"]),
)
def test_a_reply_reads_as_the_json_module_reads_it(value, after, before):
    message = {"action": {"play": "7H"}, "value": value}
    for text in (
        json.dumps(message),
        json.dumps(message, separators=(",", ":")),
        json.dumps(value),
    ):
        line = (before + text + after).encode()
        assert _reading(line) == _json_reading(line)


@pytest.mark.parametrize(
    "line",
    [
        b'{"action": {"bid": NaN}}',
        b'{"action": {"bid": 18446744073709551616}}',
        b'{"action": {"play": "\\ud800"}}',
        b'{"action": {"play": "7H"}, "action": {"play": "8H"}}',
        b'{"action": {"play": "7H"}} {}',
        b'{"action": {"play": "7H"}',
        b'{"action": {"play": "7H"}}\x0b',
        b"\xef\xbb\xbf{}",
        b"\xff{}",
        b"[]",
        b"",
        b'{"a": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    ],
    ids=[
        "NaN",
        "past 64 bits",
        "lone surrogate",
        "key twice",
        "extra data",
        "cut short",
        "not JSON whitespace after",
        "byte order mark",
        "not UTF-8",
        "not an object",
        "empty",
        "nested too deep",
    ],
)
def test_a_reply_the_json_module_reads_or_refuses_is_read_or_refused_alike(line):
    assert _reading(line) == _json_reading(line)
