"""Matches whose worker died: the lease runs out, the tick replaces them, the logs stay whole.

Decision (documented in ``tournaments.services.scheduling``): the event log is append-only, so the
partial log of a match whose worker died is kept as it is; the match is marked failed with
the reason on its ``TournamentMatch``, and a fresh match with the same seed and seats takes
its place in the duplicate set. Every match is logged exactly once.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from arena import referee
from games.events import EventType
from games.rules import get_game
from matches.models import Match, SeatStderr
from matches.play import match_play
from matches.selectors import match_event_count, match_event_records, match_replay
from matches.services import (
    MatchEventWriter,
    MatchLeaseLost,
    match_event_writer,
    match_lease_expire,
    match_lease_renew,
)
from tournaments import services
from tournaments.models import DuplicateSet, ManualChange, TournamentMatch
from tournaments.ratings.models import RatingUpdate
from tournaments.services.scheduling import duplicate_set_settle, tournament_matches_held
from tournaments.tick import tournaments_tick

from .conftest import current_matches, play_all, start, strategy_bots, tournament_with

pytestmark = pytest.mark.django_db

DEAD_WORKER = "dead-host:4242"


def die_mid_match(link: TournamentMatch, *, lease_left: timedelta) -> Match:
    """A worker claims the match, logs its start and first shuffle, then stops for good."""
    now = timezone.now()
    Match.objects.filter(pk=link.match_id).update(
        status=Match.Status.RUNNING,
        claimed_by=DEAD_WORKER,
        started_at=now - timedelta(minutes=5),
        lease_expires_at=now + lease_left,
    )
    match = Match.objects.get(pk=link.match_id)
    players = [{"seat": seat, "bot": "x", "version_id": 0, "content_hash": ""} for seat in (0, 1)]
    writer = match_event_writer(match=match, players=players)
    order = get_game(match.game).new_match(match.seed, match.options).orders[0]
    writer.emit(EventType.SHUFFLE, {"k": 0, "order": list(order)})
    writer.flush()
    return match


def test_the_tick_replaces_a_match_whose_lease_ran_out_by_a_fresh_one_with_its_seed_and_seats():
    tournament = start(tournament_with(strategy_bots(2)))
    link = current_matches(tournament).get(first_seat=1)
    dead = die_mid_match(link, lease_left=timedelta(seconds=-1))
    report = tournaments_tick()
    assert (report.expired, report.replaced) == (1, 1)
    dead.refresh_from_db()
    link.refresh_from_db()
    assert dead.status == Match.Status.FAILED and link.replaced_at is not None
    assert DEAD_WORKER in link.failure and "lease" in link.failure
    assert match_event_count(match_id=dead.pk) == 2, "the partial log is kept as it was"
    fresh = current_matches(tournament).select_related("match").get(first_seat=1)
    assert fresh.duplicate_set_id == link.duplicate_set_id
    assert fresh.match.seed == dead.seed and fresh.match.status == Match.Status.PENDING
    assert list(fresh.match.seats.values_list("seat", "version")) == list(
        dead.seats.values_list("seat", "version")
    )


def die_after_logging_the_result(link: TournamentMatch) -> tuple[Match, dict]:
    """A worker logs the whole match, result included, and dies before the row says so:
    the state a worker killed between the last event and the row update left before the
    two were one transaction (and older logs may still be in)."""
    match = die_mid_match(link, lease_left=timedelta(seconds=-1))
    game = get_game(match.game)
    state = game.new_match(match.seed, match.options)
    events, shuffled = [], 1
    while state.to_play is not None:
        action = state.legal_actions()[0]
        events.append(
            (EventType.DECISION, {"seat": state.to_play, "action": action, "think_us": 1})
        )
        state = game.apply(state, action)
        for k in range(shuffled, len(state.orders)):
            events.append((EventType.SHUFFLE, {"k": k, "order": list(state.orders[k])}))
        shuffled = len(state.orders)
    result = {"winner": state.winner, "scores": state.scores, "reason": "played"}
    events.append((EventType.MATCH_FINISHED, result))
    services_append(match, events)
    return match, result


def services_append(match: Match, events: list) -> None:
    from matches.services import match_events_append

    start = match_event_count(match_id=match.pk)
    match_events_append(
        match=match, events=[(start + i, kind, payload) for i, (kind, payload) in enumerate(events)]
    )


def test_a_match_whose_log_ends_with_its_result_is_settled_from_it_not_played_again():
    tournament = start(tournament_with(strategy_bots(2)))
    link = current_matches(tournament).get(first_seat=1)
    match, result = die_after_logging_the_result(link)
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING

    report = tournaments_tick()

    match.refresh_from_db()
    link.refresh_from_db()
    assert (report.expired, report.replaced) == (1, 0)
    assert (match.status, match.winner, match.scores, match.result_reason) == (
        Match.Status.FINISHED,
        result["winner"],
        result["scores"],
        "played",
    )
    assert link.replaced_at is None and not link.failure
    assert match_replay(match=match).ok
    assert TournamentMatch.objects.filter(duplicate_set_id=link.duplicate_set_id).count() == 2


def test_after_the_replacement_the_set_is_played_and_every_match_logged_exactly_once():
    tournament = start(tournament_with(strategy_bots(2)))
    die_mid_match(current_matches(tournament).get(first_seat=0), lease_left=timedelta(seconds=-1))
    tournaments_tick()
    tournament = play_all(tournament)
    assert tournament.status == tournament.Status.FINISHED
    matches = Match.objects.filter(tournament_match__tournament=tournament)
    assert sorted(matches.values_list("status", flat=True)) == ["failed", "finished", "finished"]
    for match in matches:
        assert match_event_count(match_id=match.pk, type=EventType.MATCH_STARTED) == 1
    for match in matches.filter(status=Match.Status.FINISHED):
        assert match_replay(match=match).ok
    assert DuplicateSet.objects.get(pairing__tournament=tournament).status == "finished"


def test_a_match_whose_lease_still_holds_is_left_to_its_worker():
    tournament = start(tournament_with(strategy_bots(2)))
    alive = die_mid_match(current_matches(tournament).first(), lease_left=timedelta(minutes=1))
    assert tournaments_tick().expired == 0
    alive.refresh_from_db()
    assert alive.status == Match.Status.RUNNING


def test_only_the_claiming_worker_renews_a_lease_and_not_once_the_match_was_declared_dead():
    tournament = start(tournament_with(strategy_bots(2)))
    match = die_mid_match(current_matches(tournament).first(), lease_left=timedelta(seconds=5))
    match_lease_renew(match_id=match.pk, worker=DEAD_WORKER, seconds=60)
    match.refresh_from_db()
    assert match.lease_expires_at > timezone.now() + timedelta(seconds=50)
    with pytest.raises(MatchLeaseLost):
        match_lease_renew(match_id=match.pk, worker="someone-else:1", seconds=60)
    Match.objects.filter(pk=match.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    tournaments_tick()
    with pytest.raises(MatchLeaseLost):
        match_lease_renew(match_id=match.pk, worker=DEAD_WORKER, seconds=60)


def test_the_event_writer_renews_the_lease_as_the_match_goes_on(monkeypatch, settings):
    settings.BAIZE_MATCH_LEASE_SECONDS = 30
    clock = [1000.0]
    monkeypatch.setattr("matches.services.monotonic", lambda: clock[0])
    tournament = start(tournament_with(strategy_bots(2)))
    match = die_mid_match(current_matches(tournament).first(), lease_left=timedelta(seconds=30))
    match.refresh_from_db()
    writer = MatchEventWriter(match, next_seq=2, lease_seconds=30)
    before = match.lease_expires_at
    clock[0] += 11  # past a third of the lease
    writer.emit(EventType.DECISION, {"seat": 0, "action": {"bar": "2C"}, "think_us": 1})
    match.refresh_from_db()
    assert match.lease_expires_at > before


def test_a_writer_whose_match_was_declared_dead_stops_and_appends_nothing_more(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr("matches.services.monotonic", lambda: clock[0])
    tournament = start(tournament_with(strategy_bots(2)))
    match = die_mid_match(current_matches(tournament).first(), lease_left=timedelta(seconds=-1))
    tournaments_tick()
    match.refresh_from_db()
    with pytest.raises(MatchLeaseLost), MatchEventWriter(match, next_seq=2, lease_seconds=30) as w:
        w.emit(EventType.DECISION, {"seat": 0, "action": {"bar": "2C"}, "think_us": 1})
        clock[0] += 11
        w.emit(EventType.DECISION, {"seat": 1, "action": {"play": "3C"}, "think_us": 1})
    assert match_event_count(match_id=match.pk) == 2


def test_a_match_that_keeps_failing_is_replaced_a_few_times_then_waits_for_an_organiser(settings):
    settings.BAIZE_MATCH_ATTEMPTS = 3
    tournament = start(tournament_with(strategy_bots(2)))

    def fail_the_current_match():
        Match.objects.filter(
            tournament_match__in=current_matches(tournament).filter(first_seat=0)
        ).update(status=Match.Status.FAILED)

    replaced = []
    for _ in range(4):
        fail_the_current_match()
        replaced.append(tournaments_tick().replaced)
    assert replaced == [1, 1, 0, 0]
    assert TournamentMatch.objects.filter(tournament=tournament, first_seat=0).count() == 3
    organiser = User.objects.create_user("org")
    stuck = current_matches(tournament).get(first_seat=0).match
    fresh = services.match_rerun(match=stuck, user=organiser, reason="fixed the worker image")
    assert fresh.match.status == Match.Status.PENDING and fresh.match.seed == stuck.seed
    change = ManualChange.objects.get()
    assert (change.user, change.action, change.match) == (organiser, "rerun_match", stuck)
    assert change.detail == {"replacement": fresh.match_id}
    with pytest.raises(services.TournamentError, match="already been replaced|only a failed"):
        services.match_rerun(match=stuck, user=organiser, reason="twice")


def test_a_pending_match_sent_long_ago_is_sent_again_and_a_recent_one_is_not(settings, monkeypatch):
    settings.BAIZE_MATCH_REDISPATCH_SECONDS = 60
    sent = []
    monkeypatch.setattr(
        "tournaments.tasks.tournament_match_play.apply_async",
        lambda args, **options: sent.append((*args, options)),
    )
    tournament = start(tournament_with(strategy_bots(2)))
    old, recent = current_matches(tournament).order_by("first_seat")
    long_ago = timezone.now() - timedelta(minutes=5)
    TournamentMatch.objects.filter(pk=old.pk).update(dispatched_at=long_ago)
    TournamentMatch.objects.filter(pk=recent.pk).update(dispatched_at=timezone.now())
    assert tournaments_tick().redispatched == 1
    assert sent == [(old.match_id, {"queue": "celery", "priority": 0})]
    old.refresh_from_db()
    assert old.dispatched_at > long_ago
    assert tournaments_tick().redispatched == 0, "sent again once, not at every tick"


def test_the_tick_settles_and_rates_a_set_whose_worker_died_after_its_last_match():
    tournament = start(tournament_with(strategy_bots(2)))
    for link in current_matches(tournament):
        match_play(match_id=link.match_id)  # played, but nobody settled the set
    report = tournaments_tick()
    assert report.settled == 1
    assert RatingUpdate.objects.count() == 1
    tournament.refresh_from_db()
    assert tournament.status == tournament.Status.FINISHED


def test_the_tick_rates_a_set_settled_by_a_worker_that_died_before_rating_it(monkeypatch):
    tournament = start(tournament_with(strategy_bots(2)))
    for link in current_matches(tournament):
        match_play(match_id=link.match_id)

    def worker_dies(**kwargs):
        raise SystemExit("killed")

    monkeypatch.setattr("tournaments.services.scheduling.rating_set_apply", worker_dies)
    with pytest.raises(SystemExit):
        duplicate_set_settle(set_id=current_matches(tournament).first().duplicate_set_id)
    monkeypatch.undo()
    assert RatingUpdate.objects.count() == 0
    assert tournaments_tick().rated == 1
    assert RatingUpdate.objects.count() == 1


def test_a_match_declared_dead_while_it_plays_stops_its_bots_and_returns_nothing(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr("matches.services.monotonic", lambda: clock[0])
    started = []

    class RecordedBotProcess(referee.BotProcess):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr("arena.referee.BotProcess", RecordedBotProcess)

    def dying_writer(**kwargs):
        writer = match_event_writer(**kwargs)
        emit = writer.emit

        def emit_after_the_tick(type, payload):
            if type == EventType.DECISION and clock[0] == 1000.0:
                # The tick declares the match dead; the next renewal of the lease is due.
                match_lease_expire(match_id=writer.match.pk, now=timezone.now() + timedelta(1))
                clock[0] += settings.BAIZE_MATCH_LEASE_SECONDS
            return emit(type, payload)

        writer.emit = emit_after_the_tick
        return writer

    # The match dies at its first decision: the bots have started and are playing.
    monkeypatch.setattr("matches.play.match_event_writer", dying_writer)
    tournament = start(tournament_with(strategy_bots(2)))
    link = current_matches(tournament).first()
    assert match_play(match_id=link.match_id) is None
    match = Match.objects.get(pk=link.match_id)
    assert match.status == Match.Status.FAILED and match.winner is None
    assert [r.type for r in match_event_records(match=match)] == [EventType.MATCH_STARTED]
    assert len(started) == 2
    assert all(bot._process.returncode is not None for bot in started), "both bots were closed"
    assert not SeatStderr.objects.filter(seat__match=match).exists()


def test_the_tick_leaves_a_live_tasks_matches_to_it_and_resends_a_set_whole(settings, monkeypatch):
    settings.BAIZE_MATCH_REDISPATCH_SECONDS = 60
    sent = []
    monkeypatch.setattr(
        "tournaments.tasks.tournament_series_play.apply_async",
        lambda args, **options: sent.append(args[0]),
    )
    tournament = start(tournament_with(strategy_bots(2)))
    links = current_matches(tournament).order_by("first_seat")
    ids = list(links.values_list("match_id", flat=True))
    long_ago = timezone.now() - timedelta(minutes=5)
    TournamentMatch.objects.filter(match_id__in=ids).update(dispatched_at=long_ago)

    tournament_matches_held(match_ids=ids)  # a task is playing them
    assert tournaments_tick().redispatched == 0

    TournamentMatch.objects.filter(match_id__in=ids).update(dispatched_at=long_ago)
    assert tournaments_tick().redispatched == 2
    assert sent == [ids], "the set's twins in one task, in seating order"
