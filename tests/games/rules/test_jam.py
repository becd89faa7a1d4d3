"""Jam scenarios written from ``docs/rules/jam.md``, played through the facade."""

from __future__ import annotations

import json
import random

import pytest

from games.rules import IllegalAction, get_game
from games.rules.cards import natural_value
from games.rules.jam.rules import Phase
from games.rules.jam.scoring import Slam, majority_points, next_streak, rubber_winner
from tests.games.rules.stacking import stacked_order

jam = get_game("jam")

# In the reference order the non-dealer's reds are 2H..AH then 2D..AD, the dealer's blacks
# 2S..AS then 2C..AC: the same ranks in the same order, which makes planned deals easy.
REFERENCE = stacked_order()


def new_match(*decks, **options):
    return jam.new_match(1, {"decks": [list(deck) for deck in decks], **options})


def play(state, *actions):
    for action in actions:
        state = jam.apply(state, action)
    return state


def planned_action(state, plan, discard_at):
    """The action that makes trick ``t`` go to seat ``plan[t]``: the player meant to win it
    plays her highest card, the other her lowest; draws take the stock while it lasts and
    the discard is the card at ``discard_at`` in rank order."""
    seat = state.to_play
    hand = sorted(state.hands[seat], key=natural_value)
    if state.phase is Phase.DRAW:
        return {"draw": "stock"} if state.stocks[seat] else {"draw": "discard"}
    if state.phase is Phase.DISCARD:
        return {"discard": hand[discard_at]}
    wins = plan[state.tricks_played] == str(seat)
    return {"play": hand[-1] if wins else hand[0]}


def play_plan(state, plan, *, discard_at=0, tricks=None):
    """Play the plan for ``tricks`` tricks (the whole deal by default); return the state
    and the trick winners seen, which the caller compares with the plan."""
    deal, tricks = state.deal_number, tricks or len(plan)
    winners = ""
    while state.deal_number == deal and state.to_play is not None:
        if state.tricks_played == tricks:
            break
        before, following = state.tricks_won, state.phase is Phase.FOLLOW
        state = jam.apply(state, planned_action(state, plan, discard_at))
        if following:
            after = state.tricks_won if state.deal_number == deal else state.last_deal.tricks_won
            winners += "0" if after[0] > before[0] else "1"
    return state, winners


def replenish(state, draws=("stock", "stock"), discard=None):
    for pile in draws:
        state = jam.apply(state, {"draw": pile})
    return jam.apply(state, {"discard": discard or state.hands[state.to_play][0]})


def test_the_non_dealer_gets_the_reds_and_the_dealer_the_blacks_in_deck_order():
    order = stacked_order("AS", "KH", "2C", "QD", "3S", "JH", "4C", "TD", "5S", "9H", "6C", "8D")
    state = new_match(order)
    assert state.dealer == 1 and state.to_play == 0
    assert jam.observation(state, 0)["hand"] == ["KH", "QD", "JH", "TD", "9H"]
    assert jam.observation(state, 1)["hand"] == ["AS", "2C", "3S", "4C", "5S"]
    reds = [card for card in order if card[1] in "HD"]
    assert state.stocks[0] == tuple(reds[5:]), "the other 21 reds are the stock, top first"
    assert jam.observation(state, 1)["stock_sizes"] == [21, 21]


def test_the_follower_wins_only_with_a_strictly_higher_rank():
    state = new_match(REFERENCE)
    assert play(state, {"play": "6H"}, {"play": "6S"}).last_trick_winner == 0, "a tie"
    assert play(state, {"play": "6H"}, {"play": "2S"}).last_trick_winner == 0
    assert play(state, {"play": "5H"}, {"play": "6S"}).last_trick_winner == 1


def test_the_leader_may_play_any_card_and_so_may_the_follower():
    state = new_match(REFERENCE)
    assert state.legal_actions() == [{"play": card} for card in ("2H", "3H", "4H", "5H", "6H")]
    state = play(state, {"play": "6H"})
    assert len(state.legal_actions()) == 5


def test_the_winner_replenishes_first_then_the_loser_then_the_winner_leads():
    state = play(new_match(REFERENCE), {"play": "5H"}, {"play": "6S"})
    assert (state.phase, state.to_play) == (Phase.DRAW, 1)
    state = play(state, {"draw": "stock"}, {"draw": "stock"})
    assert state.hands[1][-2:] == ("7S", "8S"), "the stock is drawn from its top"
    assert (state.phase, state.to_play) == (Phase.DISCARD, 1)
    assert len(state.legal_actions()) == 6
    state = play(state, {"discard": "7S"})
    assert (state.phase, state.to_play) == (Phase.DRAW, 0)
    state = replenish(state, discard="2H")
    assert (state.phase, state.to_play) == (Phase.LEAD, 1)
    assert len(state.hands[0]) == len(state.hands[1]) == 5
    assert jam.observation(state, 0)["discard_piles"] == [["2H"], ["7S"]]


def test_an_empty_pile_cannot_be_drawn_from():
    state = play(new_match(REFERENCE), {"play": "6H"}, {"play": "2S"})
    assert state.legal_actions() == [{"draw": "stock"}]
    with pytest.raises(IllegalAction):
        jam.apply(state, {"draw": "discard"})


def test_a_card_drawn_back_from_the_discard_pile_is_the_top_one_and_stays_known():
    state = play(new_match(REFERENCE), {"play": "6H"}, {"play": "2S"})
    state = replenish(replenish(state, discard="7H"), discard="8S")
    state = play(state, {"play": "2H"}, {"play": "7S"})
    assert state.legal_actions() == [{"draw": "stock"}, {"draw": "discard"}]
    state = play(state, {"draw": "discard"})
    assert state.hands[1][-1] == "8S"
    assert jam.observation(state, 0)["opponent_known_cards"] == ["8S"]
    assert jam.observation(state, 0)["discard_piles"][1] == []
    state = play(state, {"draw": "stock"}, {"discard": "3S"})
    state = replenish(state)
    state = play(state, {"play": "8S"})
    assert jam.observation(state, 0)["opponent_known_cards"] == [], "played, so no longer held"


def test_the_single_card_left_is_drawn_automatically_and_the_last_five_come_from_the_hand():
    state = new_match(REFERENCE)
    state, _ = play_plan(state, "01" * 13, discard_at=1, tricks=21)
    assert state.tricks_played == 21
    autos = [entry for entry in state.history if "auto" in entry]
    assert [entry["seat"] for entry in autos] == [
        state.last_trick_winner,
        1 - state.last_trick_winner,
    ]
    assert all(entry["auto"]["draw"] in ("stock", "discard") for entry in autos)
    assert state.phase is Phase.LEAD
    assert len(state.hands[0]) == len(state.hands[1]) == 5
    assert state.stocks == ((), ()) and state.discards == ((), ())
    state, _ = play_plan(state, "01" * 13, discard_at=1, tricks=25)
    assert state.phase is Phase.LEAD and len(state.hands[state.to_play]) == 1
    state = play(state, state.legal_actions()[0])
    assert state.deal_number == 1 and len(state.legal_actions()) == 1, "still asked"


def test_a_deal_is_26_tricks():
    state, winners = play_plan(new_match(REFERENCE), "01" * 12 + "00", discard_at=1)
    assert winners == "01" * 12 + "00"
    assert state.deal_number == 2 and sum(state.last_deal.tricks_won) == 26


def test_four_tricks_in_a_row_bank_a_baby_slam_at_once():
    state, winners = play_plan(new_match(REFERENCE), "0000", tricks=3)
    assert winners == "000" and state.scores == [0, 0]
    state, winners = play_plan(state, "0000", tricks=4)
    assert state.scores == [1, 0] and state.baby_slams == (1, 0)


def test_a_fifth_trick_in_a_row_turns_the_baby_slam_into_a_grand_slam_worth_three():
    state, winners = play_plan(new_match(REFERENCE), "00000", tricks=5)
    assert winners == "00000"
    assert state.scores == [3, 0]
    assert state.grand_slams == (True, False) and state.baby_slams == (0, 0)
    assert state.streaks == (0, 0), "the counter restarts after a grand slam"


def test_losing_a_trick_resets_the_counter_and_a_lost_fifth_keeps_the_baby_slam():
    state, winners = play_plan(new_match(REFERENCE), "00001", tricks=5)
    assert winners == "00001" and state.scores == [1, 0] and state.grand_slams == (False, False)
    state, winners = play_plan(new_match(REFERENCE), "00010000", tricks=8)
    assert winners == "00010000"
    assert state.scores == [1, 0], "three, a loss, then four in a row: one baby slam"


def test_a_baby_slam_then_a_grand_slam_score_four():
    state, winners = play_plan(new_match(REFERENCE), "0000100000", tricks=10)
    assert winners == "0000100000"
    assert state.scores == [4, 0]


def test_after_a_grand_slam_every_four_in_a_row_bank_a_baby_slam_and_restart_the_counter():
    state, winners = play_plan(new_match(REFERENCE), "0" * 17, tricks=17)
    assert winners == "0" * 17
    # 3 for tricks 1-5, then a baby slam at tricks 9, 13 and 17.
    assert state.scores == [6, 0] and state.baby_slams == (3, 0) and state.streaks == (0, 0)


def test_a_rubber_is_decided_only_after_the_deal():
    state, _ = play_plan(new_match(REFERENCE), "0" * 13, tricks=13)
    assert state.scores == [5, 0]
    assert state.winner is None and state.to_play is not None and state.deal_number == 1


def test_fifteen_tricks_score_three_at_the_end_of_the_deal():
    plan = "00100100100100100100110111"
    state, winners = play_plan(new_match(REFERENCE), plan, discard_at=2)
    assert winners == plan and state.last_deal.tricks_won == (15, 11)
    assert state.last_deal.majority_points == (3, 0) and state.scores == [3, 0]
    assert state.deal_number == 2 and state.winner is None, "3 points do not win the rubber"


def test_fourteen_tricks_score_two():
    plan = "01" * 12 + "00"
    state, winners = play_plan(new_match(REFERENCE), plan, discard_at=1)
    assert winners == plan and state.last_deal.tricks_won == (14, 12)
    assert state.last_deal.majority_points == (2, 0) and state.scores == [2, 0]


def test_fifteen_or_more_score_only_two_with_a_grand_slam():
    plan = "00000100100100100100111011"
    state, winners = play_plan(new_match(REFERENCE), plan, discard_at=1)
    assert winners == plan and state.last_deal.tricks_won == (16, 10)
    assert state.last_deal.slam_points == (3, 0)
    assert state.last_deal.majority_points == (2, 0)
    assert state.last_deal.scores == (5, 0) and state.last_deal.rubber_winner == 0
    assert state.winner == 0, "one rubber is the whole match by default"


def test_the_scoring_rules_in_isolation():
    assert next_streak(3, False) == (4, Slam.BABY)
    assert next_streak(4, False) == (0, Slam.GRAND)
    assert next_streak(3, True) == (0, Slam.BABY)
    assert next_streak(0, True) == (1, None)
    assert [majority_points(n, False) for n in (13, 14, 15, 20)] == [0, 2, 3, 3]
    assert [majority_points(n, True) for n in (13, 14, 15, 20)] == [0, 2, 2, 2]
    assert rubber_winner((5, 5)) is None, "equal points play another deal"
    assert rubber_winner((4, 2)) is None
    assert rubber_winner((7, 5)) == 0 and rubber_winner((2, 6)) == 1


def test_best_of_three_rubbers_starts_each_rubber_at_zero_with_the_dealer_alternating():
    seat_0_wins = "00000100100100100100111011"
    seat_1_wins = seat_0_wins.replace("0", "x").replace("1", "0").replace("x", "1")
    state = new_match(REFERENCE, REFERENCE, REFERENCE, rubbers=3)
    state, _ = play_plan(state, seat_0_wins, discard_at=1)
    view = jam.observation(state, 1)
    assert view["rubbers_won"] == [1, 0] and view["rubber_number"] == 2
    assert state.scores == [0, 0] and state.winner is None
    assert (state.deal_number, state.dealer) == (2, 0)
    assert view["hand"] == ["2H", "3H", "4H", "5H", "6H"], "the new non-dealer gets the reds"
    state, _ = play_plan(state, seat_1_wins, discard_at=1)
    assert state.rubbers_won == (1, 1) and state.winner is None and state.dealer == 1
    state, _ = play_plan(state, seat_0_wins, discard_at=1)
    assert state.rubbers_won == (2, 1) and state.winner == 0 and state.to_play is None
    assert state.scores == [5, 0], "scores are the game points of the last rubber"


@pytest.mark.parametrize("rubbers", [0, 2, 5, "3", True])
def test_a_bad_number_of_rubbers_is_rejected_naming_the_option(rubbers):
    with pytest.raises(ValueError, match="rubbers"):
        jam.new_match(1, {"rubbers": rubbers})


def test_the_view_never_names_a_stock_card_or_an_unseen_card_of_the_opponent():
    rng = random.Random(3)
    state = jam.new_match(21)
    while state.to_play is not None:
        for seat in (0, 1):
            view = jam.observation(state, seat)
            shown = json.dumps({k: v for k, v in view.items() if not k.startswith("last_")})
            opponent = 1 - seat
            unseen = set(state.hands[opponent]) - set(state.revealed[opponent])
            hidden = unseen | set(state.stocks[0]) | set(state.stocks[1])
            assert not [card for card in hidden if f'"{card}"' in shown]
        state = jam.apply(state, rng.choice(state.legal_actions()))
