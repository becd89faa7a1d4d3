"""Snag: the bar, three-card tricks and the suit-length score.

Rules: ``docs/rules/snag.md`` (settled points: ``docs/rulings.md``).
Each deal takes 15 cards from one shuffle: positions 0-4 the non-dealer's hand, 5-9 the
dealer's, 10-14 the bar from the non-dealer's end to the dealer's. A trick is a bar card
(the leader's, from her end), the follower's card, then the leader's card; hand cards follow
the bar card's suit when they can. The highest rank wins, the last played among equals.
The winner takes a card, the loser takes one, the winner gets the last automatically.
"""

from __future__ import annotations

import enum
from typing import Any

from ..base import (
    Action,
    Game,
    Moves,
    State,
    add_points,
    other,
    remove_card,
    with_seat,
    without_card,
)
from ..cards import FULL_DECK, RANK_VALUE
from ..options import int_option
from ..tricks import playable_cards
from .scoring import deal_score
from .view import snag_view

TRICKS_PER_DEAL = 5
CARDS_PER_DEAL = 15


class Phase(enum.Enum):
    BAR = "bar"  # the leader moves a bar card to the trick
    FOLLOW = "follow"  # the other player plays from hand
    LEAD = "lead"  # the leader plays from hand
    TAKE_FIRST = "take_first"  # the trick's winner takes a card
    TAKE_SECOND = "take_second"  # the loser takes one of the two left
    OVER = "over"


# Looking a member up on an Enum class runs ``EnumType.__getattr__`` in Python 3.11, several
# times the cost of a global; the hot path names the phases through these globals,
# each bound by name so that reordering the enum cannot swap two of them.
BAR = Phase.BAR
FOLLOW = Phase.FOLLOW
LEAD = Phase.LEAD
TAKE_FIRST = Phase.TAKE_FIRST
TAKE_SECOND = Phase.TAKE_SECOND
OVER = Phase.OVER


class SnagState(State):
    phase: Phase
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    #: Bar cards from the non-dealer's end (index 0) to the dealer's end.
    bar: tuple[str, ...]
    leader: int
    #: Cards of the current trick in the order played: the leader's bar card, the
    #: follower's card, the leader's card.
    trick: tuple[str, ...]
    trick_winner: int | None
    #: Trick cards not yet taken.
    pool: tuple[str, ...]
    taken: tuple[tuple[str, ...], tuple[str, ...]]
    tricks_played: int
    last_deal: dict[str, Any] | None

    def _legal_moves(self, seat: int) -> Moves:
        phase = self.phase
        if phase is BAR:
            return "bar", reachable_bar_cards(self.bar, self.leader, self.dealer)
        if phase is FOLLOW or phase is LEAD:
            return "play", playable_cards(self.hands[seat], self.trick[0][1])
        return "take", self.pool

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        in_trick = self.pool if self.trick_winner is not None else self.trick
        return {
            "hand 0": self.hands[0],
            "hand 1": self.hands[1],
            "bar": self.bar,
            "trick": in_trick,
            "taken 0": self.taken[0],
            "taken 1": self.taken[1],
            "undealt": self.orders[-1][CARDS_PER_DEAL:],
        }

    def hidden_cards(self, seat: int) -> frozenset[str]:
        return frozenset(self.hands[other(seat)] + self.orders[-1][CARDS_PER_DEAL:])


def reachable_bar_cards(bar: tuple[str, ...], leader: int, dealer: int) -> tuple[str, ...]:
    """The (at most) two bar cards nearest the leader's end."""
    return bar[:2] if leader != dealer else bar[-2:][::-1]


def trick_winner(trick: tuple[str, ...], leader: int) -> int:
    """The seat that played the highest rank, the last played among equals, in a trick of
    three cards: the leader's bar card, the follower's card, the leader's card.

    The follower's card, played second, wins only if it ties or beats the bar card before
    it and beats the leader's card after it.
    """
    bar, follow, lead = RANK_VALUE[trick[0][0]], RANK_VALUE[trick[1][0]], RANK_VALUE[trick[2][0]]
    return 1 - leader if follow >= bar and follow > lead else leader


class Snag(Game[SnagState]):
    id = "snag"
    name = "Snag"
    rules_version = "1"
    deck = FULL_DECK
    options = (
        int_option(
            "target",
            50,
            "The match ends after the deal in which a player reaches this many points.",
            minimum=1,
            maximum=10_000,
        ),
    )
    state_class = SnagState

    def _start(self, state: SnagState) -> None:
        state.last_deal = None
        self._deal(state)

    def _deal(self, state: SnagState) -> None:
        order = state._draw(self.deck)
        state.deal_number += 1
        state.dealer = other(state.dealer) if state.deal_number > 1 else 1
        non_dealer = other(state.dealer)
        state.hands = (order[0:5], order[5:10]) if non_dealer == 0 else (order[5:10], order[0:5])
        state.bar = order[10:15]
        state.taken = ((), ())
        state.tricks_played = 0
        state.history = ()
        self._start_trick(state, leader=non_dealer)

    def _start_trick(self, state: SnagState, leader: int) -> None:
        state.phase = BAR
        state.leader = state.to_play = leader
        state.trick = state.pool = ()
        state.trick_winner = None

    def _apply(self, state: SnagState, seat: int, action: Action) -> None:
        phase = state.phase
        if phase is BAR:
            card = action["bar"]
            state.bar = remove_card(state.bar, card)
            state.trick = (card,)
            state.phase, state.to_play = FOLLOW, 1 - seat
        elif phase is FOLLOW or phase is LEAD:
            card = action["play"]
            state.hands = without_card(state.hands, seat, card)
            state.trick += (card,)
            if phase is FOLLOW:
                state.phase, state.to_play = LEAD, 1 - seat
            else:
                winner = state.trick_winner = trick_winner(state.trick, seat)
                state.pool = state.trick
                state.phase, state.to_play = TAKE_FIRST, winner
        else:
            card = action["take"]
            state.taken = with_seat(state.taken, seat, (*state.taken[seat], card))
            state.pool = remove_card(state.pool, card)
            if phase is TAKE_FIRST:
                state.phase, state.to_play = TAKE_SECOND, 1 - seat
            else:
                # The loser took the second card.
                self._end_trick(state, winner=1 - seat)

    def _end_trick(self, state: SnagState, winner: int) -> None:
        """The winner gets the last card of the trick automatically."""
        (last,) = state.pool
        state._log(winner, "auto", {"take": last})
        state.taken = with_seat(state.taken, winner, (*state.taken[winner], last))
        state.pool = ()
        state.tricks_played += 1
        if state.tricks_played < TRICKS_PER_DEAL:
            self._start_trick(state, leader=winner)
        else:
            self._end_deal(state)

    def _end_deal(self, state: SnagState) -> None:
        scorer, points = deal_score(state.taken[0], state.taken[1])
        if scorer is not None:
            state._scores = add_points(state._scores, scorer, points)
        state.last_deal = {
            "deal_number": state.deal_number,
            "taken": [list(state.taken[0]), list(state.taken[1])],
            "scorer": scorer,
            "points": points,
        }
        if scorer is not None and state._scores[scorer] >= state.options["target"]:
            state.winner = scorer
            state.to_play = None
            state.phase = OVER
        else:
            self._deal(state)

    def _view(self, state: SnagState, seat: int, shared: bool) -> dict[str, Any]:
        return snag_view(state, seat, shared)
