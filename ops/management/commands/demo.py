"""The main job: a round robin of the built-in bots, run through Celery, then its standings."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bots.services.bots import builtin_bots_sync
from games.rules import GAMES
from matches.models import Match
from matches.selectors import match_decisions, match_replay, match_state_at
from tournaments.models import Tournament
from tournaments.selectors import tournament_progress_counts, tournament_standings
from tournaments.services import TournamentError, round_robin_create
from tournaments.services.scheduling import tournament_matches_enqueue

OPENING_DECISIONS = 5


class Command(BaseCommand):
    help = "Run a round robin of the built-in bots of one game and show its standings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", default="snag", help=f"one of {sorted(GAMES)}")
        parser.add_argument("--sets", type=int, default=5, help="duplicate sets per pair")
        parser.add_argument(
            "--seed",
            dest="secret",
            type=int,
            default=None,
            help="the tournament's secret, which every deal seed derives from",
        )

    def handle(self, *args, game: str, sets: int, secret: int | None, **options) -> None:
        if game not in GAMES:
            raise CommandError(f"unknown game {game!r}; choose one of {sorted(GAMES)}")
        if sets < 1:
            raise CommandError("--sets must be at least 1")
        console = Console()
        versions = builtin_bots_sync(game_id=game)
        try:
            tournament = round_robin_create(
                name=f"{GAMES[game].name} demo round robin",
                game_id=game,
                versions=versions,
                sets_per_pair=sets,
                secret=secret,
                enqueue=False,
            )
        except TournamentError as error:
            raise CommandError(str(error)) from None
        bots = ", ".join(str(version.bot.name) for version in versions)
        console.print(f"[bold]{tournament}[/]: {bots}; {sets} duplicate set(s) per pair")
        self._play(console, tournament)
        self._show_standings(console, tournament)
        self._show_opening(console, tournament)
        self._show_api(console, tournament)

    def _play(self, console: Console, tournament: Tournament) -> None:
        match_ids = list(
            Match.objects.filter(tournament_match__tournament=tournament).values_list(
                "id", flat=True
            )
        )
        eager = settings.CELERY_TASK_ALWAYS_EAGER
        where = (
            "in-process (no CELERY_BROKER_URL)"
            if eager
            else f"on workers via {settings.CELERY_BROKER_URL}"
        )
        console.print(f"Playing {len(match_ids)} matches {where}")
        with Progress(console=console) as progress:
            bar = progress.add_task("matches", total=len(match_ids))
            tournament_matches_enqueue(
                match_ids=match_ids, on_sent=(lambda _: progress.advance(bar)) if eager else None
            )
            while not eager and not _finished(tournament):
                done = _done_count(tournament)
                progress.update(bar, completed=done)
                time.sleep(0.2)
            progress.update(bar, completed=len(match_ids))

    def _show_standings(self, console: Console, tournament: Tournament) -> None:
        table = Table(title=f"Standings: {tournament.name} (duplicate sets: win 1, draw 1/2)")
        columns = ("#", "bot", "sets", "won", "drawn", "lost", "score", "h2h", "SB", "+/-")
        for column in columns:
            table.add_column(column, justify="left" if column == "bot" else "right")
        for entrant, row in tournament_standings(tournament=tournament).rows:
            table.add_row(
                str(row.rank),
                f"{entrant.version.bot.name} v{entrant.version.number}",
                str(row.played),
                str(row.wins),
                str(row.draws),
                str(row.losses),
                f"{row.score:g}",
                f"{row.head_to_head:g}",
                f"{row.sonneborn_berger:g}",
                f"{row.points_difference:+d}",
            )
        console.print(table)
        tournament.refresh_from_db()
        console.print(
            f"Seed {tournament.secret} (committed before play as SHA-256 "
            f"{tournament.secret_sha256})"
        )

    def _show_opening(self, console: Console, tournament: Tournament) -> None:
        match = Match.objects.filter(tournament_match__tournament=tournament).order_by("id").first()
        replayed = match_replay(match=match)
        verdict = "replays cleanly" if replayed.ok else f"FAILS replay: {replayed.failures}"
        console.print(
            f"\nMatch {match.pk} (seed {match.seed}) {verdict}. Its opening, from the log:"
        )
        names = {
            seat.seat: seat.version.bot.name for seat in match.seats.select_related("version__bot")
        }
        decisions = match_decisions(match=match)[:OPENING_DECISIONS]
        for step, decision in enumerate(decisions, start=1):
            position = match_state_at(match=match, step=step)
            seat = decision["seat"]
            console.print(
                f"  {step}. seat {seat} ({names[seat]}) {decision['action']}"
                f"  -> to play: {position.state.to_play}, scores {position.state.scores}"
            )

    def _show_api(self, console: Console, tournament: Tournament) -> None:
        site = "http://127.0.0.1:8000"
        first_match = tournament.matches.order_by("match_id").values_list("match_id", flat=True)[0]
        console.print(
            f"\nBrowse it: [bold]make serve[/], then open {site}/"
            f"\n  the tournament: {site}/tournaments/{tournament.pk}/"
            f"\n  a replay:       {site}/matches/{first_match}/"
            f"\n  leaderboard:    {site}/games/{tournament.game}/"
            f"\n  standings API:  {site}/api/tournaments/{tournament.pk}/standings/"
            f"\n  API docs:       {site}/api/docs/"
        )


def _done_count(tournament: Tournament) -> int:
    counts = tournament_progress_counts(tournament=tournament)
    return counts[Match.Status.FINISHED] + counts[Match.Status.FAILED]


def _finished(tournament: Tournament) -> bool:
    tournament.refresh_from_db(fields=["status"])
    return tournament.status == Tournament.Status.FINISHED
