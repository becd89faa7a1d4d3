"""Code from strangers reaches only workers whose sandbox holds it, and the ladder's
built-in filler never holds back what an author waits for (``bots.queues``)."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import User

from bots.models import Bot, BotVersion
from bots.queues import (
    AUTHOR_PRIORITY,
    DEFAULT_QUEUE,
    FILLER_PRIORITY,
    FIRST_PRIORITY,
    SANDBOXED_QUEUE,
)
from bots.services import builtin_bots_sync
from bots.uploads import bot_version_upload
from ladder.services import challenge_create, ladder_tick, version_test_create
from matches.selectors import match_queue
from matches.services import match_create, match_seats_create
from tests.tournaments.conftest import play_all, services_configured, wait_until
from tournaments.models import Tournament, TournamentMatch
from tournaments.services import round_robin_create
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
    """The match tasks sent, ``(match id, options)``, instead of being played."""
    sent: list[tuple[int, dict]] = []
    monkeypatch.setattr(
        "tournaments.tasks.tournament_match_play.apply_async",
        lambda args, **options: sent.append((*args, options)),
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
            name="organised", game_id="snag", versions=[candidate, heuristic], seed=5
        )
        built_in_organised = round_robin_create(
            name="built-ins", game_id="snag", versions=[random, heuristic], seed=6
        )
    assert _sent_for(sent, challenge) == [author] * 2
    assert _sent_for(sent, test) == [author] * 4
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
        seed=3,
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
