"""Code from strangers reaches only workers whose sandbox holds it, and the ladder's
built-in filler never holds back what an author waits for (``base.queues``)."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import override_settings
from django.utils import timezone
from kombu import Consumer, Exchange, Message, Queue

from base.queues import (
    AUTHOR_PRIORITY,
    DEFAULT_QUEUE,
    FILLER_PRIORITY,
    FIRST_PRIORITY,
    SANDBOXED_QUEUE,
    queue_for,
)
from bots.models import Bot, BotVersion
from bots.services.bots import builtin_bots_sync
from bots.services.upload import bot_version_upload
from config.celery import app
from ladder.services import (
    challenge_create,
    ladder_for,
    ladder_matchmake,
    ladder_tick,
    version_test_create,
)
from matches.models import Match
from matches.selectors import match_runs_uploaded_code
from matches.services import match_create, match_seats_create
from tests.tournaments.conftest import play_all, services_configured, wait_until
from tournaments.formats import VERSION_TEST_BATCH_SETS
from tournaments.models import DuplicateSet, Entrant, Tournament, TournamentMatch
from tournaments.services import round_robin_create
from tournaments.services.scheduling import ladder_pairings_add, tournament_matches_enqueue
from tournaments.sprt import SprtParameters

from .uploads import GOOD_BOT


@pytest.fixture
def _tasks_in_process():
    """Here the queue is the subject: checks go to the broker as in production."""


def _match_of(*versions: BotVersion) -> int:
    match = match_create(game_id="snag", seed=1, options={"target": 1})
    match_seats_create(match=match, versions=list(versions))
    return match.id


def _uploaded_version(owner: User, status: str = "ready") -> BotVersion:
    bot = Bot.objects.create(owner=owner, game="snag", name=f"upload-{owner.pk}")
    return BotVersion.objects.create(bot=bot, number=1, content_hash="c" * 64, status=status)


def match_queue(*, match_id: int) -> str:
    """The queue the scheduler sends a match to (``tournaments.services.scheduling``)."""
    return queue_for(runs_uploaded_code=match_runs_uploaded_code(match_id=match_id))


@pytest.mark.django_db
def test_a_match_of_built_in_bots_goes_to_every_worker_and_one_with_an_upload_to_sandboxed_ones():
    random, heuristic = builtin_bots_sync(game_id="snag")
    uploaded = _uploaded_version(User.objects.create_user("alice"))

    assert match_queue(match_id=_match_of(random, heuristic)) == DEFAULT_QUEUE
    assert match_queue(match_id=_match_of(random, uploaded)) == SANDBOXED_QUEUE
    assert match_queue(match_id=_match_of(uploaded, random)) == SANDBOXED_QUEUE


@pytest.mark.django_db(transaction=True)
def test_an_upload_check_is_sent_to_the_sandboxed_queue(monkeypatch, code_store):
    from bots.tasks import bot_version_check_task

    sent = []
    monkeypatch.setattr(
        bot_version_check_task, "apply_async", lambda args, **options: sent.append(options)
    )
    bot = Bot.objects.create(owner=User.objects.create_user("bob"), game="snag", name="bobs")

    bot_version_upload(bot=bot, filename="bot.py", data=GOOD_BOT)

    assert sent == [{"queue": SANDBOXED_QUEUE, "priority": FIRST_PRIORITY}]


def _sends(monkeypatch) -> list[tuple[int, dict]]:
    """The match tasks sent, ``(match id, options)``, instead of being played; a series'
    task counts once for each of its matches."""
    sent: list[tuple[int, dict]] = []
    monkeypatch.setattr(
        "tournaments.tasks.tournament_match_play.apply_async",
        lambda args, **options: sent.append((*args, options)),
    )
    monkeypatch.setattr(
        "tournaments.tasks.tournament_series_play.apply_async",
        lambda args, **options: sent.extend((match_id, options) for match_id in args[0]),
    )
    return sent


def _sent_for(sent: list[tuple[int, dict]], tournament: Tournament) -> list[dict]:
    ids = set(TournamentMatch.objects.filter(tournament=tournament).values_list("match", flat=True))
    return [options for match_id, options in sent if match_id in ids]


@pytest.mark.django_db
def test_every_kind_of_work_an_author_waits_for_is_sent_ahead_of_the_built_in_ladder_sets(
    monkeypatch, settings, django_capture_on_commit_callbacks
):
    settings.BAIZE_LADDER_SETS_IN_FLIGHT = 1
    sent = _sends(monkeypatch)
    alice = User.objects.create_user("alice")
    random, heuristic = builtin_bots_sync(game_id="snag")
    filler = {"queue": DEFAULT_QUEUE, "priority": FILLER_PRIORITY}
    author = {"queue": SANDBOXED_QUEUE, "priority": AUTHOR_PRIORITY}

    with django_capture_on_commit_callbacks(execute=True):
        assert ladder_tick() == 1  # the two built-in bots: the only set there is room for
    ladder = Tournament.objects.get(game="snag", format="ladder")
    assert _sent_for(sent, ladder) == [filler, filler]

    candidate = _uploaded_version(alice)
    baseline = BotVersion.objects.create(
        bot=candidate.bot, number=2, content_hash="d" * 64, status="ready"
    )
    with django_capture_on_commit_callbacks(execute=True):
        challenge = challenge_create(user=alice, version=candidate, opponent=random, sets=1)
        test = version_test_create(
            user=alice, candidate=candidate, baseline=baseline, parameters=SprtParameters()
        )
        organised = round_robin_create(
            name="organised", game_id="snag", versions=[candidate, heuristic], secret=5
        )
        built_in_organised = round_robin_create(
            name="built-ins", game_id="snag", versions=[random, heuristic], secret=6
        )
    assert _sent_for(sent, challenge) == [author] * 2
    assert _sent_for(sent, test) == [author] * 2 * VERSION_TEST_BATCH_SETS
    assert (
        _sent_for(sent, organised) == [{"queue": SANDBOXED_QUEUE, "priority": FIRST_PRIORITY}] * 2
    )
    assert (
        _sent_for(sent, built_in_organised)
        == [{"queue": DEFAULT_QUEUE, "priority": FIRST_PRIORITY}] * 2
    )

    # The ladder's set in flight ends; the next tick pairs the uploaded bot with a built-in.
    play_all(ladder)
    BotVersion.objects.filter(pk=baseline.pk).update(status="failed")
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert ladder_tick() == 1
    (pairing,) = ladder.pairings.order_by("-id")[:1]
    assert candidate.pk in (pairing.first.version_id, pairing.second.version_id)
    assert _sent_for(sent, ladder) == [author] * 2
    assert AUTHOR_PRIORITY < FILLER_PRIORITY and FIRST_PRIORITY < FILLER_PRIORITY


@pytest.mark.services
def test_a_worker_below_full_plays_built_in_bots_and_leaves_uploads_to_a_full_one(
    celery_workers, code_store
):
    if not services_configured():
        pytest.skip("needs DATABASE_URL on PostgreSQL and CELERY_BROKER_URL on Redis")
    code_env = {"BAIZE_BOT_CODE_DIR": str(code_store)}
    # No interpreter for the bots: the probe says level none, as on a host without bwrap.
    celery_workers(BAIZE_SANDBOX_PYTHON="/nonexistent/python3", **code_env)
    owner = User.objects.create_user("carol")
    bot = Bot.objects.create(owner=owner, game="snag", name="carols")
    version = bot_version_upload(bot=bot, filename="bot.py", data=GOOD_BOT)
    tournament = round_robin_create(
        name="built-ins on a weak worker",
        game_id="snag",
        versions=builtin_bots_sync(game_id="snag"),
        secret=3,
    )

    wait_until(
        lambda: Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED,
        "the weak worker to play the built-in bots' tournament",
    )
    time.sleep(2)  # time enough for it to have taken the check, had it consumed that queue
    version.refresh_from_db()
    assert (version.status, version.status_reason) == (BotVersion.Status.PENDING, "")

    celery_workers(**code_env)
    wait_until(
        lambda: BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.READY,
        "a worker with the full sandbox to check the upload",
    )


def _built_in_ladder_backlog(*, game_id: str, sets: int) -> list[int]:
    """``sets`` ladder sets between the game's two built-in bots, sent at once: more of the
    filler than a tick sends, queued ahead of anything an author asks for next."""
    builtin_bots_sync(game_id=game_id)
    with override_settings(BAIZE_LADDER_SETS_IN_FLIGHT=1):
        assert ladder_matchmake(game_id=game_id, now=timezone.now())  # enters both bots
    ladder = ladder_for(game_id=game_id)
    first, second = Entrant.objects.filter(tournament=ladder).values_list("pk", flat=True)
    with transaction.atomic():
        match_ids = ladder_pairings_add(tournament_id=ladder.pk, pairs=[(first, second)] * sets)
        transaction.on_commit(lambda: tournament_matches_enqueue(match_ids=match_ids))
    return list(
        TournamentMatch.objects.filter(tournament=ladder).values_list("match_id", flat=True)
    )


def _queues_purge() -> None:
    with app.connection_for_write() as connection:
        for name in (DEFAULT_QUEUE, SANDBOXED_QUEUE):
            connection.default_channel.queue_purge(name)


def _drain_as_a_full_worker() -> list[tuple[str, str, int | list[int]]]:
    """Every message, ``(queue, task, first argument)``, in the order a worker consuming
    both queues takes them: the same connection, transport options and BRPOP."""
    taken: list[tuple[str, str, int | list[int]]] = []

    def take(body: tuple, message: Message) -> None:
        args = body[0]
        taken.append((message.delivery_info["routing_key"], message.headers["task"], args[0]))
        message.ack()

    queues = [Queue(name, Exchange(name), routing_key=name) for name in _BOTH_QUEUES]
    with (
        app.connection_for_read() as connection,
        Consumer(connection, queues=queues, callbacks=[take], accept=["json"], prefetch_count=1),
    ):
        while True:
            try:
                connection.drain_events(timeout=1)
            except TimeoutError:
                return taken


_BOTH_QUEUES = (DEFAULT_QUEUE, SANDBOXED_QUEUE)


@pytest.mark.services
@pytest.mark.django_db
def test_on_redis_a_worker_takes_what_authors_wait_for_before_built_in_ladder_sets_sent_earlier(
    code_store, django_capture_on_commit_callbacks
):
    if not services_configured():
        pytest.skip("needs DATABASE_URL on PostgreSQL and CELERY_BROKER_URL on Redis")
    _queues_purge()
    alice = User.objects.create_user("alice")
    random, heuristic = builtin_bots_sync(game_id="snag")
    candidate = _uploaded_version(alice)
    with django_capture_on_commit_callbacks(execute=True):
        filler = _built_in_ladder_backlog(game_id="spades", sets=10)
    with django_capture_on_commit_callbacks(execute=True):
        bot = Bot.objects.create(owner=alice, game="snag", name="alices-new")
        upload = bot_version_upload(bot=bot, filename="bot.py", data=GOOD_BOT)
        challenge = challenge_create(user=alice, version=candidate, opponent=random, sets=1)
        built_ins = round_robin_create(
            name="built-ins", game_id="snag", versions=[random, heuristic], secret=1
        )
        organised = round_robin_create(
            name="organised", game_id="snag", versions=[candidate, heuristic], secret=2
        )

    taken = _drain_as_a_full_worker()

    def matches(tournament: Tournament) -> set[int]:
        return set(
            TournamentMatch.objects.filter(tournament=tournament).values_list("match", flat=True)
        )

    def ids(taken_part: list[tuple[str, str, int | list[int]]]) -> list[int]:
        """The ids the messages carry: a set's two matches travel in one task."""
        return [pk for _, _, arg in taken_part for pk in (arg if isinstance(arg, list) else [arg])]

    first = {upload.pk, *matches(built_ins), *matches(organised)}
    # Priority 0: the upload's check and one task per round robin's set; then the
    # challenge's set; then the filler, one task per set.
    assert len(taken) == 3 + 1 + len(filler) // 2
    assert set(ids(taken[:3])) == first
    # At one priority the queues take turns: the built-in set between two sandboxed tasks,
    # or first.
    assert [queue for queue, _, _ in taken[:3]] in (
        [DEFAULT_QUEUE, SANDBOXED_QUEUE, SANDBOXED_QUEUE],
        [SANDBOXED_QUEUE, DEFAULT_QUEUE, SANDBOXED_QUEUE],
    )
    assert set(ids(taken[3:4])) == matches(challenge)
    assert ids(taken[4:]) == filler, "the filler last, in order"


@pytest.mark.services
def test_at_a_two_second_tick_authors_work_is_played_while_built_in_ladder_sets_wait(
    celery_workers, code_store
):
    """One worker with the full sandbox, beat at a 2 s tick, and a backlog of built-in
    ladder sets queued first: the uploads are checked, and a challenge, a version test, the
    uploaded bots' ladder set and an organised tournament all finish while built-in ladder
    matches sent before any of them are still waiting."""
    backlog = _built_in_ladder_backlog(game_id="spades", sets=60)
    celery_workers(
        beat=True,
        BAIZE_BOT_CODE_DIR=str(code_store),
        BAIZE_TICK_SECONDS="2",
        BAIZE_LADDER_SETS_IN_FLIGHT="2",
    )
    alice, bob = User.objects.create_user("alice"), User.objects.create_user("bob")
    alices = Bot.objects.create(owner=alice, game="snag", name="alices")
    bobs = Bot.objects.create(owner=bob, game="snag", name="bobs")
    baseline = bot_version_upload(bot=alices, filename="bot.py", data=GOOD_BOT)
    candidate = bot_version_upload(bot=alices, filename="bot.py", data=GOOD_BOT + b"\n# v2\n")
    opponent = bot_version_upload(bot=bobs, filename="bot.py", data=GOOD_BOT)
    uploads = [baseline.pk, candidate.pk, opponent.pk]
    wait_until(
        lambda: BotVersion.objects.filter(pk__in=uploads, status="ready").count() == 3,
        "the three uploads to be checked",
    )
    candidate.refresh_from_db()
    opponent.refresh_from_db()
    baseline.refresh_from_db()
    author_work = [
        challenge_create(user=bob, version=opponent, opponent=candidate, sets=1),
        version_test_create(
            user=alice,
            candidate=candidate,
            baseline=baseline,
            parameters=SprtParameters(max_sets=2),
        ),
        round_robin_create(
            name="organised", game_id="snag", versions=[candidate, opponent], secret=4
        ),
    ]
    # The snag ladder holds the two uploaded bots' latest versions only: its sets are theirs.
    snag_ladder_sets = DuplicateSet.objects.filter(
        pairing__tournament__game="snag",
        pairing__tournament__format="ladder",
        status=DuplicateSet.Status.FINISHED,
    )

    wait_until(
        lambda: (
            Tournament.objects.filter(
                pk__in=[t.pk for t in author_work], status=Tournament.Status.FINISHED
            ).count()
            == len(author_work)
            and snag_ladder_sets.exists()
        ),
        "the challenge, the version test, the tournament and a ladder set of the uploads",
    )

    waiting = Match.objects.filter(pk__in=backlog, status=Match.Status.PENDING).count()
    assert waiting > 0, "built-in ladder matches sent first were still waiting at the end"
