"""Exposure: a contract turned up from the deck, bonus groups exposed, nine tricks.

Rules: ``docs/rules/exposure.md`` (settled points: ``docs/rulings.md``).
The deck is the 24 cards 9 to A. From one shuffle: positions 0-8 the non-dealer's hand, 9-17
the dealer's, 18-20 the contract cards (left, middle, right), 21-23 discarded unseen. The left
card's suit is trump, the middle card's rank is the high rank, the right card's rank sets the
contract (A=9 ... 9=4 tricks). Before the first trick the non-dealer, then the dealer, claim
bonus groups one at a time (points credited at once) and end with an empty claim; exposed
cards stay face up and playable. Nine tricks follow, the non-dealer leading the first; hand and
exposed cards together must follow suit. An ace is lowest when led and highest when played
second, unless the high rank is A. A deal scores 2 a trick and 5 for exactly the contract; the
match is checked after each deal (a score at the target or more, and the scores differ).
"""

from __future__ import annotations

import enum
from collections.abc import Collection
from itertools import filterfalse
from typing import Any

from ..base import Action, Game, Moves, State, add_points, other, with_seat, without_card
from ..cards import make_deck
from ..options import int_option
from ..tricks import playable_cards
from .ranking import second_card_wins
from .scoring import (
    CONTRACT_TRICKS,
    GROUP_ORDER,
    Group,
    candidate_groups,
    deal_points,
    group_points,
)
from .view import exposure_view

TRICKS_PER_DEAL = 9
HAND_SIZE = 9
#: Two hands and three contract cards; the rest of the order is discarded unseen.
DEALT_CARDS = 21


class Phase(enum.Enum):
    EXPOSE = "expose"  # the player to move claims a bonus group or ends her claims
    LEAD = "lead"
    FOLLOW = "follow"
    OVER = "over"


# Looking a member up on an Enum class runs ``EnumType.__getattr__`` in Python 3.11, several
# times the cost of a global; the hot path names the phases through these globals,
# each bound by name so that reordering the enum cannot swap two of them.
EXPOSE = Phase.EXPOSE
LEAD = Phase.LEAD
FOLLOW = Phase.FOLLOW
OVER = Phase.OVER
#: The claim that ends a player's claims.
NO_MORE_GROUPS: Group = ()


class ExposureState(State):
    phase: Phase
    #: Each seat's unexposed cards; hidden from the other seat.
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    #: Each seat's exposed cards not yet played; public.
    exposed: tuple[tuple[str, ...], tuple[str, ...]]
    #: The contract cards, left (trump suit), middle (high rank), right (contract).
    contract: tuple[str, str, str]
    trump: str
    high_rank: str
    contract_tricks: int
    #: Each seat's claimed groups this deal, in claim order, cards in canonical order.
    groups: tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]
    #: Exposure points each seat has claimed this deal (already in the scores).
    bonus_points: tuple[int, int]
    leader: int
    #: The card led to the trick in progress, or ``None`` between tricks.
    led: str | None
    #: Finished tricks of this deal as ``(leader, card led, card played second, winner)``.
    tricks: tuple[tuple[int, str, str, int], ...]
    tricks_won: tuple[int, int]
    last_deal: dict[str, Any] | None
    #: In the expose phase, the claims open to the player to move in the order offered, the
    #: empty claim last; empty in the other phases. Kept claim by claim (``_expose``) rather
    #: than found again in the hand at every claim.
    claims: tuple[Group, ...]

    def legal_actions(self) -> list[Action]:
        if self.phase is not EXPOSE:
            return super().legal_actions()
        # A group is a list of cards in the action (docs/rulings.md); the state keeps a tuple.
        return [{"expose": [*group]} for group in self.claims]

    def _legal_moves(self, seat: int) -> Moves:
        if self.phase is EXPOSE:
            return "expose", self.claims
        cards = self.hands[seat] + self.exposed[seat]
        led = self.led
        if led is None:
            return "play", cards
        return "play", playable_cards(cards, led[1])

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        return {
            "hand 0": self.hands[0],
            "hand 1": self.hands[1],
            "exposed 0": self.exposed[0],
            "exposed 1": self.exposed[1],
            "contract": self.contract,
            "trick": () if self.led is None else (self.led,),
            "played": tuple(card for _, led, second, _ in self.tricks for card in (led, second)),
            "discarded unseen": self.orders[-1][DEALT_CARDS:],
        }

    def hidden_cards(self, seat: int) -> frozenset[str]:
        return frozenset(self.hands[other(seat)] + self.orders[-1][DEALT_CARDS:])


def open_claims(hand: tuple[str, ...], contract: tuple[str, ...]) -> tuple[Group, ...]:
    """Every claim the holder of ``hand`` may make, the empty claim (no more groups) last."""
    return (*candidate_groups(hand, contract), NO_MORE_GROUPS)


class Exposure(Game[ExposureState]):
    id = "exposure"
    name = "Exposure"
    rules_version = "2"
    #: Version 2 renamed an observation field only: contract["tricks"] is `contract_tricks`.
    same_outcome_versions = frozenset({"1"})
    deck = make_deck("9TJQKA")
    options = (
        int_option(
            "target",
            50,
            "After a deal, a player with this many points or more wins if the scores differ.",
            minimum=1,
            maximum=10_000,
        ),
    )
    state_class = ExposureState
    #: A group's cards may come in any order.
    normalised_kinds = frozenset({"expose"})

    def _start(self, state: ExposureState) -> None:
        state.last_deal = None
        self._deal(state)

    def _deal(self, state: ExposureState) -> None:
        order = state._draw(self.deck)
        state.deal_number += 1
        state.dealer = other(state.dealer) if state.deal_number > 1 else 1
        non_dealer = other(state.dealer)
        first, second = order[0:HAND_SIZE], order[HAND_SIZE : 2 * HAND_SIZE]
        state.hands = (first, second) if non_dealer == 0 else (second, first)
        state.exposed = ((), ())
        left, middle, right = order[2 * HAND_SIZE : DEALT_CARDS]
        state.contract = (left, middle, right)
        state.trump, state.high_rank = left[1], middle[0]
        state.contract_tricks = CONTRACT_TRICKS[right[0]]
        state.groups = ((), ())
        state.bonus_points = (0, 0)
        state.tricks = ()
        state.tricks_won = (0, 0)
        state.history = ()
        state.leader, state.led = non_dealer, None
        state.phase, state.to_play = EXPOSE, non_dealer
        state.claims = open_claims(state.hands[non_dealer], state.contract)

    def _normalise(self, action: Any) -> Any:
        """A claim's cards in the canonical order of a group, as a tuple."""
        cards = action.get("expose") if type(action) is dict else None
        if not isinstance(cards, (list, tuple)):
            return action
        try:
            return {**action, "expose": tuple(sorted(cards, key=GROUP_ORDER.__getitem__))}
        except (KeyError, TypeError):  # not all cards: left as given, to be refused as illegal
            return action

    def _legal_action(
        self, state: ExposureState, action: Action, kind: str, values: Collection[Any]
    ) -> Action:
        # A claim comes as a list, most often in the canonical order legal_actions gives it:
        # found as it is among the open claims, it needs no sorting.
        cards = action.get(kind)
        if kind == "expose" and cards.__class__ is list:
            group = tuple(cards)
            if group in values:
                return {kind: group}
        return super()._legal_action(state, action, kind, values)

    def _apply(self, state: ExposureState, seat: int, action: Action) -> None:
        if state.phase is EXPOSE:
            group = action["expose"]
            # The history shows a group as a list, in the action shape.
            state._amend_last_entry({"seat": seat, "action": {"expose": [*group]}})
            self._expose(state, seat, group)
        else:
            self._play(state, seat, action["play"])

    def _expose(self, state: ExposureState, seat: int, group: Group) -> None:
        if not group:
            dealer = state.dealer
            if seat != dealer:
                state.to_play = dealer
                state.claims = open_claims(state.hands[dealer], state.contract)
            else:
                state.phase, state.to_play = LEAD, state.leader
                state.claims = ()
            return
        hand = state.hands[seat]
        from_hand = tuple(filter(hand.__contains__, group))
        state.hands = with_seat(state.hands, seat, tuple(filterfalse(group.__contains__, hand)))
        state.exposed = with_seat(state.exposed, seat, state.exposed[seat] + from_hand)
        # A hand card goes in one group only, contract cards in any number: the claims left
        # are those using none of the hand cards just exposed, which are the groups (in the
        # same order) that candidate_groups finds in the hand now left.
        state.claims = tuple(filter(frozenset(from_hand).isdisjoint, state.claims))
        state.groups = with_seat(state.groups, seat, (*state.groups[seat], group))
        points = group_points(group)
        state.bonus_points = add_points(state.bonus_points, seat, points)
        state._scores = add_points(state._scores, seat, points)

    def _play(self, state: ExposureState, seat: int, card: str) -> None:
        if card in state.hands[seat]:
            state.hands = without_card(state.hands, seat, card)
        else:
            state.exposed = without_card(state.exposed, seat, card)
        led = state.led
        if led is None:
            state.led, state.phase, state.to_play = card, FOLLOW, 1 - seat
            return
        leader = state.leader
        winner = seat if second_card_wins(led, card, state.trump, state.high_rank) else leader
        state.tricks += ((leader, led, card, winner),)
        state.tricks_won = add_points(state.tricks_won, winner, 1)
        state.led = None
        if len(state.tricks) < TRICKS_PER_DEAL:
            state.phase, state.leader, state.to_play = LEAD, winner, winner
        else:
            self._end_deal(state)

    def _end_deal(self, state: ExposureState) -> None:
        trick_points, bonuses = zip(
            *(deal_points(won, state.contract_tricks) for won in state.tricks_won), strict=True
        )
        for seat in (0, 1):
            state._scores = add_points(state._scores, seat, trick_points[seat] + bonuses[seat])
        state.last_deal = {
            "deal_number": state.deal_number,
            "contract": list(state.contract),
            "contract_tricks": state.contract_tricks,
            "tricks_won": list(state.tricks_won),
            "exposure_points": list(state.bonus_points),
            "trick_points": list(trick_points),
            "contract_bonus": list(bonuses),
        }
        self._check_match(state)

    def _check_match(self, state: ExposureState) -> None:
        first, second = state._scores
        if max(first, second) >= state.options["target"] and first != second:
            state.winner = 0 if first > second else 1
            state.phase, state.to_play = OVER, None
        else:
            self._deal(state)

    def _view(self, state: ExposureState, seat: int, shared: bool) -> dict[str, Any]:
        return exposure_view(state, seat, shared)
