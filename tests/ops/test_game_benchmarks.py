import random

from games.replay import replay
from ops.game_benchmarks import (
    random_match_events,
    random_match_log,
    replay_events_per_second,
)


def test_a_random_match_log_is_a_whole_match_that_replays_clean():
    log = random_match_log(game_id="snag", seed=3, options={"target": 15}, rng=random.Random(3))

    result = replay(log)

    assert result.ok, result.failures
    assert result.finished


def test_random_match_events_can_stop_early_like_a_running_match():
    events = random_match_events(game_id="snag", seed=3, rng=random.Random(3), max_events=40)

    assert len(events) == 40
    assert [kind for kind, _ in events[:2]] == ["match_started", "shuffle"]


def test_the_replay_rate_is_a_positive_number_of_events_per_second():
    log = random_match_log(game_id="snag", seed=3, options={"target": 15}, rng=random.Random(3))

    assert replay_events_per_second(log, min_seconds=0.01) > 0
