"""The observation docs name every field a bot is sent.

For each game, random matches are played to the end and every field of every observation
is collected: the top-level fields and the fields of the dicts inside them (``contract``,
``last_deal``, a trick record, ...). Each must appear, in backticks, in the game's
Observation section (Snag's: the Snag observation of the bot protocol), so a field added or
renamed in an engine fails here until the docs say what it is.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from games.rules import GAMES, get_game

DOCS = Path(__file__).parents[2] / "docs"
SECTIONS = {game_id: (DOCS / "rules" / f"{game_id}.md", "## Observation") for game_id in GAMES}
SECTIONS["snag"] = (DOCS / "bot-protocol.md", "## The Snag observation")
#: Keys of a legal action or a history entry are action shapes, documented with the actions.
ACTION_FIELDS = {"legal_actions", "history", "options"}


def documented_names(game_id: str) -> set[str]:
    path, heading = SECTIONS[game_id]
    text = path.read_text()
    section = text[text.index(heading) :]
    section = section[: section.find("\n## ", len(heading))]
    code = " ".join(re.findall(r"`([^`]+)`", section))
    return set(re.findall(r"[a-z_]+", code))


def observed_fields(game_id: str, matches: int = 3) -> set[str]:
    game, fields = get_game(game_id), set()
    for seed in range(matches):
        rng, state = random.Random(seed), game.new_match(seed)
        while True:
            for seat in (0, 1):
                fields |= _fields(game.observation(state, seat))
            if state.to_play is None:
                break
            state = game.apply(state, rng.choice(state.legal_actions()))
    return fields


def _fields(value: Any, name: str = "") -> set[str]:
    if name in ACTION_FIELDS:
        return {name}
    if type(value) is list:
        return set().union(*(_fields(item, name) for item in value)) | ({name} - {""})
    if type(value) is not dict:
        return {name} - {""}
    nested = (_fields(item, key) for key, item in value.items())
    return set().union(*nested) | ({name} - {""})


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_observation_field_is_documented(game_id):
    missing = observed_fields(game_id) - documented_names(game_id)
    assert not missing, f"{game_id}: fields a bot is sent but the docs do not name: {missing}"


def test_the_protocol_links_every_game_s_observation():
    protocol = (DOCS / "bot-protocol.md").read_text()
    for game_id in GAMES:
        assert f"(rules/{game_id}.md#observation)" in protocol
        assert "## Observation" in (DOCS / "rules" / f"{game_id}.md").read_text()
