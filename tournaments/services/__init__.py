"""Tournament writes: creation, entries, the lifecycle, recurring tournaments, the audit.

This package is the one writer of the tournament models (tournaments, entrants, pairings,
duplicate sets, their matches' links, version tests, recurring templates): every other
module, the ladder's included, changes them by calling it (``tests/test_layers.py``). This
module holds the lifecycle; ``scheduling`` what a running tournament plays next;
``ladder`` the ladder's and authors' own tournaments.

The lifecycle is draft -> scheduled -> running -> finished, or cancelled from any of the
first three. Every transition is a conditional update: on the current status for scheduling,
starting and cancelling, on ``progress`` for the finish (``scheduling.tournament_advance``),
so two workers (or two organisers) can never start, cancel or finish one tournament twice.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from bots.models import Bot, BotVersion
from matches.models import Match

from ..audit import manual_change_record
from ..config import TournamentConfig, TournamentError, default_of
from ..duplicate import secret_commitment
from ..formats import format_spec
from ..models import (
    Entrant,
    ManualChange,
    RecurringTournament,
    Tournament,
    TournamentMatch,
    default_time_bank,
)
from ..permissions import can_enter
from ..selectors import versions_active
from .entrants import entrant_add
from .scheduling import (
    match_replace,
    pending_matches_drop,
    tournament_first_round,
    tournament_matches_enqueue,
)

Status = Tournament.Status
_OPEN_FOR_ENTRY = (Status.DRAFT, Status.SCHEDULED)


class TournamentConflict(TournamentError):
    """A request the tournament's present state refuses (409): entries closed, entered
    twice, not in a state that can be scheduled or cancelled."""

    code = "conflict"
    status = 409


def tournament_config_check(config: TournamentConfig) -> None:
    """``TournamentError`` naming what is wrong with a tournament's settings, else None."""
    config.check()


def tournament_create(
    *,
    config: TournamentConfig,
    secret: int | str | None = None,
    organiser: Any = None,
    recurrence: RecurringTournament | None = None,
) -> Tournament:
    """A draft tournament. Its secret is drawn now; only its SHA-256 shows until it ends.

    A ``time_bank_seconds`` left out is the setting's.
    """
    if config.time_bank_seconds is None:
        config = config.changed(time_bank_seconds=default_time_bank())
    tournament_config_check(config)
    secret = secrets.token_hex(32) if secret is None else str(secret)
    return Tournament.objects.create(
        **config.fields(),
        secret=secret,
        secret_sha256=secret_commitment(secret),
        organiser=organiser,
        recurrence=recurrence,
    )


def tournament_configure(*, tournament: Tournament, **changes: Any) -> bool:
    """Change the settings (``config.CONFIG_FIELDS``) of a tournament that has not started."""
    config = tournament.config.changed(**changes)
    if config.game != tournament.game and tournament.entrants.exists():
        raise TournamentError("the game of a tournament with entrants cannot change")
    tournament_config_check(config)
    values = config.fields()
    # Conditional update: settings saved from a form loaded before the start change nothing.
    changed = Tournament.objects.filter(id=tournament.pk, status__in=_OPEN_FOR_ENTRY).update(
        **{name: values[name] for name in changes}
    )
    return changed == 1


def tournament_enter(*, tournament: Tournament, version: BotVersion) -> Entrant:
    """Enter a ready bot version of the tournament's game, while the tournament has not started."""
    if version.bot.game != tournament.game:
        raise TournamentError(f"{version} plays {version.bot.game}, not {tournament.game}")
    if version.status != BotVersion.Status.READY:
        raise TournamentError(f"{version} is {version.status}, not ready to play")
    try:
        entrant = entrant_add(tournament=tournament, version=version, open_statuses=_OPEN_FOR_ENTRY)
    except IntegrityError:
        raise TournamentConflict(f"{version} has already entered {tournament}") from None
    if entrant is None:
        raise TournamentConflict(f"{tournament} has started; entries are closed")
    return entrant


def tournament_entry_version(*, bot_id: int, number: int, user: Any) -> BotVersion:
    """Version ``number`` of bot ``bot_id``, which ``user`` may enter (their own bot, or any
    if they organise); else ``TournamentError`` naming ``bot`` or ``version``. Whether it is
    ready, and of the right game, ``tournament_enter`` checks."""
    if not Bot.objects.filter(pk=bot_id).exists():
        raise TournamentError(f"there is no bot {bot_id}", field="bot")
    version = BotVersion.objects.select_related("bot").filter(bot_id=bot_id, number=number).first()
    if version is None:
        raise TournamentError(f"bot {bot_id} has no version {number}", field="version")
    if not can_enter(user, version):
        raise TournamentError(
            f"{version.bot} is not yours: only its owner or an organiser enters it", field="bot"
        )
    return version


def tournament_withdraw(*, entrant: Entrant) -> None:
    """Take an entrant out of a tournament that has not started; positions keep their gaps."""
    with transaction.atomic():
        # Conditional update (a no-op that takes the row's lock): the same race as an entry.
        still_open = Tournament.objects.filter(
            id=entrant.tournament_id, status__in=_OPEN_FOR_ENTRY
        ).update(entrant_count=F("entrant_count"))
        if still_open != 1:
            raise TournamentConflict("the tournament has started; its entrants are fixed")
        entrant.delete()


def tournament_schedule(
    *, tournament: Tournament, starts_at: datetime, user: Any = None, reason: str = ""
) -> bool:
    """Set (or move) the start of a draft or scheduled tournament; True if this call did."""
    if timezone.is_naive(starts_at):
        raise TournamentError("starts_at needs a time zone")
    # Conditional update: a tournament the tick is starting right now is not rescheduled.
    scheduled = Tournament.objects.filter(id=tournament.pk, status__in=_OPEN_FOR_ENTRY).update(
        status=Status.SCHEDULED, starts_at=starts_at
    )
    if scheduled and user is not None:
        manual_change_record(
            user=user,
            action=ManualChange.Action.SCHEDULE,
            reason=reason,
            tournament=tournament,
            detail={"starts_at": starts_at.isoformat()},
        )
    return scheduled == 1


def tournament_start(*, tournament_id: int, enqueue: bool = True) -> bool:
    """Start a scheduled tournament: fix and seed its entrants, create its first round.

    True if this call started it. A tournament with fewer than two entrants is cancelled
    instead, with the reason. With ``enqueue=False`` the caller sends the matches itself.
    """
    with transaction.atomic():
        # Conditional update: two ticks may both find the tournament due; one starts it.
        started = Tournament.objects.filter(id=tournament_id, status=Status.SCHEDULED).update(
            status=Status.RUNNING, started_at=timezone.now()
        )
        if started != 1:
            return False
        tournament = Tournament.objects.get(id=tournament_id)
        entrants = list(tournament.entrants.select_related("version"))
        if len(entrants) < 2:
            Tournament.objects.filter(id=tournament_id).update(
                status=Status.CANCELLED,
                status_reason=f"fewer than two entrants at the start ({len(entrants)})",
                finished_at=timezone.now(),
            )
            return False
        _fix_rounds(tournament, len(entrants))
        match_ids = tournament_first_round(tournament=tournament, entrants=entrants)
        if enqueue:
            transaction.on_commit(lambda: tournament_matches_enqueue(match_ids=match_ids))
    return True


def _fix_rounds(tournament: Tournament, entrants: int) -> None:
    rounds_of = format_spec(tournament.format).rounds
    if rounds_of is None:
        return
    tournament.rounds = rounds_of(tournament.rounds, entrants)
    Tournament.objects.filter(id=tournament.pk).update(rounds=tournament.rounds)


def tournament_start_now(*, tournament: Tournament, user: Any, reason: str) -> bool:
    """Schedule a draft or scheduled tournament for now and start it (an organiser's action)."""
    if not tournament_schedule(tournament=tournament, starts_at=timezone.now()):
        return False
    started = tournament_start(tournament_id=tournament.pk)
    if started:
        manual_change_record(
            user=user, action=ManualChange.Action.START, reason=reason, tournament=tournament
        )
    return started


def tournament_cancel(*, tournament: Tournament, reason: str, user: Any = None) -> bool:
    """Cancel a tournament that has not finished; its matches not yet claimed are dropped."""
    now = timezone.now()
    with transaction.atomic():
        # Conditional update: a cancel racing the last result either lands or finds it over.
        cancelled = Tournament.objects.filter(
            id=tournament.pk, status__in=[*_OPEN_FOR_ENTRY, Status.RUNNING]
        ).update(status=Status.CANCELLED, status_reason=reason, finished_at=now)
        if cancelled != 1:
            return False
        pending_matches_drop(
            tournament=tournament, reason="the tournament was cancelled before it was played"
        )
        if user is not None:
            manual_change_record(
                user=user, action=ManualChange.Action.CANCEL, reason=reason, tournament=tournament
            )
    return True


def round_robin_create(
    *,
    name: str,
    game_id: str,
    versions: Sequence[BotVersion],
    options: dict[str, Any] | None = None,
    sets_per_pair: int = default_of("sets_per_pair"),
    secret: int | str | None = None,
    decision_timeout: float = default_of("decision_timeout"),
    enqueue: bool = True,
) -> Tournament:
    """A round robin of ``versions`` created, entered and started at once (demo and tests)."""
    config = TournamentConfig(
        name=name,
        game=game_id,
        options=options or {},
        sets_per_pair=sets_per_pair,
        decision_timeout=decision_timeout,
    )
    return tournament_start_with(config=config, versions=versions, secret=secret, enqueue=enqueue)


def tournament_start_with(
    *,
    config: TournamentConfig,
    versions: Sequence[BotVersion],
    secret: int | str | None = None,
    organiser: Any = None,
    before_start: Callable[[Tournament], None] | None = None,
    enqueue: bool = True,
) -> Tournament:
    """A tournament of ``versions`` created, entered, scheduled and started now, all in one
    transaction (challenges, version tests, the demo, benchmarks and tests);
    ``before_start`` sees it entered, before it starts."""
    if len({version.pk for version in versions}) != len(versions):
        raise TournamentError("a bot version can enter a tournament only once")
    with transaction.atomic():
        tournament = tournament_create(config=config, secret=secret, organiser=organiser)
        for version in versions:
            tournament_enter(tournament=tournament, version=version)
        if before_start is not None:
            before_start(tournament)
        tournament_schedule(tournament=tournament, starts_at=timezone.now())
        if not tournament_start(tournament_id=tournament.pk, enqueue=enqueue):
            raise TournamentError(f"a {config.format} needs at least two bot versions")
    tournament.refresh_from_db()
    return tournament


def recurring_tournaments_spawn(*, now: datetime) -> list[Tournament]:
    """Create the scheduled tournament of every active recurring template that is due."""
    spawned = []
    due = RecurringTournament.objects.filter(active=True, next_start_at__lte=now)
    for template in due:
        tournament = _spawn(template)
        if tournament is not None:
            spawned.append(tournament)
    return spawned


def _spawn(template: RecurringTournament) -> Tournament | None:
    starts_at = template.next_start_at
    with transaction.atomic():
        # Conditional update: of two ticks seeing the same due template, one spawns it.
        moved = RecurringTournament.objects.filter(id=template.pk, next_start_at=starts_at).update(
            next_start_at=_next_start(template, starts_at)
        )
        if moved != 1:
            return None
        name = f"{template.name} {starts_at:%Y-%m-%d %H:%M}"
        tournament = tournament_create(
            config=template.config.changed(name=name), recurrence=template
        )
        for version in versions_active(game_id=template.game):
            tournament_enter(tournament=tournament, version=version)
        tournament_schedule(tournament=tournament, starts_at=starts_at)
    return tournament


def _next_start(template: RecurringTournament, previous: datetime) -> datetime:
    """The first start after now on the template's period, so a long outage spawns once."""
    following = previous + template.every
    now = timezone.now()
    if following <= now:
        periods = (now - previous) // template.every + 1
        following = previous + periods * template.every
    return following


def match_rerun(*, match: Match, user: Any, reason: str) -> TournamentMatch:
    """Replace a failed match of a running tournament by a fresh one (an organiser's action)."""
    link = TournamentMatch.objects.select_related("tournament").get(match=match)
    if match.status != Match.Status.FAILED:
        raise TournamentError(f"match {match.pk} is {match.status}; only a failed match is re-run")
    if link.tournament.status != Status.RUNNING:
        raise TournamentError(f"{link.tournament} is {link.tournament.status}, not running")
    replacement = match_replace(link=link, reason=f"re-run by {user}: {reason}")
    if replacement is None:
        raise TournamentError(f"match {match.pk} has already been replaced")
    manual_change_record(
        user=user,
        action=ManualChange.Action.RERUN_MATCH,
        reason=reason,
        tournament=link.tournament,
        match=match,
        detail={"replacement": replacement.match_id},
    )
    return replacement
