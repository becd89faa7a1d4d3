"""What a signed-in author's own page shows (reads only): their bots, every version with
what only its owner sees, and what each can be sent to play from there.

A fixed number of queries whatever the size: the bots with their versions, then one rating
read and one ladder read per game the author has bots in, and their latest challenges and
version tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.runtimes import RUNTIMES, Runtime
from bots import selectors as bot_selectors
from bots.models import Bot, BotVersion
from errors import NotFound
from ladder import selectors as ladder_selectors
from ladder.services import CHALLENGE_SETS
from tournaments.formats import format_spec
from tournaments.models import Tournament
from tournaments.ratings import selectors as rating_selectors
from tournaments.ratings.maths import Skill

#: The author's challenges and version tests the page lists, newest first.
RECENT_RUNS = 10


@dataclass(frozen=True)
class MyVersion:
    version: BotVersion
    #: Its rating in the bot's game; None while unrated.
    skill: Skill | None

    @property
    def built(self) -> bool:
        """Its runtime builds (its build log is the owner's to read)."""
        runtime = RUNTIMES.get(self.version.runtime)
        return runtime is not None and runtime.built


@dataclass
class MyBot:
    bot: Bot
    #: Newest first.
    versions: list[MyVersion]
    #: What a challenge from this bot may take on: the game's ladder versions, this bot's
    #: own left out.
    opponents: list[BotVersion] = field(default_factory=list)
    #: What a version test of this bot may be measured against: the author's ready
    #: versions of the game.
    baselines: list[BotVersion] = field(default_factory=list)

    @property
    def last_runtime(self) -> Runtime | None:
        """The runtime of its latest version: an upload naming none is for it, if it takes
        the files (``bots.services.upload.upload_runtime_choose``)."""
        return RUNTIMES.get(self.versions[0].version.runtime) if self.versions else None

    @property
    def ready(self) -> list[BotVersion]:
        """Its ready versions, newest first: what may challenge or be tested."""
        ready = BotVersion.Status.READY
        return [mine.version for mine in self.versions if mine.version.status == ready]


@dataclass
class MyBotsPage:
    bots: list[MyBot]
    runtimes: list[Runtime]
    #: The key of the author's API token; None while they have none.
    token: str | None
    #: The sets a challenge may ask for, lowest and highest.
    challenge_sets: tuple[int, int]
    #: Their latest challenges and version tests, newest first.
    runs: list[MyRun]


def my_bots_page(*, user: Any) -> MyBotsPage:
    bots = list(bot_selectors.bot_list(owner=user.username).order_by("game", "name"))
    games = sorted({bot.game for bot in bots})
    ready_by_game: dict[str, list[BotVersion]] = {game: [] for game in games}
    skills: dict[int, Skill] = {}
    for game in games:
        ids = [v.pk for bot in bots if bot.game == game for v in bot.versions.all()]
        skills |= rating_selectors.rating_skills(game_id=game, version_ids=ids)
    mine = []
    for bot in bots:
        versions = sorted(bot.versions.all(), key=lambda version: -version.number)
        ready_by_game[bot.game] += [v for v in versions if v.status == BotVersion.Status.READY]
        mine.append(MyBot(bot, [MyVersion(v, skills.get(v.pk)) for v in versions]))
    ladders = {game: ladder_selectors.ladder_versions(game_id=game) for game in games}
    for entry in mine:
        entry.opponents = [v for v in ladders[entry.bot.game] if v.bot_id != entry.bot.pk]
        entry.baselines = ready_by_game[entry.bot.game]
    return MyBotsPage(
        bots=mine,
        runtimes=list(RUNTIMES.values()),  # read now: a row registered late is listed
        token=bot_selectors.api_token(user=user),
        challenge_sets=CHALLENGE_SETS,
        runs=_author_runs(user),
    )


@dataclass(frozen=True)
class MyRun:
    """One of the author's challenges or version tests."""

    tournament: Tournament
    #: A version test (its page is the test's), else a challenge.
    tests_versions: bool


def _author_runs(user: Any) -> list[MyRun]:
    runs = Tournament.objects.filter(
        organiser=user, format__in=ladder_selectors.AUTHOR_FORMATS
    ).order_by("-created_at", "-id")
    return [MyRun(run, format_spec(run.format).tests_versions) for run in runs[:RECENT_RUNS]]


def version_to_play(*, version_id: int) -> BotVersion:
    """The version a form names, with its bot; ``NotFound`` if there is none."""
    version = BotVersion.objects.select_related("bot").filter(pk=version_id).first()
    if version is None:
        raise NotFound(f"there is no bot version {version_id}")
    return version
