"""The hostile corpus through the service: a bot that tries to tell its twin its hand (through
file locks or inotify, in Python and in C++) plays a challenge of three sets against a
built-in bot, in series, as a worker plays one. No hand it decodes in seat 1 is the hand its
opponent holds there, the one it held itself in seat 0: the first seating's processes are
gone before the twin is played (``arena/set_player.py``), and the calls are refused
(``arena/sandbox/seccomp.py``). ``tests/arena/test_sandbox_kernel_objects.py`` shows the same
bots decode every hand where both hold."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User

from arena.bot_code import BotCode, store_code
from bots.models import Bot, BotVersion
from ladder.services import challenge_create
from matches.models import MatchSeat
from tests.arena.launching import EXEC_BOT
from tests.arena.test_sandbox_kernel_objects import (  # noqa: F401 - native_bot is a fixture
    HOSTILE,
    STDLIB,
    native_bot,
)
from tournaments.models import Tournament, TournamentMatch, current

from .test_series_in_tournaments import play_in_series

pytestmark = [pytest.mark.sandbox, pytest.mark.django_db]

SETS = 3


def channel_version(owner: User, bot: str, native_folder, store) -> BotVersion:
    """The channel bot ``bot`` (``python-locks``, ``cpp-inotify``, ...) as a ready upload."""
    language, channel = bot.split("-")
    if language == "python":
        script = {"locks": "lock_channel.py", "inotify": "inotify_channel.py"}[channel]
        files = {"bot.py": (HOSTILE / script).read_bytes()}
    else:
        argv = ["kernel_objects", "bot", channel, STDLIB]
        files = {
            "bot.py": EXEC_BOT.replace("sys.argv[1:]", repr(argv))
            .replace("sys.argv[1]", repr(argv[0]))
            .encode(),
            "kernel_objects": (native_folder / "kernel_objects").read_bytes(),
        }
    code = BotCode(files, frozenset(files) - {"bot.py"})
    store_code(code, store)
    row = Bot.objects.create(owner=owner, game="snag", name=bot)
    return BotVersion.objects.create(
        bot=row, number=1, content_hash=code.content_hash, size=code.size, status="ready"
    )


def said(stderr: str) -> dict:
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    return {key: value for line in lines for key, value in line.items()}


@pytest.mark.slow(seconds=20)
@pytest.mark.parametrize("bot", ["python-locks", "python-inotify", "cpp-locks", "cpp-inotify"])
def test_a_channel_bot_in_a_challenge_decodes_no_hand_of_its_opponent(
    sandbox,
    code_store,
    builtin_snag_versions,
    native_bot,  # noqa: F811 - the fixture imported above
    bot,
):
    author = User.objects.create_user(f"author-{bot}", password="x")
    version = channel_version(author, bot, native_bot, code_store)
    random = builtin_snag_versions[0]
    challenge = challenge_create(user=author, version=version, opponent=random, sets=SETS)

    play_in_series(challenge)

    assert Tournament.objects.get(pk=challenge.pk).status == Tournament.Status.FINISHED
    told: dict[int, dict[int, dict]] = {}
    links = TournamentMatch.objects.filter(current(), tournament=challenge)
    for link in links.select_related("match"):
        seat = MatchSeat.objects.select_related("stderr").get(match=link.match, version=version)
        told.setdefault(link.duplicate_set_id, {})[seat.seat] = said(seat.stderr.text)
    assert len(told) == SETS
    for seats in told.values():
        held, decoding = seats[0], seats[1]
        assert held["hand"] and decoding["hand"] != held["hand"]
        # The hand it held in seat 0 is its opponent's in seat 1: never read back.
        assert decoding["decoded"] != held["hand"], decoding
        assert not decoding["decoded"], decoding
