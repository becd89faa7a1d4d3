"""Each viewer sees only what they may: the leak tests of the visibility rule.

A duplicate set's two matches are dealt from one seed. Here one is played to its end and
the other is held mid-play; every public response about either is searched for the seed
and for every card the full log says was face down at that moment. Once both are over,
the same responses must show everything (so the test fails both ways).
"""

from __future__ import annotations

import json
import random
import re
import textwrap

import pytest
from django.contrib.auth.models import User

from arena.runner import ScriptLauncher
from bots.models import Bot, BotVersion
from games.events import EventType, chain_events
from games.replay import state_at
from games.rules import GAMES, get_game
from matches import services
from matches.models import Match
from matches.play import match_play
from matches.redaction import cards_in, face_up_cards
from matches.selectors import match_event_count, match_event_records
from ops.game_benchmarks import random_match_events

CARD = re.compile(r"\b[2-9TJQKA][SHDC]\b")


def owned_version(owner: User | None, game_id: str, name: str) -> BotVersion:
    bot = Bot.objects.create(owner=owner, game=game_id, name=name)
    return BotVersion.objects.create(
        bot=bot, number=1, builtin="random", content_hash=name, status=BotVersion.Status.READY
    )


#: Options for short matches of each game that still deal more than once.
SHORT = {
    "snag": {"target": 15},
    "exposure": {"target": 15},
    "spades": {"limit": 100, "max_hands": 3},
    "rounds": {"target": 60},
    "jam": {"rubbers": 1},
}


def twins(game_id: str, seed: int, first: BotVersion, second: BotVersion) -> tuple[Match, Match]:
    pair = []
    for seats in ((first, second), (second, first)):
        match = services.match_create(game_id=game_id, seed=seed, options=SHORT[game_id])
        services.match_seats_create(match=match, versions=seats)
        pair.append(match)
    return pair[0], pair[1]


def hold_mid_play(match: Match, events: list) -> Match:
    """Claim ``match`` and log ``events`` (a prefix of its real log): a match in play."""
    assert services.match_claim(match_id=match.pk, worker="test-worker")
    services.match_events_append(match=match, events=[(i, t, p) for i, (t, p) in enumerate(events)])
    return Match.objects.get(pk=match.pk)


def hidden_by_step(match: Match) -> list[set[str]]:
    """For each step of ``match``'s stored log, the cards face down at that moment: the
    deck, less what a spectator has seen face up in the deal so far."""
    records = match_event_records(match=match)
    decisions = sum(1 for record in records if record.type == EventType.DECISION)
    deck = set(get_game(match.game).deck)
    hidden, seen, deals = [], set(), 0
    for step in range(decisions + 1):
        position = state_at(records, step)
        if len(position.state.orders) != deals:
            deals, seen = len(position.state.orders), set()
        seen |= face_up_cards(position.public, with_summaries=False)
        hidden.append(deck - seen)
    return hidden


def ends_a_deal(match: Match, step: int, records: list | None = None) -> bool:
    records = records or match_event_records(match=match)
    deals = len(state_at(records, step - 1).state.orders)
    return len(state_at(records, step).state.orders) != deals


def all_events(client, match: Match, **params) -> list[dict]:
    events, offset = [], 0
    while True:
        page = client.get(
            f"/api/matches/{match.pk}/events/", {**params, "limit": 100, "offset": offset}
        ).json()
        events += page["results"]
        if not page["next"]:
            return events
        offset += 100


def public_texts(client, match: Match, steps: list[int]) -> dict[str, str]:
    texts = {
        "detail": client.get(f"/api/matches/{match.pk}/").content.decode(),
        "events": json.dumps(all_events(client, match)),
        "page": client.get(f"/matches/{match.pk}/").content.decode(),
    }
    for step in steps:
        texts[f"state {step}"] = client.get(
            f"/api/matches/{match.pk}/state/", {"step": step}
        ).content.decode()
    return texts


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_deal_in_play_shows_no_seed_and_no_face_down_card_until_both_twins_end(
    client, db, game_id
):
    seed = 7_310_448_231_905_112_345
    first, second = owned_version(None, game_id, "first"), owned_version(None, game_id, "second")
    over, playing = twins(game_id, seed, first, second)
    match_play(match_id=over.pk)
    whole = random_match_events(
        game_id=game_id, seed=seed, options=SHORT[game_id], rng=random.Random(5)
    )
    held = len(whole) // 2
    playing = hold_mid_play(playing, whole[:held])
    assert_nothing_face_down_shows(client, playing=playing, over=over, seed=seed)

    services.match_events_append(
        match=playing, events=[(i, t, p) for i, (t, p) in enumerate(whole[:-1])]
    )
    services.match_finish(match=playing, events=[(len(whole) - 1, *whole[-1])], result=whole[-1][1])

    assert_everything_shows(client, matches=[over, playing], seed=seed)


def assert_nothing_face_down_shows(client, *, playing: Match, over: Match, seed: int) -> None:
    """No public response about a match in play or its finished twin shows the seed, a
    shuffle order, a card face down at that moment, or a move of the twin."""
    hidden = hidden_by_step(playing)
    steps = [0, len(hidden) // 2, len(hidden) - 1]
    playing_texts = public_texts(client, playing, steps)
    over_texts = public_texts(client, over, [])
    for name, text in {**playing_texts, **over_texts}.items():
        assert str(seed) not in text, f"the seed shows in the {name}"
    for step in steps:
        state = json.loads(playing_texts[f"state {step}"])
        assert state["observations"] is None
        # Summaries of a finished deal (last_*) name cards since shuffled back in.
        shown = {**state, "public": face_up_cards(state["public"], with_summaries=False)}
        if step and ends_a_deal(playing, step):
            shown["last_decision"] = None
        assert not cards_in(shown) & hidden[step], f"state {step} shows a face-down card"
    assert not set(CARD.findall(playing_texts["page"])) & hidden[-1]
    events = all_events(client, playing)
    assert all(e["payload"]["order"] is None for e in events if e["type"] == "shuffle")
    assert_no_move_shows_a_face_down_card(events, playing)
    moves = [e for e in all_events(client, over) if e["type"] == "decision"]
    assert moves and all(e["payload"]["action"] is None for e in moves)
    assert client.get(f"/api/matches/{over.pk}/state/", {"step": 1}).status_code == 403
    assert not set(CARD.findall(over_texts["page"]))


def assert_everything_shows(client, *, matches: list[Match], seed: int) -> None:
    """Once no match of the deal is in play, its logs, seed and hands are public."""
    for match in matches:
        stored = [record._asdict() for record in match_event_records(match=match)]
        assert all_events(client, match) == stored
        assert client.get(f"/api/matches/{match.pk}/").json()["seed"] == seed
        assert str(seed) in client.get(f"/matches/{match.pk}/").content.decode()
        state = client.get(f"/api/matches/{match.pk}/state/", {"step": 1}).json()
        assert set(state["observations"]) == {"0", "1"}


def assert_no_move_shows_a_face_down_card(events: list[dict], match: Match) -> None:
    hidden = hidden_by_step(match)
    records = match_event_records(match=match)
    step, shown = 0, 0
    for event in events:
        if event["type"] != "decision":
            continue
        step += 1
        action = event["payload"]["action"]
        if action is None:
            continue
        shown += 1
        # A move that ends a deal was made face up before the cards went back in.
        if not ends_a_deal(match, step, records):
            assert not cards_in(action) & hidden[step], f"move {step} shows a face-down card"
    assert shown, "a spectator sees the moves made face up"


def test_the_match_list_of_a_tournament_withholds_the_seed_of_a_deal_in_play(client, db):
    first, second = owned_version(None, "snag", "first"), owned_version(None, "snag", "second")
    over, playing = twins("snag", 4_400_000_000_000_000_001, first, second)
    match_play(match_id=over.pk)

    body = client.get(f"/api/matches/{over.pk}/").json()

    assert body["seed"] is None and body["deal_in_play"] is True
    assert body["view"] == "public" and body["views"] == ["public"]


CRASHING_BOT = textwrap.dedent(
    """
    import json, sys
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "decide":
            sys.stderr.write("MY-SECRET-STRATEGY-NOTE 42\\n")
            sys.stderr.flush()
            raise SystemExit(3)
    """
)


def test_a_crashing_bots_stderr_reaches_its_owner_and_nobody_else(
    client, db, tmp_path, monkeypatch
):
    script = tmp_path / "crash.py"
    script.write_text(CRASHING_BOT)
    owner = User.objects.create_user("author", password="x")
    other = User.objects.create_user("stranger", password="x")
    crashing, steady = (
        owned_version(owner, "snag", "crashing"),
        owned_version(None, "snag", "steady"),
    )
    monkeypatch.setattr(
        "matches.play.launcher_for",
        lambda version, **_: ScriptLauncher(script) if version == crashing else _builtin(version),
    )
    match, twin = twins("snag", 12_345_678_901, crashing, steady)
    match_play(match_id=match.pk)
    match_play(match_id=twin.pk)
    match.refresh_from_db()
    assert match.result_reason == "forfeit"

    for user in (None, other):
        if user:
            client.force_login(user)
        for text in public_texts(client, match, [0, 1]).values():
            assert "MY-SECRET" not in text
        stderr = client.get(f"/api/matches/{match.pk}/seats/0/stderr/")
        assert stderr.status_code in (401, 403) and "MY-SECRET" not in stderr.content.decode()
    client.force_login(owner)
    stderr = client.get(f"/api/matches/{match.pk}/seats/0/stderr/").json()
    assert "MY-SECRET-STRATEGY-NOTE 42" in stderr["stderr"]


def _builtin(version: BotVersion):
    from bots.services.launch import launcher_for

    return launcher_for(version)


def test_an_older_forfeit_detail_keeps_the_bots_stderr_from_all_but_its_owner(client, db):
    owner = User.objects.create_user("author", password="x")
    mine, theirs = owned_version(owner, "snag", "mine"), owned_version(None, "snag", "theirs")
    match, _ = twins("snag", 99, mine, theirs)
    match = hold_mid_play(
        match, random_match_events(game_id="snag", seed=99, rng=random.Random(1), max_events=3)
    )
    detail = "the bot exited with status 1; its stderr ends with:\nMY-OLD-SECRET"
    services.match_events_append(
        match=match, events=[(3, "forfeit", {"seat": 0, "reason": "crash", "detail": detail})]
    )
    services.match_finish(
        match=match, events=[], result={"winner": 1, "scores": [0, 0], "reason": "forfeit"}
    )
    services.match_fail(match_id=_.pk, statuses=[Match.Status.PENDING])

    public = all_events(client, match)
    forfeit = next(event for event in public if event["type"] == "forfeit")
    assert "MY-OLD-SECRET" not in json.dumps(public)
    assert forfeit["redacted"] == "the bot's stderr"
    assert forfeit["payload"]["detail"].startswith("the bot exited with status 1")
    client.force_login(owner)
    assert "MY-OLD-SECRET" in json.dumps(all_events(client, match))


RECORDING_BOT = textwrap.dedent(
    """
    import json, random, sys
    record, rng = open(sys.argv[1], "a"), random.Random(7)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "decide":
            record.write(json.dumps([message["request"], message["observation"]]) + "\\n")
            record.flush()
            action = rng.choice(message["observation"]["legal_actions"])
            print(json.dumps({"action": action}), flush=True)
    """
)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_seat_view_is_step_by_step_what_that_seats_bot_was_sent_while_it_plays(
    client, db, tmp_path, monkeypatch, game_id
):
    script, record = tmp_path / "record.py", tmp_path / "seen.jsonl"
    script.write_text(RECORDING_BOT)
    owner = User.objects.create_user("author", password="x")
    recorder, other = owned_version(owner, game_id, "recorder"), owned_version(None, game_id, "o")
    monkeypatch.setattr(
        "matches.play.launcher_for",
        lambda version, **_: (
            ScriptLauncher(script, (str(record),)) if version == recorder else _builtin(version)
        ),
    )
    match, _twin = twins(game_id, 5_550_123, other, recorder)
    client.force_login(owner)
    views = watch_while_it_plays(client, monkeypatch, match, view="seat1")

    match_play(match_id=match.pk)

    seen = [json.loads(line) for line in record.read_text().splitlines()]
    compared = [(request, obs) for request, obs in seen if request - 1 in views]
    assert len(compared) >= min(len(seen), 40)
    for request, observation in compared:
        assert views[request - 1] == {"1": observation}
    assert client.get(f"/api/matches/{match.pk}/state/", {"view": "seat0"}).status_code == 403


#: Steps a test follows live: each look refolds the running log, so a long match is
#: followed through its first deals only.
WATCHED_STEPS = 150


def watch_while_it_plays(client, monkeypatch, match: Match, *, view: str) -> dict[int, dict]:
    """Have every event stored as it is made, and after each one fetch the ``view`` of the
    position reached so far: what the owner sees while the match runs, step by step."""
    from matches import play

    real_writer, views = play.match_event_writer, {}

    def watched_writer(**kwargs):
        writer = real_writer(**kwargs, flush_every=1)
        emit = writer.emit

        def emit_and_watch(kind, payload):
            seq = emit(kind, payload)
            # After each decision and each new deal: every position the bot is asked in.
            if kind in (EventType.DECISION, EventType.SHUFFLE) and len(views) < WATCHED_STEPS:
                steps = match_event_count(match_id=match.pk, type="decision")
                url = f"/api/matches/{match.pk}/state/"
                body = client.get(url, {"step": steps, "view": view}).json()
                views[steps] = body["observations"]
            return seq

        writer.emit = emit_and_watch
        return writer

    monkeypatch.setattr("matches.play.match_event_writer", watched_writer)
    return views


def test_staff_see_the_full_log_of_a_deal_in_play(client, db):
    staff = User.objects.create_user("staff", password="x", is_staff=True)
    first, second = owned_version(None, "snag", "first"), owned_version(None, "snag", "second")
    match, _ = twins("snag", 31_337_000_111, first, second)
    match_play(match_id=match.pk)
    client.force_login(staff)

    events = all_events(client, match, view="full")

    stored = match_event_records(match=match)
    assert events == [record._asdict() for record in stored]
    assert chain_events((r.seq, r.type, r.payload) for r in stored)[-1].hash == stored[-1].hash


def test_an_unknown_view_is_a_clear_400(client, db):
    first, second = owned_version(None, "snag", "first"), owned_version(None, "snag", "second")
    match, _ = twins("snag", 1, first, second)

    response = client.get(f"/api/matches/{match.pk}/", {"view": "everything"})

    assert response.status_code == 400
    assert response.json()["error"] == "invalid"
    assert "public, seat0, seat1, full" in response.json()["detail"]["view"]


def test_a_refused_seat_view_says_what_would_let_the_viewer_see_it(client, db):
    alice = User.objects.create_user("alice-v", password="x")
    bob = User.objects.create_user("bob-v", password="x")
    alices, builtin = owned_version(alice, "snag", "alices"), owned_version(None, "snag", "b")
    match, _ = twins("snag", 7, alices, builtin)

    def refusal(view: str) -> str:
        response = client.get(f"/api/matches/{match.pk}/", {"view": view})
        assert response.status_code == 403
        return response.json()["detail"]["view"]

    assert refusal("seat0").startswith("sign in to see seat 0's view")
    client.force_login(bob)
    assert refusal("seat0").startswith("seat 0 belongs to another author")
    assert refusal("seat1").startswith("seat 1 holds a built-in bot")
    client.force_login(alice)
    assert refusal("seat1").startswith("seat 1 holds a built-in bot")
    assert client.get(f"/api/matches/{match.pk}/", {"view": "seat0"}).status_code == 200
