"""A bot writing NUL bytes and bytes that are not UTF-8 to stderr, on PostgreSQL, which
refuses a NUL in any text value (SQLite keeps it, so only this pass can see the problem).

Its upload check ends (ready, or rejected with a reason), its log stored with each NUL as
the visible ``\\x00`` (``arena.text.storable_text``); in a match, its stderr and its
opponent's are both stored and the set settles in the task that played it, not after the
tick's resend.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import connection

from arena.bot_code import BotCode, store_code
from bots.models import Bot, BotVersion
from bots.services.bots import builtin_bots_sync
from ladder.services import challenge_create
from matches.models import Match, MatchSeat
from tests.tournaments.conftest import pending_match_ids, wait_until
from tournaments.models import DuplicateSet, Tournament, TournamentMatch
from tournaments.series import match_series
from tournaments.services import round_robin_create
from tournaments.tasks import tournament_match_play, tournament_series_play

from .test_api import client_for, upload
from .test_series_in_tournaments import uploaded

HOSTILE = Path(__file__).parents[1] / "arena" / "hostile"
NUL_STDERR = (HOSTILE / "nul_stderr.py").read_bytes()
NUL_STDERR_CPP = (HOSTILE / "nul_stderr.cpp").read_bytes()

pytestmark = [
    pytest.mark.services,
    pytest.mark.sandbox,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="only PostgreSQL refuses a NUL in text; SQLite stores it as it is",
    ),
]


def assert_storable_log(text: str) -> None:
    """What the hostile bot wrote, stored: NULs shown as ``\\x00``, bad bytes as U+FFFD."""
    assert "\0" not in text
    assert "\\x00\\x00nul\\x00bytes\\x00" in text
    assert "\ufffd" in text
    assert re.search(r"^decision \d+: ", text, re.MULTILINE), text[:500]
    assert re.search(r"^end: ", text, re.MULTILINE), text[-500:]
    text.encode("utf-8")


@pytest.fixture
def alices_bot(alice):
    return Bot.objects.create(owner=alice, game="snag", name="nul-writer")


@pytest.mark.parametrize(
    ("name", "source", "runtime"),
    [("bot.py", NUL_STDERR, None), ("bot.cpp", NUL_STDERR_CPP, "cpp")],
    ids=["python", "cpp"],
)
def test_the_upload_check_of_a_bot_writing_nul_bytes_ends_and_keeps_its_log(
    name,
    source,
    runtime,
    sandbox,
    alices_bot,
    alice,
    code_store,
    builtin_snag_versions,
    django_capture_on_commit_callbacks,
    settings,
):
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 1
    client = client_for(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client, alices_bot, name, source, runtime=runtime)
    assert response.status_code == 202, response.json()
    body = client.get(f"/api/bots/{alices_bot.pk}/versions/1/").json()

    # Decided, not left pending: ready, for it plays legal Snag (before, the verdict's
    # update raised DataError and the version stayed pending, with no reason).
    assert body["status"] == "ready", body["status_reason"]
    assert_storable_log(body["check_log"])
    version = BotVersion.objects.get(bot=alices_bot, number=1)
    assert version.check_log == body["check_log"]


def play_each_series_once(tournament: Tournament) -> None:
    """Every pending match played by the tasks a worker runs, each task once: no resend."""
    for series in match_series(match_ids=pending_match_ids(tournament)):
        if len(series) == 1:
            tournament_match_play(series[0])
        else:
            tournament_series_play(series)


def hostile_version(author: User, store) -> BotVersion:
    """``nul_stderr.py``, uploaded and ready."""
    code = BotCode({"bot.py": NUL_STDERR})
    store_code(code, store)
    return BotVersion.objects.create(
        bot=Bot.objects.create(owner=author, game="snag", name="nul-writer"),
        number=1,
        content_hash=code.content_hash,
        size=code.size,
        status=BotVersion.Status.READY,
    )


def test_in_a_match_both_seats_stderr_are_stored_and_the_set_settles_at_once(
    db, sandbox, code_store
):
    author = User.objects.create_user("mallory", password="x")
    hostile = hostile_version(author, code_store)
    builtin = builtin_bots_sync(game_id="snag")[0]
    # An honest uploaded bot that writes to stderr: its notes must survive its opponent's.
    honest = uploaded(author, "honest-recorder", series=True, store=code_store)
    tournaments = [
        round_robin_create(
            name=f"nul v {opponent.bot.name}",
            game_id="snag",
            versions=[hostile, opponent],
            options={"target": 5},
            sets_per_pair=1,
            secret=11,
            enqueue=False,
        )
        for opponent in (builtin, honest)
    ]

    for tournament in tournaments:
        play_each_series_once(tournament)
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.FINISHED, tournament.status_reason
        sets = DuplicateSet.objects.filter(pairing__tournament=tournament)
        assert [s.status for s in sets] == [DuplicateSet.Status.FINISHED]

    seats = MatchSeat.objects.filter(
        match__tournament_match__tournament__in=tournaments
    ).select_related("match", "stderr", "version")
    assert {seat.match.status for seat in seats} == {Match.Status.FINISHED}
    by_version: dict[int, list[str]] = {}
    for seat in seats:
        text = getattr(seat, "stderr", None)
        by_version.setdefault(seat.version_id, []).append(text.text if text else "")
    assert len(by_version[hostile.pk]) == 4
    for text in by_version[hostile.pk]:
        assert_storable_log(text)
    # The honest bot's notes, beside the hostile bot's, in both of their matches.
    assert len(by_version[honest.pk]) == 2
    assert all("start process=" in text for text in by_version[honest.pk])
    assert by_version[builtin.pk] == ["", ""], "a built-in bot writes nothing to stderr"


#: Well under the tick's resend of a pending match (``BAIZE_MATCH_REDISPATCH_SECONDS``, 120
#: s); and the worker here runs no beat, so nothing resends anything: the tasks sent when
#: the challenge was created must play it all.
CHALLENGE_SECONDS = 90


def test_a_real_worker_plays_a_challenge_of_the_bot_to_its_end_without_a_resend(
    celery_workers, sandbox, code_store
):
    celery_workers(BAIZE_BOT_CODE_DIR=str(code_store))
    author = User.objects.create_user("mallory", password="x")
    hostile = hostile_version(author, code_store)
    opponent = builtin_bots_sync(game_id="snag")[0]
    started = time.monotonic()
    challenge = challenge_create(user=author, version=hostile, opponent=opponent, sets=2)

    def finished() -> bool:
        assert time.monotonic() - started < CHALLENGE_SECONDS, "the challenge stalled"
        return Tournament.objects.get(pk=challenge.pk).status == Tournament.Status.FINISHED

    wait_until(finished, "the challenge to finish")
    links = TournamentMatch.objects.filter(tournament=challenge).select_related("match")
    assert {link.match.status for link in links} == {Match.Status.FINISHED}
    assert all(link.replaced_at is None for link in links), "no match failed and was replaced"
    sets = DuplicateSet.objects.filter(pairing__tournament=challenge)
    assert [s.status for s in sets] == [DuplicateSet.Status.FINISHED] * 2
    seats = MatchSeat.objects.filter(match__in=[link.match for link in links], version=hostile)
    texts = [seat.stderr.text for seat in seats.select_related("stderr")]
    assert len(texts) == 4
    for text in texts:
        assert_storable_log(text)
