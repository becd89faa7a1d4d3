"""The referee: full matches between bot processes, the events they leave, and every forfeit."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from arena.builtin.strategies import load
from arena.referee import Limits, MatchResult, StrategyPlayer, referee_match
from arena.runner import BuiltinLauncher, ScriptLauncher
from games.events import ForfeitReason, ResultReason, canonical_json, chain_events
from games.rules import get_game
from tests.arena.exchange import record_exchange
from tests.arena.test_runner import is_gone, wait_for_pids

HOSTILE = Path(__file__).parent / "hostile"
DOC = Path(__file__).parents[2] / "docs" / "bot-protocol.md"
SNAG = get_game("snag")
QUICK = Limits(decision_seconds=0.5, start_seconds=5)


def play(players: list, *, seed: int = 3, options: dict | None = None, limits: Limits = QUICK):
    """Referee one Snag match; return its result and the events it emitted, in order."""
    events: list[tuple[str, dict[str, Any]]] = []
    state = SNAG.new_match(seed, options or {"target": 20})

    def emit(kind: str, payload: dict[str, Any]) -> None:
        events.append((kind, payload))

    result = referee_match(SNAG, state, players, limits=limits, emit=emit)
    return result, events


def replay(seed: int, options: dict, events: list[tuple[str, dict[str, Any]]]):
    """Fold the events with the engine alone: recorded shuffles, then recorded decisions."""
    shuffles = [payload for kind, payload in events if kind == "shuffle"]
    assert [shuffle["k"] for shuffle in shuffles] == list(range(len(shuffles)))
    orders = [shuffle["order"] for shuffle in shuffles]
    state = SNAG.new_match(seed, {**options, "decks": orders})
    for kind, payload in events:
        if kind == "decision":
            assert state.to_play == payload["seat"]
            state = SNAG.apply(state, payload["action"])
    return state


def hostile(name: str, *args: str) -> ScriptLauncher:
    return ScriptLauncher(HOSTILE / f"{name}.py", args)


def forfeit_of(events: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    (payload,) = [payload for kind, payload in events if kind == "forfeit"]
    return payload


def test_a_match_between_two_builtin_bot_processes_replays_from_its_events():
    options = {"target": 20}
    players = [BuiltinLauncher("snag_heuristic"), BuiltinLauncher("random", seed=11)]
    result, events = play(players, seed=5, options=options)

    final = replay(5, options, events)
    assert final.winner == result.winner
    assert final.scores == list(result.scores)
    assert max(result.scores) >= 20
    assert result.reason is ResultReason.PLAYED
    assert result.decisions == sum(1 for kind, _ in events if kind == "decision")
    assert events[-1] == (
        "match_finished",
        {"winner": final.winner, "scores": final.scores, "reason": "played"},
    )


def test_events_come_in_log_order_with_each_shuffle_right_after_the_decision_that_made_it():
    players = [StrategyPlayer(load("random"), 1), StrategyPlayer(load("random"), 2)]
    result, events = play(players, seed=8, options={"target": 30})
    state = SNAG.new_match(8, {"target": 30})
    expected = [("shuffle", {"k": 0, "order": list(state.orders[0])})]
    for kind, payload in events[1:-1]:
        if kind == "decision":
            state = SNAG.apply(state, payload["action"])
            expected.append((kind, payload))
            if len(state.orders) > sum(1 for kind, _ in expected if kind == "shuffle"):
                shuffle = {"k": len(state.orders) - 1, "order": list(state.orders[-1])}
                expected.append(("shuffle", shuffle))
    assert events[:-1] == expected
    assert result.winner == state.winner


def test_decisions_carry_the_think_time_in_microseconds():
    players = [BuiltinLauncher("random", seed=1), BuiltinLauncher("random", seed=2)]
    _, events = play(players, options={"target": 5})
    think = [payload["think_us"] for kind, payload in events if kind == "decision"]
    assert think and all(type(us) is int and 0 < us < QUICK.decision_seconds * 1e6 for us in think)


def test_a_bot_that_sleeps_past_the_limit_forfeits_on_time_and_the_detail_names_the_limit():
    result, events = play([hostile("slow"), BuiltinLauncher("random")])
    assert forfeit_of(events)["reason"] == "timeout"
    assert forfeit_of(events)["detail"] == (
        "the bot did not reply before the deadline: "
        "the decision limit of 0.5 s ran out, its time bank of 0 s already spent"
    )
    assert forfeit_of(events)["seat"] == 0
    assert result == MatchResult(1, (0, 0), ResultReason.FORFEIT, 0, result.forfeit)
    assert result.forfeit.reason is ForfeitReason.TIMEOUT
    assert events[-1] == ("match_finished", {"winner": 1, "scores": [0, 0], "reason": "forfeit"})


def test_a_timeout_that_empties_the_time_bank_says_how_much_was_left_in_it():
    limits = Limits(decision_seconds=0.2, start_seconds=5, time_bank_seconds=0.3)
    _, events = play([hostile("slow"), BuiltinLauncher("random")], limits=limits)
    assert forfeit_of(events)["detail"].endswith(
        ": the decision limit of 0.2 s and the 0.300 s left in its time bank of 0.3 s ran out"
    )


def test_a_bot_that_exits_mid_match_forfeits_for_a_crash_with_its_exit_status():
    result, events = play([BuiltinLauncher("random"), hostile("crash")])
    forfeit = forfeit_of(events)
    assert forfeit["seat"] == 1
    assert forfeit["reason"] == "crash"
    assert forfeit["detail"] == "the bot closed its output (exit status 3)"
    assert "deliberate crash in decision 2" in result.stderr[1]
    assert result.winner == 0


def test_a_crashing_bots_stderr_is_in_no_event_and_only_in_its_own_stderr(tmp_path):
    marker = "MY-SECRET-STRATEGY-7f3a"
    (tmp_path / "bot.py").write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        "    if message['type'] == 'start':\n"
        "        print(json.dumps({'type': 'ready'}), flush=True)\n"
        "    elif message['type'] == 'decide':\n"
        f"        print({marker!r}, file=sys.stderr, flush=True)\n"
        "        raise SystemExit(1)\n"
    )
    result, events = play([ScriptLauncher(tmp_path / "bot.py"), BuiltinLauncher("random")])
    assert forfeit_of(events) == {
        "seat": 0,
        "reason": "crash",
        "detail": "the bot closed its output (exit status 1)",
    }
    assert all(marker not in canonical_json(payload) for _, payload in events)
    assert marker in result.stderr[0]
    assert marker not in result.stderr[1]


def test_a_bot_that_prints_garbage_forfeits_for_a_bad_reply():
    _, events = play([hostile("garbage"), BuiltinLauncher("random")])
    assert forfeit_of(events)["reason"] == "bad_reply"
    assert "not JSON" in forfeit_of(events)["detail"]


def test_a_bot_that_writes_two_lines_for_one_request_forfeits_for_a_bad_reply():
    _, events = play([hostile("chatty"), BuiltinLauncher("random")])
    assert forfeit_of(events)["reason"] == "bad_reply"
    assert "nobody asked for" in forfeit_of(events)["detail"]


def test_a_bot_that_writes_an_endless_line_forfeits_for_a_bad_reply_not_a_timeout():
    _, events = play([hostile("huge_line"), BuiltinLauncher("random")], limits=Limits(30, 5))
    assert forfeit_of(events)["reason"] == "bad_reply"
    assert "longer than 65536 bytes" in forfeit_of(events)["detail"]


def test_a_bot_that_plays_an_illegal_action_forfeits_and_the_detail_names_it():
    _, events = play([hostile("illegal"), BuiltinLauncher("random")])
    forfeit = forfeit_of(events)
    assert forfeit["reason"] == "illegal_action"
    legal = canonical_json(SNAG.new_match(3, {"target": 20}).legal_actions())
    assert forfeit["detail"] == (
        f'{{"play":"1X"}} is not legal here; the legal actions were {legal}'
    )
    assert [kind for kind, _ in events] == ["shuffle", "forfeit", "match_finished"]


@pytest.mark.parametrize("card", [float("nan"), "\ud800", "7H" * 500])
def test_an_illegal_action_that_json_cannot_carry_as_is_still_makes_a_hashable_detail(card):
    def odd(observation: dict, rng: Any) -> dict:
        return {"play": card}

    _, events = play([StrategyPlayer(odd), StrategyPlayer(load("random"))])
    detail = forfeit_of(events)["detail"]
    assert "is not legal here" in detail and len(detail) < 1000
    assert chain_events((seq, kind, payload) for seq, (kind, payload) in enumerate(events))


def test_a_bot_that_never_answers_start_fails_to_start():
    result, events = play([BuiltinLauncher("random"), hostile("silent")], limits=Limits(0.5, 0.5))
    assert forfeit_of(events)["seat"] == 1
    assert forfeit_of(events)["reason"] == "start_failed"
    assert forfeit_of(events)["detail"].endswith(": the start limit of 0.5 s ran out")
    assert result.winner == 0
    assert result.decisions == 0


def test_a_bot_file_that_does_not_exist_fails_to_start_with_pythons_complaint_in_its_stderr(
    tmp_path,
):
    result, events = play([ScriptLauncher(tmp_path / "missing.py"), BuiltinLauncher("random")])
    forfeit = forfeit_of(events)
    assert forfeit["reason"] == "start_failed"
    # Which the runner sees first, the closed output or the refused start line, is a race
    # with the interpreter's exit: both say what happened, with the exit status.
    assert forfeit["detail"] in (
        "the bot closed its output (exit status 2)",
        "the bot stopped reading its input (exit status 2)",
    )
    assert "can't open file" in result.stderr[0]


def test_the_forfeit_scores_are_the_match_points_at_that_moment():
    crash_late = StrategyPlayer(_crash_in_deal(3))
    result, events = play([crash_late, StrategyPlayer(load("random"), 4)], options={"target": 500})
    final = replay(3, {"target": 500}, events)
    assert result.reason is ResultReason.FORFEIT
    assert list(result.scores) == final.scores
    assert final.deal_number == 3
    assert sum(final.scores) > 0
    assert events[-1][1]["scores"] == final.scores


def test_an_in_process_strategy_that_raises_forfeits_for_a_crash_its_traceback_kept_private():
    def broken(observation: dict, rng: Any) -> dict:
        raise KeyError("nowhere")

    result, events = play([StrategyPlayer(load("random")), StrategyPlayer(broken)])
    forfeit = forfeit_of(events)
    assert forfeit["reason"] == "crash"
    assert forfeit["detail"] == "the strategy raised KeyError"
    assert "KeyError: 'nowhere'" in result.stderr[1]
    assert all("nowhere" not in canonical_json(payload) for _, payload in events)


def test_a_bot_that_ignores_sigterm_and_leaves_children_leaves_nothing_running(tmp_path):
    pidfile = tmp_path / "pids"
    result, _ = play([hostile("stubborn", str(pidfile)), BuiltinLauncher("random")])
    pids = wait_for_pids(pidfile)
    assert result.reason is ResultReason.PLAYED
    assert [pid for pid in pids if not is_gone(pid)] == []


def test_bots_never_see_the_stacked_decks(tmp_path, monkeypatch):
    from arena import referee

    starts = []
    real_connect = referee.connect

    def spying_connect(player, on_idle=None):
        connection = real_connect(player, on_idle)
        real_open = connection.open
        connection.open = lambda start: (starts.append(start), real_open(start))
        return connection

    monkeypatch.setattr(referee, "connect", spying_connect)
    order = list(SNAG.new_match(1).orders[0])
    players = [StrategyPlayer(load("random")), StrategyPlayer(load("random"))]
    play(players, options={"target": 5, "decks": [order]})
    assert [start["options"] for start in starts] == [{"target": 5}, {"target": 5}]


def test_the_protocol_document_holds_a_true_exchange():
    block = re.search(r"```text\n(0-> .*?)```", DOC.read_text(), re.DOTALL)
    assert block, "docs/bot-protocol.md has no example exchange"
    assert block.group(1).splitlines() == record_exchange()


def test_the_minimal_bot_of_the_protocol_document_plays_a_whole_match(tmp_path):
    minimal = re.search(r"```python\n(import json\n.*?)```", DOC.read_text(), re.DOTALL)
    (tmp_path / "bot.py").write_text(minimal.group(1))
    result, _ = play([ScriptLauncher(tmp_path / "bot.py"), BuiltinLauncher("random")])
    assert result.reason is ResultReason.PLAYED


def test_time_limits_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        Limits(decision_seconds=0)


def test_a_match_needs_exactly_two_players():
    with pytest.raises(ValueError, match="two players"):
        play([StrategyPlayer(load("random"))])


def _crash_in_deal(deal: int):
    """A strategy that plays randomly until deal ``deal`` starts, then raises."""
    import random

    def choose(observation: dict, rng: random.Random) -> dict:
        if observation["deal_number"] >= deal:
            raise RuntimeError("giving up")
        return rng.choice(observation["legal_actions"])

    return choose


# The time bank. ----------------------------------------------------------------------------


def slow_strategy(seconds: float, *, from_decision: int = 1):
    """A strategy that thinks ``seconds`` on each decision from the ``from_decision``-th."""
    import time

    calls = []

    def choose(observation, rng):
        calls.append(observation)
        if len(calls) >= from_decision:
            time.sleep(seconds)
        return observation["legal_actions"][0]

    return choose


def test_each_request_tells_the_bot_its_time_left_including_the_bank():
    seen = []

    def choose(observation, rng):
        return observation["legal_actions"][0]

    limits = Limits(decision_seconds=0.5, start_seconds=5, time_bank_seconds=2.0)
    events = []
    game_state = SNAG.new_match(3, {"target": 1})
    from arena import referee as referee_module

    real = referee_module.StrategyConnection.decide

    def spy(self, message, timeout, limit=None):
        seen.append((message["time_left"], timeout))
        return real(self, message, timeout, limit)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(referee_module.StrategyConnection, "decide", spy)
        referee_match(
            SNAG,
            game_state,
            [StrategyPlayer(choose), StrategyPlayer(choose)],
            limits=limits,
            emit=lambda kind, payload: events.append(kind),
        )
    assert seen[0] == (2.5, 2.5)
    assert all(time_left == timeout for time_left, timeout in seen)


def test_overtime_is_drawn_from_the_bank_until_it_runs_out():
    limits = Limits(decision_seconds=0.2, start_seconds=5, time_bank_seconds=0.5)
    slow = StrategyPlayer(slow_strategy(0.3))
    result, events = play([slow, StrategyPlayer(load("random"), seed=1)], limits=limits)
    forfeit = forfeit_of(events)
    assert (forfeit["seat"], forfeit["reason"]) == (0, "timeout")
    # At least 0.1 s of overtime per decision: a 0.5 s bank pays for at most five, and the
    # first (0.7 s allowed for 0.3 s of thought) is well within it.
    own_decisions = [p for kind, p in events if kind == "decision" and p["seat"] == 0]
    assert 1 <= len(own_decisions) <= 5
    assert result.time_bank_left[0] == 0.0
    assert result.time_bank_left[1] == 0.5


def test_decisions_within_the_limit_leave_the_bank_whole():
    limits = Limits(decision_seconds=1.0, start_seconds=5, time_bank_seconds=3.0)
    result, _ = play(
        [BuiltinLauncher("random", seed=1), BuiltinLauncher("random", seed=2)], limits=limits
    )
    assert result.forfeit is None
    assert result.time_bank_left == (3.0, 3.0)


def test_the_start_message_announces_the_time_bank():
    from arena.protocol import start_message

    limits = start_message("snag", 0, {"target": 1}, 1.0, 10.0)["limits"]
    assert limits == {"decision_seconds": 1.0, "time_bank_seconds": 10.0}


def test_a_negative_time_bank_is_refused():
    with pytest.raises(ValueError, match="time bank"):
        Limits(time_bank_seconds=-1)
