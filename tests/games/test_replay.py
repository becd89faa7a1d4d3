import random

import pytest

from games.events import EventRecord, chain_events
from games.replay import FailureKind, ReplayError, replay, state_at
from games.rules import get_game
from games.rules.decks import seeded_order
from ops.game_benchmarks import random_match_events
from tests.games.snag_logs import SNAG, play_snag, renumbered

PLAYED = play_snag(seed=7, rng_seed=1)


def log(events):
    return chain_events(events)


def forged(events, seq, payload):
    """The log with one payload replaced and every hash recomputed, as a careful forger would."""
    return log([(s, kind, payload if s == seq else p) for s, kind, p in events])


def kinds_at(result):
    return [(failure.seq, failure.kind) for failure in result.failures]


def test_a_played_match_replays_clean_to_its_recorded_result():
    result = replay(log(PLAYED.events))

    final = PLAYED.states[-1]
    assert result.ok, result.failures
    assert result.finished
    assert result.decisions == len(PLAYED.states) - 1
    assert result.events == len(PLAYED.events)
    assert (result.outcome.winner, result.outcome.scores) == (final.winner, final.scores)
    assert result.state.orders == final.orders


def test_several_matches_replay_clean():
    for seed in range(5):
        played = play_snag(seed=seed, options={"target": 20}, rng_seed=seed)
        assert replay(log(played.events)).ok


def test_a_payload_tampered_in_memory_is_reported_at_its_seq():
    records = log(PLAYED.events)
    seq = PLAYED.seqs_of("decision")[3]
    tampered = {**records[seq].payload, "think_us": 1}
    records[seq] = EventRecord(seq, "decision", tampered, records[seq].hash)

    result = replay(records)

    assert kinds_at(result) == [(seq, FailureKind.CHAIN)]


def test_a_missing_event_is_reported_as_a_break_in_the_chain():
    records = log(PLAYED.events)
    del records[5]

    result = replay(records)

    assert (6, FailureKind.CHAIN) in kinds_at(result)
    assert not result.ok


def test_an_illegal_decision_is_reported_at_its_seq():
    seq = PLAYED.seqs_of("decision")[0]
    state = PLAYED.states[0]
    illegal = next(card for card in SNAG.deck if {"bar": card} not in state.legal_actions())

    result = replay(
        forged(
            PLAYED.events, seq, {"seat": state.to_play, "action": {"bar": illegal}, "think_us": 5}
        )
    )

    assert kinds_at(result) == [(seq, FailureKind.DECISION)]
    assert "illegal" in result.failures[0].message


def test_a_decision_by_the_seat_not_to_play_is_reported():
    seq = PLAYED.seqs_of("decision")[0]
    _, _, payload = PLAYED.events[seq]

    result = replay(forged(PLAYED.events, seq, {**payload, "seat": 1 - payload["seat"]}))

    assert kinds_at(result) == [(seq, FailureKind.DECISION)]
    assert "was to play" in result.failures[0].message


def test_a_forged_shuffle_is_reported_even_when_the_chain_is_recomputed():
    seq = PLAYED.seqs_of("shuffle")[1]
    _, _, payload = PLAYED.events[seq]
    order = list(payload["order"])
    order[0], order[20] = order[20], order[0]

    result = replay(forged(PLAYED.events, seq, {"k": 1, "order": order}))

    assert (seq, FailureKind.SHUFFLE) in kinds_at(result)
    assert "the seed" in result.failures[0].message


def test_a_shuffle_with_the_wrong_k_is_reported():
    seq = PLAYED.seqs_of("shuffle")[1]
    _, _, payload = PLAYED.events[seq]

    result = replay(forged(PLAYED.events, seq, {**payload, "k": 2}))

    assert (seq, FailureKind.SHUFFLE) in kinds_at(result)


def test_a_shuffle_the_log_leaves_out_is_reported_at_the_next_decision():
    seq = PLAYED.seqs_of("shuffle")[1]
    events = renumbered([event for event in PLAYED.events if event[0] != seq])

    result = replay(log(events))

    missing = [failure for failure in result.failures if failure.seq == seq]
    assert [failure.kind for failure in missing] == [FailureKind.SHUFFLE]
    assert "performed 2 shuffles" in missing[0].message


def test_a_shuffle_recorded_before_the_engine_performs_it_is_reported():
    first_decision = PLAYED.seqs_of("decision")[0]
    extra = ("shuffle", {"k": 1, "order": list(seeded_order(SNAG.deck, 7, 1))})
    events = [event[1:] for event in PLAYED.events]
    events.insert(first_decision, extra)
    second_shuffle = PLAYED.seqs_of("shuffle")[1] + 1
    del events[second_shuffle]

    result = replay(log(renumbered(events)))

    assert kinds_at(result) == [(first_decision, FailureKind.SHUFFLE)]
    assert "before the engine performs it" in result.failures[0].message


def test_a_stacked_deck_in_the_options_is_the_order_shuffle_0_must_have():
    stacked = list(reversed(SNAG.deck))
    played = play_snag(seed=7, options={"target": 10, "decks": [stacked]}, rng_seed=2)
    assert played.events[1][2]["order"] == stacked
    assert replay(log(played.events)).ok

    seeded = {"k": 0, "order": list(seeded_order(SNAG.deck, 7, 0))}
    result = replay(forged(played.events, 1, seeded))

    assert (1, FailureKind.SHUFFLE) in kinds_at(result)
    assert "stacked deck" in result.failures[0].message


def test_a_wrong_winner_or_score_in_match_finished_is_reported():
    last = len(PLAYED.events) - 1
    final = PLAYED.states[-1]

    wrong_winner = {"winner": 1 - final.winner, "scores": final.scores, "reason": "played"}
    wrong_scores = {"winner": final.winner, "scores": [0, 0], "reason": "played"}
    wrong_reason = {"winner": final.winner, "scores": final.scores, "reason": "forfeit"}

    for payload in (wrong_winner, wrong_scores, wrong_reason):
        result = replay(forged(PLAYED.events, last, payload))
        assert kinds_at(result) == [(last, FailureKind.RESULT)]


def test_match_finished_while_the_match_is_in_play_is_reported():
    events = PLAYED.events[:12] + [
        (12, "match_finished", {"winner": 0, "scores": [0, 0], "reason": "played"})
    ]

    result = replay(log(events))

    assert kinds_at(result) == [(12, FailureKind.RESULT)]


def test_a_log_from_another_rules_version_is_reported_as_its_own_kind_of_finding():
    _, _, started = PLAYED.events[0]

    result = replay(forged(PLAYED.events, 0, {**started, "rules_version": "0"}))

    assert kinds_at(result) == [(0, FailureKind.RULES_VERSION)]
    assert result.rules_version_differs
    assert "'0'" in result.failures[0].message and "'1'" in result.failures[0].message
    assert result.state is None


def test_a_forfeit_gives_the_match_to_the_other_seat_at_the_current_scores():
    cut = PLAYED.seqs_of("decision")[40]
    state = PLAYED.states[40]
    events = PLAYED.events[:cut] + [
        (cut, "forfeit", {"seat": 1, "reason": "timeout", "detail": "no reply in 1.0 s"}),
        (cut + 1, "match_finished", {"winner": 0, "scores": state.scores, "reason": "forfeit"}),
    ]

    result = replay(log(events))

    assert result.ok, result.failures
    assert (result.outcome.winner, result.outcome.reason) == (0, "forfeit")


def test_a_forfeit_recorded_with_the_forfeiting_seat_as_winner_is_reported():
    events = PLAYED.events[:3] + [
        (3, "forfeit", {"seat": 1, "reason": "crash", "detail": "exit status 1"}),
        (4, "match_finished", {"winner": 1, "scores": [0, 0], "reason": "forfeit"}),
    ]

    assert kinds_at(replay(log(events))) == [(4, FailureKind.RESULT)]


def test_a_forfeit_with_an_unknown_reason_is_reported():
    events = PLAYED.events[:3] + [(3, "forfeit", {"seat": 0, "reason": "bored", "detail": ""})]

    assert kinds_at(replay(log(events))) == [(3, FailureKind.FORFEIT)]


def test_a_decision_after_a_forfeit_is_reported():
    events = PLAYED.events[:3] + [(3, "forfeit", {"seat": 0, "reason": "crash", "detail": ""})]
    events.append((4, *PLAYED.events[3][1:]))

    assert kinds_at(replay(log(events))) == [(4, FailureKind.LOG)]


def test_an_event_after_match_finished_is_reported():
    events = PLAYED.events + [
        (len(PLAYED.events), "decision", {"seat": 0, "action": {"bar": "2S"}, "think_us": 1})
    ]

    assert kinds_at(replay(log(events))) == [(len(PLAYED.events), FailureKind.LOG)]


def test_an_unknown_event_type_is_reported():
    events = PLAYED.events[:4] + [(4, "chat", {"text": "hello"})]

    assert kinds_at(replay(log(events))) == [(4, FailureKind.LOG)]


def test_a_malformed_payload_is_reported_not_raised():
    seq = PLAYED.seqs_of("decision")[0]

    result = replay(forged(PLAYED.events, seq, {"seat": 0}))

    assert kinds_at(result) == [(seq, FailureKind.LOG)]


def test_a_log_that_does_not_open_with_match_started_is_reported():
    result = replay(log(renumbered(PLAYED.events[1:])))

    assert kinds_at(result) == [(0, FailureKind.LOG)]


def test_an_empty_log_has_nothing_to_fail():
    result = replay([])

    assert result.ok and result.state is None and not result.finished


@pytest.mark.parametrize("cut", [1, 2, 3, 30, 100])
def test_an_unfinished_log_replays_up_to_where_it_ends(cut):
    events = PLAYED.events[:cut]

    result = replay(log(events))

    decisions = sum(1 for _, kind, _ in events if kind == "decision")
    assert result.ok, result.failures
    assert not result.finished and result.outcome is None
    assert result.decisions == decisions
    assert result.state.to_play == PLAYED.states[decisions].to_play


def test_a_crash_prefix_that_ends_before_a_new_deal_was_logged_replays_clean():
    shuffle_seq = PLAYED.seqs_of("shuffle")[1]

    result = replay(log(PLAYED.events[:shuffle_seq]))

    assert result.ok, result.failures
    assert len(result.state.orders) == 2


@pytest.mark.parametrize("step", [0, 1, 2, 17, 31, len(PLAYED.states) - 1])
def test_state_at_a_step_is_the_state_of_direct_play(step):
    position = state_at(log(PLAYED.events), step)

    expected = PLAYED.states[step]
    assert position.step == step
    assert position.state.to_play == expected.to_play
    assert position.state.scores == expected.scores
    assert position.state.orders == expected.orders
    assert position.observations == [SNAG.observation(expected, 0), SNAG.observation(expected, 1)]


def test_state_at_works_on_an_unfinished_log():
    events = PLAYED.events[:50]
    decisions = sum(1 for _, kind, _ in events if kind == "decision")

    position = state_at(log(events), decisions)

    assert position.observations[0] == SNAG.observation(PLAYED.states[decisions], 0)


def test_state_at_refuses_a_step_past_the_end_of_the_log():
    with pytest.raises(ValueError, match="fewer than step"):
        state_at(log(PLAYED.events[:10]), 20)


@pytest.mark.parametrize("step", [-1, 1.5, None])
def test_state_at_refuses_a_step_that_is_not_a_count(step):
    with pytest.raises(ValueError, match="non-negative integer"):
        state_at(log(PLAYED.events), step)


def test_state_at_refuses_a_log_broken_before_the_step():
    seq = PLAYED.seqs_of("decision")[2]
    records = log(PLAYED.events)
    records[seq] = EventRecord(
        seq, "decision", {**records[seq].payload, "think_us": 0}, records[seq].hash
    )

    with pytest.raises(ReplayError) as caught:
        state_at(records, 10)

    assert [failure.seq for failure in caught.value.failures] == [seq]


def test_a_log_of_an_unknown_game_is_reported():
    _, _, started = PLAYED.events[0]

    result = replay(forged(PLAYED.events, 0, {**started, "game": "chess"}))

    assert kinds_at(result) == [(0, FailureKind.LOG)]
    assert "unknown game 'chess'" in result.failures[0].message


@pytest.mark.parametrize("game_id", ["exposure", "jam", "rounds"])
def test_a_log_of_a_version_that_changed_only_what_bots_see_still_replays(game_id):
    events = random_match_events(game_id=game_id, seed=4, rng=random.Random(4))
    started = {**events[0][1], "rules_version": "1"}
    older = [(seq, kind, started if seq == 0 else p) for seq, (kind, p) in enumerate(events)]

    result = replay(log(older))

    assert get_game(game_id).rules_version == "2"
    assert result.ok and result.finished
