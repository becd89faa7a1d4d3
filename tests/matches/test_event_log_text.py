"""No text of a bot reaches the event log in a form a database refuses.

A forfeit's detail quotes the bot's bad reply or illegal action: as ASCII JSON (the illegal
action, ``arena.referee._json_excerpt``) or Python's ``repr`` (a bad reply,
``arena.protocol._excerpt``), both of which write a NUL and a lone surrogate as escapes. So
the log holds neither a NUL (PostgreSQL refuses it in text, ``jsonb`` refuses its
``\\u0000`` escape: the log is stored compressed, but a reader may load it into either) nor
a lone surrogate (which UTF-8 cannot encode, nor so the chain hash). Stored and read back on
PostgreSQL in the services pass.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from arena.builtin.strategies import load
from arena.referee import Limits, StrategyPlayer, referee_match
from games.events import stored_payload_json
from games.rules import get_game
from matches.selectors import match_event_records, match_forfeits
from matches.services import match_create, match_events_append

SNAG = get_game("snag")

HOSTILE_ACTIONS = {
    "illegal value": {"play": "\0\udc80"},
    "illegal key": {"\0\udcff": "AS"},
    "not an object": "\0 \udc80",
    "a list of them": ["\0", "\ud800", {"\0": "\udfff"}],
}


@pytest.mark.django_db
@pytest.mark.parametrize("action", HOSTILE_ACTIONS.values(), ids=HOSTILE_ACTIONS)
def test_a_forfeit_quoting_nul_and_surrogates_is_stored_and_read_back_as_it_was(action):
    def hostile(observation: dict, rng: Any) -> Any:
        return action

    events: list[tuple[str, dict[str, Any]]] = []
    players = [StrategyPlayer(hostile), StrategyPlayer(load("random"), 1)]
    state = SNAG.new_match(5, {})
    result = referee_match(
        SNAG, state, players, limits=Limits(1.0, 5.0), emit=lambda *event: events.append(event)
    )

    assert result.forfeit is not None and result.forfeit.seat == 0
    detail = result.forfeit.detail
    assert "\0" not in detail and detail.isascii(), detail
    for _, payload in events:
        text = stored_payload_json(payload)
        assert "\0" not in text
        text.encode("utf-8")
        assert all(storable(string) for string in strings(json.loads(text)))

    match = match_create(game_id="snag", seed=5, options={})
    match_events_append(match=match, events=[(seq, *event) for seq, event in enumerate(events)])
    [stored] = [record for record in match_event_records(match=match) if record.type == "forfeit"]
    assert stored.payload["detail"] == detail
    assert match_forfeits(match_ids=[match.pk])[match.pk]["detail"] == detail


def strings(value: Any) -> Iterator[str]:
    """Every string of a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def storable(text: str) -> bool:
    return "\0" not in text and not any(0xD800 <= ord(char) <= 0xDFFF for char in text)
