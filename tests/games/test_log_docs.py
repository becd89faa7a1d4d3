"""docs/event-log.md: its verifier and its seed code, run against real logs and the code.

The snippets are taken from the markdown as a reader would copy them, so the page cannot
drift from what the server writes.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from arena.builtin.strategies import load
from arena.referee import Limits, StrategyPlayer, referee_match
from games.events import GENESIS_HASH, chain_events, event_hash
from games.rules import GAMES, get_game
from games.rules.decks import seeded_order
from tournaments.duplicate import set_seed

DOC = Path(__file__).parents[2] / "docs" / "event-log.md"
TEXT = DOC.read_text()


def snippet_defining(name: str) -> dict[str, Any]:
    """Run the page's one python block that defines ``name``; return what it defined."""
    blocks = re.findall(r"```python\n(.*?)```", TEXT, re.DOTALL)
    (block,) = [block for block in blocks if f"\ndef {name}(" in block]
    namespace: dict[str, Any] = {}
    exec(compile(block, str(DOC), "exec"), namespace)
    return namespace


verify_chain = snippet_defining("verify_chain")["verify_chain"]
SEEDS = snippet_defining("shuffle_order")


def test_the_verifier_is_about_ten_lines_of_the_standard_library():
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", TEXT, re.DOTALL) if "verify" in b]
    imports = re.findall(r"^import (\w+)$|^from (\w+)", block, re.MULTILINE)
    assert {name for pair in imports for name in pair if name} == {"hashlib", "json"}
    body = block.split("def verify_chain", 1)[1].strip().splitlines()
    assert len(body) <= 10


def test_the_worked_example_is_the_bytes_and_the_hash_the_code_computes():
    (text,) = re.findall(r"```text\n([0-9a-f]{64}\{.*\})\n```", TEXT)
    (digest,) = re.findall(r"and its hash is `([0-9a-f]{64})`", TEXT)
    body = json.loads(text[64:])
    assert hashlib.sha256(text.encode()).hexdigest() == digest
    assert event_hash(text[:64], body["seq"], body["type"], body["payload"]) == digest
    assert f"are the {len(text)} ASCII characters" in TEXT


@pytest.fixture
def logs(played_tournament) -> list[list[dict[str, Any]]]:
    """Every match log of a finished tournament as the public API returns it, page by page."""
    api = APIClient()
    matches = api.get(f"/api/tournaments/{played_tournament.pk}/matches/?limit=100").json()
    return [events_of(api, match["id"]) for match in matches["results"]]


def events_of(api: APIClient, match_id: int) -> list[dict[str, Any]]:
    events, url = [], f"/api/matches/{match_id}/events/?limit=40"
    while url:
        page = api.get(url).json()
        events += page["results"]
        url = page["next"]
    return events


@pytest.mark.django_db
def test_the_documented_verifier_accepts_every_real_log(logs):
    assert len(logs) >= 2
    for events in logs:
        assert events[0]["type"] == "match_started" and events[-1]["type"] == "match_finished"
        assert len(events) > 40  # more than one page
        assert verify_chain(events)


def tampered(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """One log changed in each of the ways a forger might try."""
    decision = next(i for i, event in enumerate(events) if event["type"] == "decision")
    shuffle = next(i for i, event in enumerate(events) if event["type"] == "shuffle")

    def changed(index: int, change) -> list[dict[str, Any]]:
        copied = copy.deepcopy(events)
        change(copied[index])
        return copied

    return {
        "think time": changed(
            decision, lambda e: e["payload"].update(think_us=e["payload"]["think_us"] + 1)
        ),
        "seat": changed(decision, lambda e: e["payload"].update(seat=1 - e["payload"]["seat"])),
        "card order": changed(shuffle, lambda e: e["payload"]["order"].reverse()),
        "type": changed(decision, lambda e: e.update(type="forfeit")),
        "hash": changed(decision, lambda e: e.update(hash="0" * 64)),
        "winner": changed(-1, lambda e: e["payload"].update(winner=1 - e["payload"]["winner"])),
        "removed": events[:decision] + events[decision + 1 :],
        "swapped": [
            *events[:decision],
            events[decision + 1],
            events[decision],
            *events[decision + 2 :],
        ],
        "renumbered": changed(decision, lambda e: e.update(seq=e["seq"] + 1)),
    }


@pytest.mark.django_db
def test_the_documented_verifier_rejects_a_real_log_tampered_with_in_any_way(logs):
    for name, events in tampered(logs[0]).items():
        assert not verify_chain(events), name


def test_the_verifier_agrees_with_the_code_on_text_outside_ascii_and_on_a_forfeit():
    def crash(observation: dict, rng: Any) -> dict:
        raise RuntimeError("secret")

    game = get_game("snag")
    emitted: list[tuple[str, Any]] = [
        ("match_started", {"game": "snag", "players": [{"seat": 0, "bot": "Åsa/bøt ✓"}]})
    ]
    referee_match(
        game,
        game.new_match(5, {"target": 5}),
        [StrategyPlayer(load("random"), 1), StrategyPlayer(crash)],
        limits=Limits(decision_seconds=5),
        emit=lambda kind, payload: emitted.append((kind, payload)),
    )
    records = chain_events((seq, kind, payload) for seq, (kind, payload) in enumerate(emitted))
    events = json.loads(json.dumps([record._asdict() for record in records]))
    assert [event["type"] for event in events[-2:]] == ["forfeit", "match_finished"]
    assert verify_chain(events)
    events[0]["payload"]["players"][0]["bot"] = "Asa/bot ✓"
    assert not verify_chain(events)


def test_an_empty_log_chains_from_the_genesis_hash():
    assert verify_chain([])
    assert GENESIS_HASH == "0" * 64 and '"0" * 64' in TEXT


@pytest.mark.parametrize("key", ["r1t1/1", "r12t3/2", "W1-2/1", "L3-1/4", "GF2/1"])
@pytest.mark.parametrize("tournament_seed", ["42", "9f" * 32, "ünïcode"])
def test_the_documented_set_seed_is_the_codes(tournament_seed, key):
    assert SEEDS["set_seed"](tournament_seed, key) == set_seed(tournament_seed, key)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_documented_reference_deck_and_shuffle_are_the_codes(game_id):
    deck = get_game(game_id).deck
    ranks = "9TJQKA" if game_id == "exposure" else "23456789TJQKA"
    assert tuple(SEEDS["reference_deck"](ranks)) == tuple(deck)
    for seed in (0, 1, 2**63 - 1, 1066361513900800248):
        for k in range(4):
            assert tuple(SEEDS["shuffle_order"](list(deck), seed, k)) == seeded_order(deck, seed, k)


@pytest.mark.django_db
def test_a_finished_tournaments_seeds_and_shuffles_follow_the_page(played_tournament, logs):
    api = APIClient()
    tournament = api.get(f"/api/tournaments/{played_tournament.pk}/").json()
    seed = tournament["secret"]
    assert hashlib.sha256(seed.encode()).hexdigest() == tournament["secret_sha256"]
    pairings = api.get(f"/api/tournaments/{played_tournament.pk}/pairings/?limit=100").json()
    set_seeds = {
        s["seed"]
        for pairing in pairings["results"]
        for s in pairing["sets"]
        if s["seed"] == SEEDS["set_seed"](seed, f"{pairing['key']}/{s['number']}")
    }
    assert len(set_seeds) == sum(len(p["sets"]) for p in pairings["results"]) > 0
    deck = SEEDS["reference_deck"]()
    for events in logs:
        match_seed = events[0]["payload"]["seed"]
        assert match_seed in set_seeds
        shuffles = [event["payload"] for event in events if event["type"] == "shuffle"]
        assert shuffles
        for shuffle in shuffles:
            assert shuffle["order"] == SEEDS["shuffle_order"](deck, match_seed, shuffle["k"])
