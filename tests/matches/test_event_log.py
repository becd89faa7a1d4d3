import pytest
from django.db import IntegrityError, connection
from django.db.models import ProtectedError
from django.test.utils import CaptureQueriesContext

from games.events import (
    EventConflict,
    EventImmutable,
    EventSequenceGap,
    batch_events,
    canonical_json,
    chain_events,
    stored_batch,
)
from games.replay import FailureKind, replay
from matches import services
from matches.models import Match, MatchEventBatch
from matches.selectors import match_event_records, match_forfeits, match_log_end
from matches.services import (
    MatchEventWriter,
    NewEvent,
    match_create,
    match_event_writer,
    match_events_append,
)
from tests.games.snag_logs import PLAYERS, SNAG, play_snag

pytestmark = pytest.mark.django_db

PLAYED = play_snag(seed=11, options={"target": 15}, rng_seed=3)


@pytest.fixture
def match():
    return match_create(game_id="snag", seed=11, options={"target": 15})


def stored(match):
    return [tuple(record) for record in match_event_records(match=match)]


def batches(match):
    """Each stored batch's first and last seq."""
    rows = MatchEventBatch.objects.filter(match=match).order_by("seq")
    return list(rows.values_list("seq", "last_seq"))


def test_match_create_stores_a_pending_match_with_the_engines_rules_version():
    decks = [list(reversed(SNAG.deck))]

    match = match_create(game_id="snag", seed=2**63 - 1, options={"target": 20, "decks": decks})

    match.refresh_from_db()
    assert match.status == Match.Status.PENDING
    assert match.rules_version == SNAG.rules_version
    assert match.options == {"target": 20, "decks": decks}
    assert match.seed == 2**63 - 1
    assert (match.winner, match.scores, match.result_reason) == (None, None, "")


@pytest.mark.parametrize(
    ("game_id", "seed", "options", "complaint"),
    [
        ("snag", 1, {"target": 0}, "target"),
        ("snag", 1, {"colour": "red"}, "unknown option"),
        ("snag", 1, {"decks": [["AS", "AS"]]}, "decks"),
        ("snag", -1, {}, "seed"),
        ("snag", 2**63, {}, "seed"),
        ("chess", 1, {}, "unknown game"),
    ],
)
def test_match_create_refuses_bad_input_before_storing_anything(game_id, seed, options, complaint):
    with pytest.raises(ValueError, match=complaint):
        match_create(game_id=game_id, seed=seed, options=options)

    assert not Match.objects.exists()


def test_appended_events_are_stored_in_a_hash_chain(match):
    match_events_append(match=match, events=PLAYED.events[:10])
    match_events_append(match=match, events=PLAYED.events[10:])

    assert stored(match) == [tuple(record) for record in chain_events(PLAYED.events)]


def test_appending_returns_the_events_stored_by_this_call(match):
    created = match_events_append(
        match=match, events=[NewEvent(*event) for event in PLAYED.events[:4]]
    )

    assert [event.seq for event in created] == [0, 1, 2, 3]


def test_re_appending_the_same_events_is_a_no_op(match):
    match_events_append(match=match, events=PLAYED.events[:10])
    before = stored(match)

    again = match_events_append(match=match, events=PLAYED.events[:10])

    assert again == []
    assert stored(match) == before


def test_a_batch_that_repeats_stored_events_and_continues_stores_only_the_new_ones(match):
    match_events_append(match=match, events=PLAYED.events[:10])

    created = match_events_append(match=match, events=PLAYED.events[5:15])

    assert [event.seq for event in created] == list(range(10, 15))
    assert stored(match) == [tuple(record) for record in chain_events(PLAYED.events[:15])]


def test_re_appending_other_content_at_a_stored_seq_is_a_conflict_that_changes_nothing(match):
    match_events_append(match=match, events=PLAYED.events[:10])
    before = stored(match)
    seq, kind, payload = PLAYED.events[4]
    changed = [*PLAYED.events[3:4], (seq, kind, {**payload, "think_us": 1}), *PLAYED.events[5:12]]

    with pytest.raises(EventConflict, match="seq 4"):
        match_events_append(match=match, events=changed)

    assert stored(match) == before


def test_re_appending_another_type_at_a_stored_seq_is_a_conflict(match):
    match_events_append(match=match, events=PLAYED.events[:3])

    with pytest.raises(EventConflict):
        match_events_append(match=match, events=[(2, "forfeit", PLAYED.events[2][2])])


def test_a_batch_that_leaves_a_gap_after_the_log_is_refused(match):
    match_events_append(match=match, events=PLAYED.events[:5])

    with pytest.raises(EventSequenceGap, match="continues at seq 5"):
        match_events_append(match=match, events=PLAYED.events[6:8])

    assert len(stored(match)) == 5


def test_a_batch_with_a_gap_inside_is_refused(match):
    with pytest.raises(EventSequenceGap):
        match_events_append(match=match, events=[PLAYED.events[0], PLAYED.events[2]])

    assert stored(match) == []


def test_an_unknown_event_type_is_refused(match):
    with pytest.raises(ValueError, match="unknown event type"):
        match_events_append(match=match, events=[(0, "chat", {"text": "hi"})])


def test_a_payload_json_cannot_carry_exactly_is_refused(match):
    with pytest.raises(ValueError):
        match_events_append(match=match, events=[(0, "match_started", {"x": float("nan")})])

    assert stored(match) == []


def test_a_writer_that_lost_a_race_to_the_same_events_makes_its_append_a_no_op(match, monkeypatch):
    match_events_append(match=match, events=PLAYED.events[:6])
    before = stored(match)
    real_log_end = services._log_end
    calls = []

    def stale_then_real(match):
        # The first read sees the log as it was before the other writer committed.
        calls.append(match)
        return (3, before[2][3]) if len(calls) == 1 else real_log_end(match)

    monkeypatch.setattr(services, "_log_end", stale_then_real)

    assert match_events_append(match=match, events=PLAYED.events[3:6]) == []
    assert len(calls) == 2
    assert stored(match) == before


def test_a_writer_that_lost_a_race_to_other_events_gets_a_conflict(match, monkeypatch):
    match_events_append(match=match, events=PLAYED.events[:6])
    before = stored(match)
    real_log_end = services._log_end
    calls = []

    def stale_then_real(match):
        calls.append(match)
        return (3, before[2][3]) if len(calls) == 1 else real_log_end(match)

    monkeypatch.setattr(services, "_log_end", stale_then_real)
    seq, kind, payload = PLAYED.events[3]

    with pytest.raises(EventConflict):
        match_events_append(match=match, events=[(seq, kind, {**payload, "think_us": 0})])

    assert stored(match) == before


def test_a_stored_batch_refuses_to_be_saved_again_or_deleted(match):
    match_events_append(match=match, events=PLAYED.events[:2])
    batch = MatchEventBatch.objects.get(match=match, seq=0)
    batch.events = stored_batch([("shuffle", {"k": 0, "order": []})])

    with pytest.raises(EventImmutable):
        batch.save()
    with pytest.raises(EventImmutable):
        batch.delete()

    assert stored(match) == [tuple(record) for record in chain_events(PLAYED.events[:2])]


def test_the_batch_queryset_refuses_update_delete_and_upsert(match):
    match_events_append(match=match, events=PLAYED.events[:2])
    rows = MatchEventBatch.objects.filter(match=match)

    with pytest.raises(EventImmutable):
        rows.update(events=b"")
    with pytest.raises(EventImmutable):
        match.event_batches.all().delete()
    with pytest.raises(EventImmutable):
        MatchEventBatch.objects.bulk_create(
            [MatchEventBatch(match=match, seq=0, last_seq=0, hash="0" * 64, events=b"")],
            update_conflicts=True,
            unique_fields=["match", "seq"],
            update_fields=["events"],
        )

    assert stored(match) == [tuple(record) for record in chain_events(PLAYED.events[:2])]


def test_a_new_instance_cannot_overwrite_a_stored_batch(match):
    match_events_append(match=match, events=PLAYED.events[:1])
    impostor = MatchEventBatch(match=match, seq=0, last_seq=0, hash="f" * 64, events=b"")

    with pytest.raises(IntegrityError):
        impostor.save()


def test_a_match_with_events_cannot_be_deleted(match):
    match_events_append(match=match, events=PLAYED.events[:1])

    with pytest.raises(ProtectedError):
        match.delete()


def test_match_event_writer_stores_match_started_at_once(match):
    match_event_writer(match=match, players=PLAYERS)

    [(seq, kind, payload, _)] = stored(match)
    assert (seq, kind) == (0, "match_started")
    assert payload == {
        "game": "snag",
        "rules_version": SNAG.rules_version,
        "seed": 11,
        "options": {"target": 15},
        "players": PLAYERS,
    }


def test_match_event_writer_wants_seat_0_then_seat_1(match):
    with pytest.raises(ValueError, match="seat 0 then seat 1"):
        match_event_writer(match=match, players=list(reversed(PLAYERS)))


def test_the_writer_numbers_events_and_flushes_every_n(match):
    writer = MatchEventWriter(match, flush_every=3)
    writer.emit(*PLAYED.events[0][1:])
    assert [row[0] for row in stored(match)] == [0]

    seqs = [writer.emit(kind, payload) for _, kind, payload in PLAYED.events[1:6]]

    assert seqs == [1, 2, 3, 4, 5]
    assert [row[0] for row in stored(match)] == [0, 1, 2, 3]
    writer.flush()
    assert [row[0] for row in stored(match)] == [0, 1, 2, 3, 4, 5]


def test_the_writer_flushes_a_forfeit_and_match_finished_at_once(match):
    writer = MatchEventWriter(match, flush_every=100)
    for _, kind, payload in PLAYED.events[:3]:
        writer.emit(kind, payload)
    writer.emit("forfeit", {"seat": 0, "reason": "crash", "detail": "exit status 1"})

    assert len(stored(match)) == 4


def test_leaving_the_writers_block_flushes_even_on_an_error(match):
    with pytest.raises(RuntimeError), MatchEventWriter(match, flush_every=100) as writer:
        for _, kind, payload in PLAYED.events[:4]:
            writer.emit(kind, payload)
        raise RuntimeError("the runner crashed")

    assert stored(match) == [tuple(record) for record in chain_events(PLAYED.events[:4])]


def claimed(match):
    assert services.match_claim(match_id=match.pk, worker="test-worker")
    return Match.objects.get(pk=match.pk)


def test_a_whole_match_written_by_the_writer_is_the_chain_of_its_events(match):
    with MatchEventWriter(claimed(match), flush_every=7) as writer:
        for _, kind, payload in PLAYED.events:
            writer.emit(kind, payload)

    assert stored(match) == [tuple(record) for record in chain_events(PLAYED.events)]


def test_the_last_event_and_the_result_are_stored_together(match):
    match = claimed(match)
    writer = MatchEventWriter(match, flush_every=1000)
    for _, kind, payload in PLAYED.events[:-1]:
        writer.emit(kind, payload)
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING

    writer.emit(PLAYED.events[-1][1], PLAYED.events[-1][2])

    match.refresh_from_db()
    result = PLAYED.events[-1][2]
    assert (match.status, match.winner, match.scores, match.result_reason) == (
        Match.Status.FINISHED,
        result["winner"],
        result["scores"],
        result["reason"],
    )
    assert stored(match) == [tuple(record) for record in chain_events(PLAYED.events)]


def test_a_result_for_a_match_declared_dead_is_not_stored(match):
    match = claimed(match)
    writer = MatchEventWriter(match, flush_every=1000)
    for _, kind, payload in PLAYED.events[:-1]:
        writer.emit(kind, payload)
    writer.flush()
    assert services.match_fail(match_id=match.pk)

    with pytest.raises(services.MatchLeaseLost):
        writer.emit(PLAYED.events[-1][1], PLAYED.events[-1][2])

    match.refresh_from_db()
    assert match.status == Match.Status.FAILED
    assert len(stored(match)) == len(PLAYED.events) - 1


def test_a_batch_is_stored_once_its_first_event_is_flush_seconds_old(match):
    writer = MatchEventWriter(match, flush_every=100, flush_seconds=0.0)
    for _, kind, payload in PLAYED.events[:3]:
        writer.emit(kind, payload)

    assert len(stored(match)) == 3


def test_a_bot_thinking_gets_the_moves_made_so_far_stored(match):
    writer = MatchEventWriter(match, flush_every=100, flush_seconds=60.0)
    for _, kind, payload in PLAYED.events[:4]:
        writer.emit(kind, payload)
    assert len(stored(match)) == 1, "match_started is stored at once, the rest waits"

    writer.idle()

    assert stored(match) == [tuple(record) for record in chain_events(PLAYED.events[:4])]


# A writer that knows where its log ends. -----------------------------------------------------

#: Batch sizes: a few events, and more than a second of a quick match.
BATCHES = [3, 40]


def end_of(match):
    seq, hash = match_log_end(match=match)
    return services.LogEnd(seq + 1, hash)


@pytest.mark.parametrize("size", BATCHES)
def test_an_append_at_the_known_log_end_reads_nothing_and_continues_the_chain(match, size):
    match_events_append(match=match, events=PLAYED.events[:5])
    events, log_end = PLAYED.events[5 : 5 + size], end_of(match)

    with CaptureQueriesContext(connection) as queries:
        created = match_events_append(match=match, events=events, log_end=log_end)

    # The test's transaction makes it a savepoint; the insert holds its own check.
    statements = [q["sql"].lstrip().split()[0].upper() for q in queries]
    assert [s for s in statements if s not in ("SAVEPOINT", "RELEASE")] == ["INSERT"]
    assert created == chain_events(PLAYED.events[: 5 + size])[5:]
    assert stored(match) == [tuple(record) for record in chain_events(PLAYED.events[: 5 + size])]


@pytest.mark.parametrize("size", BATCHES)
def test_a_log_end_with_another_hash_stores_nothing_there_and_the_log_settles_it(match, size):
    match_events_append(match=match, events=PLAYED.events[:5])
    events = PLAYED.events[5 : 5 + size]

    created = match_events_append(match=match, events=events, log_end=services.LogEnd(5, "f" * 64))

    # Chained from the hash the log really ends with, not the one the writer was told.
    assert created == chain_events(PLAYED.events[: 5 + size])[5:]
    assert stored(match) == [tuple(record) for record in chain_events(PLAYED.events[: 5 + size])]


@pytest.mark.parametrize("size", BATCHES)
def test_a_log_end_behind_the_log_makes_a_redelivered_batch_a_no_op(match, size):
    match_events_append(match=match, events=PLAYED.events[: 5 + size])
    before = stored(match)
    behind = services.LogEnd(5, before[4][3])

    again = PLAYED.events[5 : 5 + size]

    assert match_events_append(match=match, events=again, log_end=behind) == []
    assert stored(match) == before


@pytest.mark.parametrize("size", BATCHES)
def test_a_log_end_behind_the_log_with_other_content_is_a_conflict(match, size):
    match_events_append(match=match, events=PLAYED.events[: 5 + size])
    before = stored(match)
    behind = services.LogEnd(5, before[4][3])
    seq, kind, payload = PLAYED.events[5]
    changed = [(seq, kind, {**payload, "think_us": -1}), *PLAYED.events[6 : 5 + size]]

    with pytest.raises(EventConflict):
        match_events_append(match=match, events=changed, log_end=behind)

    assert stored(match) == before


@pytest.mark.parametrize("size", BATCHES)
def test_a_log_end_past_the_log_cannot_leave_a_gap(match, size):
    match_events_append(match=match, events=PLAYED.events[:5])
    before = stored(match)
    ahead = services.LogEnd(8, chain_events(PLAYED.events[:8])[-1].hash)

    with pytest.raises(EventSequenceGap):
        match_events_append(match=match, events=PLAYED.events[8 : 8 + size], log_end=ahead)

    assert stored(match) == before


def test_a_result_with_a_stale_log_end_is_stored_after_reading_the_log(match):
    match = claimed(match)
    match_events_append(match=match, events=PLAYED.events[:-1])
    result = PLAYED.events[-1]

    services.match_finish(
        match=match,
        events=[NewEvent(*result)],
        result=result[2],
        log_end=services.LogEnd(result[0], "0" * 64),
    )

    assert stored(match) == [tuple(record) for record in chain_events(PLAYED.events)]
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED


def test_a_quick_match_is_stored_in_two_commits_the_claim_with_its_start_and_the_rest(match):
    writer = match_event_writer(match=match, players=PLAYERS, claim_for="test-worker")
    match.refresh_from_db()
    assert (match.status, match.claimed_by) == (Match.Status.RUNNING, "test-worker")
    assert [row[1] for row in stored(match)] == ["match_started"]

    with writer:
        for _, kind, payload in PLAYED.events[1:-1]:
            writer.emit(kind, payload)
        assert len(stored(match)) == 1
        writer.emit(*PLAYED.events[-1][1:])

    assert len(stored(match)) == len(PLAYED.events)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED


def test_a_second_delivery_cannot_claim_the_match_nor_store_a_start(match):
    match_event_writer(match=match, players=PLAYERS, claim_for="first-worker")
    before = stored(match)

    with pytest.raises(services.MatchNotPending):
        match_event_writer(match=match, players=PLAYERS, claim_for="second-worker")

    match.refresh_from_db()
    assert match.claimed_by == "first-worker"
    assert stored(match) == before


# How a log is stored. -----------------------------------------------------------------------


def test_each_append_is_one_row_holding_its_events_and_its_last_hash(match):
    match_events_append(match=match, events=PLAYED.events[:1])
    match_events_append(match=match, events=PLAYED.events[1:10])
    match_events_append(match=match, events=PLAYED.events[10:])

    last = len(PLAYED.events) - 1
    assert batches(match) == [(0, 0), (1, 9), (10, last)]
    records = chain_events(PLAYED.events)
    rows = MatchEventBatch.objects.filter(match=match).order_by("seq")
    for row, (first, end) in zip(rows, [(0, 0), (1, 9), (10, last)], strict=True):
        assert row.hash == records[end].hash
        events = [(record.type, record.payload) for record in records[first : end + 1]]
        assert batch_events(bytes(row.events)) == events
        assert bytes(row.events) == stored_batch(events)


def test_a_quick_match_takes_two_rows_and_a_fraction_of_its_events_bytes(match):
    writer = match_event_writer(match=match, players=PLAYERS, claim_for="test-worker")
    with writer:
        for _, kind, payload in PLAYED.events[1:]:
            writer.emit(kind, payload)

    assert batches(match) == [(0, 0), (1, len(PLAYED.events) - 1)]
    data = b"".join(MatchEventBatch.objects.filter(match=match).values_list("events", flat=True))
    hashed = sum(
        len(canonical_json({"seq": seq, "type": kind, "payload": payload}).encode()) + 32
        for seq, kind, payload in PLAYED.events
    )
    assert len(data) < hashed / 4


def test_a_batch_changed_after_it_was_written_fails_the_chain_at_its_last_event(match):
    match_events_append(match=match, events=PLAYED.events[:5])
    match_events_append(match=match, events=PLAYED.events[5:12])
    match_events_append(match=match, events=PLAYED.events[12:])
    seq, kind, payload = PLAYED.events[7]
    changed = [(t, p) for _, t, p in PLAYED.events[5:12]]
    changed[2] = (kind, {**payload, "think_us": payload["think_us"] + 1})
    with connection.cursor() as cursor:
        # Past the model, as someone with the database's password could (on PostgreSQL the
        # trigger refuses even that; SQLite has none).
        if connection.vendor == "postgresql":
            pytest.skip("PostgreSQL refuses the change itself (test_event_log_postgres.py)")
        cursor.execute(
            "UPDATE matches_eventbatch SET events = %s WHERE match_id = %s AND seq = 5",
            [stored_batch(changed), match.pk],
        )

    failures = replay(match_event_records(match=match)).failures

    assert [(f.seq, f.kind) for f in failures if f.kind is FailureKind.CHAIN] == [
        (11, FailureKind.CHAIN)
    ]


def test_forfeits_are_found_in_the_last_events_of_their_logs(match):
    other = match_create(game_id="snag", seed=12, options={})
    match_events_append(match=match, events=PLAYED.events[:4])
    match_events_append(match=other, events=PLAYED.events[:4])
    forfeit = {"seat": 1, "reason": "timeout", "detail": "no reply in 1.0 s"}
    match_events_append(match=match, events=[(4, "forfeit", forfeit)])
    match_events_append(match=match, events=[(5, "match_finished", {"winner": 0})])

    assert match_forfeits(match_ids=[match.pk, other.pk]) == {match.pk: forfeit}
