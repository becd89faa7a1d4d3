"""The ladder tick, challenges and version tests, played in this process."""

from __future__ import annotations

import importlib
from datetime import timedelta

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command
from django.db.models import Max, Q
from django.utils import timezone

from bots.models import Bot, BotVersion
from ladder import selectors
from ladder.services import (
    AuthorRequestError,
    DailyLimitReached,
    challenge_create,
    ladder_for,
    ladder_tick,
    version_test_create,
)
from tests.tournaments.conftest import pending_match_ids
from tournaments.formats import VERSION_TEST_BATCH_SETS
from tournaments.models import (
    DuplicateSet,
    Entrant,
    Pairing,
    Tournament,
    TournamentMatch,
)
from tournaments.ratings.models import RatingUpdate
from tournaments.series import match_series
from tournaments.services import scheduling
from tournaments.sprt import SprtParameters

from .conftest import SHORT, bots_of, ladder_played, play_pending


@pytest.fixture(autouse=True)
def _room_for_every_set(settings):
    settings.BAIZE_LADDER_SETS_IN_FLIGHT = 10


def test_the_tick_pairs_the_latest_ready_version_of_every_bot_on_the_ladder(alice, bob, settings):
    a1, b1, c1 = bots_of(alice, 3)
    a2 = BotVersion.objects.create(
        bot=a1.bot, number=2, builtin="random", content_hash="a2", status="ready"
    )
    BotVersion.objects.create(
        bot=b1.bot, number=2, builtin="random", content_hash="b2", status="rejected"
    )
    Bot.objects.filter(pk=c1.bot_id).update(on_ladder=False)
    [d1] = bots_of(bob, 1)

    assert ladder_tick() >= 1

    ladder = ladder_for(game_id="snag")
    entered = set(Entrant.objects.filter(tournament=ladder).values_list("version_id", flat=True))
    assert entered == {a2.pk, b1.pk, d1.pk}
    paired = Pairing.objects.filter(tournament=ladder)
    assert paired.count() == 1  # three versions: one pairing, the third waits
    sets = DuplicateSet.objects.filter(pairing__tournament=ladder).count()
    assert sets == settings.BAIZE_LADDER_SETS_PER_PAIRING == 3


def test_a_ladder_pairings_sets_are_sent_as_one_task_twins_back_to_back(alice, settings):
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 3
    bots_of(alice, 2)
    ladder_tick()

    ladder = ladder_for(game_id="snag")
    pending = pending_match_ids(ladder)
    (task,) = match_series(match_ids=pending)
    assert sorted(task) == sorted(pending) and len(task) == 6
    links = {link.match_id: link for link in TournamentMatch.objects.filter(match_id__in=task)}
    order = [(links[pk].duplicate_set.number, links[pk].first_seat) for pk in task]
    assert order == [(1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (3, 1)]


def test_the_pair_cap_counts_sets_not_pairings(alice, settings):
    settings.BAIZE_LADDER_SETS_PER_PAIRING = 3
    bots_of(alice, 2)
    ladder_tick()

    ladder = ladder_for(game_id="snag")
    recent = selectors.ladder_recent_pairs(ladder=ladder, since=timezone.now() - timedelta(hours=1))
    assert list(recent.values()) == [3]


def test_a_version_tests_sets_come_in_batches_spread_over_two_tasks(alice):
    candidate, baseline = bots_of(alice, 2)
    test = version_test_create(
        user=alice, candidate=candidate, baseline=baseline, parameters=SprtParameters()
    )

    pending = pending_match_ids(test)
    series = match_series(match_ids=pending)
    batch = VERSION_TEST_BATCH_SETS
    assert len(pending) == 2 * batch and [len(s) for s in series] == [batch, batch]
    test.refresh_from_db()
    assert test.sets_per_pair == batch


def test_a_tick_adds_nothing_while_every_version_is_busy(alice):
    bots_of(alice, 2)
    assert ladder_tick() == 1
    assert ladder_tick() == 0


def test_ladder_sets_are_rated_in_order_and_the_ratings_recompute_to_the_same(alice, bob):
    ladder = ladder_played(alice, bob, ticks=4)

    finished = DuplicateSet.objects.filter(pairing__tournament=ladder, status="finished")
    assert finished.count() >= 6
    assert RatingUpdate.objects.filter(duplicate_set__in=finished).count() == finished.count()
    call_command("ratings_recompute", "--check", "--game", "snag")  # exits 1 on a difference
    table = selectors.ladder_table(game_id="snag")
    assert [row.rank for row in table] == [1, 2, 3, 4]
    assert all(row.sets >= 1 and row.low < row.mu < row.high for row in table)


def test_a_challenge_plays_its_sets_unrated_and_reports_them(alice, bob):
    [mine] = bots_of(alice, 1)  # the heuristic
    _, theirs = bots_of(bob, 2)  # the second is random
    challenge = challenge_create(user=alice, version=mine, opponent=theirs, sets=4)
    Tournament.objects.filter(pk=challenge.pk).update(options=SHORT)

    play_pending(challenge)

    challenge.refresh_from_db()
    assert challenge.status == Tournament.Status.FINISHED
    result = selectors.head_to_head(tournament=challenge)
    assert result.sets == 4 and result.wins + result.draws + result.losses == 4
    assert result.wins >= 3, "the heuristic beats random"
    low, high = result.score_interval
    assert 0 <= low <= result.score <= high <= 1
    assert not RatingUpdate.objects.exists(), "challenges leave the ratings alone"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"sets": 0}, "sets must be from 1 to 50"),
        ({"sets": 51}, "sets must be from 1 to 50"),
        ({"swap": True}, "not one of your bots"),
        ({"same": True}, "cannot play itself"),
    ],
)
def test_a_challenge_asked_wrongly_is_refused_and_nothing_is_made(alice, bob, change, message):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    version, opponent = (theirs, mine) if change.get("swap") else (mine, theirs)
    if change.get("same"):
        opponent = mine
    with pytest.raises(AuthorRequestError, match=message):
        challenge_create(user=alice, version=version, opponent=opponent, sets=change.get("sets", 2))
    assert not Tournament.objects.filter(format="challenge").exists()


def test_a_challenge_against_a_version_not_ready_is_refused(alice, bob):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    BotVersion.objects.filter(pk=theirs.pk).update(status="pending")
    theirs.refresh_from_db()
    with pytest.raises(AuthorRequestError, match="not ready"):
        challenge_create(user=alice, version=mine, opponent=theirs, sets=2)


def test_the_daily_limit_refuses_a_challenge_beyond_it(alice, bob, settings):
    settings.BAIZE_AUTHOR_SETS_PER_DAY = 10
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    challenge_create(user=alice, version=mine, opponent=theirs, sets=8)
    with pytest.raises(DailyLimitReached, match="limit is 10 a day"):
        challenge_create(user=alice, version=mine, opponent=theirs, sets=3)
    assert challenge_create(user=alice, version=mine, opponent=theirs, sets=2)


def test_a_version_test_of_the_heuristic_against_random_stops_on_better(alice):
    candidate, baseline = bots_of(alice, 2)  # heuristic, random
    test = version_test_create(
        user=alice, candidate=candidate, baseline=baseline, parameters=SprtParameters()
    )
    Tournament.objects.filter(pk=test.pk).update(options=SHORT)

    play_pending(test)

    test.refresh_from_db()
    assert test.status == Tournament.Status.FINISHED
    progress = selectors.version_test_progress(tournament=test)
    assert progress.verdict == "better"
    assert progress.llr >= progress.upper_bound
    stored = test.version_test
    assert (stored.wins, stored.draws, stored.losses) == (
        progress.head_to_head.wins,
        progress.head_to_head.draws,
        progress.head_to_head.losses,
    )
    assert stored.wins + stored.draws + stored.losses < 200  # far below the cap of 1000
    assert not RatingUpdate.objects.exists(), "version tests leave the ratings alone"
    assert test.finished_at is not None and test.finished_at <= timezone.now()


def test_a_version_test_needs_two_of_the_callers_own_versions(alice, bob):
    [mine] = bots_of(alice, 1)
    [theirs] = bots_of(bob, 1)
    with pytest.raises(AuthorRequestError, match="not one of your bots"):
        version_test_create(
            user=alice, candidate=mine, baseline=theirs, parameters=SprtParameters()
        )


def test_a_version_test_against_a_pool_spreads_its_sets_and_reads_them_as_one(alice, bob):
    [candidate] = bots_of(alice, 1)  # the heuristic
    pool = [version for version in bots_of(bob, 4) if version.builtin == "random"]
    assert len(pool) == 2
    test = version_test_create(
        user=alice, candidate=candidate, pool=pool, parameters=SprtParameters()
    )
    Tournament.objects.filter(pk=test.pk).update(options=SHORT)
    pairings = Pairing.objects.filter(tournament=test).order_by("table")
    assert [(p.key, p.first.version_id, p.second.version_id) for p in pairings] == [
        ("test-1", candidate.pk, pool[0].pk),
        ("test-2", candidate.pk, pool[1].pk),
    ]

    play_pending(test)

    test.refresh_from_db()
    progress = selectors.version_test_progress(tournament=test)
    assert test.status == Tournament.Status.FINISHED and progress.verdict == "better"
    per_opponent = [DuplicateSet.objects.filter(pairing=p).count() for p in pairings]
    # Each pairing is given whole batches, the one that has played least first.
    assert abs(per_opponent[0] - per_opponent[1]) <= VERSION_TEST_BATCH_SETS, per_opponent
    assert all(count % VERSION_TEST_BATCH_SETS == 0 for count in per_opponent), per_opponent
    played, finished = progress.head_to_head, DuplicateSet.Status.FINISHED
    counted = DuplicateSet.objects.filter(pairing__tournament=test, status=finished).count()
    assert played.wins + played.draws + played.losses == counted  # sets in flight are dropped
    first, opponents = selectors.author_versions(tournament=test)
    assert first == candidate and opponents == pool


@pytest.mark.parametrize(
    ("opponents", "message"),
    [
        ("none", "either a baseline or a pool"),
        ("both", "either a baseline or a pool"),
        ("one", "a pool holds 2 to 8 versions, not 1"),
        ("twice", "names a version twice"),
        ("itself", "cannot play itself"),
    ],
)
def test_a_version_test_pool_must_be_two_to_eight_other_versions(alice, bob, opponents, message):
    candidate, baseline = bots_of(alice, 2)
    theirs = bots_of(bob, 3)
    given = {
        "none": {},
        "both": {"baseline": baseline, "pool": theirs},
        "one": {"pool": theirs[:1]},
        "twice": {"pool": [theirs[0], theirs[0]]},
        "itself": {"pool": [theirs[0], candidate]},
    }[opponents]
    with pytest.raises(AuthorRequestError, match=message):
        version_test_create(user=alice, candidate=candidate, parameters=SprtParameters(), **given)
    assert not Tournament.objects.exists()


def test_the_ladders_advance_reads_only_the_pairings_still_playing(alice, bob):
    ladder = ladder_played(alice, bob, ticks=3)
    ladder_tick()  # these stay playing

    pairings = Pairing.objects.filter(tournament=ladder)
    playing = set(pairings.filter(status=Pairing.Status.PLAYING).values_list("key", flat=True))
    assert playing and pairings.filter(status=Pairing.Status.FINISHED).count() >= 3
    read = {pairing.key for pairing in scheduling._snapshot(ladder.pk).pairings}
    assert read == playing
    # Numbered on from the newest pairing, not from what the advance read.
    numbers = sorted(int(key[1:]) for key in pairings.values_list("key", flat=True))
    assert numbers == list(range(1, len(numbers) + 1))


def entrant_history(ladder) -> dict[int, tuple]:
    """Each entrant's finished sets, latest set's end and newest pairing, from the history."""
    found = {}
    for entrant in ladder.entrants.all():
        pairings = Pairing.objects.filter(tournament=ladder).filter(
            Q(first=entrant) | Q(second=entrant)
        )
        sets = DuplicateSet.objects.filter(
            pairing__in=pairings, status=DuplicateSet.Status.FINISHED
        )
        found[entrant.pk] = (
            sets.count(),
            sets.aggregate(last=Max("finished_at"))["last"],
            pairings.aggregate(made=Max("created_at"))["made"],
        )
    return found


def entrant_kept(ladder) -> dict[int, tuple]:
    rows = ladder.entrants.values_list(
        "pk", "sets_finished", "last_set_finished_at", "last_paired_at"
    )
    return {pk: (sets, last_set, paired) for pk, sets, last_set, paired in rows}


def test_each_entrants_sets_and_last_pairing_are_kept_as_the_history_has_them(alice, bob):
    ladder = ladder_played(alice, bob, ticks=3)
    ladder_tick()  # pairings still playing, made after the last set finished

    kept, history = entrant_kept(ladder), entrant_history(ladder)
    assert sum(sets for sets, _, _ in kept.values()) >= 2 * 3
    for entrant, (sets, last_set, paired) in kept.items():
        history_sets, history_last_set, history_made = history[entrant]
        assert (sets, last_set) == (history_sets, history_last_set)
        # Stamped as the pairing is made, in the same transaction: within its creation.
        assert (paired is None) == (history_made is None)
        if paired is not None:
            assert abs(paired - history_made) < timedelta(seconds=1)


def test_the_migration_counts_each_entrants_history_as_it_is_then_kept(alice, bob):
    ladder = ladder_played(alice, bob, ticks=3)
    kept = entrant_kept(ladder)
    ladder.entrants.update(sets_finished=0, last_set_finished_at=None, last_paired_at=None)

    migration = importlib.import_module("tournaments.migrations.0012_entrant_history_kept")
    migration.count_from_history(django_apps, None)

    counted, history = entrant_kept(ladder), entrant_history(ladder)
    # Its sets as they were kept; its newest pairing as the pairings were stamped.
    assert {pk: row[:2] for pk, row in counted.items()} == {pk: row[:2] for pk, row in kept.items()}
    assert {pk: row[2] for pk, row in counted.items()} == {pk: h[2] for pk, h in history.items()}
