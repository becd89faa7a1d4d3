"""``manage.py play GAME BOT BOT``: a match between two local bots, printed as it is played.

A bot is a file or a folder of any runtime (``bots.runtimes``: told by ``--runtime``, else
guessed from its files), or the name of a built-in bot (``random``, ``heuristic``, or a
strategy such as ``snag_heuristic``). The protocol and the time limits are the server's
(settings). ``--sandbox`` reads, builds and runs the files exactly as an upload of them would
be (what the server refuses is refused here), where, as on the server, only the bot to move
runs and a decision is charged CPU time; without it only a Python file or folder runs, as a
plain process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bots.bot_code import UploadRejected
from bots.referee import Limits, MatchResult, referee_match
from bots.runner import BotLauncher, BuiltinLauncher, ScriptLauncher
from bots.runtimes import DEFAULT_RUNTIME, RUNTIMES
from bots.sandbox import SandboxUnsafe
from bots.services.bots import builtin_strategy_names
from bots.services.code_cache import CodeUnavailable
from bots.services.launch import BuildFailed, local_runtime, local_sandboxed_launcher
from games.rules import get_game


class Command(BaseCommand):
    help = "Play a match between two local bots with the server's protocol and limits."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game", help="game id: snag, exposure, spades, rounds, jam")
        parser.add_argument(
            "bots", nargs=2, metavar="BOT", help="a .py file, a folder, or a built-in name"
        )
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="a match option, e.g. target=20 (VALUE is read as JSON when it can be)",
        )
        parser.add_argument("--decision-seconds", type=float, default=None)
        parser.add_argument("--time-bank", type=float, default=None, help="seconds per match")
        parser.add_argument("--sandbox", action="store_true", help="run bot files sandboxed")
        parser.add_argument(
            "--runtime",
            choices=list(RUNTIMES),
            default=None,
            help="the runtime of the bot files (default: guessed from their suffixes)",
        )
        parser.add_argument("--quiet", action="store_true", help="print only the result")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            game = get_game(options["game"])
            state = game.new_match(options["seed"], _match_options(options["option"]))
        except ValueError as error:
            raise CommandError(str(error)) from None
        players = [
            self._launcher(game.id, spec, options["sandbox"], options["runtime"])
            for spec in options["bots"]
        ]
        limits = Limits(
            decision_seconds=options["decision_seconds"] or settings.BAIZE_DECISION_TIMEOUT,
            start_seconds=settings.BAIZE_BOT_START_TIMEOUT,
            time_bank_seconds=settings.BAIZE_TIME_BANK_SECONDS
            if options["time_bank"] is None
            else options["time_bank"],
        )
        self.quiet = options["quiet"]
        for seat, player in enumerate(players):
            self.stdout.write(f"seat {seat}: {player}")
        result = referee_match(game, state, players, limits=limits, emit=self._print_event)
        self._print_result(result)

    def _launcher(
        self, game_id: str, spec: str, sandboxed: bool, runtime: str | None
    ) -> BotLauncher:
        path = Path(spec)
        if path.exists():
            runtime = runtime or local_runtime(path)
            if sandboxed:
                return _sandboxed(path, runtime)
            if runtime != DEFAULT_RUNTIME:
                raise CommandError(
                    f"a {runtime} bot is built and run in the sandbox, as on the server:"
                    " add --sandbox"
                )
            script = path / "bot.py" if path.is_dir() else path
            if not script.is_file() or script.suffix != ".py":
                raise CommandError(f"no Python bot at {path} (a .py file, or a folder with bot.py)")
            return ScriptLauncher(script)
        strategy = builtin_strategy_names(game_id).get(spec, spec)
        try:
            return BuiltinLauncher(strategy)
        except ValueError:
            known = sorted(builtin_strategy_names(game_id))
            raise CommandError(
                f"{spec!r} is neither a bot file or folder nor a built-in bot ({', '.join(known)})"
            ) from None

    def _print_event(self, kind: str, payload: dict[str, Any]) -> None:
        if self.quiet:
            return
        if kind == "decision":
            action = json.dumps(payload["action"])
            self.stdout.write(f"  seat {payload['seat']}: {action}  ({payload['think_us']} µs)")
        elif kind == "shuffle":
            self.stdout.write(f"shuffle {payload['k']}: {' '.join(payload['order'][:12])} ...")
        elif kind == "forfeit":
            self.stdout.write(
                f"seat {payload['seat']} forfeits ({payload['reason']}): {payload['detail']}"
            )

    def _print_result(self, result: MatchResult) -> None:
        for seat, stderr in enumerate(result.stderr):
            if stderr.strip():
                self.stdout.write(f"--- stderr of seat {seat} ---\n{stderr.rstrip()}")
        self.stdout.write(
            f"winner: seat {result.winner}, scores {list(result.scores)}, "
            f"{result.reason.value}, {result.decisions} decisions, "
            f"time bank left {[round(left, 3) for left in result.time_bank_left]}"
        )


def _sandboxed(path: Path, runtime: str) -> BotLauncher:
    """The bot at ``path`` as the server would take, build and run it."""
    try:
        return local_sandboxed_launcher(path, runtime)
    except SandboxUnsafe as error:
        # Only the reason is printed: the probe's whole report is `manage.py sandbox`.
        raise CommandError(f"--sandbox cannot run here: {error}") from None
    except UploadRejected as error:
        raise CommandError(f"the server would refuse {path}: {error}") from None
    except CodeUnavailable as error:  # the runtime is missing here
        raise CommandError(str(error)) from None
    except BuildFailed as error:
        raise CommandError(f"the build of {path} failed:\n{error}") from None


def _match_options(pairs: list[str]) -> dict[str, Any]:
    options = {}
    for pair in pairs:
        name, separator, raw = pair.partition("=")
        if not separator:
            raise CommandError(f"--option wants NAME=VALUE, got {pair!r}")
        try:
            options[name] = json.loads(raw)
        except ValueError:
            options[name] = raw
    return options
