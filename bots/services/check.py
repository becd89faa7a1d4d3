"""Checking an uploaded version before it plays: the check plan, the smoke test, the verdict.

A new upload is ``pending`` until its check (queued by ``bots.services.upload``) has run. The
check, inside the sandbox, plays what the version's first ladder pairing would:
``BAIZE_LADDER_SETS_PER_PAIRING`` duplicate sets against a built-in bot of the game's ladder
drawn at random, on fresh secret seeds, with the ladder's options and limits, played by the
function that plays the ladder's sets (``arena.set_player``): the sets' first seatings are one
series (the version in seat 0, one process for all its matches if its first ``ready`` says it
plays series), its processes ended, then the second seatings, on the same deals, a fresh
series with the version in seat 1; the same limits, wall cap and CPU pin. Nothing in a match
tells the check from a ladder match (so a bot cannot behave in the check and misbehave later),
and a series bot that breaks on a later ``start`` is turned away at upload, not in a tournament.
The check moves the version from ``pending`` to ``ready`` or ``rejected``, and records whether
it plays series, with a conditional update, so a twice-delivered check task writes once. Its
first ladder matches are watched as well (``bots.services.bots.version_watch_mark``).
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from arena.referee import Limits, MatchResult
from arena.runner import BotLauncher, BuiltinLauncher
from arena.sandbox import SandboxUnsafe
from arena.set_player import PlannedMatch, PlayedMatch, Seating, duplicate_sets, sets_play
from arena.text import storable_text
from games.rules import Game, get_game
from games.rules.decks import MAX_SEED

from ..models import BotVersion
from ..selectors import current_versions
from .bots import builtin_strategy_names
from .build import version_build
from .code_cache import CodeUnavailable
from .launch import SandboxNotReady, match_cpu, referee_limits, uploaded_launcher

logger = logging.getLogger(__name__)


#: The check's randomness: secret, as a ladder set's seeds are (drawn from the ladder's
#: secret), so no one can tell a check's deals in advance. Tests may put a seeded one here.
_draw: random.Random = secrets.SystemRandom()


@dataclass(frozen=True)
class CheckPlan:
    """What a check plays: ``len(seeds)`` duplicate sets against the built-in ``opponent``."""

    #: The strategy of the built-in opponent (``arena/builtin/strategies``).
    opponent: str
    #: One deal seed per set, each played from both seats.
    seeds: tuple[int, ...]
    #: The match options: the ladder's (every option at its default).
    options: dict[str, Any]


def check_opponents(game_id: str) -> list[str]:
    """The strategies of the built-in bots that play on the game's ladder (their latest
    ready version), or, where none is there yet, of every built-in bot of the game."""
    on_ladder = (
        current_versions(game_id=game_id, on_ladder=True)
        .exclude(builtin="")
        .values_list("builtin", flat=True)
        .order_by("builtin")
    )
    return list(on_ladder) or _builtin_strategies(game_id)


def _builtin_strategies(game_id: str) -> list[str]:
    return sorted(builtin_strategy_names(game_id).values())


def check_plan(
    game_id: str, *, opponents: Sequence[str] | None = None, sets: int | None = None
) -> CheckPlan:
    """A fresh plan, drawn as a new version's first ladder pairing is: its opponent at
    random among ``opponents`` (default: the built-in bots on the game's ladder, read from
    the database: ``check_opponents``), ``sets`` duplicate sets (default
    ``BAIZE_LADDER_SETS_PER_PAIRING``) on secret seeds, the ladder's options."""
    pool = list(opponents) if opponents is not None else check_opponents(game_id)
    if not pool:
        raise ValueError(f"no built-in bot of {game_id} to check a version against")
    count = sets if sets is not None else settings.BAIZE_LADDER_SETS_PER_PAIRING
    seeds = tuple(_draw.randint(0, MAX_SEED) for _ in range(count))
    return CheckPlan(opponent=_draw.choice(pool), seeds=seeds, options={})


def bot_version_check(*, version_id: int) -> BotVersion:
    """Play the check's matches of a pending version and record the verdict.

    A machine whose sandbox is unsafe leaves the version pending, saying why, and raises
    ``SandboxNotReady``; one that cannot get the code does the same with ``CodeUnavailable``:
    both for the task to retry.
    """
    version = BotVersion.objects.select_related("bot").get(id=version_id)
    if version.status != BotVersion.Status.PENDING:
        return version
    plan = check_plan(version.bot.game)
    try:
        version = version_build(version)
        if version.status != BotVersion.Status.PENDING:
            return version  # its build failed
        # As a ladder series' launcher (``matches.play``): the CPU backstop of a process is
        # the per-match one times the matches it may play.
        cpu = settings.BAIZE_SANDBOX_LIMITS["cpu_seconds"] * len(plan.seeds)
        launcher = uploaded_launcher(version, cpu_seconds=cpu)
    except SandboxUnsafe as error:
        logger.warning("version %s not checked: %s", version_id, error)
        BotVersion.objects.filter(id=version_id, status=BotVersion.Status.PENDING).update(
            status_reason=f"waiting for a worker with a safe sandbox: {error}"
        )
        raise SandboxNotReady(str(error)) from None
    except CodeUnavailable as error:
        # Retried by the task: another worker, or this one later, may reach the store or
        # have the runtime.
        BotVersion.objects.filter(id=version_id, status=BotVersion.Status.PENDING).update(
            status_reason=f"waiting for its code or runtime: {error}"
        )
        raise
    check = smoke_test(get_game(version.bot.game), lambda: launcher, plan=plan, cpu=match_cpu())
    return check_verdict_store(version_id=version_id, check=check)


class CheckNotStored(Exception):
    """A check's verdict could not be stored (the database failed): the version is still
    pending, for the task to check it again."""


def check_verdict_store(*, version_id: int, check: SmokeCheck) -> BotVersion:
    """Record ``check``'s verdict on the pending version: ready, or rejected with its problem.

    Its log and reason hold the bot's stderr, and so are stored as every database takes
    them (``arena.text.storable_text``: a NUL as ``\\x00``). Conditional: of two deliveries
    of the check, the first verdict stands. A verdict that still cannot be stored with its
    texts is stored without them (the reason in ASCII, the log replaced by a note saying
    why); if even that fails, the version stays pending and ``CheckNotStored`` is raised:
    the task says why on the version and checks it again (``bots.tasks``).
    """
    status = BotVersion.Status.REJECTED if check.problem else BotVersion.Status.READY
    fields = {
        "status": status,
        "status_reason": storable_text(check.problem),
        "check_log": storable_text(check.log),
        "plays_series": check.plays_series,
    }
    try:
        _pending_update(version_id, **fields, checked_at=timezone.now())
    except DatabaseError as error:
        logger.exception("version %s: its check's verdict not stored with its log", version_id)
        fields["status_reason"] = fields["status_reason"].encode("ascii", "backslashreplace")
        fields["status_reason"] = fields["status_reason"].decode("ascii")
        fields["check_log"] = (
            f"[the check's log, {len(check.log)} characters, could not be stored:"
            f" {type(error).__name__}]"
        )
        try:
            _pending_update(version_id, **fields, checked_at=timezone.now())
        except DatabaseError as again:
            raise CheckNotStored(f"its verdict could not be stored: {again}") from again
    return BotVersion.objects.get(id=version_id)


def version_check_failed(*, version_id: int, error: BaseException, final: bool) -> None:
    """Say on a version still pending why its check could not finish: ``error``, the
    server's failure, not the bot's. The check is tried again (``bots.tasks``), and on its
    ``final`` try the version is rejected, saying why. Never raises (the database may be
    what failed): the error is logged."""
    what = storable_text(f"{type(error).__name__}: {error}")[:CHECK_ERROR_CHARS]
    if final:
        fields = {
            "status": BotVersion.Status.REJECTED,
            "status_reason": (
                f"the server could not finish this version's check ({what}); this is not"
                " your bot's doing: upload the code again with any change to have it checked"
                " (the same code is this version already)"
            ),
            "checked_at": timezone.now(),
        }
    else:
        fields = {"status_reason": f"the check could not finish ({what}); it will run again"}
    logger.error("version %s: its check could not finish: %s", version_id, what)
    try:
        _pending_update(version_id, **fields)
    except Exception:
        logger.exception("version %s: could not say why its check did not finish", version_id)


#: How much of the error that stopped a check its version's reason quotes.
CHECK_ERROR_CHARS = 500


def _pending_update(version_id: int, **fields: Any) -> int:
    """Update the version if it is still pending; in a savepoint inside a transaction."""
    with transaction.atomic():
        return BotVersion.objects.filter(id=version_id, status=BotVersion.Status.PENDING).update(
            **fields
        )


class SmokeCheck(NamedTuple):
    #: What went wrong, "" if nothing.
    problem: str
    #: The candidate's stderr, match after match, each under a heading that names the match,
    #: the candidate's seat, its opponent and how the match ended.
    log: str
    #: Its first ``ready`` said in both seats that it plays series (with two sets or more
    #: per pairing, it then played a second match of the series in that process).
    plays_series: bool


def smoke_test(
    game: Game,
    candidate: Callable[[], BotLauncher],
    limits: Limits | None = None,
    *,
    plan: CheckPlan | None = None,
    cpu: int | None = None,
) -> SmokeCheck:
    """Play ``candidate`` the check's duplicate sets (``plan``; by default one drawn among
    the game's built-in bots, without the database) as a worker plays a ladder pairing's
    (``arena.set_player``, the same function): every deal with the candidate in seat 0, one
    series, its processes ended, then every deal again with it in seat 1, a fresh series;
    under the server's limits (``referee_limits``: the match wall cap included), pinned to
    ``cpu``. Stops at the first match that shows a problem."""
    limits = limits or referee_limits()
    plan = plan or check_plan(game.id, opponents=_builtin_strategies(game.id))
    logs: list[str] = []
    plays_series = True
    played = sets_play(
        game=game,
        matches=duplicate_sets(plan.seeds, plan.options),
        players=lambda matches: _check_players(matches[0], candidate(), plan.opponent),
        limits=limits,
        series_length=settings.BAIZE_SERIES_MAX_MATCHES,
        cpu=cpu,
    )
    with closing(played):
        for match in played:
            seat, result = int(match.match.seating), match.result
            logs.append(_check_log_part(len(logs) + 1, len(plan.seeds) * 2, match, plan))
            problem = _smoke_problem(result, seat, plan.opponent)
            if problem:
                return SmokeCheck(problem, "\n".join(logs), False)
            # Every match is played, series bot or not: a bot may count its matches
            # (``series.match`` in each ``start``) and change from the third on.
            plays_series = plays_series and match.plays_series[seat]
    return SmokeCheck("", "\n".join(logs), plays_series)


def _check_log_part(number: int, matches: int, played: PlayedMatch, plan: CheckPlan) -> str:
    """One match of the check in its log: a heading (which match, the candidate's seat, its
    opponent, how it ended for the candidate), then what the candidate wrote to stderr."""
    seat, result = int(played.match.seating), played.result
    heading = (
        f"== check match {number} of {matches}: set {played.match.number}, your bot in seat"
        f" {seat} against the built-in {plan.opponent}: {_ended(result, seat)} =="
    )
    stderr = result.stderr[seat]
    return f"{heading}\n{stderr.rstrip(chr(10)) if stderr else '(nothing on stderr)'}\n"


def _ended(result: MatchResult, seat: int) -> str:
    """How a check match ended, from the candidate's seat."""
    if result.forfeit is not None:
        who = "your bot" if result.forfeit.seat == seat else "the built-in bot"
        return f"{who} forfeited ({result.forfeit.reason.value})"
    mine, theirs = result.scores[seat], result.scores[1 - seat]
    return f"{'won' if result.winner == seat else 'lost'}, {mine} points to {theirs}"


def _check_players(
    match: PlannedMatch, candidate: BotLauncher, opponent: str
) -> tuple[BotLauncher, BotLauncher]:
    """The candidate in seat 0 of the first seatings, in seat 1 of the second."""
    builtin = BuiltinLauncher(opponent)
    return (candidate, builtin) if match.seating is Seating.FIRST else (builtin, candidate)


#: How much of the end of its stderr a rejected version's reason quotes.
STDERR_IN_REASON = 2000


def _smoke_problem(result: MatchResult, seat: int, opponent: str) -> str:
    forfeit = result.forfeit
    if forfeit is None:
        return ""
    who = "your bot" if forfeit.seat == seat else f"the built-in bot ({opponent})"
    problem = f"in seat {seat}, {who} forfeited ({forfeit.reason.value}): {forfeit.detail}"
    # The reason is shown to the bot's owner and staff only, so it may quote the bot's stderr.
    tail = result.stderr[seat].strip()[-STDERR_IN_REASON:] if forfeit.seat == seat else ""
    return f"{problem}; your bot's stderr ends with:\n{tail}" if tail else problem
