"""What every game shares: the ``Game``/``State`` split, the match loop and the facade contract.

A ``Game`` is immutable rules plus parameters; a ``State`` is one point of one match. States
are values: ``Game.apply`` never changes the state it is given, it returns a new one. Every
field of a state therefore holds an immutable value (ints, strings, tuples) that is replaced,
never mutated, which lets a state be copied in one dictionary update.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar, Generic, TypeVar

from .decks import Order, check_seed, check_stacked_decks, draw_order
from .errors import GameOver, IllegalAction
from .options import Option, parse_options

Action = dict[str, Any]
_ABSENT = object()
#: A pending decision: the one action kind asked for and its legal values.
Moves = tuple[str, Collection[Any]]


class State:
    """One point of one match of one game. Read it; never assign to it from outside."""

    game_id: str
    seed: int
    options: Mapping[str, Any]
    stacked: tuple[Order, ...]
    #: The full order each shuffle produced so far; shuffle ``k`` is ``orders[k]``.
    orders: tuple[Order, ...]
    to_play: int | None
    winner: int | None
    dealer: int
    #: Deals started so far (1 during the first deal).
    deal_number: int
    #: The current deal's history as a chain of links, newest first: ``(earlier, seat,
    #: "action", kind, value)`` for a decision ``{"seat": seat, "action": {kind: value}}``
    #: (its value is most often a string, which needs no copy), ``(earlier, seat, key,
    #: value)`` for the entry ``{"seat": seat, key: value}``, ``(earlier, entry)`` for any
    #: other entry. Appending shares the past instead of copying it, which keeps long deals
    #: (Jam's 200 steps) linear, and the common entry costs one tuple.
    _history_tail: tuple[Any, ...] | None
    _scores: tuple[int, int]
    #: The pending decision as ``(kind, legal values)``, computed once per state.
    _moves: Moves | None
    #: The last history ``_shared_history`` built, as ``(its newest link, its entries)``.
    _history_built: tuple[Any, tuple[dict[str, Any], ...]] | None = None

    @property
    def scores(self) -> list[int]:
        """Match points so far, ``[seat 0, seat 1]``."""
        return list(self._scores)

    def deal_history(self, shared: bool = False) -> tuple[dict[str, Any], ...]:
        """``history``, or with ``shared`` the state's own entries (``Game.observation``)."""
        return self._shared_history() if shared else self.history

    def _shared_history(self) -> tuple[dict[str, Any], ...]:
        """The current deal's history as the state's own entries, never to be changed.

        Built once per state, from where its parent's ended: a state made by ``apply``
        starts with its parent's (link, entries) pair, and only the links after that link
        are new. A history reset or amended since has no such link: it is built whole.
        """
        tail = self._history_tail
        known, entries = self._history_built or (None, ())
        if known is tail:
            return entries
        newest_first, reached = _entries_newest_first(tail, known, copied=False)
        if reached is not known:
            entries = ()
        entries += tuple(reversed(newest_first))
        self._history_built = (tail, entries)
        return entries

    @property
    def history(self) -> tuple[dict[str, Any], ...]:
        """Decisions and automatic steps of the current deal, oldest first: the caller's own
        copies, which it may change without changing the state."""
        newest_first, _ = _entries_newest_first(self._history_tail, None, copied=True)
        return tuple(reversed(newest_first))

    @history.setter
    def history(self, entries: tuple[dict[str, Any], ...]) -> None:
        self._history_tail = None
        for entry in entries:
            self._log_entry(entry)

    def legal_actions(self) -> list[Action]:
        """Every legal action of the player to move (docs/rulings.md shapes); empty when over."""
        seat = self.to_play
        if seat is None:
            return []
        moves = self._moves
        if moves is None:
            moves = self._moves = self._legal_moves(seat)
        kind, values = moves
        # A loop, not a comprehension: this runs once per decision, and in Python 3.11 a
        # comprehension costs a function call more.
        actions = []
        for value in values:
            actions.append({kind: value})
        return actions

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        """Every card of the deck exactly once, grouped by where it lies now.

        Used by the conservation checks; cards out of play (undealt, discarded unseen) form
        zones of their own.
        """
        raise NotImplementedError

    def hidden_cards(self, seat: int) -> frozenset[str]:
        """The cards whose whereabouts ``seat`` cannot know now (its view must not show them)."""
        raise NotImplementedError

    def _legal_moves(self, seat: int) -> Moves:
        """The pending decision of ``seat``, the player to move: its action kind and its
        legal values, in the order offered.

        Every pending decision of every game asks for one kind of action (``"play"``,
        ``"bid"``, ...), and all its values share one type; they come as a tuple or a list.
        """
        raise NotImplementedError

    def _draw(self, deck: tuple[str, ...]) -> Order:
        """Perform the next shuffle of the match and record the order it produced."""
        order = draw_order(deck, self.seed, self.stacked, len(self.orders))
        self.orders = (*self.orders, order)
        return order

    def _log(self, seat: int, key: str, value: Any) -> None:
        """Append ``{"seat": seat, key: value}`` to the history (``key``: action or auto)."""
        self._history_tail = (self._history_tail, seat, key, value)

    def _log_entry(self, entry: dict[str, Any]) -> None:
        self._history_tail = (self._history_tail, entry)

    def _amend_last_entry(self, entry: dict[str, Any]) -> None:
        """Replace the newest history entry (the decision ``apply`` logged) by ``entry``."""
        newest = self._history_tail
        self._history_tail = (None if newest is None else newest[0], entry)

    def __repr__(self) -> str:
        return (
            f"<{self.__class__.__name__} {self.game_id} seed={self.seed} deal={self.deal_number}"
            f" scores={self.scores} to_play={self.to_play} winner={self.winner}>"
        )


#: The state class of a game; ``Game[S]`` takes and returns states of class ``S`` only.
S = TypeVar("S", bound=State)


class Game(Generic[S]):
    """The rules of one game. Subclasses set the class attributes and the ``_`` hooks."""

    id: ClassVar[str]
    name: ClassVar[str]
    #: Bumped whenever a rule change could alter the outcome of a logged match, or a change
    #: alters what bots see.
    rules_version: ClassVar[str]
    #: Earlier rules versions that changed only what bots see: their logs replay to the same
    #: outcome under these rules (docs/bot-protocol.md, "Changes that bots see").
    same_outcome_versions: ClassVar[frozenset[str]] = frozenset()
    deck: ClassVar[tuple[str, ...]]
    options: ClassVar[tuple[Option, ...]]
    # Not a ClassVar, which may not name a type variable; every game sets it once, in its class.
    state_class: type[S]
    #: Action kinds whose values have several spellings, which ``_normalise`` makes one.
    normalised_kinds: ClassVar[frozenset[str]] = frozenset()
    #: What the game calls a part of a match that scores points of its own, which
    #: ``score_parts`` reports (Rounds: ``"stage"``); None for a game that reports none.
    score_part: ClassVar[str | None] = None

    def new_match(self, seed: int, options: Mapping[str, Any] | None = None) -> S:
        """The state before the first decision; ``ValueError`` names any bad option."""
        given = dict(_as_mapping(options))
        stacked = check_stacked_decks(given.pop("decks", []), self.deck)
        state = self.state_class()
        # A plain dict, not the key-sharing one Python would give the instance: Python 3.11
        # specialises attribute access only on plain dicts, and every later state is a copy.
        state.__dict__ = {}
        state.game_id = self.id
        state.seed = check_seed(seed)
        state.options = parse_options(self.options, given)
        state.stacked = stacked
        state.orders = ()
        state.to_play = None
        state.winner = None
        state.dealer = 1
        state.deal_number = 0
        state._history_tail = None
        state._scores = (0, 0)
        state._moves = None
        self._start(state)
        return state

    def apply(self, state: S, action: Action) -> S:
        """The state after ``action``; ``IllegalAction`` if it is not legal in ``state``.

        ``state`` itself is left as it was. This is the hot path of every playout and
        replay, hence one flat function.
        """
        if state.game_id != self.id:
            raise ValueError(f"a {state.game_id!r} state was given to the {self.id!r} game")
        seat = state.to_play
        if seat is None:
            raise GameOver("the match is over; no action can be applied")
        moves = state._moves
        if moves is None:
            moves = state._moves = state._legal_moves(seat)
        kind, values = moves
        if type(action) is not dict or len(action) != 1:
            raise _illegal(action, state)
        value = action.get(kind)
        # A card among the legal cards is the common case; any other value takes the path
        # that normalises it (to an immutable value) and checks its type.
        if value.__class__ is not str or value not in values:
            value = self._legal_action(state, action, kind, values)[kind]
        # The state's own action, never the caller's dict, which the caller may change later.
        action = {kind: value}
        new = type(state)()
        # Every field holds an immutable value, so a flat copy of the attributes is a copy.
        new.__dict__ = state.__dict__.copy()
        new._moves = None
        new._history_tail = (state._history_tail, seat, "action", kind, value)
        self._apply(new, seat, action)
        return new

    def _legal_action(self, state: S, action: Action, kind: str, values: Collection[Any]) -> Action:
        """``action`` in its canonical spelling if it is legal; ``IllegalAction`` if not.

        The value must have the legal values' type as well as equal one of them: equality
        alone would take ``{"bid": True}`` for ``{"bid": 1}``.
        """
        if kind in self.normalised_kinds:
            action = self._normalise(action)
        value = action.get(kind, _ABSENT)
        if value in values and value.__class__ is next(iter(values)).__class__:
            return action
        raise _illegal(action, state)

    def replays(self, rules_version: str) -> bool:
        """Whether a log written under ``rules_version`` replays under these rules."""
        return rules_version == self.rules_version or rules_version in self.same_outcome_versions

    def observation(self, state: S, seat: int, *, shared: bool = False) -> dict[str, Any]:
        """All that ``seat`` may know at ``state``, and nothing more, as a JSON-ready dict.

        Summaries of finished deals go under keys starting with ``last_`` (``last_deal``):
        they name cards that have since been shuffled back in.

        The dict is the caller's own to change, unless ``shared``: then some of its lists
        and dicts are the state's own, never to be changed, and the deal's history is not
        built again at each state. For a caller that only encodes it (the runner writing a
        decide line), which spares copying the whole history at every decision.
        """
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        return {
            "game": self.id,
            "rules_version": self.rules_version,
            "seat": seat,
            "to_play": state.to_play,
            "legal_actions": state.legal_actions() if state.to_play == seat else [],
            "scores": state.scores,
            "winner": state.winner,
            "dealer": state.dealer,
            "deal_number": state.deal_number,
            "options": state.options if shared else own_copy(dict(state.options)),
            **self._view(state, seat, shared),
        }

    def score_parts(self, state: S) -> list[dict[str, Any]]:
        """The finished parts of the match so far (``score_part``), oldest first, each a
        JSON-ready dict with at least its ``deal_number`` and the ``points`` it gave each seat,
        as the rules count them; empty for a game that reports none. Public: a part is
        reported once its points are known to both seats. The caller's own to change."""
        return []

    def describe(self) -> dict[str, Any]:
        """The game, its rules version and its options with their defaults, JSON-ready."""
        return {
            "id": self.id,
            "name": self.name,
            "rules_version": self.rules_version,
            "deck_size": len(self.deck),
            "options": [option.describe() for option in self.options],
        }

    # Hooks for each game.

    def _start(self, state: S) -> None:
        raise NotImplementedError

    def _apply(self, state: S, seat: int, action: Action) -> None:
        """Change the fresh copy ``state`` by ``seat``'s already-checked ``action``.

        ``seat`` is the player who was to move; the decision is already in the history as
        ``{"seat": seat, "action": action}``.
        """
        raise NotImplementedError

    def _view(self, state: S, seat: int, shared: bool) -> dict[str, Any]:
        """The game's own part of ``observation``; ``shared`` as there."""
        raise NotImplementedError

    def _normalise(self, action: Any) -> Any:
        """Bring an equivalent spelling of an action to its canonical shape (e.g. card order)."""
        return action


def _as_mapping(options: object) -> Mapping[str, Any]:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"options must be a JSON object, got {options!r}")
    return options


def _illegal(action: object, state: State) -> IllegalAction:
    legal = state.legal_actions()
    return IllegalAction(f"{action!r} is not legal here; legal actions are {legal!r}")


def other(seat: int) -> int:
    return 1 - seat


def add_points(scores: tuple[int, int], seat: int, points: int) -> tuple[int, int]:
    return (scores[0] + points, scores[1]) if seat == 0 else (scores[0], scores[1] + points)


def remove_card(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
    remaining = list(cards)
    remaining.remove(card)
    return tuple(remaining)


def without_card(
    pair: tuple[tuple[str, ...], tuple[str, ...]], seat: int, card: str
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``pair`` (each seat's hand, say) with ``card`` taken from ``seat``'s cards, in order."""
    cards = list(pair[seat])
    cards.remove(card)
    return (tuple(cards), pair[1]) if seat == 0 else (pair[0], tuple(cards))


def with_seat(pair: tuple[Any, Any], seat: int, value: Any) -> tuple[Any, Any]:
    """``pair`` with the item of ``seat`` replaced by ``value``."""
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _entries_newest_first(
    link: tuple[Any, ...] | None, stop: tuple[Any, ...] | None, *, copied: bool
) -> tuple[list[dict[str, Any]], tuple[Any, ...] | None]:
    """The history entries of the links from ``link`` back to ``stop`` (or to the deal's
    start), newest first, as copies or as the state's own, and the link it stopped at."""
    entries = []
    while link is not None and link is not stop:
        size = len(link)
        if size == 5:
            link, seat, key, kind, value = link
            if copied and value.__class__ in _COPIED:
                value = own_copy(value)
            entries.append({"seat": seat, key: {kind: value}})
        elif size == 4:
            link, seat, key, value = link
            if copied and value.__class__ in _COPIED:
                value = own_copy(value)
            entries.append({"seat": seat, key: value})
        else:
            link, entry = link
            entries.append(own_copy(entry) if copied else entry)
    return entries, link


def own_copy(value: Any) -> Any:
    """``value`` with every dict and list in it copied, so that whoever it is handed to may
    change it without changing the state it came from.

    For the JSON-shaped values states hold (dicts, lists, strings, numbers, None, and tuples
    of immutable values, which need no copy). A view hands out a state's mutable parts
    through this.
    """
    cls = value.__class__
    # Most items are strings and numbers: tested inline, they cost no call (an observation
    # copies a deal's whole history at every decision).
    if cls is dict:
        return {
            key: own_copy(item) if item.__class__ in _COPIED else item
            for key, item in value.items()
        }
    if cls is list:
        return [own_copy(item) if item.__class__ in _COPIED else item for item in value]
    return value


_COPIED = frozenset((dict, list))
