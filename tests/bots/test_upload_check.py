"""The upload check plays what a new version's first ladder pairing plays: duplicate sets on
fresh secret deals against a built-in bot of the ladder drawn at random, as many as a
ladder pairing's, each seating a series of its own."""

from __future__ import annotations

import functools
import random
import re
from pathlib import Path

import pytest

from arena.runner import BuiltinLauncher, ScriptLauncher
from bots.models import Bot, BotVersion
from bots.services import check
from bots.services.bots import version_watch_mark
from bots.services.check import check_opponents, check_plan, smoke_test
from games.rules import get_game
from games.rules.decks import MAX_SEED
from ladder.services import ladder_for, ladder_tick
from tests.tournaments.conftest import pending_match_ids
from tournaments.series import match_series
from tournaments.tasks import tournament_series_play

from .test_api import client_for, upload_and_check
from .uploads import HAND_NOTING_BOT, LATE_FORFEIT_BOT

HONEST = Path(__file__).parents[1] / "arena" / "honest"
SNAG = get_game("snag")


def recorder(*args: str) -> ScriptLauncher:
    return ScriptLauncher(HONEST / "series_recorder.py", args)


@pytest.fixture
def alices_bot(alice):
    return Bot.objects.create(owner=alice, game="snag", name="alices-bot")


@pytest.fixture
def seeded_draw(monkeypatch):
    """The check's secret randomness replaced by a seeded one, for a repeatable test."""
    monkeypatch.setattr(check, "_draw", random.Random(20260401))


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


def test_the_check_log_heads_each_match_with_its_seat_opponent_and_result_quiet_bot_or_not(
    settings, seeded_draw
):
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 2
    plan = check_plan("snag", opponents=["snag_heuristic"])
    heading = re.compile(
        r"^== check match (\d) of 4: set (\d), your bot in seat (\d) against the built-in"
        r" snag_heuristic: (?:won|lost), -?\d+ points to -?\d+ ==$",
        re.MULTILINE,
    )
    quiet = smoke_test(SNAG, lambda: BuiltinLauncher("random"), plan=plan).log
    chatty = smoke_test(SNAG, lambda: recorder("series"), plan=plan).log

    for log in (quiet, chatty):
        assert heading.findall(log) == [
            ("1", "1", "0"),
            ("2", "2", "0"),
            ("3", "1", "1"),
            ("4", "2", "1"),
        ]
    assert quiet.count("(nothing on stderr)") == 4
    assert "(nothing on stderr)" not in chatty and chatty.count("start process=") == 4


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


# The first ladder matches of a new version are watched as its check is.


@pytest.mark.sandbox
def test_a_bot_that_passes_a_shorter_check_and_forfeits_its_third_ladder_match_is_marked(
    sandbox,
    alices_bot,
    alice,
    bob,
    code_store,
    builtin_snag_versions,
    django_capture_on_commit_callbacks,
    settings,
    client,
):
    # Checked as a pairing of two sets was: it behaves in both matches of each seating.
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 2
    capture = django_capture_on_commit_callbacks
    body = upload_and_check(client_for(alice), alices_bot, "bot.py", LATE_FORFEIT_BOT, capture)
    assert body["status"] == "ready" and body["watch_note"] == ""

    # On the ladder a pairing plays three, its first seatings first (the sealing rule): its
    # first seating's third match, the pairing's third played, is lost.
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 3
    settings.BAIZE_LADDER_SETS_IN_FLIGHT = 10
    Bot.objects.filter(game="snag", name="random").update(on_ladder=False)
    assert ladder_tick() == 1
    with capture(execute=True):
        for series in match_series(match_ids=pending_match_ids(ladder_for(game_id="snag"))):
            tournament_series_play(series)

    version = BotVersion.objects.get(bot=alices_bot, number=1)
    assert version.watch_note.startswith("forfeited its ladder match 3 of 12 watched (match ")
    assert "illegal_action in seat" in version.watch_note
    assert '{"play":"1X"} is not legal here' in version.watch_note
    # Everyone sees the mark: in the version's API and on the bot page.
    shown = client_for(bob).get(f"/api/bots/{alices_bot.pk}/versions/1/").json()
    assert shown["watch_note"] == version.watch_note
    page = client.get(f"/bots/{alices_bot.pk}/").content.decode()
    assert "watched" in page and "forfeited its ladder match 3 of 12 watched" in page


@pytest.mark.django_db
def test_only_a_forfeit_among_the_first_watched_ladder_matches_marks_a_version_once(
    builtin_snag_versions, settings
):
    settings.BAIZE_WATCHED_MATCHES = 12
    version = builtin_snag_versions[0]
    mark = functools.partial(version_watch_mark, version_id=version.pk, match_id=7)

    assert not mark(ladder_match=13, what="crash in seat 0: gone")
    assert BotVersion.objects.get(pk=version.pk).watch_note == ""
    assert mark(ladder_match=12, what="timeout in seat 1: slow")
    assert not mark(ladder_match=5, what="crash in seat 0: gone"), "the first mark stands"
    assert BotVersion.objects.get(pk=version.pk).watch_note == (
        "forfeited its ladder match 12 of 12 watched (match 7): timeout in seat 1: slow"
    )
