"""A seat's stderr is stored whatever the bot wrote, and storing it never costs the other
seat's stderr, the match's result or its set's settling (``seat_stderr_store``).

On PostgreSQL (the services pass) a NUL reaching the database is refused there for real;
on SQLite it would be kept, which is why the text is escaped before either sees it.
"""

from __future__ import annotations

import pytest
from django.db import DataError, connection

from arena.runner import BotProcess
from matches import services
from matches.models import Match, SeatStderr
from matches.selectors import seat_stderr
from tests.tournaments.conftest import play_all, start, strategy_bots, tournament_with
from tournaments.models import DuplicateSet, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def match():
    first, second = strategy_bots(2)
    match = services.match_create(game_id="snag", seed=7, options={})
    services.match_seats_create(match=match, versions=[first, second])
    return match


def stored(match: Match) -> list[str]:
    return [seat_stderr(seat=seat) for seat in match.seats.order_by("seat")]


def test_nul_and_lone_surrogates_are_stored_escaped_where_they_stood(match):
    services.seat_stderr_store(
        match=match, stderr=["PATH=/bin\0LANG=C\0", "half a pair \udc80, a NUL \0."]
    )

    assert stored(match) == ["PATH=/bin\\x00LANG=C\\x00", "half a pair \\udc80, a NUL \\x00."]


def test_plain_stderr_is_stored_as_it_is_and_an_empty_one_not_at_all(match):
    services.seat_stderr_store(match=match, stderr=["", "é\ttab \\x00 \ufffd\n"])

    assert stored(match) == ["", "é\ttab \\x00 \ufffd\n"]
    assert SeatStderr.objects.filter(seat__match=match).count() == 1


def failing_for(monkeypatch, refused: str) -> None:
    """The database refuses any stderr row whose text contains ``refused``."""
    bulk_create, create = SeatStderr.objects.bulk_create, SeatStderr.objects.create

    def refusing_bulk(rows, *args, **kwargs):
        rows = list(rows)
        if any(refused in row.text for row in rows):
            raise DataError("refused")
        return bulk_create(rows, *args, **kwargs)

    def refusing(**fields):
        if refused in fields["text"]:
            raise DataError("refused")
        return create(**fields)

    monkeypatch.setattr(SeatStderr.objects, "bulk_create", refusing_bulk)
    monkeypatch.setattr(SeatStderr.objects, "create", refusing)


def test_a_seat_that_cannot_be_stored_gets_a_note_and_the_other_seat_is_kept(match, monkeypatch):
    failing_for(monkeypatch, "unstorable")

    services.seat_stderr_store(match=match, stderr=["unstorable text", "the honest seat's notes"])

    assert stored(match) == [
        "[15 characters of stderr could not be stored: DataError]",
        "the honest seat's notes",
    ]


def test_when_nothing_can_be_stored_nothing_is_raised(match, monkeypatch):
    failing_for(monkeypatch, "")

    services.seat_stderr_store(match=match, stderr=["one", "two"])

    assert stored(match) == ["", ""]


def test_storing_a_matchs_stderr_twice_keeps_the_first_and_raises_nothing(match):
    services.seat_stderr_store(match=match, stderr=["first", ""])
    services.seat_stderr_store(match=match, stderr=["again", "second"])

    assert stored(match) == ["first", "second"]


def test_a_nul_the_database_refuses_for_real_costs_only_its_own_seat(match, monkeypatch):
    """Were a NUL to reach PostgreSQL (the escaping skipped), it refuses the row inside the
    seat's savepoint: the other seat is stored, the refused one gets its note."""
    monkeypatch.setattr(services, "storable_text", lambda text: text)

    services.seat_stderr_store(match=match, stderr=["a\0b", "plain"])

    if connection.vendor == "postgresql":
        assert stored(match) == ["[3 characters of stderr could not be stored: DataError]", "plain"]
    else:
        assert stored(match) == ["a\0b", "plain"], "SQLite keeps a NUL as it is"
    assert Match.objects.filter(pk=match.pk).exists(), "the test's transaction is intact"


def test_a_set_settles_in_its_task_though_a_seats_stderr_cannot_be_stored(monkeypatch):
    """The stderr is stored after the result is committed, and its failure stops nothing:
    every set of the tournament settles as its matches are played, the other seat's stderr
    kept."""
    monkeypatch.setattr(BotProcess, "stderr_capture", lambda self: "written\0 by the bot \udc80")
    create = SeatStderr.objects.create

    def refusing_seat_0(**fields):
        if fields["seat"].seat == 0:
            raise DataError("refused")
        return create(**fields)

    monkeypatch.setattr(SeatStderr.objects, "bulk_create", _refused)
    monkeypatch.setattr(SeatStderr.objects, "create", refusing_seat_0)
    tournament = start(tournament_with(strategy_bots(2), sets_per_pair=2))

    tournament = play_all(tournament)

    assert tournament.status == Tournament.Status.FINISHED
    sets = DuplicateSet.objects.filter(pairing__tournament=tournament)
    assert [s.status for s in sets] == [DuplicateSet.Status.FINISHED] * 2
    matches = Match.objects.filter(tournament_match__tournament=tournament)
    assert {match.status for match in matches} == {Match.Status.FINISHED}
    rows = SeatStderr.objects.filter(seat__match__in=matches)
    assert {row.seat.seat for row in rows} == {1}
    assert [row.text for row in rows] == ["written\\x00 by the bot \\udc80"] * len(matches)


def _refused(*args, **kwargs):
    raise DataError("refused")
