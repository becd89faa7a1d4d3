"""``manage.py replay_matches``: replay stored matches and report every log that fails."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.models import Match
from matches.selectors import match_replay, matches_to_replay


class Command(BaseCommand):
    help = (
        "Replay the event log of every stored match (or of the given ones) through its rules"
        " engine; print one line per failure and exit non-zero if any match failed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--match",
            dest="match_ids",
            type=int,
            action="append",
            metavar="ID",
            help="replay only this match; repeat the option for more",
        )

    def handle(self, *args: Any, match_ids: list[int] | None, **options: Any) -> None:
        if match_ids:
            _check_exist(match_ids)
        replayed = failed = events = 0
        for match in matches_to_replay(match_ids=match_ids):
            result = match_replay(match=match)
            replayed += 1
            events += result.events
            if not result.ok:
                failed += 1
            for failure in result.failures:
                self.stdout.write(f"match {match.pk}: {failure}")
        matches = "match" if replayed == 1 else "matches"
        summary = f"{replayed} {matches} replayed ({events} events): {failed} failed"
        if failed:
            raise CommandError(summary, returncode=1)
        self.stdout.write(summary)


def _check_exist(match_ids: list[int]) -> None:
    found = set(Match.objects.filter(id__in=match_ids).values_list("id", flat=True))
    missing = sorted(set(match_ids) - found)
    if missing:
        raise CommandError(f"no match with id {', '.join(map(str, missing))}")
