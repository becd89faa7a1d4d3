"""Two-handed Spades scenarios written from ``docs/rules/spades.md``."""

from __future__ import annotations

import json
import random
import re

import pytest

from games.rules import IllegalAction, get_game
from games.rules.spades.rules import hand_points
from tests.games.rules.stacking import stacked_order

spades = get_game("spades")
CARD_TOKEN = re.compile(r'"([2-9TJQKA][SHDC])"')


def automatic_order(first_bidder_hand, other_hand):
    """A deck order whose top 26 cards deal these hands, the starting bidder's first."""
    assert len(first_bidder_hand) == len(other_hand) == 13
    pairs = zip(first_bidder_hand, other_hand, strict=True)
    return stacked_order(*(card for pair in pairs for card in pair))


def new_hand(hand_0, hand_1, **options):
    return spades.new_match(seed=1, options={"decks": [automatic_order(hand_0, hand_1)], **options})


def play(state, *actions):
    for action in actions:
        state = spades.apply(state, action)
    return state


def plays(*cards):
    return [{"play": card} for card in cards]


def shown_cards(view):
    return set(CARD_TOKEN.findall(json.dumps(view)))


HEARTS = ["AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H", "5H", "4H", "3H", "2H"]
DIAMONDS_AND_A_SPADE = ["KD", "QD", "JD", "TD", "2S", *(f"{rank}D" for rank in "98765432")]
# Seat 0 takes four heart tricks, seat 1 trumps the fifth and runs eight diamonds: 4 and 9.
FOUR_AND_NINE = (
    *plays("AH", "KD", "KH", "QD", "QH", "JD", "JH", "TD", "TH", "2S"),
    *plays("9D", "9H", "8D", "8H", "7D", "7H", "6D", "6H", "5D", "5H", "4D", "4H", "3D", "3H"),
    *plays("2D", "2H"),
)


def four_and_nine(bid_0, bid_1, **options):
    state = play(new_hand(HEARTS, DIAMONDS_AND_A_SPADE, **options), {"bid": bid_0}, {"bid": bid_1})
    return play(state, *FOUR_AND_NINE)


def test_an_automatic_deal_gives_the_top_26_cards_alternately_from_the_starting_bidder():
    state = new_hand(HEARTS, DIAMONDS_AND_A_SPADE)
    seat_0, seat_1 = spades.observation(state, 0), spades.observation(state, 1)
    assert seat_0["dealer"] == 1 and seat_0["starting_bidder"] == 0
    assert seat_0["hand"] == HEARTS and seat_1["hand"] == DIAMONDS_AND_A_SPADE
    assert seat_0["phase"] == "bid" and state.to_play == 0
    assert not shown_cards(seat_0) & set(DIAMONDS_AND_A_SPADE)


def test_the_starting_bidder_alternates_and_is_dealt_first_in_the_next_hand():
    second_order = stacked_order()
    options = {"decks": [automatic_order(HEARTS, DIAMONDS_AND_A_SPADE), second_order]}
    state = spades.new_match(seed=1, options=options)
    state = play(state, {"bid": 4}, {"bid": 9}, *FOUR_AND_NINE)
    view = spades.observation(state, 1)
    assert (view["deal_number"], view["dealer"], view["starting_bidder"]) == (2, 0, 1)
    assert state.to_play == 1 and view["phase"] == "bid"
    assert view["hand"] == second_order[0:26:2]
    assert spades.observation(state, 0)["hand"] == second_order[1:26:2]


def test_the_starting_bidder_bids_first_then_leads_the_first_trick():
    state = new_hand(HEARTS, DIAMONDS_AND_A_SPADE)
    assert state.legal_actions() == [{"bid": n} for n in range(14)]
    state = play(state, {"bid": 13})
    assert state.to_play == 1 and spades.observation(state, 1)["bids"] == [13, None]
    state = play(state, {"bid": 0})
    assert state.to_play == 0 and spades.observation(state, 1)["phase"] == "lead"
    assert spades.observation(state, 1)["bids"] == [13, 0]


@pytest.mark.parametrize(
    "bid", [{"bid": 14}, {"bid": -1}, {"bid": True}, {"bid": "3"}, {"bid": 3.0}, {"bid": [3]}]
)
def test_bids_outside_0_to_13_are_illegal(bid):
    with pytest.raises(IllegalAction):
        spades.apply(new_hand(HEARTS, DIAMONDS_AND_A_SPADE), bid)


def test_spades_may_not_be_led_until_a_spade_has_been_played():
    state = new_hand(
        ["AS", "KS", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH"],
        ["2S", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC"],
    )
    state = play(state, {"bid": 3}, {"bid": 3})
    assert {"play": "AS"} not in state.legal_actions() and len(state.legal_actions()) == 11
    state = play(state, {"play": "2H"}, {"play": "2S"})
    assert state.to_play == 1, "the two of spades trumps the heart"
    assert spades.observation(state, 0)["spades_broken"] is True
    state = play(state, {"play": "2C"}, {"play": "AS"})
    assert state.to_play == 0
    assert {"play": "KS"} in state.legal_actions(), "spades have been played: they may be led"


def test_a_leader_holding_only_spades_may_lead_one():
    all_spades = ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S", "4S", "3S", "2S"]
    state = play(new_hand(all_spades, HEARTS), {"bid": 13}, {"bid": 0})
    assert state.legal_actions() == plays(*all_spades)


def test_the_follower_must_follow_suit_if_able():
    state = play(new_hand(HEARTS, DIAMONDS_AND_A_SPADE), {"bid": 4}, {"bid": 9})
    state = play(state, {"play": "AH"})
    assert len(state.legal_actions()) == 13, "no heart: any card, trumps included"
    state = play(state, {"play": "KD"}, {"play": "KH"}, {"play": "QD"})
    state = play(state, {"play": "QH"}, {"play": "JD"}, {"play": "JH"}, {"play": "TD"})
    state = play(state, {"play": "TH"}, {"play": "2S"}, {"play": "9D"})
    assert state.legal_actions() == plays(*HEARTS[5:]), "no diamond: any heart"


@pytest.mark.parametrize(
    ("bids", "scores"),
    [
        ((4, 9), [40, 90]),  # both made exactly
        ((3, 7), [31, 72]),  # made with tricks over: 1 point each
        ((0, 0), [4, 9]),  # a bid of 0 is made by any number of tricks
        ((5, 10), [-50, -100]),  # set: 10 a trick bid lost
        ((13, 9), [-130, 90]),
    ],
)
def test_a_made_bid_scores_ten_a_trick_and_one_a_trick_over_and_a_set_loses_ten_a_trick(
    bids, scores
):
    state = four_and_nine(*bids)
    last = spades.observation(state, 0)["last_deal"]
    assert last["tricks_won"] == [4, 9] and last["bids"] == list(bids)
    assert last["points"] == scores and state.scores == scores
    assert last["made"] == [bids[0] <= 4, bids[1] <= 9]


def test_hand_points_follow_the_scoring_rule():
    assert hand_points(4, 6) == 42
    assert hand_points(4, 3) == -40
    assert hand_points(0, 13) == 13


def test_a_score_equal_to_the_limit_does_not_end_the_match():
    state = four_and_nine(4, 9, limit=90)
    assert state.scores == [40, 90] and state.winner is None and state.deal_number == 2


def test_a_score_above_the_limit_wins_the_match():
    state = four_and_nine(4, 9, limit=89)
    assert state.winner == 1 and state.to_play is None
    assert spades.observation(state, 0)["phase"] == "over"


def test_a_score_below_minus_the_limit_does_not_end_the_match():
    state = four_and_nine(10, 9, limit=95)
    assert state.scores == [-100, 90] and state.winner is None and state.deal_number == 2


def test_equal_scores_below_the_cap_play_another_hand():
    state = four_and_nine(13, 13, limit=50)
    assert state.scores == [-130, -130] and state.winner is None and state.to_play == 1


def test_at_the_hand_cap_the_higher_score_wins():
    state = four_and_nine(10, 9, max_hands=1)
    assert state.scores == [-100, 90] and state.winner == 1 and state.to_play is None


def test_at_the_hand_cap_equal_scores_go_to_seat_1():
    state = four_and_nine(10, 10, max_hands=1)
    assert state.scores == [-100, -100] and state.winner == 1


def test_the_hand_cap_is_checked_after_the_limit():
    # Seat 0 crosses the limit in the capped hand with the higher score: the limit rule
    # and the cap agree on seat 0; seat 1 would take the cap only on equal scores.
    state = four_and_nine(4, 10, limit=30, max_hands=1)
    assert state.scores == [40, -100] and state.winner == 0


def test_below_the_cap_a_match_goes_on_to_the_next_hand():
    state = four_and_nine(10, 9, max_hands=2)
    assert state.winner is None and state.deal_number == 2


SELECTION_ORDER = stacked_order("AS", "KS", "2C", "AH")


@pytest.mark.parametrize("keep", [1, 0, "true", None])
def test_a_draw_decision_must_be_a_boolean(keep):
    state = spades.new_match(seed=1, options={"deal": "selection", "decks": [SELECTION_ORDER]})
    with pytest.raises(IllegalAction):
        spades.apply(state, {"keep": keep})


def test_a_selection_draw_keeps_the_card_seen_and_discards_the_next_unseen():
    state = spades.new_match(seed=1, options={"deal": "selection", "decks": [SELECTION_ORDER]})
    assert state.legal_actions() == [{"keep": True}, {"keep": False}]
    assert spades.observation(state, 0)["draw_card"] == "AS"
    assert "AS" not in shown_cards(spades.observation(state, 1))
    state = play(state, {"keep": True})
    seat_0, seat_1 = spades.observation(state, 0), spades.observation(state, 1)
    assert seat_0["hand"] == ["AS"] and seat_1["opponent_hand_size"] == 1
    assert seat_1["history"] == [
        {"seat": 0, "action": {"keep": True}},
        {"seat": 0, "auto": {"discard": "unseen"}},
    ]
    assert seat_0["history"][0] == {"seat": 0, "action": {"keep": True}, "received": "AS"}
    assert "KS" not in shown_cards(seat_0) | shown_cards(seat_1)


def test_a_selection_discard_is_seen_only_by_the_drawer_who_takes_the_next_card():
    state = spades.new_match(seed=1, options={"deal": "selection", "decks": [SELECTION_ORDER]})
    state = play(state, {"keep": True})
    assert state.to_play == 1 and spades.observation(state, 1)["draw_card"] == "2C"
    state = play(state, {"keep": False})
    seat_0, seat_1 = spades.observation(state, 0), spades.observation(state, 1)
    assert seat_1["hand"] == ["AH"] and seat_1["seen_discards"] == ["2C"]
    assert seat_1["history"][-1] == {
        "seat": 1,
        "action": {"keep": False},
        "received": "AH",
        "discarded": "2C",
    }
    assert seat_0["history"][-1] == {"seat": 1, "action": {"keep": False}}
    assert not {"2C", "AH"} & shown_cards(seat_0)


def test_twenty_six_draws_give_each_player_thirteen_then_the_starting_bidder_bids():
    state = spades.new_match(seed=1, options={"deal": "selection", "decks": [SELECTION_ORDER]})
    for draw in range(26):
        assert state.to_play == draw % 2
        state = play(state, {"keep": draw % 3 == 0})
    assert [len(hand) for hand in state.hands] == [13, 13]
    assert state.to_play == 0 and spades.observation(state, 0)["phase"] == "bid"
    zones = state.card_zones()
    assert len(zones["unseen discards"]) + sum(map(len, state.seen_discards)) == 26


@pytest.mark.parametrize("seed", range(40))
def test_in_a_selection_match_no_seat_sees_a_card_hidden_from_it(seed):
    state = spades.new_match(seed=seed, options={"deal": "selection", "limit": 50})
    rng = random.Random(seed)
    while state.to_play is not None:
        for seat in (0, 1):
            view = spades.observation(state, seat)
            view.pop("last_deal")
            assert not shown_cards(view) & state.hidden_cards(seat)
        zones = state.card_zones().values()
        assert sorted(card for zone in zones for card in zone) == sorted(spades.deck)
        state = spades.apply(state, rng.choice(state.legal_actions()))
    assert state.winner in (0, 1)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"deals": "automatic"}, "deals"),
        ({"deal": "random"}, "deal"),
        ({"deal": True}, "deal"),
        ({"limit": 0}, "limit"),
        ({"limit": 300.0}, "limit"),
        ({"decks": [list(get_game("exposure").deck)]}, "decks"),
        ({"decks": [stacked_order()[:51]]}, "decks"),
        ({"decks": [[*stacked_order()[:51], "AS"]]}, "decks"),
        ({"decks": [stacked_order(), "AS"]}, "decks"),
    ],
)
def test_bad_options_raise_value_errors_naming_the_problem(options, named):
    with pytest.raises(ValueError, match=named):
        spades.new_match(seed=1, options=options)
