import hashlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.events import (
    GENESIS_HASH,
    EventRecord,
    EventType,
    canonical_json,
    chain_events,
    event_hash,
    stored_payload,
    stored_payload_json,
)


def test_canonical_json_sorts_keys_drops_spaces_and_keeps_unicode_as_is():
    value = {"b": [1, 2.5, None, True], "a": {"z": "é", "y": "\u2660"}}

    assert canonical_json(value) == '{"a":{"y":"\u2660","z":"é"},"b":[1,2.5,null,true]}'


def test_canonical_json_is_what_json_dumps_gives_with_the_same_settings():
    value = {
        "seat": 1,
        "action": {"expose": ["TH", "TD"]},
        "think_us": 812,
        "x": [{"b": 1, "a": -0.5}],
    }

    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_json(value) == expected


@pytest.mark.parametrize("value", [float("nan"), float("inf"), {"x": object()}])
def test_canonical_json_refuses_what_json_cannot_carry_exactly(value):
    with pytest.raises((ValueError, TypeError)):
        canonical_json(value)


def test_an_event_hash_is_sha256_of_the_previous_hash_and_the_canonical_event():
    payload = {"seat": 0, "action": {"bar": "QS"}, "think_us": 812}
    text = (
        GENESIS_HASH
        + '{"payload":{"action":{"bar":"QS"},"seat":0,"think_us":812},"seq":0,"type":"decision"}'
    )

    assert GENESIS_HASH == "0" * 64
    assert (
        event_hash(GENESIS_HASH, 0, "decision", payload)
        == hashlib.sha256(text.encode()).hexdigest()
    )


@pytest.mark.parametrize(
    "changed",
    [
        ("1" * 64, 0, "decision", {"seat": 0}),
        ("0" * 64, 1, "decision", {"seat": 0}),
        ("0" * 64, 0, "forfeit", {"seat": 0}),
        ("0" * 64, 0, "decision", {"seat": 1}),
    ],
)
def test_any_part_of_an_event_or_its_predecessor_changes_its_hash(changed):
    assert event_hash(*changed) != event_hash("0" * 64, 0, "decision", {"seat": 0})


def test_the_order_of_payload_keys_does_not_change_the_hash():
    assert event_hash(GENESIS_HASH, 3, "forfeit", {"seat": 1, "reason": "crash"}) == event_hash(
        GENESIS_HASH, 3, "forfeit", {"reason": "crash", "seat": 1}
    )


def test_chain_events_links_each_hash_to_the_one_before():
    records = chain_events(
        [(0, "match_started", {"a": 1}), (1, "shuffle", {"k": 0}), (2, "decision", {})]
    )

    assert records[0] == EventRecord(
        0, "match_started", {"a": 1}, event_hash(GENESIS_HASH, 0, "match_started", {"a": 1})
    )
    assert records[1].hash == event_hash(records[0].hash, 1, "shuffle", {"k": 0})
    assert records[2].hash == event_hash(records[1].hash, 2, "decision", {})


def test_chain_events_can_continue_a_stored_chain():
    whole = chain_events([(0, "match_started", {}), (1, "shuffle", {"k": 0})])

    assert chain_events([(1, "shuffle", {"k": 0})], whole[0].hash) == whole[1:]


@pytest.mark.parametrize(
    ("seq", "kind", "payload"),
    [
        (0, "match_started", {"game": "snag", "options": {"decks": [["AS", "KS"]]}}),
        (12, "decision", {"seat": 1, "action": {"play": "7H"}, "think_us": 0}),
        (7, 'ünïcode "quoted"', ["é", 1.5, None]),
        (True, "decision", {}),
    ],
)
def test_every_event_hashes_the_canonical_json_of_seq_type_and_payload(seq, kind, payload):
    text = GENESIS_HASH + canonical_json({"seq": seq, "type": kind, "payload": payload})

    assert event_hash(GENESIS_HASH, seq, kind, payload) == hashlib.sha256(text.encode()).hexdigest()


json_scalars = st.one_of(
    st.text(),
    st.integers(),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
)
decision_like = st.fixed_dictionaries(
    {
        "seat": st.one_of(st.integers(), st.booleans(), st.text()),
        "action": st.dictionaries(st.text(), json_scalars, min_size=0, max_size=2),
        "think_us": st.one_of(
            st.integers(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False)
        ),
    }
)


@given(payload=decision_like, seq=st.integers(0, 10**6))
def test_a_decision_shaped_payload_hashes_its_canonical_json_whatever_its_values(payload, seq):
    # Decisions of the usual shape take a path of their own (see ``_payload_json``).
    text = GENESIS_HASH + json.dumps(
        {"seq": seq, "type": "decision", "payload": payload},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )

    assert event_hash(GENESIS_HASH, seq, "decision", payload) == (
        hashlib.sha256(text.encode()).hexdigest()
    )


def test_an_event_type_given_as_its_enum_hashes_as_its_string():
    payload = {"seat": 0, "action": {"play": "7H"}, "think_us": 5}

    assert event_hash(GENESIS_HASH, 4, EventType.DECISION, payload) == event_hash(
        GENESIS_HASH, 4, "decision", payload
    )


# The stored form of a payload. ----------------------------------------------------------------

STORED_FORMS = [
    ({"seat": 1, "action": {"play": "7H"}, "think_us": 812}, '[1,"play","7H",812]'),
    ({"think_us": 0, "action": {"take": "AS"}, "seat": 0}, '[0,"take","AS",0]'),
    ({"k": 3, "order": ["2S", "3S", "AH"]}, '[3,"2S3SAH"]'),
    ({"k": 0, "order": []}, '[0,""]'),
]
AS_THEY_ARE = [
    {"seat": 0, "action": {"expose": ["TH", "TD"]}, "think_us": 5},
    {"seat": True, "action": {"play": "7H"}, "think_us": 5},
    {"seat": 0, "action": {"play": "7H"}, "think_us": 5, "extra": 1},
    {"k": 1, "order": ["10H"]},
    {"winner": 0, "scores": [50, 12], "reason": "played"},
    {"seat": 1, "reason": "timeout", "detail": "no reply"},
]


@pytest.mark.parametrize(("payload", "stored"), STORED_FORMS)
def test_decisions_and_shuffles_are_stored_packed_and_read_back_whole(payload, stored):
    assert stored_payload_json(payload) == stored
    assert stored_payload(json.loads(stored)) == payload


@pytest.mark.parametrize("payload", AS_THEY_ARE)
def test_every_other_payload_is_stored_as_its_canonical_json(payload):
    assert stored_payload_json(payload) == canonical_json(payload)
    assert stored_payload(json.loads(stored_payload_json(payload))) == payload


def test_an_array_of_another_length_is_no_stored_payload():
    with pytest.raises(ValueError, match="not a stored payload"):
        stored_payload([1, 2, 3])
