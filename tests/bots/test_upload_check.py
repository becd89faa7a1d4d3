"""The upload check plays what a new version's first ladder pairing plays: duplicate sets on
fresh secret deals against a built-in bot of the ladder drawn at random, as many as a
ladder pairing's, each seating a series of its own."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from bots import uploads
from bots.models import Bot, BotVersion
from bots.runner import ScriptLauncher
from bots.uploads import check_opponents, check_plan, smoke_test
from games.rules import get_game
from games.rules.decks import MAX_SEED

from .test_api import client_for, upload_and_check
from .uploads import HAND_NOTING_BOT, LATE_FORFEIT_BOT

HONEST = Path(__file__).parent / "honest"
SNAG = get_game("snag")


def recorder(*args: str) -> ScriptLauncher:
    return ScriptLauncher(HONEST / "series_recorder.py", args)


@pytest.fixture
def alices_bot(alice):
    return Bot.objects.create(owner=alice, game="snag", name="alices-bot")


@pytest.fixture
def seeded_draw(monkeypatch):
    """The check's secret randomness replaced by a seeded one, for a repeatable test."""
    monkeypatch.setattr(uploads, "_draw", random.Random(20260401))


class SpiedGame:
    """Snag, noting the seed and options of every match the check starts."""

    def __init__(self) -> None:
        self.started: list[tuple[int, dict]] = []

    def __getattr__(self, name: str):
        return getattr(SNAG, name)

    def new_match(self, seed: int, options: dict):
        self.started.append((seed, dict(options)))
        return SNAG.new_match(seed, options)


def test_the_checks_deals_are_fresh_secret_seeds_that_differ_from_one_check_to_the_next(
    settings,
):
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 3
    first, second = (check_plan("snag", opponents=["random"]) for _ in range(2))

    assert len(first.seeds) == len(second.seeds) == 3
    assert len(set(first.seeds)) == 3, "one deal a set"
    assert set(first.seeds).isdisjoint(second.seeds)
    assert all(0 <= seed <= MAX_SEED for seed in first.seeds + second.seeds)
    # The ladder's options: every option at its default, not the shortest match.
    assert first.options == {}


def test_each_deal_of_the_check_is_played_from_both_seats_the_second_seating_after_the_first(
    settings, seeded_draw
):
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 3
    game = SpiedGame()
    plan = check_plan("snag", opponents=["random"])
    check = smoke_test(game, lambda: recorder("series"), plan=plan)

    assert check.problem == "" and check.plays_series
    assert game.started == [(seed, {}) for seed in plan.seeds * 2]
    # Seat 0 for the three deals in one process, then seat 1 in another, told 3 matches.
    noted = re.findall(r"start process=(\w+) seat=(\d) match=(\d)/(\d)", check.log)
    assert [(s, m, n) for _, s, m, n in noted] == [
        (str(seat), str(match), "3") for seat in (0, 1) for match in (1, 2, 3)
    ]
    assert len({process for process, *_ in noted}) == 2


@pytest.mark.django_db
def test_the_checks_opponent_is_drawn_among_the_built_in_bots_on_the_ladder(
    builtin_snag_versions, seeded_draw
):
    assert check_opponents("snag") == ["random", "snag_heuristic"]
    drawn = {check_plan("snag").opponent for _ in range(40)}
    assert drawn == {"random", "snag_heuristic"}, "not always the random bot"

    Bot.objects.filter(game="snag", name="random").update(on_ladder=False)
    assert {check_plan("snag").opponent for _ in range(20)} == {"snag_heuristic"}


@pytest.mark.django_db
def test_without_built_in_bots_on_the_ladder_the_check_draws_among_the_games_built_ins():
    assert check_opponents("snag") == ["random", "snag_heuristic"]
    assert check_opponents("jam") == ["jam_heuristic", "random"]


def test_a_bot_that_breaks_from_its_third_match_of_a_series_is_turned_away(settings):
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 3
    for launcher in (recorder("series", "crash", "3"), recorder("crash", "3")):
        check = smoke_test(SNAG, lambda launcher=launcher: launcher)

        assert check.problem.startswith("in seat 0, your bot forfeited (crash)"), check.problem
        assert "deliberate crash in match 3" in check.problem


@pytest.mark.sandbox
def test_an_upload_that_behaves_in_two_matches_and_forfeits_from_its_third_is_rejected(
    sandbox, alices_bot, alice, code_store, django_capture_on_commit_callbacks, settings
):
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 3
    capture = django_capture_on_commit_callbacks
    body = upload_and_check(client_for(alice), alices_bot, "bot.py", LATE_FORFEIT_BOT, capture)
    assert body["status"] == "rejected"
    assert body["status_reason"].startswith("in seat 0, your bot forfeited (illegal_action)")
    assert '{"play":"1X"} is not legal here' in body["status_reason"]


@pytest.mark.sandbox
def test_two_checks_of_an_upload_deal_other_cards(
    sandbox, alices_bot, alice, code_store, django_capture_on_commit_callbacks, settings
):
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 2
    client = client_for(alice)
    hands = []
    for source in (HAND_NOTING_BOT, HAND_NOTING_BOT + b"# the same bot, uploaded again\n"):
        capture = django_capture_on_commit_callbacks
        body = upload_and_check(client, alices_bot, "bot.py", source, capture)
        assert body["status"] == "ready", body["status_reason"]
        hands.append(re.findall(r"^hand (.*)$", body["check_log"], re.MULTILINE))

    assert [len(noted) for noted in hands] == [4, 4], "two sets, each from both seats"
    assert len(set(hands[0][:2])) == 2, "a deal a set"
    assert set(hands[0]).isdisjoint(hands[1]), "the second check is dealt other cards"
    assert BotVersion.objects.filter(bot=alices_bot, status="ready").count() == 2
