"""Jam: red against black, strictly higher ranks take tricks, and slams for tricks in a row.

Rules: ``docs/rules/jam.md`` (settled points: ``docs/rulings.md``).
One shuffle a deal: the non-dealer gets the 26 red cards, the dealer the 26 black ones, each
in the order they appear in it, the first 5 as the hand and the other 21 as the face-down
stock, top first. The leader plays any card; the other wins only with a strictly higher rank.
After each trick the winner, then the loser, draws two cards one at a time from the top of
her own stock or her own face-up discard pile and discards one face up; a player with a
single card left in the two piles draws it automatically and does not discard. The last five
of the 26 tricks are played from the hand. Game points (see ``scoring``) decide rubbers;
option ``rubbers`` plays one rubber or the best of three.

Decisions the rulings leave open, taken as a careful card player would:
- a player may not draw from an empty pile, so only the piles holding cards are offered;
- a card drawn back from the face-up discard pile stays known to the opponent until it is
  played or discarded again, and the observation shows it;
- both discard piles are public in full, bottom first.
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

from ..base import Action, Game, Moves, State, other, with_seat, without_card
from ..cards import FULL_DECK, RANK_VALUE, is_red
from ..options import choice_option
from .scoring import (
    BABY_SLAM_POINTS,
    GRAND_SLAM_POINTS,
    Slam,
    majority_points,
    next_streak,
    rubber_winner,
    slam_points,
)
from .view import jam_view

HAND_SIZE = 5
#: Cards of each seat, ``(seat 0's, seat 1's)``.
SeatCards = tuple[tuple[str, ...], tuple[str, ...]]
TRICKS_PER_DEAL = 26
DRAWS_PER_REPLENISH = 2


class Phase(enum.Enum):
    LEAD = "lead"  # the leader plays any card
    FOLLOW = "follow"  # the other plays any card; only a higher rank wins
    DRAW = "draw"  # the player replenishing draws from her stock or her discard pile
    DISCARD = "discard"  # she discards one card face up
    OVER = "over"


# Looking a member up on an Enum class runs ``EnumType.__getattr__`` in Python 3.11, several
# times the cost of a global; the hot path names the phases through these globals,
# each bound by name so that reordering the enum cannot swap two of them.
LEAD = Phase.LEAD
FOLLOW = Phase.FOLLOW
DRAW = Phase.DRAW
DISCARD = Phase.DISCARD
OVER = Phase.OVER


class DealResult(NamedTuple):
    deal_number: int
    rubber_number: int
    tricks_won: tuple[int, int]
    slam_points: tuple[int, int]
    majority_points: tuple[int, int]
    #: The rubber's game points after the deal.
    scores: tuple[int, int]
    rubber_winner: int | None


class JamState(State):
    phase: Phase
    rubber_number: int
    rubbers_won: tuple[int, int]
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    #: Each player's face-down stock, top first.
    stocks: tuple[tuple[str, ...], tuple[str, ...]]
    #: Each player's face-up discard pile, bottom first (the top card is the last).
    discards: tuple[tuple[str, ...], tuple[str, ...]]
    #: Cards in each hand that were drawn back from the face-up discard pile: both know them.
    revealed: tuple[tuple[str, ...], tuple[str, ...]]
    leader: int
    #: Cards of the current trick as ``(seat, card)`` in the order they were played.
    trick: tuple[tuple[int, str], ...]
    last_trick: tuple[tuple[int, str], ...]
    last_trick_winner: int | None
    tricks_played: int
    tricks_won: tuple[int, int]
    #: The cards of the tricks each player has won this deal.
    won: tuple[tuple[str, ...], tuple[str, ...]]
    #: Each player's slam counter: tricks in a row since it last restarted.
    streaks: tuple[int, int]
    #: Baby slams banked this deal and not grown into a grand slam.
    baby_slams: tuple[int, int]
    grand_slams: tuple[bool, bool]
    #: Draws still due from the player replenishing before she discards.
    draws_left: int
    last_deal: DealResult | None

    def _legal_moves(self, seat: int) -> Moves:
        phase = self.phase
        if phase is DRAW:
            # Only a pile that holds cards is offered; a replenishing that asks for draws starts
            # with two cards or more between the piles, so one of them always does.
            if not self.stocks[seat]:
                return "draw", ("discard",)
            return "draw", ("stock", "discard") if self.discards[seat] else ("stock",)
        kind = "discard" if phase is DISCARD else "play"
        return kind, self.hands[seat]

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        return {
            "hand 0": self.hands[0],
            "hand 1": self.hands[1],
            "stock 0": self.stocks[0],
            "stock 1": self.stocks[1],
            "discard 0": self.discards[0],
            "discard 1": self.discards[1],
            "trick": tuple(card for _, card in self.trick),
            "won 0": self.won[0],
            "won 1": self.won[1],
        }

    def hidden_cards(self, seat: int) -> frozenset[str]:
        """The opponent's hand, save the cards she drew back face up, and her stock.

        The seat's own stock is face down too, but she knows which cards it holds (all of
        her colour not seen elsewhere), only not their order; ``test_jam`` checks that the
        view never names a card of either stock.
        """
        opponent = other(seat)
        unseen = set(self.hands[opponent]).difference(self.revealed[opponent])
        return frozenset(unseen.union(self.stocks[opponent]))


def deal_from_order(order: tuple[str, ...], non_dealer: int) -> tuple[SeatCards, SeatCards]:
    """``(hands, stocks)`` by seat: red cards to the non-dealer, black to the dealer, in order."""
    red = tuple(card for card in order if is_red(card))
    black = tuple(card for card in order if not is_red(card))
    cards = (red, black) if non_dealer == 0 else (black, red)
    hands = (cards[0][:HAND_SIZE], cards[1][:HAND_SIZE])
    stocks = (cards[0][HAND_SIZE:], cards[1][HAND_SIZE:])
    return hands, stocks


class Jam(Game[JamState]):
    id = "jam"
    name = "Jam"
    rules_version = "2"
    #: Version 2 renamed an observation field only: `tricks` (a count per seat) is `tricks_won`.
    same_outcome_versions = frozenset({"1"})
    deck = FULL_DECK
    options = (
        choice_option(
            "rubbers",
            1,
            "1 plays a single rubber; 3 plays the best of three rubbers.",
            (1, 3),
        ),
    )
    state_class = JamState

    def _start(self, state: JamState) -> None:
        state.rubber_number = 1
        state.rubbers_won = (0, 0)
        state.last_deal = None
        self._deal(state)

    def _deal(self, state: JamState) -> None:
        order = state._draw(self.deck)
        state.deal_number += 1
        state.dealer = other(state.dealer) if state.deal_number > 1 else 1
        non_dealer = other(state.dealer)
        state.hands, state.stocks = deal_from_order(order, non_dealer)
        state.discards = state.revealed = state.won = ((), ())
        state.trick = state.last_trick = ()
        state.last_trick_winner = None
        state.tricks_played = 0
        state.tricks_won = state.streaks = state.baby_slams = (0, 0)
        state.grand_slams = (False, False)
        state.draws_left = 0
        state.history = ()
        self._start_trick(state, leader=non_dealer)

    def _start_trick(self, state: JamState, leader: int) -> None:
        state.phase = LEAD
        state.leader = leader
        state.to_play = leader

    def _apply(self, state: JamState, seat: int, action: Action) -> None:
        phase = state.phase
        if phase is DRAW:
            self._draw_card(state, seat, action["draw"])
            state.draws_left -= 1
            if not state.draws_left:
                state.phase = DISCARD
        elif phase is DISCARD:
            card = action["discard"]
            self._take_from_hand(state, seat, card)
            state.discards = with_seat(state.discards, seat, (*state.discards[seat], card))
            self._after_replenishing(state, seat)
        else:
            card = action["play"]
            self._take_from_hand(state, seat, card)
            if phase is LEAD:
                state.trick = ((seat, card),)
                state.phase = FOLLOW
                state.to_play = 1 - seat
            else:
                self._end_trick(state, seat, card)

    def _take_from_hand(self, state: JamState, seat: int, card: str) -> None:
        state.hands = without_card(state.hands, seat, card)
        if card in state.revealed[seat]:
            state.revealed = without_card(state.revealed, seat, card)

    def _end_trick(self, state: JamState, seat: int, card: str) -> None:
        lead = state.trick[0]
        led = lead[1]
        # Only a strictly higher rank takes the trick; a tie stays with the leader.
        winner = seat if RANK_VALUE[card[0]] > RANK_VALUE[led[0]] else lead[0]
        state.last_trick = (lead, (seat, card))
        state.last_trick_winner = winner
        state.trick = ()
        state.tricks_played += 1
        state.tricks_won = with_seat(state.tricks_won, winner, state.tricks_won[winner] + 1)
        state.won = with_seat(state.won, winner, (*state.won[winner], led, card))
        self._count_streak(state, winner)
        if state.tricks_played < TRICKS_PER_DEAL:
            self._replenish(state, winner)
        else:
            self._end_deal(state)

    def _count_streak(self, state: JamState, winner: int) -> None:
        streak, slam = next_streak(state.streaks[winner], state.grand_slams[winner])
        state.streaks = (streak, 0) if winner == 0 else (0, streak)
        if slam is None:
            return
        babies = state.baby_slams[winner]
        if slam is Slam.BABY:
            points, babies = BABY_SLAM_POINTS, babies + 1
        else:
            # The baby slam banked a trick ago grows into the grand slam.
            points, babies = GRAND_SLAM_POINTS - BABY_SLAM_POINTS, babies - 1
            state.grand_slams = with_seat(state.grand_slams, winner, True)
        state.baby_slams = with_seat(state.baby_slams, winner, babies)
        state._scores = with_seat(state._scores, winner, state._scores[winner] + points)

    def _replenish(self, state: JamState, seat: int) -> None:
        """Start ``seat``'s replenishing, or do it at once when it asks no decision."""
        left = len(state.stocks[seat]) + len(state.discards[seat])
        if left > 1:
            state.phase = DRAW
            state.to_play = seat
            state.draws_left = DRAWS_PER_REPLENISH
            return
        if left == 1:
            pile = "stock" if state.stocks[seat] else "discard"
            state._log(seat, "auto", {"draw": pile})
            self._draw_card(state, seat, pile)
        self._after_replenishing(state, seat)

    def _after_replenishing(self, state: JamState, seat: int) -> None:
        """The winner of the last trick replenished first, the loser second."""
        if seat == state.last_trick_winner:
            self._replenish(state, other(seat))
        else:
            self._start_trick(state, leader=other(seat))

    def _draw_card(self, state: JamState, seat: int, pile: str) -> None:
        if pile == "stock":
            stock = state.stocks[seat]
            card = stock[0]
            state.stocks = with_seat(state.stocks, seat, stock[1:])
        else:
            discards = state.discards[seat]
            card = discards[-1]
            state.discards = with_seat(state.discards, seat, discards[:-1])
            state.revealed = with_seat(state.revealed, seat, (*state.revealed[seat], card))
        state.hands = with_seat(state.hands, seat, (*state.hands[seat], card))

    def _end_deal(self, state: JamState) -> None:
        majority = (
            majority_points(state.tricks_won[0], state.grand_slams[0]),
            majority_points(state.tricks_won[1], state.grand_slams[1]),
        )
        state._scores = (state._scores[0] + majority[0], state._scores[1] + majority[1])
        winner = rubber_winner(state._scores)
        state.last_deal = DealResult(
            state.deal_number,
            state.rubber_number,
            state.tricks_won,
            (
                slam_points(state.baby_slams[0], state.grand_slams[0]),
                slam_points(state.baby_slams[1], state.grand_slams[1]),
            ),
            majority,
            state._scores,
            winner,
        )
        if winner is None:
            self._deal(state)
        else:
            self._end_rubber(state, winner)

    def _end_rubber(self, state: JamState, winner: int) -> None:
        state.rubbers_won = with_seat(state.rubbers_won, winner, state.rubbers_won[winner] + 1)
        if state.rubbers_won[winner] * 2 > state.options["rubbers"]:
            state.winner = winner
            state.to_play = None
            state.phase = OVER
            return
        state.rubber_number += 1
        state._scores = (0, 0)
        self._deal(state)

    def _view(self, state: JamState, seat: int, shared: bool) -> dict[str, Any]:
        return jam_view(state, seat, shared)
