"""The chapters of a match: where deals and tricks start, and the score after each step."""

from __future__ import annotations

import random

import pytest

from games.rules import GAMES, get_game
from web.replays import match_timeline


def played_log(game_id: str, seed: int = 3, options=None):
    """A whole match with random legal actions, as ``(seq, type, payload, hash)`` records."""
    game, rng = get_game(game_id), random.Random(seed)
    state = game.new_match(seed, options or {})
    start = {"game": game_id, "rules_version": game.rules_version, "seed": seed}
    records = [(0, "match_started", {**start, "options": options or {}}, "")]
    states, known = [state], 0
    while True:
        records += [
            (0, "shuffle", {"k": k, "order": list(state.orders[k])}, "")
            for k in range(known, len(state.orders))
        ]
        known = len(state.orders)
        if state.to_play is None:
            return records, states
        action = rng.choice(state.legal_actions())
        records.append((0, "decision", {"seat": state.to_play, "action": action}, ""))
        state = game.apply(state, action)
        states.append(state)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_scores_follow_the_match_step_by_step(game_id):
    records, states = played_log(game_id)
    timeline = match_timeline(records)
    assert timeline.steps == len(states) - 1
    assert timeline.scores == [state.scores for state in states]


@pytest.mark.parametrize("game_id", list(GAMES))
def test_a_trick_starts_with_an_empty_table_and_a_card_to_play(game_id):
    records, states = played_log(game_id)
    game = get_game(game_id)
    for deal in match_timeline(records).deals:
        for number, trick in enumerate(deal.tricks):
            view = game.observation(states[trick.step], 0)
            assert view["tricks_played"] == number
            assert not view["trick"]


def test_a_snag_deal_has_five_tricks_of_five_decisions():
    records, _ = played_log("snag")
    timeline = match_timeline(records)
    first = timeline.deals[0]
    assert first.label == "Deal 1" and first.step == 0
    assert [trick.step for trick in first.tricks] == [0, 5, 10, 15, 20]
    assert timeline.deals[1].step == 25


def test_deals_are_named_as_each_game_names_them():
    spades, _ = played_log("spades")
    rounds, _ = played_log("rounds")
    assert match_timeline(spades).deals[1].label == "Hand 2"
    assert match_timeline(rounds).deals[5].label == "Game 2, stage 1"


def test_a_log_still_in_play_gives_the_chapters_so_far():
    records, states = played_log("snag")
    cut = [r for r in records if r[1] != "match_finished"][:40]
    timeline = match_timeline(cut)
    assert timeline.steps == sum(1 for r in cut if r[1] == "decision")
    assert timeline.scores[-1] == states[timeline.steps].scores


def test_a_log_that_stops_replaying_gives_the_chapters_up_to_there():
    records, _ = played_log("snag")
    decisions = [i for i, r in enumerate(records) if r[1] == "decision"]
    broken = list(records)
    broken[decisions[3]] = (0, "decision", {"seat": 0, "action": {"play": "XX"}}, "")
    assert match_timeline(broken).steps == 3


def test_an_empty_or_unknown_log_has_no_chapters():
    assert match_timeline([]).steps == 0
    unknown = [(0, "match_started", {"game": "bridge", "seed": 1, "options": {}}, "")]
    assert match_timeline(unknown).deals == []


def test_each_finished_rounds_stage_is_a_score_part_at_its_chapter_known_from_its_end():
    records, states = played_log("rounds", options={"target": 60})
    timeline = match_timeline(records)
    game = get_game("rounds")

    assert timeline.score_part == "stage"
    parts = game.score_parts(states[-1])
    assert [part.points for part in timeline.score_parts] == [part["points"] for part in parts]
    assert [part.label for part in timeline.score_parts][:2] == [
        "Game 1, stage 1",
        "Game 1, stage 2",
    ]
    deals = {deal.label: deal.step for deal in timeline.deals}
    for part in timeline.score_parts:
        assert part.step == deals[part.label]
        # Its points are known from the step that ended it on, not one step before.
        assert len(game.score_parts(states[part.end])) > len(game.score_parts(states[part.end - 1]))


def test_a_game_that_scores_no_parts_has_none_in_its_timeline():
    records, _ = played_log("snag")
    timeline = match_timeline(records)
    assert timeline.score_part is None and timeline.score_parts == []
