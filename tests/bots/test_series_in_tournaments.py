"""The twin test: no bot process sees a deal from both seats, over a tournament, a
challenge and a version test played in series (sandboxed uploaded bots).

Every ``start`` each bot process received is noted by the bot on its stderr (a token of its
process, its seat, its place in the series); read back from the matches' stored stderr, no
process may have seen one deal (a set's seed) twice. A version-1 bot plays beside series
bots in the same tournament.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from arena.bot_code import BotCode, store_code
from bots.models import Bot, BotVersion
from ladder.services import challenge_create, version_test_create
from matches.models import Match, MatchSeat
from tests.tournaments.conftest import pending_match_ids
from tournaments.models import Tournament
from tournaments.series import match_series
from tournaments.services import round_robin_create
from tournaments.sprt import SprtParameters
from tournaments.tasks import tournament_match_play, tournament_series_play

RECORDER = (Path(__file__).parents[1] / "arena" / "honest" / "series_recorder.py").read_text()
START = re.compile(r"start process=(\w+) seat=(\d) match=(\d+)/(\d+)")


def uploaded(owner: User, name: str, *, series: bool, store) -> BotVersion:
    source = RECORDER.replace("args = sys.argv[1:]", f"args = {['series'] if series else []!r}")
    code = BotCode({"bot.py": source.encode()})
    store_code(code, store)
    bot = Bot.objects.create(owner=owner, game="snag", name=name)
    return BotVersion.objects.create(
        bot=bot, number=1, content_hash=code.content_hash, size=code.size, status="ready"
    )


def play_in_series(tournament: Tournament, limit: int = 200) -> None:
    """Play what is pending as workers would: one task per series."""
    for _ in range(limit):
        pending = pending_match_ids(tournament)
        if not pending:
            return
        for series in match_series(match_ids=pending):
            if len(series) == 1:
                tournament_match_play(series[0])
            else:
                tournament_series_play(series)


def starts_by_process(tournaments: list[Tournament]) -> dict[str, list[tuple[int, int, int]]]:
    """Process token -> ``(version, match seed, seat)`` of every start it received."""
    seen: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    seats = MatchSeat.objects.filter(
        match__tournament_match__tournament__in=tournaments
    ).select_related("match", "stderr")
    for seat in seats:
        for process, noted_seat, _, _ in START.findall(seat.stderr.text):
            assert int(noted_seat) == seat.seat
            seen[process].append((seat.version_id, seat.match.seed, seat.seat))
    return seen


@pytest.mark.sandbox
def test_no_process_sees_a_deal_twice_in_a_tournament_a_challenge_and_a_version_test(
    db, sandbox, code_store
):
    alice = User.objects.create_user("alice", password="x")
    v1 = uploaded(alice, "v1", series=False, store=code_store)
    first = uploaded(alice, "first", series=True, store=code_store)
    second = uploaded(alice, "second", series=True, store=code_store)
    tournament = round_robin_create(
        name="rr",
        game_id="snag",
        versions=[v1, first, second],
        options={"target": 5},
        sets_per_pair=3,
        secret=7,
        enqueue=False,
    )
    challenge = challenge_create(user=alice, version=first, opponent=second, sets=4)
    test = version_test_create(
        user=alice,
        candidate=first,
        baseline=v1,
        parameters=SprtParameters(elo0=0, elo1=5, alpha=0.05, beta=0.05, max_sets=4),
    )
    played = [tournament, challenge, test]
    for one in played:
        play_in_series(one)
        one.refresh_from_db()
        assert one.status == Tournament.Status.FINISHED, one

    seen = starts_by_process(played)
    matches = Match.objects.filter(tournament_match__tournament__in=played)
    assert matches.exclude(status=Match.Status.FINISHED).count() == 0
    # Every seat of every match was started and noted once.
    assert sum(len(starts) for starts in seen.values()) == 2 * matches.count()
    for process, starts in seen.items():
        deals = [seed for _, seed, _ in starts]
        assert len(deals) == len(set(deals)), f"process {process} saw a deal twice: {starts}"
        assert len({(version, seat) for version, _, seat in starts}) == 1
    # The series bots played series; the version-1 bot one match per process.
    by_version = defaultdict(list)
    for starts in seen.values():
        by_version[starts[0][0]].append(len(starts))
    assert set(by_version[v1.pk]) == {1}
    assert max(by_version[first.pk]) >= 3
    assert max(by_version[second.pk]) >= 3
