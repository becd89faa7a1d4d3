"""Bot protocol v2: the messages between the runner and a bot, and how replies are read.

JSON lines over the bot's stdin and stdout, one object per line, described for bot authors
in ``docs/bot-protocol.md``. This module only builds and reads messages; moving bytes and
keeping time is the runner's job (``arena.runner``), judging the game the referee's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import orjson

PROTOCOL_VERSION = 2
#: The longest line a bot may write, newline excluded; a longer one is a bad reply.
MAX_LINE_BYTES = 64 * 1024

Message = dict[str, Any]

_decoder = json.JSONDecoder()


class BadReply(ValueError):
    """A bot's line that is not a reply the protocol allows at this point."""


def start_message(
    game_id: str,
    seat: int,
    options: Mapping[str, Any],
    decision_seconds: float,
    time_bank_seconds: float = 0.0,
    series: tuple[int, int] = (1, 1),
) -> Message:
    """``series`` is the match's place in its series, ``(match, matches)``, from 1: the bot
    may be asked to play up to ``matches`` matches in one process (protocol version 2)."""
    match, matches = series
    return {
        "type": "start",
        "protocol": PROTOCOL_VERSION,
        "game": game_id,
        "seat": seat,
        "options": dict(options),
        "limits": {"decision_seconds": decision_seconds, "time_bank_seconds": time_bank_seconds},
        "series": {"match": match, "matches": matches},
    }


def decide_message(request: int, observation: Mapping[str, Any], time_left: float) -> Message:
    return {
        "type": "decide",
        "request": request,
        "observation": observation,
        "time_left": time_left,
    }


def end_message(winner: int, scores: list[int], reason: str) -> Message:
    return {"type": "end", "winner": winner, "scores": scores, "reason": reason}


def encode(message: Message) -> bytes:
    """One protocol line: compact ASCII JSON and a newline.

    orjson writes a decide line six times as fast as the json module, and a match writes
    one per decision. What it leaves to ``json`` (a text that is not ASCII, an integer
    past 64 bits, a key that is no string) is written by ``json``, escaped to ASCII.
    """
    try:
        line = orjson.dumps(message)
    except orjson.JSONEncodeError:
        line = b""
    if not line or not line.isascii():
        line = json.dumps(message, separators=(",", ":")).encode("ascii")
    return line + b"\n"


def decode_reply(line: bytes) -> Message:
    """The JSON object on ``line``; ``BadReply`` for anything else."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise BadReply(f"the reply is not UTF-8: {_excerpt(line)}") from None
    try:
        reply = _decode(text)
    except (ValueError, RecursionError):
        raise BadReply(f"the reply is not JSON: {_excerpt(line)}") from None
    if type(reply) is not dict:
        raise BadReply(f"the reply is not a JSON object: {_excerpt(line)}")
    return reply


def _decode(text: str) -> Any:
    """``json``'s reading of ``text``, a JSON value with nothing after it.

    A reply is nearly always one object and nothing else: the decoder's scanner alone reads
    it, at a third of the cost of ``decode``, which first and last matches the whitespace
    around the value. Anything else (whitespace, extra data, an error) goes to ``decode``.
    """
    try:
        value, end = _decoder.scan_once(text, 0)
    except (StopIteration, ValueError, RecursionError):
        end = -1
    return value if end == len(text) else _decoder.decode(text)


def check_ready(reply: Message) -> bool:
    """Whether the ``ready`` reply says the bot plays series (``"series": true``)."""
    if reply.get("type") != "ready":
        raise BadReply(f'expected {{"type": "ready"}}, got {_excerpt(reply)}')
    return reply.get("series") is True


def action_of(reply: Message) -> dict[str, Any]:
    """The action a decide reply carries: a JSON object under ``action``."""
    action = reply.get("action")
    if type(action) is not dict:
        raise BadReply(f'expected {{"action": {{...}}}}, got {_excerpt(reply)}')
    return action


def _excerpt(value: object, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
