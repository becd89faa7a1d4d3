"""Rounds: five stages of five trump tricks, restocked from a reshuffled stock each stage.

Rules: ``docs/rules/rounds.md`` (settled points: ``docs/rulings.md``).
A game is five stages; the dealer changes every stage (and keeps alternating across games),
and the stage's non-dealer leads its first trick. Stage 1 deals 9 cards each and a face-up
trump card from a full shuffle; stages 2-4 shuffle the stock with the previous trump card
and deal 5 more each and a new trump card; stage 5 shuffles the last four cards and deals
1 each and two face-up trump cards, the first for tricks 1-4 and the second for trick 5.
Players follow suit if able; the highest trump wins, else the highest card of the suit led.
Scores are added after the fifth stage (see ``scoring``); the match is checked after each game.

Decisions the rulings leave open: a player's new cards go after those she kept; every trick is
played face up, so the cards captured in every stage of the game, and the trump cards of
the finished stages, stay in the view until the game is scored.
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

from ..base import Action, Game, Moves, State, other, without_card
from ..cards import FULL_DECK
from ..decks import cards_in_order
from ..options import int_option
from ..tricks import highest_of_suit_or_trump, playable_cards
from .scoring import TRICKS_PER_STAGE, match_winner, stage_points
from .view import rounds_view, stage_part

STAGES_PER_GAME = 5

#: For each stage: how many cards each player is dealt, and how many trump cards turn up.
STAGE_DEAL: dict[int, tuple[int, int]] = {1: (9, 1), 2: (5, 1), 3: (5, 1), 4: (5, 1), 5: (1, 2)}


class Phase(enum.Enum):
    LEAD = "lead"  # the leader plays any card
    FOLLOW = "follow"  # the other player follows suit if able
    OVER = "over"


# Looking a member up on an Enum class runs ``EnumType.__getattr__`` in Python 3.11, several
# times the cost of a global; the hot path names the phases through these globals,
# each bound by name so that reordering the enum cannot swap two of them.
LEAD = Phase.LEAD
FOLLOW = Phase.FOLLOW
OVER = Phase.OVER


class StageResult(NamedTuple):
    """A finished stage: the current game's are shown until the game is scored, and the
    match's are its score parts (``Rounds.score_parts``)."""

    game_number: int
    #: The stage's number in the match (its ``deal_number``).
    deal_number: int
    stage: int
    dealer: int
    trump_cards: tuple[str, ...]
    tricks_won: tuple[int, int]
    captured: tuple[tuple[str, ...], tuple[str, ...]]
    points: tuple[int, int]


class GameResult(NamedTuple):
    game_number: int
    stages: tuple[StageResult, ...]
    points: tuple[int, int]


class RoundsState(State):
    phase: Phase
    game_number: int
    #: 1 to 5 within the current game.
    stage: int
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    #: The face-down stock; its order never matters, since it is reshuffled before use.
    stock: tuple[str, ...]
    #: The face-up trump cards of the stage: one, or two in stage 5.
    trump_cards: tuple[str, ...]
    #: The trump suit of the current trick.
    trump: str
    leader: int
    #: Cards of the current trick as ``(seat, card)`` in the order they were played.
    trick: tuple[tuple[int, str], ...]
    last_trick: tuple[tuple[int, str], ...]
    last_trick_winner: int | None
    #: Tricks finished in the current stage, 0 to 5.
    tricks_played: int
    tricks_won: tuple[int, int]
    #: The cards of the tricks each player has won in the current stage.
    captured: tuple[tuple[str, ...], tuple[str, ...]]
    #: The cards this stage's shuffle placed, in its order (the whole deck in stage 1).
    stage_deck: tuple[str, ...]
    stages_done: tuple[StageResult, ...]
    #: Every finished stage of the match, in order.
    match_stages: tuple[StageResult, ...]
    last_game: GameResult | None

    def _legal_moves(self, seat: int) -> Moves:
        hand = self.hands[seat]
        if self.trick:
            return "play", playable_cards(hand, self.trick[0][1][1])
        return "play", hand

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        captured = [result.captured for result in self.stages_done]
        if len(self.stages_done) < self.stage:
            captured.append(self.captured)
        return {
            "hand 0": self.hands[0],
            "hand 1": self.hands[1],
            "stock": self.stock,
            "trump cards": self.trump_cards,
            "trick": tuple(card for _, card in self.trick),
            "captured 0": tuple(card for pair in captured for card in pair[0]),
            "captured 1": tuple(card for pair in captured for card in pair[1]),
        }

    def hidden_cards(self, seat: int) -> frozenset[str]:
        """The stock and the opponent's cards from this stage's deal.

        The opponent's cards from earlier stages are hidden too, but a different world cannot
        be made by exchanging one of them with a card of this stage's shuffle in that shuffle
        alone (the partial shuffle would deal differently), which is how the conformance
        suite builds one; ``test_rounds`` checks the view against the whole hidden hand.
        """
        unseen_hand = set(self.stage_deck).intersection(self.hands[1 - seat])
        return frozenset(unseen_hand.union(self.stock))


def deal_stage(cards: tuple[str, ...], stage: int) -> tuple[tuple[str, ...], ...]:
    """``(non-dealer's cards, dealer's cards, trump cards, stock)`` from a stage's order."""
    each, trumps = STAGE_DEAL[stage]
    return (
        cards[:each],
        cards[each : 2 * each],
        cards[2 * each : 2 * each + trumps],
        cards[2 * each + trumps :],
    )


def trump_for_trick(trump_cards: tuple[str, ...], tricks_played: int) -> str:
    """The trump suit of the next trick: stage 5's fifth trick follows the second trump card."""
    if len(trump_cards) == 2 and tricks_played == TRICKS_PER_STAGE - 1:
        return trump_cards[1][1]
    return trump_cards[0][1]


class Rounds(Game[RoundsState]):
    id = "rounds"
    name = "Rounds"
    rules_version = "2"
    #: Version 2 renamed an observation field only: `tricks` (a count per seat) is `tricks_won`.
    same_outcome_versions = frozenset({"1"})
    deck = FULL_DECK
    options = (
        int_option(
            "target",
            200,
            "After a game in which a player reaches this many points, the higher score wins"
            " (equal scores play another game).",
            minimum=1,
            maximum=10_000,
        ),
    )
    state_class = RoundsState
    score_part = "stage"

    def _start(self, state: RoundsState) -> None:
        state.game_number = 0
        state.match_stages = ()
        state.last_game = None
        state.trick = state.last_trick = ()
        state.last_trick_winner = None
        self._start_game(state)

    def _start_game(self, state: RoundsState) -> None:
        state.game_number += 1
        state.stage = 0
        state.stages_done = ()
        state.hands = ((), ())
        self._start_stage(state)

    def _start_stage(self, state: RoundsState) -> None:
        state.stage += 1
        state.deal_number += 1
        state.dealer = other(state.dealer) if state.deal_number > 1 else 1
        non_dealer = other(state.dealer)
        order = state._draw(self.deck)
        if state.stage > 1:
            order = cards_in_order(order, frozenset(state.stock + state.trump_cards))
        state.stage_deck = order
        to_non_dealer, to_dealer, state.trump_cards, state.stock = deal_stage(order, state.stage)
        dealt = (to_non_dealer, to_dealer) if non_dealer == 0 else (to_dealer, to_non_dealer)
        state.hands = (state.hands[0] + dealt[0], state.hands[1] + dealt[1])
        state.tricks_played = 0
        state.tricks_won = (0, 0)
        state.captured = ((), ())
        state.history = ()
        self._start_trick(state, leader=non_dealer)

    def _start_trick(self, state: RoundsState, leader: int) -> None:
        state.phase = LEAD
        state.leader = state.to_play = leader
        # The trump suit changes only between stages and before stage 5's last trick.
        if state.tricks_played == 0 or state.stage == STAGES_PER_GAME:
            state.trump = trump_for_trick(state.trump_cards, state.tricks_played)

    def _apply(self, state: RoundsState, seat: int, action: Action) -> None:
        card = action["play"]
        state.hands = without_card(state.hands, seat, card)
        if state.phase is LEAD:
            state.trick = ((seat, card),)
            state.phase = FOLLOW
            state.to_play = 1 - seat
        else:
            self._end_trick(state, seat, card)

    def _end_trick(self, state: RoundsState, seat: int, card: str) -> None:
        lead = state.trick[0]
        led = lead[1]
        winner = seat if highest_of_suit_or_trump(led, card, state.trump) else lead[0]
        state.trick = ()
        state.last_trick = (lead, (seat, card))
        state.last_trick_winner = winner
        tricks, captured = state.tricks_won, state.captured
        if winner == 0:
            state.tricks_won = (tricks[0] + 1, tricks[1])
            state.captured = ((*captured[0], led, card), captured[1])
        else:
            state.tricks_won = (tricks[0], tricks[1] + 1)
            state.captured = (captured[0], (*captured[1], led, card))
        state.tricks_played += 1
        if state.tricks_played < TRICKS_PER_STAGE:
            self._start_trick(state, leader=winner)
        else:
            self._end_stage(state)

    def _end_stage(self, state: RoundsState) -> None:
        points = (
            stage_points(state.tricks_won[0], state.captured[0]),
            stage_points(state.tricks_won[1], state.captured[1]),
        )
        result = StageResult(
            state.game_number,
            state.deal_number,
            state.stage,
            state.dealer,
            state.trump_cards,
            state.tricks_won,
            state.captured,
            points,
        )
        state.stages_done = (*state.stages_done, result)
        state.match_stages = (*state.match_stages, result)
        if state.stage < STAGES_PER_GAME:
            self._start_stage(state)
        else:
            self._end_game(state)

    def _end_game(self, state: RoundsState) -> None:
        points = (
            sum(result.points[0] for result in state.stages_done),
            sum(result.points[1] for result in state.stages_done),
        )
        state._scores = (state._scores[0] + points[0], state._scores[1] + points[1])
        state.last_game = GameResult(state.game_number, state.stages_done, points)
        winner = match_winner(state._scores, state.options["target"])
        if winner is not None:
            state.winner = winner
            state.to_play = None
            state.phase = OVER
        else:
            self._start_game(state)

    def _view(self, state: RoundsState, seat: int, shared: bool) -> dict[str, Any]:
        return rounds_view(state, seat, shared)

    def score_parts(self, state: RoundsState) -> list[dict[str, Any]]:
        """Each finished stage of the match: its game, its stage, who dealt, the tricks each
        seat won and the points each scores for it (added to the scores with its game's)."""
        return [stage_part(result) for result in state.match_stages]
