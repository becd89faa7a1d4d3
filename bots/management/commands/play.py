"""``manage.py play GAME BOT BOT``: a match between two local bots, printed as it is played.

A bot is a file or a folder of any runtime (``bots.runtimes``: told by ``--runtime``, else
guessed from its files), or the name of a built-in bot (``random``, ``heuristic``, or a
strategy such as ``snag_heuristic``). The protocol and the time limits are the server's
(settings). ``--sandbox`` reads, builds and runs the files exactly as an upload of them would
be (what the server refuses is refused here), where, as on the server, only the bot to move
runs and a decision is charged CPU time; without it only a Python file or folder runs, as a
plain process.

``manage.py play --replay LOG --seat N BOT`` plays BOT in seat N of a logged match (a file
of ``GET /api/matches/{id}/log/``): the same deals, the opponent's recorded decisions, and
BOT's compared with the record (``bots.replay``). It prints the first that differs, with
BOT's observation, and stops there, or plays on with ``--opponent BOT2`` in the other seat.
``--from STEP`` plays the recorded actions for BOT's decisions before decision STEP (BOT is
still asked each); ``--bot-seed`` seeds a built-in bot (its recorded ``bot_seed`` plays it
again exactly).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bots.bot_code import UploadRejected
from bots.referee import ConnectionPlayer, Limits, MatchResult, connect, referee_match
from bots.replay import (
    ComparedBot,
    Comparison,
    LogUnplayable,
    RecordedMatch,
    RecordedOpponent,
    ReplayStopped,
    read_log,
)
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
        parser.add_argument(
            "specs",
            nargs="+",
            metavar="GAME BOT BOT | BOT",
            help="the game id (snag, exposure, spades, rounds, jam) and two bots; with"
            " --replay, one bot. A bot is a .py file, a folder, or a built-in name",
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
        parser.add_argument(
            "--bot-seed",
            type=int,
            default=None,
            help="the seed of a built-in bot's random generator (with --replay: BOT's; else"
            " every built-in bot's); default: drawn by the system",
        )
        replay = parser.add_argument_group("replay a logged match")
        replay.add_argument(
            "--replay", metavar="LOG", help="a match's log (GET /api/matches/{id}/log/)"
        )
        replay.add_argument("--seat", type=int, choices=(0, 1), help="BOT's seat")
        replay.add_argument(
            "--from",
            dest="from_decision",
            type=int,
            default=1,
            metavar="STEP",
            help="compare from decision STEP (counted from 1); BOT's decisions before it are"
            " asked but played as recorded",
        )
        replay.add_argument(
            "--opponent",
            metavar="BOT2",
            help="plays the other seat from the first difference on (default: stop there)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        specs = options["specs"]
        self.quiet = options["quiet"]
        if options["replay"]:
            self._replay(options)
            return
        if len(specs) != 3:
            raise CommandError("play GAME BOT BOT, or play --replay LOG --seat N BOT")
        for name in ("seat", "opponent"):
            if options[name] is not None:
                raise CommandError(f"--{name} goes with --replay")
        try:
            game = get_game(specs[0])
            state = game.new_match(options["seed"], _match_options(options["option"]))
        except ValueError as error:
            raise CommandError(str(error)) from None
        players = [self._bot(game.id, spec, options) for spec in specs[1:]]
        limits = self._limits(options)
        for seat, player in enumerate(players):
            self.stdout.write(f"seat {seat}: {player}")
        result = referee_match(game, state, players, limits=limits, emit=self._print_event)
        self._print_result(result)

    def _bot(self, game_id: str, spec: str, options: dict[str, Any]) -> BotLauncher:
        return self._launcher(
            game_id, spec, options["sandbox"], options["runtime"], options["bot_seed"]
        )

    def _limits(self, options: dict[str, Any]) -> Limits:
        return Limits(
            decision_seconds=options["decision_seconds"] or settings.BAIZE_DECISION_TIMEOUT,
            start_seconds=settings.BAIZE_BOT_START_TIMEOUT,
            time_bank_seconds=settings.BAIZE_TIME_BANK_SECONDS
            if options["time_bank"] is None
            else options["time_bank"],
        )

    def _replay(self, options: dict[str, Any]) -> None:
        specs, seat = options["specs"], options["seat"]
        if len(specs) != 1 or seat is None:
            raise CommandError("with --replay, name BOT's seat and BOT: --replay LOG --seat N BOT")
        if options["from_decision"] < 1:
            raise CommandError("--from counts decisions from 1")
        try:
            with open(options["replay"], encoding="utf-8") as log:
                recorded = read_log(log)
            game = get_game(recorded.game)
            state = game.new_match(recorded.seed, recorded.options)
        except OSError as error:
            raise CommandError(f"cannot read the log: {error}") from None
        except (LogUnplayable, ValueError) as error:
            raise CommandError(str(error)) from None
        self._describe_log(options["replay"], recorded)
        bot = self._bot(game.id, specs[0], options)
        limits = self._limits(options)
        comparison = Comparison(
            recorded,
            seat,
            from_decision=options["from_decision"],
            goes_on=options["opponent"] is not None,
        )
        then = None
        if options["opponent"] is not None:
            opponent = self._launcher(
                game.id, options["opponent"], options["sandbox"], options["runtime"], None
            )
            then = connect(opponent)
        players = [None, None]
        players[seat] = ConnectionPlayer(ComparedBot(connect(bot), comparison))
        players[1 - seat] = ConnectionPlayer(
            RecordedOpponent(1 - seat, comparison, then, limits.start_seconds)
        )
        other = f"the record of {_recorded_name(recorded, 1 - seat)}"
        if then is not None:
            other += f", then {options['opponent']} from the first difference"
        self.stdout.write(f"seat {seat}: {bot}")
        self.stdout.write(f"seat {1 - seat}: {other}")
        try:
            result = referee_match(game, state, players, limits=limits, emit=self._print_event)
        except ReplayStopped as stopped:
            self._print_difference(comparison)
            self.stdout.write(f"stopped: {stopped}")
            return
        self._print_difference(comparison)
        self._print_result(result)
        self._print_recorded_result(recorded, result, comparison)

    def _describe_log(self, path: str, recorded: RecordedMatch) -> None:
        self.stdout.write(
            f"replay of {path}: {recorded.game}, seed {recorded.seed},"
            f" options {json.dumps(recorded.options)}, {len(recorded.decisions)} decisions"
        )
        for failure in recorded.chain_failures[:3]:
            self.stdout.write(f"warning: the log's hash chain does not check: {failure}")
        for seat, player in enumerate(recorded.players[:2]):
            bot_seed = player.get("bot_seed")
            seeded = "" if bot_seed is None else f", bot_seed {bot_seed} (--bot-seed {bot_seed})"
            self.stdout.write(f"recorded seat {seat}: {_recorded_name(recorded, seat)}{seeded}")

    def _print_difference(self, comparison: Comparison) -> None:
        difference = comparison.difference
        forced = f", {comparison.forced} before it played as recorded" if comparison.forced else ""
        if difference is None:
            self.stdout.write(
                f"no difference: seat {comparison.seat}'s {comparison.equal} decisions compared"
                f" from decision {comparison.from_decision} are the recorded ones{forced}"
            )
            return
        self.stdout.write(
            f"first difference at decision {difference.decision} (seat {difference.seat},"
            f" after {comparison.equal} equal{forced}): recorded"
            f" {json.dumps(difference.recorded)}, chose {json.dumps(difference.chosen)}"
        )
        self.stdout.write(f"observation: {json.dumps(difference.observation)}")

    def _print_recorded_result(
        self, recorded: RecordedMatch, result: MatchResult, comparison: Comparison
    ) -> None:
        finished = recorded.finished
        if finished is None:
            self.stdout.write("recorded: the log ends before the match does")
            return
        same = (
            finished.get("winner") == result.winner
            and list(finished.get("scores", [])) == list(result.scores)
            and finished.get("reason") == result.reason.value
        )
        self.stdout.write(
            f"recorded: winner: seat {finished.get('winner')}, scores {finished.get('scores')},"
            f" {finished.get('reason')}, {len(recorded.decisions)} decisions"
            f" ({'the same result' if same else 'a different result'})"
        )

    def _launcher(
        self,
        game_id: str,
        spec: str,
        sandboxed: bool,
        runtime: str | None,
        bot_seed: int | None = None,
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
            return BuiltinLauncher(strategy, bot_seed)
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


def _recorded_name(recorded: RecordedMatch, seat: int) -> str:
    player = recorded.players[seat] if seat < len(recorded.players) else {}
    return str(player.get("bot", f"seat {seat}"))


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
