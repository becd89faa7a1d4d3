"""What a format's planner reads and writes (pure; no Django).

``scheduling.tournament_advance`` reads a running tournament into a ``TournamentState``,
hands it to the planner of the tournament's format (``formats.FORMATS``), and writes the
``Plan`` the planner filled in. A planner thus sees entrants and pairings as plain values
(entrant ids, pairing keys) and never touches the database.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .duplicate import SetResult
from .sprt import SprtParameters, SprtState

#: The ``bracket`` of every pairing not in an elimination bracket (``Pairing.Bracket.NONE``);
#: its value "rounds" is kept for the API and the rows already stored.
NO_BRACKET = "rounds"


@dataclass(frozen=True)
class EntrantView:
    id: int
    #: Place in the bracket's order from 1 (best), fixed at the start.
    bracket_position: int
    #: Entry order, from 1.
    position: int


@dataclass(frozen=True)
class PairingView:
    """A pairing as the planner sees it, with this advance's decisions applied."""

    key: str
    round: int
    first: int
    #: None: a bye.
    second: int | None
    finished: bool
    winner: int | None
    #: The results of its finished sets.
    results: tuple[SetResult, ...]
    #: The sets created so far, finished or not.
    sets: int


@dataclass(frozen=True)
class TournamentState:
    """A running tournament as its planner reads it."""

    #: In seed order.
    entrants: tuple[EntrantView, ...]
    pairings: tuple[PairingView, ...]
    #: The rounds it plays, fixed at the start (formats with ``FormatSpec.rounds``).
    rounds: int | None
    sets_per_pair: int
    pairing_system: str
    #: The sequential test's parameters (a version test only).
    sprt: SprtParameters | None = None


@dataclass(frozen=True)
class NewPairing:
    key: str
    bracket: str
    round: int
    table: int
    first: int
    #: None: a bye, created finished.
    second: int | None
    #: Its sets; None: the tournament's ``sets_per_pair``.
    sets: int | None = None


@dataclass
class Plan:
    #: Pairing key -> the entrant going through (None in round robins and Swiss).
    decided: dict[str, int | None] = field(default_factory=dict)
    #: Keys of the pairings that get one more set, a key once for each set.
    extra_sets: list[str] = field(default_factory=list)
    new_pairings: list[NewPairing] = field(default_factory=list)
    finish: bool = False
    #: The sequential test's final state, when this advance stops it.
    version_test: SprtState | None = None

    @property
    def empty(self) -> bool:
        return not (self.decided or self.extra_sets or self.new_pairings or self.finish)
