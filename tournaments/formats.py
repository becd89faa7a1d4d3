"""Tournament formats as a table: each format's name and what differs between formats.

``FORMATS`` maps each format to its ``FormatSpec``: how its rounds are planned (a planner
reading and writing ``tournaments.planning`` values), whether it is rated, whether
organisers create it, how its page shows it, its tie-breaks, the settings it takes, and
whether its built-in matches only fill idle workers. What a format does is asked of its
spec (``format_spec``), never of its name; only the ladder's own pages and API find their
kinds of tournament (the ladder, challenges, version tests) by name. Adding a format is its
planner and one ``register_format`` call; the API checks a format against the table as
each request comes, so one registered after import is offered too.

Round robin (single or double) and the length of a Swiss live here too; Swiss pairings (the
Dutch and Monrad systems) in ``tournaments.swiss``, the elimination brackets in
``tournaments.brackets``. Pure: no Django, no I/O.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from .brackets import Bracket, Side, bracket_progress, double_elimination, single_elimination
from .duplicate import SetOutcome, SetResult
from .planning import NO_BRACKET, NewPairing, Plan, TournamentState
from .sprt import Verdict, sprt_state
from .standings import (
    ELIMINATION_TIE_BREAKS,
    ROUND_ROBIN_TIE_BREAKS,
    SWISS_TIE_BREAKS,
    PairedSet,
    TieBreak,
    standings,
)
from .swiss import PairingSystem, swiss_round

if TYPE_CHECKING:
    from .config import TournamentConfig

T = TypeVar("T", bound=Hashable)


#: The kind of the tournaments an organiser creates (every format not made for its users).
ORGANISED = "organised"


class Format(enum.StrEnum):
    """The names of the built-in formats (``FORMATS`` says what each one is)."""

    ROUND_ROBIN = "round_robin"
    DOUBLE_ROUND_ROBIN = "double_round_robin"
    SWISS = "swiss"
    SINGLE_ELIMINATION = "single_elimination"
    DOUBLE_ELIMINATION = "double_elimination"
    #: A game's ladder: sets between active ladder versions, paired by ``ladder.matchmaking``.
    LADDER = "ladder"
    #: An author's challenge: N duplicate sets between two versions, unrated.
    CHALLENGE = "challenge"
    #: A sequential test of one version against another (``tournaments.sprt``), unrated.
    VERSION_TEST = "version_test"


class Page(enum.StrEnum):
    """How a tournament's page shows its pairings."""

    #: The rounds, and a cross table of every pair.
    CROSS_TABLE = "cross_table"
    #: The rounds' pairings.
    ROUNDS = "rounds"
    #: The bracket, pairing by pairing.
    BRACKET = "bracket"


#: Plans what a running tournament plays next: reads the state, fills in the plan.
Planner = Callable[[TournamentState, Plan], None]


@dataclass(frozen=True)
class FormatSpec:
    """What one format is; everything that differs between formats is a field here."""

    name: str
    planner: Planner
    #: The standings' tie-breaks, in the order they apply after place and score.
    tie_breaks: tuple[TieBreak, ...] = ROUND_ROBIN_TIE_BREAKS
    #: Its sets change the game's ratings.
    rated: bool = True
    #: An organiser creates it; the others are made by the ladder and authors.
    organised: bool = True
    page: Page = Page.ROUNDS
    #: An elimination format's bracket for a field of n; its pairings are decided by
    #: tie-break sets and seeds, and its standings rank by place first.
    bracket: Callable[[int], Bracket] | None = None
    #: A format played in a number of rounds the organiser may choose: the rounds a field
    #: of n plays, given the rounds chosen (None: the format's default).
    rounds: Callable[[int | None, int], int] | None = None
    #: Its rounds may give byes (the standings show them).
    byes: bool = False
    #: Its planner decides every pairing itself (no set-count decision per pairing).
    sequential: bool = False
    #: A sequential test of one version against others: its parameters and verdict are its
    #: ``VersionTest`` row, and it plays at most that test's ``max_sets``.
    tests_versions: bool = False
    #: A further check of a configuration of this format: ``ValueError`` saying what is wrong.
    check: Callable[[TournamentConfig], None] | None = None
    #: Work that never runs out: its matches between built-in bots wait behind everything
    #: else (``base.queues.FILLER_PRIORITY``).
    fills_idle_workers: bool = False
    #: Its planner reads the pairings already decided (a round's results, a bracket's
    #: winners). The ladder's does not, and keeps every pairing it ever made: its advance
    #: reads only the pairings still playing, so that a match's settling does not grow
    #: with the ladder's history.
    plans_from_decided_pairings: bool = True

    @property
    def kind(self) -> str:
        """What made it: ``organised`` for an organiser's formats, else the format's own name."""
        return ORGANISED if self.organised else str(self.name)


def register_format(spec: FormatSpec) -> FormatSpec:
    """Add a format to ``FORMATS`` (or replace the one of that name)."""
    FORMATS[str(spec.name)] = spec
    return spec


def format_spec(name: str) -> FormatSpec:
    """The format of this name; ``ValueError`` naming the known formats otherwise."""
    try:
        return FORMATS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown format {name!r}; known: {sorted(FORMATS)}") from None


def format_names(*, organised: bool | None = None, rated: bool | None = None) -> list[str]:
    """The formats, or those organised (or not), rated (or not)."""
    return [
        name
        for name, spec in FORMATS.items()
        if organised in (None, spec.organised) and rated in (None, spec.rated)
    ]


def kinds() -> tuple[str, ...]:
    """The kinds of tournament: organised ones, then each format made for its users."""
    return (ORGANISED, *format_names(organised=False))


def _rounds_table(plan: Plan, rounds: list[list[tuple[int, int]]]) -> None:
    for number, pairs in enumerate(rounds, start=1):
        plan.new_pairings += [
            NewPairing(f"r{number}t{table}", NO_BRACKET, number, table, a, b)
            for table, (a, b) in enumerate(pairs, start=1)
        ]


def round_robin_planner(cycles: int) -> Planner:
    """Every pair ``cycles`` times, all rounds created at once; done when all are decided."""

    def plan_round_robin(state: TournamentState, plan: Plan) -> None:
        if state.pairings:
            plan.finish = all(view.finished for view in state.pairings)
            return
        ids = [entrant.id for entrant in state.entrants]
        _rounds_table(plan, round_robin_rounds(ids, cycles=cycles))

    return plan_round_robin


def plan_swiss(state: TournamentState, plan: Plan) -> None:
    """The next round once the current one is decided, paired by score; done after the
    tournament's rounds."""
    views = state.pairings
    current = max((view.round for view in views), default=0)
    if not all(view.finished for view in views if view.round == current):
        return
    if current >= (state.rounds or 0):
        plan.finish = True
        return
    seeded = sorted(state.entrants, key=lambda entrant: entrant.bracket_position)
    rows = standings(
        [entrant.id for entrant in seeded],
        [
            PairedSet(view.first, view.second, result)
            for view in views
            if view.second is not None
            for result in view.results
        ],
        tie_breaks=(),
        # A bye is a pairing won, as the tournament's standings count it.
        byes=[view.first for view in views if view.second is None],
        bye_points=float(state.sets_per_pair),
    )
    paired = swiss_round(
        [row.entrant for row in rows],
        scores={row.entrant: row.score for row in rows},
        played={frozenset((v.first, v.second)) for v in views if v.second is not None},
        had_bye={view.first for view in views if view.second is None},
        system=PairingSystem(state.pairing_system),
    )
    number = current + 1
    plan.new_pairings += [
        NewPairing(f"r{number}t{table}", NO_BRACKET, number, table, a, b)
        for table, (a, b) in enumerate(paired.pairs, start=1)
    ]
    if paired.bye is not None:
        table = len(paired.pairs) + 1
        plan.new_pairings.append(
            NewPairing(f"r{number}bye", NO_BRACKET, number, table, paired.bye, None)
        )


def swiss_rounds(chosen: int | None, entrants: int) -> int:
    """The rounds chosen, or enough to single out a winner, but never more than a field
    can play without a rematch."""
    return min(chosen or swiss_round_count(entrants), swiss_max_rounds(entrants))


def elimination_planner(bracket_of: Callable[[int], Bracket]) -> Planner:
    """The bracket's pairings whose two sides are now known; done when the bracket is."""

    def plan_elimination(state: TournamentState, plan: Plan) -> None:
        bracket = bracket_of(len(state.entrants))
        views = state.pairings
        winners = {view.key: view.winner for view in views if view.finished}
        progress = bracket_progress(bracket, [e.id for e in state.entrants], winners)
        existing = {view.key for view in views}
        for ready in progress.ready:
            if ready.key in existing:
                continue
            bracket_pairing = bracket.pairing(ready.key)
            key = ready.key
            table = int(key.split("-")[1]) if "-" in key else 1
            side, round_number = Side(bracket_pairing.side), bracket_pairing.round
            plan.new_pairings.append(
                NewPairing(key, side, round_number, table, ready.first, ready.second)
            )
        plan.finish = progress.finished

    return plan_elimination


#: Sets a version test's pairing is given at a time. A batch is played by two worker tasks
#: of two sets each, the sets' first seatings then their second, a series per seating
#: (``tournaments.series``: a bot process per seat and seating is started once a task, not
#: once a match); the
#: sequential test still reads every set as it finishes, and the sets of a batch not yet
#: played when it decides are dropped.
VERSION_TEST_BATCH_SETS = 4


def version_test_first_batch(*, opponents: int, max_sets: int) -> int:
    """The sets each pairing of a new version test starts with (its ``sets_per_pair``)."""
    return max(1, min(VERSION_TEST_BATCH_SETS, max_sets // opponents))


def plan_version_test(state: TournamentState, plan: Plan) -> None:
    """A pairing of the candidate (first) with each opponent: the baseline, or each version
    of a pool. Each pairing whose sets have all finished gets the next batch of
    ``VERSION_TEST_BATCH_SETS``, the pairings that have played least first, until the
    sequential test, reading every set of the candidate as one, decides or reaches its cap."""
    views = state.pairings
    if not views:
        by_position = sorted(state.entrants, key=lambda entrant: entrant.position)
        candidate, *opponents = (entrant.id for entrant in by_position)
        for table, opponent in enumerate(opponents, start=1):
            key = "test" if len(opponents) == 1 else f"test-{table}"
            plan.new_pairings.append(NewPairing(key, NO_BRACKET, 1, table, candidate, opponent))
        return
    assert state.sprt is not None, "a version test runs with its test's parameters"
    results = [result for view in views for result in view.results]
    verdict = sprt_state(*_counts(results), state.sprt)
    if verdict.verdict is not Verdict.PENDING:
        plan.decided.update({view.key: None for view in views})
        plan.finish = True
        plan.version_test = verdict
        return
    room = state.sprt.max_sets - sum(view.sets for view in views)
    for view in sorted(views, key=lambda view: view.sets):
        batch = min(VERSION_TEST_BATCH_SETS, room)
        if batch <= 0:
            break
        if view.sets == len(view.results):  # its last batch has finished
            plan.extra_sets += [view.key] * batch
            room -= batch


def _counts(results: Sequence[SetResult]) -> tuple[int, int, int]:
    outcomes = [result.outcome for result in results]
    return tuple(outcomes.count(o) for o in (SetOutcome.FIRST, SetOutcome.DRAWN, SetOutcome.SECOND))


def plan_nothing(state: TournamentState, plan: Plan) -> None:
    """The ladder's pairings come from its matchmaker, and it never finishes."""


#: Every format by name; ``register_format`` adds one.
FORMATS: dict[str, FormatSpec] = {
    str(spec.name): spec
    for spec in (
        FormatSpec(Format.ROUND_ROBIN, round_robin_planner(1), page=Page.CROSS_TABLE),
        FormatSpec(Format.DOUBLE_ROUND_ROBIN, round_robin_planner(2), page=Page.CROSS_TABLE),
        FormatSpec(Format.SWISS, plan_swiss, SWISS_TIE_BREAKS, rounds=swiss_rounds, byes=True),
        FormatSpec(
            Format.SINGLE_ELIMINATION,
            elimination_planner(single_elimination),
            ELIMINATION_TIE_BREAKS,
            page=Page.BRACKET,
            bracket=single_elimination,
        ),
        FormatSpec(
            Format.DOUBLE_ELIMINATION,
            elimination_planner(double_elimination),
            ELIMINATION_TIE_BREAKS,
            page=Page.BRACKET,
            bracket=double_elimination,
        ),
        FormatSpec(
            Format.LADDER,
            plan_nothing,
            organised=False,
            fills_idle_workers=True,
            plans_from_decided_pairings=False,
        ),
        FormatSpec(Format.CHALLENGE, round_robin_planner(1), rated=False, organised=False),
        FormatSpec(
            Format.VERSION_TEST,
            plan_version_test,
            rated=False,
            organised=False,
            sequential=True,
            tests_versions=True,
        ),
    )
}


def round_robin_rounds(entrants: Sequence[T], *, cycles: int = 1) -> list[list[tuple[T, T]]]:
    """Every pair exactly ``cycles`` times, in rounds where nobody plays twice (circle method).

    With an odd field one entrant sits out each round. In the first cycle a pair is
    ``(a, b)`` with ``a`` the entrant listed earlier; each further cycle repeats the rounds
    with the pairs reversed, so seat assignment (first or second) alternates.
    """
    single = _circle_rounds(entrants)
    return [
        [pair if cycle % 2 == 0 else (pair[1], pair[0]) for pair in pairs]
        for cycle in range(cycles)
        for pairs in single
    ]


def _circle_rounds(entrants: Sequence[T]) -> list[list[tuple[T, T]]]:
    field: list[T | None] = list(entrants)
    if len(field) < 2:
        return []
    if len(field) % 2:
        field.append(None)
    order = {entrant: index for index, entrant in enumerate(entrants)}
    rounds = []
    for _ in range(len(field) - 1):
        half = len(field) // 2
        pairs = [(field[i], field[-1 - i]) for i in range(half)]
        rounds.append(
            [(a, b) if order[a] < order[b] else (b, a) for a, b in pairs if None not in (a, b)]
        )
        field = [field[0], field[-1], *field[1:-1]]
    return rounds


def swiss_round_count(entrants: int) -> int:
    """The default number of Swiss rounds: enough to single out a winner, ``ceil(log2 n)``."""
    return max(1, math.ceil(math.log2(max(entrants, 2))))


def swiss_max_rounds(entrants: int) -> int:
    """Rounds a field can play with no rematch and at most one bye each: a round robin's worth."""
    return entrants - 1 if entrants % 2 == 0 else entrants
