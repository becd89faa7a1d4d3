"""``manage.py play GAME BOT BOT``: a match between two local bots, printed as it is played.

A bot is a file or a folder of any runtime (``arena.runtimes``: told by ``--runtime``, else
guessed from its files), or the name of a built-in bot (``random``, ``heuristic``, or a
strategy such as ``snag_heuristic``): ``bots.services.launch.local_launcher``. The protocol
and the time limits are the server's (settings). ``--sandbox`` reads, builds and runs the
files exactly as an upload of them would be (what the server refuses is refused here),
where, as on the server, only the bot to move runs and a decision is charged CPU time;
without it only a Python file or folder runs, as a plain process.

``manage.py play GAME BOT BOT --sets N`` is a challenge at home: N duplicate sets of the
first bot against the second, played and read as the server plays and reads a challenge's
(``ladder.home``), each set on one line, then the sets won, drawn and lost and the score with
its 95% interval. It lives in the ladder's app, which owns challenges, since the layers
below cannot read a set.

``manage.py play --replay LOG --seat N BOT`` plays BOT in seat N of a logged match (a file
of ``GET /api/matches/{id}/log/``): the same deals, the opponent's recorded decisions, and
BOT's compared with the record (``arena.replay``). It prints the first that differs, with
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

from arena.referee import ConnectionPlayer, Limits, MatchResult, connect, referee_match
from arena.replay import (
    ComparedBot,
    Comparison,
    LogUnplayable,
    RecordedMatch,
    RecordedOpponent,
    ReplayStopped,
    read_log,
)
from arena.runner import BotLauncher, ScriptLauncher
from arena.runtimes import RUNTIMES
from bots.services.bots import builtin_strategy_names
from bots.services.launch import LocalBotUnplayable, local_launcher, match_cpu, referee_limits
from games.rules import get_game
from ladder.home import HomeSet, SetsRecord, home_sets_play
from tournaments.duplicate import SetOutcome


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
        add_local_play_arguments(parser)
        parser.add_argument(
            "--sets",
            type=int,
            default=None,
            metavar="N",
            help="play N duplicate sets (each deal twice, seats swapped; set k on seed"
            " SEED + k - 1) and print the first bot's record and score with its interval",
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
            if options["sets"] is not None:
                raise CommandError("--sets plays two bots, not a logged match: leave out --replay")
            self._replay(options)
            return
        if len(specs) != 3:
            raise CommandError("play GAME BOT BOT, or play --replay LOG --seat N BOT")
        for name in ("seat", "opponent"):
            if options[name] is not None:
                raise CommandError(f"--{name} goes with --replay")
        if options["sets"] is not None:
            self._sets(options)
            return
        try:
            game = get_game(specs[0])
            state = game.new_match(options["seed"], match_options(options["option"]))
        except ValueError as error:
            raise CommandError(str(error)) from None
        players = [local_bot(game.id, spec, options) for spec in specs[1:]]
        limits = local_limits(options)
        for seat, player in enumerate(players):
            self.stdout.write(f"seat {seat}: {described(player)}")
        result = referee_match(game, state, players, limits=limits, emit=self._print_event)
        self._print_result(result)

    def _sets(self, options: dict[str, Any]) -> None:
        game_id, *specs = options["specs"]
        if options["sets"] < 1:
            raise CommandError("--sets counts sets from 1")
        try:
            game = get_game(game_id)
        except ValueError as error:
            raise CommandError(str(error)) from None
        first, second = (local_bot(game.id, spec, options) for spec in specs)
        self.stdout.write(f"first: {described(first)}\nsecond: {described(second)}")
        sets_printer = SetsPrinter(self.stdout, (str(first), str(second)), quiet=self.quiet)
        try:
            record = home_sets_play(
                game=game,
                players=(first, second),
                sets=options["sets"],
                first_seed=options["seed"],
                options=match_options(options["option"]),
                limits=local_limits(options),
                series_length=settings.BAIZE_SERIES_MAX_MATCHES,
                cpu=match_cpu(),
                on_set=sets_printer.print_set,
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(record_line(record))

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
        options = self._recorded_seed(options, recorded, game.id, seat)
        bot = local_bot(game.id, specs[0], options)
        limits = local_limits(options)
        comparison = Comparison(
            recorded,
            seat,
            from_decision=options["from_decision"],
            goes_on=options["opponent"] is not None,
        )
        then = None
        if options["opponent"] is not None:
            opponent = local_bot(game.id, options["opponent"], {**options, "bot_seed": None})
            then = connect(opponent)
        players = [None, None]
        players[seat] = ConnectionPlayer(ComparedBot(connect(bot), comparison))
        players[1 - seat] = ConnectionPlayer(
            RecordedOpponent(1 - seat, comparison, then, limits.start_seconds)
        )
        other = f"the record of {_recorded_name(recorded, 1 - seat)}"
        if then is not None:
            other += f", then {options['opponent']} from the first difference"
        self.stdout.write(f"seat {seat}: {described(bot)}")
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

    def _recorded_seed(
        self, options: dict[str, Any], recorded: RecordedMatch, game_id: str, seat: int
    ) -> dict[str, Any]:
        """The options with ``--bot-seed`` taken from the log where BOT is the built-in bot
        that sat in ``seat`` and none was given: it then plays its recorded choices again."""
        spec, seed = options["specs"][0], recorded.bot_seed(seat)
        if options["bot_seed"] is not None or seed is None or Path(spec).exists():
            return options
        names = builtin_strategy_names(game_id)
        sat = recorded.players[seat].get("builtin") or _recorded_name(recorded, seat)
        sat = sat.rsplit("/", 1)[-1]
        if names.get(spec, spec) != names.get(sat, sat):
            return options
        self.stdout.write(f"{spec}: bot_seed {seed}, as recorded (--bot-seed to change it)")
        return {**options, "bot_seed": seed}

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


def add_local_play_arguments(parser: CommandParser) -> None:
    """The options of a match between local bots, shared by ``play`` and ``version_test``."""
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


def local_bot(game_id: str, spec: str, options: dict[str, Any]) -> BotLauncher:
    try:
        return local_launcher(
            game_id=game_id,
            spec=spec,
            sandboxed=options["sandbox"],
            runtime=options["runtime"],
            bot_seed=options["bot_seed"],
        )
    except LocalBotUnplayable as error:
        raise CommandError(str(error)) from None


def described(bot: BotLauncher) -> str:
    """A local bot as the command names it: a Python file run as it is says what it is not,
    as a bot built at home does (``arena.home``)."""
    if isinstance(bot, ScriptLauncher):
        return f"{bot} (unsandboxed: your own process, wall-clock time)"
    return str(bot)


def local_limits(options: dict[str, Any]) -> Limits:
    """The server's limits (``referee_limits``), with the command's ``--decision-seconds``
    and ``--time-bank``."""
    return referee_limits(
        decision_seconds=options["decision_seconds"], time_bank_seconds=options["time_bank"]
    )


def match_options(pairs: list[str]) -> dict[str, Any]:
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


#: A set's outcome in words, from the first bot's side (as a challenge's sets say it).
OUTCOME_WORDS = {SetOutcome.FIRST: "won", SetOutcome.DRAWN: "drawn", SetOutcome.SECOND: "lost"}


class SetsPrinter:
    """Prints each set of a run of sets at home on one line (unless quiet), with any forfeit
    and the forfeiting bot's stderr below it; ``names`` are the first and second bot's."""

    def __init__(self, stdout: Any, names: tuple[str, str], *, quiet: bool) -> None:
        self.stdout, self.names, self.quiet = stdout, names, quiet

    def print_set(self, home_set: HomeSet, record: SetsRecord, note: str = "") -> None:
        if self.quiet:
            return
        result = home_set.result
        self.stdout.write(
            f"set {home_set.number} (seed {home_set.seed}): {OUTCOME_WORDS[result.outcome]},"
            f" matches {result.first_wins}-{result.second_wins},"
            f" points {result.first_points}-{result.second_points}{note}"
        )
        for first_seat, match in enumerate(home_set.matches):
            if match.forfeit is not None:
                self._print_forfeit(match, first_seat)

    def _print_forfeit(self, match: MatchResult, first_seat: int) -> None:
        forfeit = match.forfeit
        assert forfeit is not None
        name = self.names[0 if forfeit.seat == first_seat else 1]
        self.stdout.write(
            f"  {name} forfeits in seat {forfeit.seat} ({forfeit.reason}): {forfeit.detail}"
        )
        stderr = match.stderr[forfeit.seat].strip()
        if stderr:
            self.stdout.write(f"  --- stderr of {name} ---\n{stderr}")


def record_line(record: SetsRecord) -> str:
    low, high = record.interval
    return (
        f"sets won-drawn-lost: {record.wins}-{record.draws}-{record.losses};"
        f" score {record.score:.3f}, 95% interval [{low:.3f}, {high:.3f}]"
    )
