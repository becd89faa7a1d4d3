"""The match event log's format: event types, canonical JSON, the hash chain, and the
bytes a batch of events is stored as.

Pure: no Django, no I/O. The payloads are the ones the contracts document ("Match event
log"). Each event's hash is the SHA-256 (hex) of the previous event's hash followed by the
canonical JSON of ``{"seq", "type", "payload"}``; the first event chains from
``GENESIS_HASH``. The time an event was stored is not hashed, so appending the same event
twice compares content only. A log is stored as batches (``stored_batch``), each with the
hash of its last event; the others are computed again as it is read (``batch_records``).
"""

from __future__ import annotations

import enum
import hashlib
import json
import zlib
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

GENESIS_HASH = "0" * 64


class EventType(enum.StrEnum):
    MATCH_STARTED = "match_started"
    SHUFFLE = "shuffle"
    DECISION = "decision"
    FORFEIT = "forfeit"
    MATCH_FINISHED = "match_finished"


class ForfeitReason(enum.StrEnum):
    TIMEOUT = "timeout"
    CRASH = "crash"
    BAD_REPLY = "bad_reply"
    ILLEGAL_ACTION = "illegal_action"
    START_FAILED = "start_failed"


class ResultReason(enum.StrEnum):
    PLAYED = "played"
    FORFEIT = "forfeit"


class EventRecord(NamedTuple):
    """One stored event as replay reads it; a plain ``(seq, type, payload, hash)`` also does."""

    seq: int
    type: str
    payload: Any
    hash: str


class EventLogError(Exception):
    """The event log refused a write."""


class EventConflict(EventLogError):
    """An event with this seq is already stored with different content."""


class EventSequenceGap(EventLogError):
    """Events must be appended with consecutive seqs from 0, with no gap."""


class EventImmutable(EventLogError):
    """A stored event was asked to change or disappear."""


_encode_string = json.encoder.encode_basestring


def _refuse(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON: {value!r}")


if json.encoder.c_make_encoder is not None:
    # The C encoder json.dumps itself uses, built once: json.dumps and JSONEncoder.encode
    # build one per call, which costs as much as encoding a decision's payload.
    _encode_chunks = json.encoder.c_make_encoder(
        None, _refuse, _encode_string, None, ":", ",", True, False, False
    )

    def _encode(value: Any) -> str:
        return "".join(_encode_chunks(value, 0))

else:  # pragma: no cover - Pythons without the _json accelerator
    _encode = json.JSONEncoder(
        sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 as is; ``ValueError`` for NaN or infinity."""
    return _encode(value)


def _payload_json(payload: Any) -> str:
    """The canonical JSON of an event's payload.

    Most events are decisions with a card or a pile for an action, ``{"seat": 0, "action":
    {"play": "7H"}, "think_us": 812}``: that shape is spelled out directly (keys in sorted
    order), which costs a fraction of the encoder's sorting of two dicts. Any other payload
    goes through the encoder.
    """
    decision = _plain_decision(payload)
    if decision is not None:
        seat, kind, value, think_us = decision
        return (
            f'{{"action":{{{_encode_string(kind)}:{_encode_string(value)}}},'
            f'"seat":{seat},"think_us":{think_us}}}'
        )
    return _encode(payload)


def _plain_decision(payload: Any) -> tuple[int, str, str, int] | None:
    """``(seat, kind, value, think_us)`` of a decision whose action is one string, the shape
    nearly every event has; None for any other payload."""
    if payload.__class__ is not dict or len(payload) != 3:
        return None
    seat, action, think_us = payload.get("seat"), payload.get("action"), payload.get("think_us")
    if not (
        seat.__class__ is int
        and think_us.__class__ is int
        and action.__class__ is dict
        and len(action) == 1
    ):
        return None
    [(kind, value)] = action.items()
    if kind.__class__ is str and value.__class__ is str:
        return seat, kind, value, think_us
    return None


def event_hash(prev_hash: str, seq: int, type: str, payload: Any) -> str:
    """The hash of an event that follows an event hashed ``prev_hash``."""
    if seq.__class__ is int and isinstance(type, str):
        # Replay's hot path: the canonical JSON of the three-key object, spelled out (keys in
        # sorted order) so that only the payload goes through the encoder.
        text = (
            f'{prev_hash}{{"payload":{_payload_json(payload)},'
            f'"seq":{seq},"type":{_encode_string(type)}}}'
        )
    else:
        text = prev_hash + _encode({"seq": seq, "type": type, "payload": payload})
    return hashlib.sha256(text.encode()).hexdigest()


def stored_payload_json(payload: Any) -> str:
    """The canonical JSON a payload is stored as: the two shapes nearly every event has, packed.

    A decision ``{"seat": 0, "action": {"play": "7H"}, "think_us": 812}`` is stored as
    ``[0,"play","7H",812]`` and a shuffle ``{"k": 3, "order": ["2S", "3S", ...]}`` as
    ``[3,"2S3S..."]``, without their keys: that is half a decision's bytes. Every other
    payload is stored as it is. A payload is always a JSON object, so a stored array is always
    a packed one; ``stored_payload`` gives the object back exactly. Hashes are computed over
    the payload, never over its stored form.
    """
    decision = _plain_decision(payload)
    if decision is not None:
        seat, kind, value, think_us = decision
        return f"[{seat},{_encode_string(kind)},{_encode_string(value)},{think_us}]"
    if payload.__class__ is dict and len(payload) == 2:
        k, order = payload.get("k"), payload.get("order")
        if (
            k.__class__ is int
            and order.__class__ is list
            and all(card.__class__ is str and len(card) == 2 for card in order)
        ):
            return f"[{k},{_encode_string(''.join(order))}]"
    return _encode(payload)


def stored_payload(stored: Any) -> Any:
    """The payload stored as ``stored`` (its JSON read back), unpacked: ``stored_payload_json``
    in reverse. Logs stored before payloads were packed hold plain objects, given as they are.
    """
    if stored.__class__ is not list:
        return stored
    if len(stored) == 4:
        seat, kind, value, think_us = stored
        return {"seat": seat, "action": {kind: value}, "think_us": think_us}
    if len(stored) == 2:
        k, cards = stored
        return {"k": k, "order": [cards[i : i + 2] for i in range(0, len(cards), 2)]}
    raise ValueError(f"not a stored payload: {stored!r}")


#: A batch is DEFLATE (RFC 1951: no zlib header, no checksum; the chain is the checksum) at
#: zlib's default level: a whole Snag log in about a sixth of its text, in 0.1 ms.
_BATCH_WBITS = -15
_BATCH_LEVEL = 6


def stored_batch(events: Iterable[tuple[str, Any]]) -> bytes:
    """The bytes a batch of consecutive events is stored as: one line per event, the
    canonical JSON of ``[type, packed payload]`` (``stored_payload_json``), lines joined by
    ``\n``, compressed by DEFLATE. Canonical JSON never holds a raw newline, so each line is
    one event; seqs and hashes are not in it (the batch's row says where it starts, and the
    hashes follow from the events).
    """
    text = "\n".join(
        f"[{_encode_string(type)},{stored_payload_json(payload)}]" for type, payload in events
    )
    packer = zlib.compressobj(_BATCH_LEVEL, zlib.DEFLATED, _BATCH_WBITS)
    return packer.compress(text.encode()) + packer.flush()


def batch_events(stored: bytes, last: int | None = None) -> list[tuple[str, Any]]:
    """The ``(type, payload)`` of each event of a batch stored as ``stored``
    (``stored_batch`` in reverse), payloads unpacked; with ``last``, of its last ``last``
    events only (their lines alone are parsed)."""
    text = zlib.decompress(stored, _BATCH_WBITS).decode()
    if last is not None:
        lines = text.rsplit("\n", last)[-last:] if last > 0 else []
        text = ",".join(lines)
    else:
        text = text.replace("\n", ",")
    return [(type, stored_payload(payload)) for type, payload in json.loads(f"[{text}]")]


def batch_records(
    seq: int, events: Sequence[tuple[str, Any]], prev_hash: str, last_hash: str
) -> list[EventRecord]:
    """A stored batch's events as records, from its first ``seq``: each hash is computed,
    chained from ``prev_hash`` (the hash the batch before ends with), except the last
    event's, which is the ``last_hash`` stored with the batch, its commitment.

    So an untouched batch reads back exactly as it was written, and one whose events were
    changed after it was written ends with a hash that does not chain from them: a check of
    the chain (``games.replay.chain_failures``) reports its last event.
    """
    records = chain_events(
        ((seq + i, type, payload) for i, (type, payload) in enumerate(events)), prev_hash
    )
    if records and records[-1].hash != last_hash:
        records[-1] = records[-1]._replace(hash=last_hash)
    return records


def chain_events(
    events: Iterable[tuple[int, str, Any]], prev_hash: str = GENESIS_HASH
) -> list[EventRecord]:
    """``events`` as records hashed in a chain that continues from ``prev_hash``."""
    records = []
    for seq, type, payload in events:
        prev_hash = event_hash(prev_hash, seq, type, payload)
        records.append(EventRecord(seq, type, payload, prev_hash))
    return records
