from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from matches.services import match_create, match_events_append
from tests.games.snag_logs import SNAG, play_snag

pytestmark = pytest.mark.django_db


def stored_match(played, **options):
    match = match_create(game_id="snag", seed=played.events[0][2]["seed"], options=options)
    match_events_append(match=match, events=played.events)
    return match


def with_wrong_winner(played):
    *head, (seq, kind, result) = played.events
    return type(played)(
        [*head, (seq, kind, {**result, "winner": 1 - result["winner"]})], played.states
    )


def replay_matches(*args):
    out = StringIO()
    try:
        call_command("replay_matches", *args, stdout=out)
    except CommandError as error:
        return out.getvalue(), error
    return out.getvalue(), None


def test_it_replays_every_match_and_exits_zero_when_all_logs_are_sound():
    for seed in (1, 2):
        stored_match(play_snag(seed=seed, options={"target": 10}), target=10)
    match_create(game_id="snag", seed=3)  # pending: no events yet

    out, error = replay_matches()

    assert error is None
    assert out.splitlines() == [f"3 matches replayed ({_events(1) + _events(2)} events): 0 failed"]


def _events(seed):
    return len(play_snag(seed=seed, options={"target": 10}).events)


def test_it_prints_one_line_per_failure_with_the_match_id_and_exits_non_zero():
    sound = stored_match(play_snag(seed=1, options={"target": 10}), target=10)
    broken = stored_match(with_wrong_winner(play_snag(seed=2, options={"target": 10})), target=10)

    out, error = replay_matches()

    assert error is not None and error.returncode == 1
    assert "2 matches replayed" in str(error) and "1 failed" in str(error)
    [line] = out.splitlines()
    assert line.startswith(f"match {broken.pk}: seq ")
    assert "result" in line
    assert f"match {sound.pk}:" not in out


def test_it_reports_a_log_written_under_another_rules_version():
    played = play_snag(seed=4, options={"target": 10})
    seq, kind, started = played.events[0]
    played.events[0] = (seq, kind, {**started, "rules_version": "0"})
    match = stored_match(played, target=10)

    out, error = replay_matches()

    assert error is not None
    assert out.splitlines() == [f"match {match.pk}: seq 0: rules_version: {_version_message()}"]


def _version_message():
    return (
        f"the log was written under snag rules version '0'; this engine plays version"
        f" {SNAG.rules_version!r}, so the log is not replayed"
    )


def test_it_replays_only_the_matches_given():
    first = stored_match(with_wrong_winner(play_snag(seed=1, options={"target": 10})), target=10)
    second = stored_match(play_snag(seed=2, options={"target": 10}), target=10)

    out, error = replay_matches("--match", str(second.pk))

    assert error is None
    assert out.startswith("1 match replayed")
    assert f"match {first.pk}" not in out


def test_it_refuses_a_match_id_that_does_not_exist():
    match = match_create(game_id="snag", seed=1)

    with pytest.raises(CommandError, match=f"no match with id {match.pk + 1}"):
        call_command("replay_matches", "--match", str(match.pk), "--match", str(match.pk + 1))
