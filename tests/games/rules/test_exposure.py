"""Exposure scenarios written from ``docs/rules/exposure.md``, played through the facade."""

from __future__ import annotations

import random

import pytest

from games.rules import IllegalAction, get_game
from games.rules.exposure.ranking import rank_order
from games.rules.exposure.scoring import candidate_groups, deal_points, group_points
from tests.games.rules.stacking import stacked_order

exposure = get_game("exposure")
PASS = {"expose": []}


def new_deal(non_dealer_hand, dealer_hand, contract, **options):
    """A match whose first deal gives these hands and contract (the rest is discarded)."""
    assert len(non_dealer_hand) == len(dealer_hand) == 9 and len(contract) == 3
    order = stacked_order(*non_dealer_hand, *dealer_hand, *contract, deck=exposure.deck)
    return exposure.new_match(seed=1, options={"decks": [order], **options})


def play(state, *actions):
    for action in actions:
        state = exposure.apply(state, action)
    return state


def plays(*cards):
    return [{"play": card} for card in cards]


# Contract KH JC TS: hearts trump, high rank J, 5 tricks. Discarded: 9S 9H AC.
GROUPS_DEAL = {
    "non_dealer_hand": ["TH", "TD", "JS", "QS", "KS", "AS", "9D", "QD", "9C"],
    "dealer_hand": ["JH", "QH", "AH", "JD", "KD", "AD", "TC", "QC", "KC"],
    "contract": ["KH", "JC", "TS"],
}
# Contract 9S KS QS: spades trump (nobody holds one), high rank K, 7 tricks.
CLUBS_AND_HEARTS_DEAL = {
    "non_dealer_hand": ["9C", "TC", "JC", "QC", "KC", "AC", "9D", "TD", "JD"],
    "dealer_hand": ["9H", "TH", "JH", "QH", "KH", "AH", "QD", "KD", "AD"],
    "contract": ["9S", "KS", "QS"],
}


def test_the_deal_follows_the_deck_positions_and_seat_1_deals_first():
    state = new_deal(**GROUPS_DEAL)
    seat_0, seat_1 = exposure.observation(state, 0), exposure.observation(state, 1)
    assert seat_0["dealer"] == 1 and state.to_play == 0 and seat_0["phase"] == "expose"
    assert seat_0["hand"] == GROUPS_DEAL["non_dealer_hand"]
    assert seat_1["hand"] == GROUPS_DEAL["dealer_hand"]
    assert seat_0["contract"]["cards"] == seat_1["contract"]["cards"] == ["KH", "JC", "TS"]
    assert state.orders[0][21:] == ("9S", "9H", "AC"), "three cards are discarded unseen"


def test_the_contract_cards_set_trump_high_rank_and_the_number_of_tricks():
    contract = exposure.observation(new_deal(**GROUPS_DEAL), 0)["contract"]
    assert (contract["trump"], contract["high_rank"], contract["contract_tricks"]) == ("H", "J", 5)
    contract = exposure.observation(new_deal(**CLUBS_AND_HEARTS_DEAL), 1)["contract"]
    assert (contract["trump"], contract["high_rank"], contract["contract_tricks"]) == ("S", "K", 7)


@pytest.mark.parametrize(
    ("right_card", "tricks"),
    [("AD", 9), ("KD", 8), ("QD", 7), ("JD", 6), ("TD", 5), ("9D", 4)],
)
def test_the_right_contract_cards_rank_sets_the_contract(right_card, tricks):
    hands = ["9C", "TC", "JC", "QC", "KC", "AC", "9H", "TH", "JH"]
    others = ["QH", "KH", "AH", "9S", "TS", "JS", "QS", "KS", "AS"]
    left, middle = [card for card in ("9D", "TD", "JD") if card != right_card][:2]
    state = new_deal(hands, others, [left, middle, right_card])
    assert exposure.observation(state, 0)["contract"]["contract_tricks"] == tricks


@pytest.mark.parametrize(
    ("high_rank", "led", "lowest_to_highest"),
    [
        ("J", False, "9TQKJA"),
        ("J", True, "A9TQKJ"),
        ("9", False, "TJQK9A"),
        ("K", True, "A9TJQK"),
        ("K", False, "9TJQKA"),
        ("A", True, "9TJQKA"),
        ("A", False, "9TJQKA"),
    ],
)
def test_the_high_rank_moves_above_the_king_and_the_ace_depends_on_when_it_is_played(
    high_rank, led, lowest_to_highest
):
    assert rank_order(high_rank, led) == lowest_to_highest


def test_an_ace_led_is_the_lowest_card_of_its_suit():
    # High rank K: the natural order, but a led ace loses to the follower's nine.
    state = new_deal(
        ["AS", "KS", "TS", "9C", "TC", "JC", "QC", "KC", "AC"],
        ["9S", "JS", "QS", "TH", "JH", "QH", "AH", "TD", "JD"],
        ["9H", "KD", "9D"],
    )
    state = play(state, PASS, PASS, {"play": "AS"})
    assert state.legal_actions() == plays("9S", "JS", "QS"), "seat 1 must follow spades"
    state = play(state, {"play": "9S"})
    assert list(state.tricks_won) == [0, 1] and state.to_play == 1


def test_an_ace_played_second_is_the_highest_card_of_its_suit():
    state = new_deal(
        ["KS", "9S", "TS", "9C", "TC", "JC", "QC", "KC", "AC"],
        ["AS", "JS", "QS", "TH", "JH", "QH", "AH", "TD", "JD"],
        ["9H", "KD", "9D"],
    )
    state = play(state, PASS, PASS, {"play": "KS"}, {"play": "AS"})
    assert list(state.tricks_won) == [0, 1]


def test_with_an_ace_high_rank_the_ace_is_highest_even_when_led():
    state = new_deal(
        ["AS", "TS", "9S", "9C", "TC", "JC", "QC", "KC", "AC"],
        ["KS", "JS", "QS", "TH", "JH", "QH", "AH", "TD", "JD"],
        ["9H", "AD", "9D"],
    )
    state = play(state, PASS, PASS, {"play": "AS"}, {"play": "KS"})
    assert list(state.tricks_won) == [1, 0] and state.to_play == 0


def test_the_high_rank_beats_a_king_and_loses_to_an_ace_played_second():
    # High rank J: order (A second) J K Q T 9 (A led).
    state = new_deal(
        ["KS", "9S", "TS", "9C", "TC", "JC", "QC", "KC", "AC"],
        ["JS", "AS", "QS", "TH", "JH", "QH", "AH", "TD", "KD"],
        ["9H", "JD", "9D"],
    )
    state = play(state, PASS, PASS, {"play": "KS"}, {"play": "JS"})
    assert list(state.tricks_won) == [0, 1], "the jack beats the king"
    state = play(state, {"play": "AS"}, {"play": "9S"})
    assert list(state.tricks_won) == [1, 1], "a led ace loses to the nine"
    state = play(state, {"play": "TS"}, {"play": "QS"})
    assert list(state.tricks_won) == [1, 2]


def test_a_trump_beats_the_suit_led_and_a_discard_loses():
    # Trump spades (left card TS). Seat 1 holds no club and one trump, the lowest.
    state = new_deal(
        ["9C", "TC", "JC", "QC", "KC", "AC", "9D", "TD", "JD"],
        ["9S", "TH", "JH", "QH", "KH", "AH", "QD", "KD", "AD"],
        ["TS", "KS", "QS"],
    )
    state = play(state, PASS, PASS, {"play": "TC"}, {"play": "QD"})
    assert list(state.tricks_won) == [1, 0], "a discard of another suit loses"
    state = play(state, {"play": "AC"}, {"play": "9S"})
    assert list(state.tricks_won) == [1, 1], "the lowest trump beats the suit led"


def test_the_non_dealer_exposes_first_then_the_dealer_then_the_non_dealer_leads():
    state = new_deal(**GROUPS_DEAL)
    assert state.to_play == 0
    state = play(state, PASS)
    assert state.to_play == 1 and exposure.observation(state, 1)["phase"] == "expose"
    state = play(state, PASS)
    assert state.to_play == 0 and exposure.observation(state, 0)["phase"] == "lead"


def test_legal_claims_are_every_group_with_a_hand_card_then_the_end_of_claims():
    legal = new_deal(**GROUPS_DEAL).legal_actions()
    assert legal[-1] == PASS
    groups = [action["expose"] for action in legal[:-1]]
    assert ["TS", "TH", "TD"] in groups, "three of a kind with the contract's TS"
    assert ["9D", "TS", "JS", "QS", "KS", "AS"] in groups, "six in sequence with the contract's TS"
    assert ["TH", "JC", "QS", "KH"] in groups, "any suits, two contract cards"
    assert all(len(group) in (3, 4, 5, 6) for group in groups)
    assert len(groups) == len({tuple(group) for group in groups})
    hand = set(GROUPS_DEAL["non_dealer_hand"])
    assert all(hand.intersection(group) for group in groups)


def test_points_are_credited_as_soon_as_a_group_is_claimed():
    state = play(new_deal(**GROUPS_DEAL), {"expose": ["TH", "TD", "TS"]})
    assert state.scores == [1, 0]
    state = play(state, {"expose": ["9D", "TS", "JS", "QS", "KS", "AS"]})
    assert state.scores == [4, 0]
    assert exposure.observation(state, 1)["exposure_points"] == [4, 0]


def test_a_hand_card_serves_one_group_and_contract_cards_serve_any_number():
    state = play(new_deal(**GROUPS_DEAL), {"expose": ["TH", "TD", "TS"]})
    groups = [action["expose"] for action in state.legal_actions()[:-1]]
    assert not any({"TH", "TD"}.intersection(group) for group in groups)
    assert ["9D", "TS", "JS", "QS", "KS", "AS"] in groups, "TS is a contract card: reused"
    with pytest.raises(IllegalAction):
        exposure.apply(state, {"expose": ["TH", "JS", "QS", "KS"]})
    state = play(state, {"expose": ["9D", "TS", "JS", "QS", "KS", "AS"]}, PASS)
    # The dealer reuses the contract cards TS and JC that seat 0 also used.
    state = play(state, {"expose": ["TS", "JC", "QH", "KD", "AD"]})
    assert state.scores == [4, 2]


@pytest.mark.parametrize("seed", range(40))
def test_the_claims_offered_after_each_claim_are_those_a_fresh_count_finds_in_the_hand_left(seed):
    # The engine keeps the open claims claim by claim; a count from scratch must agree, order
    # included, at every claim of both players.
    state, rng = exposure.new_match(seed), random.Random(seed)
    while state.deal_number <= 3 and state.to_play is not None:
        legal = state.legal_actions()
        if state.phase.value == "expose":
            fresh = candidate_groups(state.hands[state.to_play], state.contract)
            assert legal == [{"expose": list(group)} for group in fresh] + [PASS]
        # Claims more often than a uniform choice, so that hands run low on groups.
        choice = legal[rng.randrange(len(legal) - 1)] if len(legal) > 1 else legal[0]
        state = exposure.apply(state, choice if rng.random() < 0.8 else rng.choice(legal))


def test_a_group_of_contract_cards_alone_cannot_be_claimed():
    # All three contract cards are queens: three of a kind needs a hand card, four is fine.
    state = new_deal(
        ["QC", "9S", "TS", "JS", "KS", "AS", "9H", "TH", "JH"],
        ["KH", "AH", "9D", "TD", "JD", "KD", "AD", "9C", "TC"],
        ["QS", "QH", "QD"],
    )
    groups = [action["expose"] for action in state.legal_actions()[:-1]]
    assert ["QS", "QH", "QD"] not in groups
    assert ["QS", "QH", "QD", "QC"] in groups and ["QS", "QH", "QC"] in groups
    assert exposure.observation(play(state, {"expose": ["QS", "QH", "QD", "QC"]}), 0)["scores"] == [
        2,
        0,
    ]
    with pytest.raises(IllegalAction):
        exposure.apply(state, {"expose": ["QS", "QH", "QD"]})


def test_a_group_may_be_given_in_any_card_order():
    state = play(new_deal(**GROUPS_DEAL), {"expose": ["AS", "KS", "TS", "QS", "9D", "JS"]})
    assert exposure.observation(state, 0)["groups"][0] == [["9D", "TS", "JS", "QS", "KS", "AS"]]
    assert state.history[-1]["action"] == {"expose": ["9D", "TS", "JS", "QS", "KS", "AS"]}


@pytest.mark.parametrize(
    "action",
    [
        {"expose": ["TH", "TH", "TS"]},
        {"expose": ["TH", "TD", "XX"]},
        {"expose": ["TH", "TD", 7]},
        {"expose": "TH"},
        {"expose": ["TH", "TD", "TS"], "play": "TH"},
        {"expose": ["TH", "TD", "TC"]},
        {"play": "TH"},
    ],
)
def test_malformed_or_impossible_claims_are_illegal(action):
    with pytest.raises(IllegalAction):
        exposure.apply(new_deal(**GROUPS_DEAL), action)


def test_exposed_cards_are_public_and_the_opponents_hand_is_not():
    state = play(new_deal(**GROUPS_DEAL), {"expose": ["TH", "TD", "TS"]})
    seat_1 = exposure.observation(state, 1)
    assert seat_1["exposed"] == [["TH", "TD"], []]
    assert seat_1["groups"] == [[["TS", "TH", "TD"]], []]
    assert seat_1["opponent_hand_size"] == 7
    assert not {"JS", "QS", "9D"}.intersection(str(seat_1))
    assert exposure.observation(state, 0)["hand"] == ["JS", "QS", "KS", "AS", "9D", "QD", "9C"]


def test_exposed_cards_stay_playable_and_count_for_following_suit():
    # The dealer's only club is exposed: when a club is led he must play it.
    state = new_deal(
        ["TC", "JC", "QC", "KC", "AC", "AS", "KS", "QS", "JS"],
        ["9C", "TD", "JD", "QD", "9H", "TH", "JH", "9D", "KD"],
        ["9S", "KH", "QH"],
    )
    state = play(state, PASS, {"expose": ["QD", "9C", "JD", "TD"]}, PASS)
    assert state.scores == [0, 1]
    assert exposure.observation(state, 0)["exposed"] == [[], ["9C", "TD", "JD", "QD"]]
    state = play(state, {"play": "TC"})
    assert state.legal_actions() == [{"play": "9C"}]
    state = play(state, {"play": "9C"})
    assert exposure.observation(state, 0)["exposed"] == [[], ["TD", "JD", "QD"]]
    assert list(state.tricks_won) == [1, 0]


def test_a_deal_scores_two_a_trick_and_five_for_exactly_the_contract():
    state = play(
        new_deal(**CLUBS_AND_HEARTS_DEAL),
        PASS,
        PASS,
        *plays("9C", "9H", "TC", "TH", "JC", "JH", "QC", "QH", "KC", "KH", "AC", "AH"),
        *plays("9D", "QD", "KD", "TD", "AD", "JD"),
    )
    last = exposure.observation(state, 0)["last_deal"]
    assert last["tricks_won"] == [7, 2] and last["contract_tricks"] == 7
    assert last["trick_points"] == [14, 4] and last["contract_bonus"] == [5, 0]
    assert state.scores == [19, 4]
    assert state.winner is None and state.deal_number == 2


def test_the_dealer_alternates_and_the_new_non_dealer_exposes_first():
    state = new_deal(**CLUBS_AND_HEARTS_DEAL)
    state = play(state, PASS, PASS)
    for _ in range(18):
        state = exposure.apply(state, state.legal_actions()[0])
    view = exposure.observation(state, 1)
    assert (view["deal_number"], view["dealer"], view["phase"]) == (2, 0, "expose")
    assert state.to_play == 1 and len(view["hand"]) == 9 and view["tricks_won"] == [0, 0]


TIED_TRICKS = (
    *plays("9D", "QD", "9H", "9C", "TH", "TC", "JH", "JC", "AD", "TD"),
    *plays("QC", "QH", "KC", "KH", "AC", "AH", "JD", "KD"),
)


def test_the_match_is_won_after_a_deal_by_the_higher_score_at_the_target():
    six_clubs = {"expose": ["9C", "TC", "JC", "QC", "KC", "AC"]}
    state = play(new_deal(**CLUBS_AND_HEARTS_DEAL, target=10), six_clubs, PASS, PASS)
    assert state.scores == [3, 0]
    state = play(state, *TIED_TRICKS)
    assert state.scores == [11, 10] and state.winner == 0 and state.to_play is None


def test_equal_scores_at_the_target_play_another_deal():
    five_clubs = {"expose": ["9C", "TC", "JC", "QC", "KC"]}
    state = play(new_deal(**CLUBS_AND_HEARTS_DEAL, target=10), five_clubs, PASS, PASS)
    state = play(state, *TIED_TRICKS)
    assert state.scores == [10, 10] and state.winner is None
    assert state.deal_number == 2 and state.to_play == 1


def test_exposure_points_alone_do_not_end_the_match_before_the_deal_is_over():
    five_clubs = {"expose": ["9C", "TC", "JC", "QC", "KC"]}
    state = play(new_deal(**CLUBS_AND_HEARTS_DEAL, target=1), five_clubs, PASS, PASS)
    assert state.scores == [2, 0] and state.winner is None and state.to_play == 0


@pytest.mark.parametrize(
    ("group", "points"),
    [
        (["TS", "TH", "TD"], 1),
        (["TS", "TH", "TD", "TC"], 2),
        (["TS", "JC", "QS", "KD"], 1),
        (["TD", "JH", "QD", "KC", "AH"], 2),
        (["9C", "TD", "JH", "QS", "KC", "AS"], 3),
    ],
)
def test_group_points_follow_the_bonus_table(group, points):
    assert group_points(group) == points


def test_deal_points_are_two_a_trick_plus_the_contract_bonus():
    assert deal_points(5, 5) == (10, 5)
    assert deal_points(6, 5) == (12, 0)
    assert deal_points(0, 4) == (0, 0)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"goal": 50}, "goal"),
        ({"target": 0}, "target"),
        ({"target": "50"}, "target"),
        ({"decks": [list(get_game("snag").deck)]}, "decks"),
        ({"decks": [list(exposure.deck[:23])]}, "decks"),
        ({"decks": [[*exposure.deck[:23], "2S"]]}, "decks"),
        ({"decks": [[*exposure.deck[:23], exposure.deck[0]]]}, "decks"),
    ],
)
def test_bad_options_raise_value_errors_naming_the_problem(options, named):
    with pytest.raises(ValueError, match=named):
        exposure.new_match(seed=1, options=options)
