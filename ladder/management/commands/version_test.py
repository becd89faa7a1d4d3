"""``manage.py version_test GAME NEW OLD``: the server's version test, at home.

Plays duplicate sets of the local bot NEW against OLD (files, folders or built-in bots, as
``manage.py play`` takes them) as the server plays a version test's (``ladder.home``), judges
the sequential test after every set with the server's defaults (``tournaments.sprt``, each
changed by its option within the API's bounds), and prints each set with the LLR after it,
then the verdict: better (H1 accepted), not better (H0 accepted) or inconclusive (the cap on
sets reached), with the LLR and its bounds.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bots.services.launch import match_cpu
from games.rules import get_game
from ladder.home import HomeSet, SetsRecord, home_version_test_play
from tournaments.sprt import SprtParameters, SprtState, Verdict, sprt_state

from .play import (
    SetsPrinter,
    add_local_play_arguments,
    local_bot,
    local_limits,
    match_options,
    record_line,
)

#: The verdict in the words of the version test's page.
VERDICT_WORDS = {
    Verdict.BETTER: "better (H1 accepted)",
    Verdict.NOT_BETTER: "not better (H0 accepted)",
    Verdict.INCONCLUSIVE: "inconclusive (the cap on sets was reached)",
}


class Command(BaseCommand):
    help = "Run the server's version test (SPRT) of a local bot against another, at home."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game", help="the game id (snag, exposure, spades, rounds, jam)")
        parser.add_argument("new", help="the candidate: a bot file, a folder or a built-in name")
        parser.add_argument("old", help="the baseline, the same way")
        add_local_play_arguments(parser)
        defaults = SprtParameters()
        for name in ("elo0", "elo1", "alpha", "beta"):
            parser.add_argument(
                f"--{name}", type=float, default=getattr(defaults, name), help="(as the server's)"
            )
        parser.add_argument(
            "--max-sets",
            type=int,
            default=defaults.max_sets,
            help="the cap on sets, past which the test is inconclusive (as the server's)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            game = get_game(options["game"])
            parameters = SprtParameters(
                options["elo0"],
                options["elo1"],
                options["alpha"],
                options["beta"],
                options["max_sets"],
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        candidate = local_bot(game.id, options["new"], options)
        baseline = local_bot(game.id, options["old"], options)
        self.stdout.write(f"candidate: {candidate}\nbaseline: {baseline}")
        self.stdout.write(_parameters_line(parameters))
        printer = SetsPrinter(self.stdout, (str(candidate), str(baseline)), quiet=options["quiet"])

        def print_set(home_set: HomeSet, record: SetsRecord) -> None:
            state = sprt_state(record.wins, record.draws, record.losses, parameters)
            printer.print_set(home_set, record, note=f"; LLR {state.llr:.3f}")

        try:
            state = home_version_test_play(
                game=game,
                candidate=candidate,
                baseline=baseline,
                parameters=parameters,
                first_seed=options["seed"],
                options=match_options(options["option"]),
                limits=local_limits(options),
                series_length=settings.BAIZE_SERIES_MAX_MATCHES,
                cpu=match_cpu(),
                on_set=print_set,
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(record_line(SetsRecord(state.wins, state.draws, state.losses)))
        self.stdout.write(_verdict_line(state, parameters))


def _parameters_line(parameters: SprtParameters) -> str:
    return (
        f"test: elo0 {parameters.elo0:g}, elo1 {parameters.elo1:g}, alpha {parameters.alpha:g},"
        f" beta {parameters.beta:g}, at most {parameters.max_sets} sets; LLR bounds"
        f" [{parameters.lower_bound:.3f}, {parameters.upper_bound:.3f}]"
    )


def _verdict_line(state: SprtState, parameters: SprtParameters) -> str:
    return (
        f"verdict: {VERDICT_WORDS[state.verdict]} after {state.sets} sets:"
        f" LLR {state.llr:.3f}, bounds [{parameters.lower_bound:.3f},"
        f" {parameters.upper_bound:.3f}]"
    )
