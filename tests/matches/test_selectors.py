import pytest

from games.events import chain_events
from games.replay import FailureKind
from matches.models import Match
from matches.selectors import match_event_records, match_replay, match_state_at
from matches.services import match_create, match_events_append
from tests.games.snag_logs import SNAG, play_snag

pytestmark = pytest.mark.django_db

PLAYED = play_snag(seed=9, options={"target": 10}, rng_seed=4)


@pytest.fixture
def match():
    match = match_create(game_id="snag", seed=9, options={"target": 10})
    match_events_append(match=match, events=PLAYED.events)
    return match


def mark_finished(match, **fields):
    final = PLAYED.states[-1]
    result = {"winner": final.winner, "scores": final.scores, "result_reason": "played"}
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, **{**result, **fields})
    match.refresh_from_db()


def test_match_events_come_in_seq_order(match):
    seqs = [event.seq for event in match_event_records(match=match)]
    assert seqs == list(range(len(PLAYED.events)))


def test_match_event_records_are_the_stored_hash_chain(match):
    assert match_event_records(match=match) == chain_events(PLAYED.events)


def test_match_replay_of_a_finished_match_that_agrees_with_its_log_is_ok(match):
    mark_finished(match)

    result = match_replay(match=match)

    assert result.ok, result.failures
    assert result.outcome.winner == PLAYED.states[-1].winner


def test_match_replay_reports_a_match_row_whose_result_differs_from_its_log(match):
    mark_finished(match, winner=1 - PLAYED.states[-1].winner)

    result = match_replay(match=match)

    assert [(failure.seq, failure.kind) for failure in result.failures] == [
        (None, FailureKind.RECORD)
    ]


def test_match_replay_reports_a_finished_match_whose_log_has_no_result():
    match = match_create(game_id="snag", seed=9, options={"target": 10})
    match_events_append(match=match, events=PLAYED.events[:20])
    mark_finished(match)

    result = match_replay(match=match)

    assert [failure.kind for failure in result.failures] == [FailureKind.RECORD]


def test_a_running_match_replays_as_far_as_its_log_goes():
    match = match_create(game_id="snag", seed=9, options={"target": 10})
    match_events_append(match=match, events=PLAYED.events[:20])

    result = match_replay(match=match)

    assert result.ok and not result.finished


def test_match_state_at_reads_the_stored_log(match):
    position = match_state_at(match=match, step=12)

    assert position.observations[1] == SNAG.observation(PLAYED.states[12], 1)
