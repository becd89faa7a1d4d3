"""Snag scenarios written from ``docs/rules/snag.md``, played through the facade."""

from __future__ import annotations

import pytest

from games.rules import GameOver, IllegalAction, get_game
from games.rules.snag.scoring import deal_score
from tests.games.rules.stacking import stacked_order

snag = get_game("snag")


def new_deal(non_dealer_hand, dealer_hand, bar, **options):
    order = stacked_order(*non_dealer_hand, *dealer_hand, *bar)
    return snag.new_match(seed=1, options={"decks": [order], **options})


def play(state, *actions):
    for action in actions:
        state = snag.apply(state, action)
    return state


TIE_DEAL = {
    "non_dealer_hand": ["2S", "3S", "4H", "5H", "6H"],
    "dealer_hand": ["9H", "9D", "TC", "JC", "QC"],
    "bar": ["9S", "8S", "7D", "6D", "AD"],
}


def test_the_deal_follows_the_deck_positions_and_seat_1_deals_first():
    state = new_deal(
        ["2S", "3S", "4S", "5S", "6S"],
        ["7S", "8S", "9S", "TS", "JS"],
        ["2H", "3H", "4H", "5H", "6H"],
    )
    seat_0, seat_1 = snag.observation(state, 0), snag.observation(state, 1)
    assert seat_0["dealer"] == 1 and state.to_play == 0
    assert seat_0["hand"] == ["2S", "3S", "4S", "5S", "6S"]
    assert seat_1["hand"] == ["7S", "8S", "9S", "TS", "JS"]
    assert seat_0["bar"] == seat_1["bar"] == ["2H", "3H", "4H", "5H", "6H"]


def test_the_non_dealer_leads_one_of_the_two_bar_cards_at_her_end():
    state = new_deal(**TIE_DEAL)
    assert state.legal_actions() == [{"bar": "9S"}, {"bar": "8S"}]
    with pytest.raises(IllegalAction):
        snag.apply(state, {"bar": "7D"})


def test_the_dealer_leads_from_the_bar_cards_at_his_end():
    # The dealer's 9H ties the bar 9S and is played after it: the dealer wins and leads.
    state = play(new_deal(**TIE_DEAL), {"bar": "9S"}, {"play": "9H"}, {"play": "2S"})
    state = play(state, {"take": "9S"}, {"take": "2S"})
    assert state.to_play == 1
    assert state.legal_actions() == [{"bar": "AD"}, {"bar": "6D"}]


def test_both_hand_cards_must_follow_the_suit_of_the_bar_card():
    state = play(new_deal(**TIE_DEAL), {"bar": "9S"})
    assert state.to_play == 1
    assert len(state.legal_actions()) == 5, "the dealer holds no spade: any card"
    state = play(state, {"play": "TC"})
    assert state.legal_actions() == [{"play": "2S"}, {"play": "3S"}]
    with pytest.raises(IllegalAction):
        snag.apply(state, {"play": "4H"})


def test_a_bar_card_highest_alone_wins_for_the_leader():
    state = new_deal(
        ["2S", "3S", "4H", "5H", "6H"],
        ["9H", "9D", "TC", "JC", "QC"],
        ["AS", "8S", "7D", "6D", "5D"],
    )
    state = play(state, {"bar": "AS"}, {"play": "QC"}, {"play": "2S"})
    assert snag.observation(state, 0)["trick_winner"] == 0
    assert state.to_play == 0


def test_a_bar_card_tied_on_top_with_the_followers_card_wins_for_the_follower():
    state = play(new_deal(**TIE_DEAL), {"bar": "9S"}, {"play": "9H"}, {"play": "2S"})
    assert snag.observation(state, 0)["trick_winner"] == 1


def test_three_cards_of_one_rank_go_to_the_last_played():
    state = new_deal(
        ["9C", "4H", "5H", "6H", "7H"],
        ["9H", "TC", "JC", "QC", "KC"],
        ["9S", "8S", "7D", "6D", "5D"],
    )
    state = play(state, {"bar": "9S"}, {"play": "9H"}, {"play": "9C"})
    assert snag.observation(state, 1)["trick_winner"] == 0


def test_the_winner_takes_first_the_loser_second_and_the_winner_gets_the_last():
    state = play(new_deal(**TIE_DEAL), {"bar": "9S"}, {"play": "9H"}, {"play": "2S"})
    assert state.to_play == 1
    assert state.legal_actions() == [{"take": "9S"}, {"take": "9H"}, {"take": "2S"}]
    state = play(state, {"take": "9H"})
    assert state.to_play == 0
    assert state.legal_actions() == [{"take": "9S"}, {"take": "2S"}]
    state = play(state, {"take": "2S"})
    view = snag.observation(state, 0)
    assert view["taken"] == [["2S"], ["9H", "9S"]]
    assert view["history"][-1] == {"seat": 1, "auto": {"take": "9S"}}
    assert state.to_play == 1 and view["phase"] == "bar" and view["leader"] == 1


def test_a_deal_is_five_tricks_then_the_dealer_changes():
    state = new_deal(**TIE_DEAL)
    for _ in range(25):
        state = snag.apply(state, state.legal_actions()[0])
    view = snag.observation(state, 0)
    assert view["deal_number"] == 2 and view["dealer"] == 0
    assert view["last_deal"]["deal_number"] == 1
    assert sum(map(len, view["last_deal"]["taken"])) == 15
    assert state.to_play == 1, "the new non-dealer leads"
    assert len(view["hand"]) == 5 and len(view["bar"]) == 5


@pytest.mark.parametrize(
    ("taken_a", "taken_b", "expected"),
    [
        # The original text's three examples (B is seat 1).
        ("AS KS QS 2H 3H 4D 5C 6C", "7S 8S 9S TS 2D 3D 4C", (1, 10)),
        ("AS KS QS JS 2H 3H 4C 5C", "AH KH QH JH 2D 3D 4D", (1, 6)),
        ("AS KS QS 2H 3H 4H 5D 6C", "7S 8D 9D TD 2C 3C", (0, 6)),
        # Every length cancels: nobody scores.
        ("AS KS 2H", "AD KD 2C", (None, 0)),
        # Seat 0's lengths run out first: seat 1 scores its next length.
        ("AS KS QS", "AH KH QH 2D", (1, 1)),
    ],
)
def test_the_deal_score_cancels_equal_lengths_longest_first(taken_a, taken_b, expected):
    assert deal_score(taken_a.split(), taken_b.split()) == expected


def test_the_match_ends_after_the_deal_that_reaches_the_target():
    state = snag.new_match(seed=11, options={"target": 1})
    while state.to_play is not None:
        state = snag.apply(state, state.legal_actions()[-1])
    assert state.winner in (0, 1)
    assert state.scores[state.winner] >= 1 and state.scores[1 - state.winner] == 0
    with pytest.raises(GameOver):
        snag.apply(state, {"take": "AS"})


def test_the_default_target_is_fifty_and_reached_exactly_or_more():
    state = snag.new_match(seed=5)
    while state.to_play is not None:
        before = state.scores
        state = snag.apply(state, state.legal_actions()[0])
        if state.to_play is not None:
            assert max(state.scores) < 50 or state.scores == before
    assert max(state.scores) >= 50 and state.scores[state.winner] == max(state.scores)


@pytest.mark.parametrize(
    ("action", "reason"),
    [({"bar": True}, "bool"), ({"bar": "9S", "play": "2S"}, "two keys"), (["bar", "9S"], "list")],
)
def test_malformed_actions_are_illegal(action, reason):
    with pytest.raises(IllegalAction):
        snag.apply(new_deal(**TIE_DEAL), action)


def test_an_action_never_changes_the_state_it_is_applied_to():
    state = new_deal(**TIE_DEAL)
    before = snag.observation(state, 0)
    snag.apply(state, {"bar": "9S"})
    assert snag.observation(state, 0) == before


@pytest.mark.parametrize(("target", "message"), [(0, "target"), ("50", "target"), (True, "target")])
def test_a_bad_target_is_rejected(target, message):
    with pytest.raises(ValueError, match=message):
        snag.new_match(seed=1, options={"target": target})


def test_a_short_deck_is_rejected_naming_the_missing_cards():
    with pytest.raises(ValueError, match="missing"):
        snag.new_match(seed=1, options={"decks": [stacked_order()[:51]]})


def test_an_unknown_game_names_the_known_games():
    with pytest.raises(ValueError, match="snag"):
        get_game("bridge")


def test_stacked_decks_run_out_into_seeded_shuffles():
    order = stacked_order(*TIE_DEAL["non_dealer_hand"], *TIE_DEAL["dealer_hand"], *TIE_DEAL["bar"])
    stacked = snag.new_match(seed=3, options={"decks": [order]})
    plain = snag.new_match(seed=3)
    for _ in range(25):
        stacked = snag.apply(stacked, stacked.legal_actions()[0])
        plain = snag.apply(plain, plain.legal_actions()[0])
    assert stacked.orders[0] == tuple(order)
    assert stacked.orders[1] == plain.orders[1], "shuffle 1 depends on (seed, 1) alone"
