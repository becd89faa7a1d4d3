"""Two-handed Spades: thirteen cards each, a bid each, spades always trump.

Rules: ``docs/rules/spades.md`` (settled points: ``docs/rulings.md``). The starting bidder
is the non-dealer (seat 0 in the first hand, then alternating).
Option ``deal``: "automatic" deals order positions 0-25 alternately from the starting bidder;
"selection" has the players draw in turn from the starting bidder, each draw looking at the
next card of the order and keeping it (the card after it is discarded unseen, automatically)
or discarding it, seen only by the drawer, and taking the card after it. Bids 0-13, the
starting bidder first; she leads the first trick. Spades may not be led until a spade has
been played to an earlier trick, unless the leader holds only spades. A made bid scores 10 a
trick bid and 1 a trick over; a set loses 10 a trick bid.

After each hand, once a score is above ``limit`` (strictly) the higher score wins; equal
scores play another hand; a negative score never ends the match. The hand cap of the
rulings (option ``max_hands``, a platform rule so that set-prone players still finish): once
that many hands are scored with no winner, the higher score wins and equal scores go to
seat 1; it is checked after the limit.
"""

from __future__ import annotations

import enum
from itertools import filterfalse
from typing import Any, cast

from ..base import Action, Game, Moves, State, add_points, other, with_seat, without_card
from ..cards import FULL_DECK
from ..options import choice_option, int_option
from ..tricks import IN_SUIT, highest_of_suit_or_trump, playable_cards
from .view import spades_view

TRICKS_PER_HAND = 13
TRUMP = "S"
BIDS = tuple(range(TRICKS_PER_HAND + 1))
KEEP_OR_NOT = (True, False)


class Phase(enum.Enum):
    DRAW = "draw"  # selection deal: keep or discard the next card of the order
    BID = "bid"
    LEAD = "lead"
    FOLLOW = "follow"
    OVER = "over"


# Looking a member up on an Enum class runs ``EnumType.__getattr__`` in Python 3.11, several
# times the cost of a global; the hot path names the phases through these globals,
# each bound by name so that reordering the enum cannot swap two of them.
DRAW = Phase.DRAW
BID = Phase.BID
LEAD = Phase.LEAD
FOLLOW = Phase.FOLLOW
OVER = Phase.OVER


def hand_points(bid: int, tricks: int) -> int:
    """A made bid scores 10 a trick bid plus 1 a trick over; a set loses 10 a trick bid."""
    if tricks >= bid:
        return 10 * bid + (tricks - bid)
    return -10 * bid


class SpadesState(State):
    phase: Phase
    #: Each seat's cards; hidden from the other seat.
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    starting_bidder: int
    #: Selection deal: position in this hand's order of the card the next draw looks at.
    draw_position: int
    #: Selection deal: the cards each seat discarded after looking at them; seen by her alone.
    seen_discards: tuple[tuple[str, ...], tuple[str, ...]]
    #: Selection deal: the cards discarded after a keep, which nobody has seen.
    unseen_discards: tuple[str, ...]
    bids: tuple[int | None, int | None]
    leader: int
    #: The card led to the trick in progress, or ``None`` between tricks.
    led: str | None
    #: Finished tricks of this hand as ``(leader, card led, card played second, winner)``.
    tricks: tuple[tuple[int, str, str, int], ...]
    tricks_won: tuple[int, int]
    spades_broken: bool
    last_deal: dict[str, Any] | None

    def _legal_moves(self, seat: int) -> Moves:
        hand = self.hands[seat]
        led = self.led
        # A card is led in phase FOLLOW only; testing the card tells the checker it is one.
        if led is not None:
            return "play", playable_cards(hand, led[1])
        phase = self.phase
        if phase is LEAD:
            if self.spades_broken:
                return "play", hand
            return "play", list(filterfalse(IN_SUIT[TRUMP], hand)) or hand
        if phase is BID:
            return "bid", BIDS
        return "keep", KEEP_OR_NOT

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        dealt = 2 * TRICKS_PER_HAND if self.options["deal"] == "automatic" else self.draw_position
        return {
            "hand 0": self.hands[0],
            "hand 1": self.hands[1],
            "trick": () if self.led is None else (self.led,),
            "played": tuple(card for _, led, second, _ in self.tricks for card in (led, second)),
            "seen discards 0": self.seen_discards[0],
            "seen discards 1": self.seen_discards[1],
            "unseen discards": self.unseen_discards,
            "not dealt": self.orders[-1][dealt:],
        }

    def hidden_cards(self, seat: int) -> frozenset[str]:
        hidden = {*self.hands[other(seat)], *self.seen_discards[other(seat)], *self.unseen_discards}
        hidden.update(self.card_zones()["not dealt"])
        hidden.discard(self.draw_card if self.to_play == seat else None)
        return frozenset(hidden)

    @property
    def draw_card(self) -> str | None:
        """The card the player to move is looking at in a selection draw (hers alone to see)."""
        return self.orders[-1][self.draw_position] if self.phase is DRAW else None


class Spades(Game[SpadesState]):
    id = "spades"
    name = "Two-handed Spades"
    rules_version = "2"
    deck = FULL_DECK
    options = (
        choice_option(
            "deal",
            "automatic",
            "automatic: 13 cards each from the top 26; selection: keep-or-discard draws.",
            ("automatic", "selection"),
        ),
        int_option(
            "limit",
            300,
            "After a hand, a score above this ends the match; the higher score wins.",
            minimum=1,
            maximum=10_000,
        ),
        int_option(
            "max_hands",
            100,
            "After this many hands with no winner, the higher score wins (equal: seat 1).",
            minimum=1,
            maximum=10_000,
        ),
    )
    state_class = SpadesState

    def _start(self, state: SpadesState) -> None:
        state.last_deal = None
        self._deal(state)

    def _deal(self, state: SpadesState) -> None:
        order = state._draw(self.deck)
        state.deal_number += 1
        state.dealer = other(state.dealer) if state.deal_number > 1 else 1
        starter = state.starting_bidder = other(state.dealer)
        state.seen_discards = ((), ())
        state.unseen_discards = ()
        state.bids = (None, None)
        state.tricks = ()
        state.tricks_won = (0, 0)
        state.spades_broken = False
        state.history = ()
        state.leader, state.led = starter, None
        state.draw_position = 0
        if state.options["deal"] == "automatic":
            dealt = 2 * TRICKS_PER_HAND
            first, second = order[0:dealt:2], order[1:dealt:2]
            state.hands = (first, second) if starter == 0 else (second, first)
            state.phase = BID
        else:
            state.hands = ((), ())
            state.phase = DRAW
        state.to_play = starter

    def _apply(self, state: SpadesState, seat: int, action: Action) -> None:
        phase = state.phase
        led = state.led
        # As in ``_legal_moves``: a card is led in phase FOLLOW only.
        if led is not None:
            self._follow(state, seat, led, action["play"])
        elif phase is LEAD:
            card = action["play"]
            state.hands = without_card(state.hands, seat, card)
            state.led, state.phase, state.to_play = card, FOLLOW, 1 - seat
        elif phase is BID:
            self._bid(state, seat, action["bid"])
        else:
            self._select(state, seat, action["keep"])

    def _select(self, state: SpadesState, seat: int, keep: bool) -> None:
        position = state.draw_position
        looked_at, next_card = state.orders[-1][position : position + 2]
        received = looked_at if keep else next_card
        state.hands = with_seat(state.hands, seat, (*state.hands[seat], received))
        # The cards in the entry are the drawer's alone; the view strips them for the other seat.
        entry = {"seat": seat, "action": {"keep": keep}, "received": received}
        if keep:
            state._amend_last_entry(entry)
            state._log(seat, "auto", {"discard": "unseen"})
            state.unseen_discards = (*state.unseen_discards, next_card)
        else:
            entry["discarded"] = looked_at
            state._amend_last_entry(entry)
            state.seen_discards = with_seat(
                state.seen_discards, seat, (*state.seen_discards[seat], looked_at)
            )
        state.draw_position = position + 2
        if state.draw_position < len(self.deck):
            state.to_play = other(seat)
        else:
            state.phase, state.to_play = BID, state.starting_bidder

    def _bid(self, state: SpadesState, seat: int, bid: int) -> None:
        state.bids = with_seat(state.bids, seat, bid)
        if seat == state.starting_bidder:
            state.to_play = other(seat)
        else:
            state.phase, state.to_play = LEAD, state.leader

    def _follow(self, state: SpadesState, seat: int, led: str, card: str) -> None:
        state.hands = without_card(state.hands, seat, card)
        leader = state.leader
        winner = seat if highest_of_suit_or_trump(led, card, TRUMP) else leader
        state.tricks += ((leader, led, card, winner),)
        state.tricks_won = add_points(state.tricks_won, winner, 1)
        if not state.spades_broken:
            state.spades_broken = card[1] == TRUMP or led[1] == TRUMP
        state.led = None
        if len(state.tricks) < TRICKS_PER_HAND:
            state.phase, state.leader, state.to_play = LEAD, winner, winner
        else:
            self._end_hand(state)

    def _end_hand(self, state: SpadesState) -> None:
        # Both seats bid before the first trick (once a hand, so the cast costs nothing).
        bids = cast(tuple[int, int], state.bids)
        tricks_won = state.tricks_won
        points = (hand_points(bids[0], tricks_won[0]), hand_points(bids[1], tricks_won[1]))
        state._scores = (state._scores[0] + points[0], state._scores[1] + points[1])
        state.last_deal = {
            "deal_number": state.deal_number,
            "bids": list(bids),
            "tricks_won": list(tricks_won),
            "made": [tricks_won[0] >= bids[0], tricks_won[1] >= bids[1]],
            "points": list(points),
        }
        self._check_match(state)

    def _check_match(self, state: SpadesState) -> None:
        first, second = state._scores
        if max(first, second) > state.options["limit"] and first != second:
            self._end(state, 0 if first > second else 1)
        elif state.deal_number >= state.options["max_hands"]:
            # The hand cap: equal scores go to seat 1 (in a duplicate set each bot has it once).
            self._end(state, 0 if first > second else 1)
        else:
            self._deal(state)

    def _end(self, state: SpadesState, winner: int) -> None:
        state.winner = winner
        state.phase, state.to_play = OVER, None

    def _view(self, state: SpadesState, seat: int, shared: bool) -> dict[str, Any]:
        return spades_view(state, seat, shared)
