"""Rounds scenarios written from ``docs/rules/rounds.md``, played through the facade."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from games.rules import IllegalAction, get_game
from games.rules.rounds.rules import trump_for_trick
from games.rules.rounds.scoring import card_points, match_winner, stage_points
from games.rules.tricks import highest_of_suit_or_trump
from tests.games.rules.stacking import stacked_order

rounds = get_game("rounds")

# Stage 1 from a stacked deck: positions 0-8 seat 0 (the first non-dealer), 9-17 seat 1,
# 18 the trump card (spades), the rest the stock.
CARD_POINTS_DEAL = stacked_order(
    *["AS", "KS", "QS", "JS", "2H", "3C", "4C", "5C", "6C"],
    *["2S", "3H", "KH", "AD", "7D", "8D", "9D", "TD", "JD"],
    "9S",
)
SWEEP_DEAL = stacked_order(
    *["AS", "KS", "QS", "JS", "TS", "3C", "4C", "5C", "6C"],
    *["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH"],
    "2S",
)


def play(state, *cards):
    for card in cards:
        state = rounds.apply(state, {"play": card})
    return state


def play_first_legal(state, *, until=lambda state: False):
    while state.to_play is not None and not until(state):
        state = rounds.apply(state, state.legal_actions()[0])
    return state


def random_match(seed, choices=0, **options):
    """Every state of a match of random legal plays."""
    rng = random.Random(choices)
    state = rounds.new_match(seed, options)
    states = [state]
    while state.to_play is not None:
        state = rounds.apply(state, rng.choice(state.legal_actions()))
        states.append(state)
    return states


def test_stage_one_deals_nine_cards_each_from_the_order_and_turns_up_the_trump_card():
    state = rounds.new_match(1, {"decks": [CARD_POINTS_DEAL]})
    seat_0, seat_1 = rounds.observation(state, 0), rounds.observation(state, 1)
    assert state.dealer == 1 and state.to_play == 0
    assert seat_0["hand"] == CARD_POINTS_DEAL[0:9]
    assert seat_1["hand"] == CARD_POINTS_DEAL[9:18]
    assert seat_0["trump_cards"] == seat_1["trump_cards"] == ["9S"]
    assert seat_0["trump"] == "S"
    assert seat_0["stock_size"] == 33
    assert (seat_0["stage"], seat_0["game_number"]) == (1, 1)


def test_the_follower_must_follow_suit_when_she_can():
    state = play(rounds.new_match(1, {"decks": [CARD_POINTS_DEAL]}), "AS")
    assert state.legal_actions() == [{"play": "2S"}]
    with pytest.raises(IllegalAction):
        rounds.apply(state, {"play": "AD"})


def test_a_player_who_cannot_follow_may_play_any_card():
    state = play(rounds.new_match(1, {"decks": [SWEEP_DEAL]}), "AS")
    assert len(state.legal_actions()) == 9


def test_a_higher_card_of_the_suit_led_wins_and_its_winner_leads_next():
    state = play(rounds.new_match(1, {"decks": [CARD_POINTS_DEAL]}), "AS", "2S", "2H", "KH")
    assert state.last_trick_winner == 1 and state.to_play == 1
    assert state.tricks_won == (1, 1)


def test_a_trump_beats_the_suit_led():
    state = play(rounds.new_match(1, {"decks": [CARD_POINTS_DEAL]}), "AS", "2S", "2H", "KH")
    state = play(state, "AD", "KS")
    assert state.last_trick_winner == 0


def test_a_discard_of_another_suit_loses_even_when_it_is_higher():
    state = play(rounds.new_match(1, {"decks": [CARD_POINTS_DEAL]}), "AS", "2S", "2H", "KH")
    state = play(state, "AD", "3C")
    assert state.last_trick_winner == 1


def test_every_play_is_asked_even_when_only_one_card_is_legal():
    state = play_first_legal(
        rounds.new_match(1, {"decks": [CARD_POINTS_DEAL]}),
        until=lambda state: state.stage == 5 and len(state.hands[state.to_play]) == 1,
    )
    assert len(state.legal_actions()) == 1
    assert state.stage == 5 and state.to_play is not None


def test_card_points_are_counted_per_stage_after_the_fifth_stage():
    state = play(rounds.new_match(1, {"decks": [CARD_POINTS_DEAL]}), "AS", "2S", "2H", "KH")
    state = play(state, "AD", "KS", "QS", "3H", "JS", "7D")
    assert state.stage == 2 and state.scores == [0, 0], "no points before the game ends"
    state = play_first_legal(state, until=lambda state: state.game_number == 2)
    first_stage = rounds.observation(state, 0)["last_game"]["stages"][0]
    assert first_stage["tricks_won"] == [4, 1]
    # Seat 0: AS 4 + 2S 10 + AD 4 + KS 3 + QS 2 + JS 1; seat 1: KH 3 + 2H 10.
    assert first_stage["points"] == [24, 13]


def test_a_stage_sweep_scores_ten_and_no_card_points():
    state = play(rounds.new_match(1, {"decks": [SWEEP_DEAL]}), "AS", "2H", "KS", "3H")
    state = play(state, "QS", "4H", "JS", "5H", "TS", "6H")
    state = play_first_legal(state, until=lambda state: state.game_number == 2)
    first_stage = rounds.observation(state, 0)["last_game"]["stages"][0]
    assert first_stage["tricks_won"] == [5, 0]
    assert "2H" in first_stage["captured"][0]
    assert first_stage["points"] == [10, 0]


def test_the_game_score_is_the_sum_of_its_five_stages():
    state = play_first_legal(
        rounds.new_match(3, {"decks": [SWEEP_DEAL]}), until=lambda state: state.game_number == 2
    )
    last_game = rounds.observation(state, 0)["last_game"]
    assert len(last_game["stages"]) == 5
    for seat in (0, 1):
        total = sum(stage["points"][seat] for stage in last_game["stages"])
        assert last_game["points"][seat] == total == state.scores[seat]


def test_every_finished_stage_of_the_match_is_a_score_part_with_its_points():
    states = random_match(5, choices=2, target=150)
    state = states[-1]
    parts = rounds.score_parts(state)

    assert rounds.score_part == "stage"
    assert [part["deal_number"] for part in parts] == list(range(1, state.deal_number + 1))
    assert [(part["game_number"], part["stage"]) for part in parts[:6]] == [
        (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 1),
    ]  # fmt: skip
    last_game = rounds.observation(state, 0)["last_game"]
    assert [{key: part[key] for key in ("stage", "dealer", "tricks_won", "points")}
            for part in parts[-5:]] == [
        {key: stage[key] for key in ("stage", "dealer", "tricks_won", "points")}
        for stage in last_game["stages"]
    ]  # fmt: skip
    for seat in (0, 1):
        assert sum(part["points"][seat] for part in parts) == state.scores[seat]


def test_a_stage_s_points_are_a_score_part_as_soon_as_it_ends_before_its_game_is_scored():
    state = play(rounds.new_match(1, {"decks": [CARD_POINTS_DEAL]}), "AS", "2S", "2H", "KH")
    assert rounds.score_parts(state) == []
    state = play(state, "AD", "KS", "QS", "3H", "JS", "7D")

    assert rounds.score_parts(state) == [
        {"deal_number": 1, "game_number": 1, "stage": 1, "dealer": 1, "tricks_won": [4, 1],
         "points": [24, 13]},
    ]  # fmt: skip
    assert state.scores == [0, 0]
    assert rounds.observation(state, 1)["last_stages"][0]["points"] == [24, 13]


def test_the_card_and_sweep_values():
    assert card_points(["AS", "KH", "QD", "JC", "2S", "TS", "9H", "3D"]) == 4 + 3 + 2 + 1 + 10
    assert stage_points(5, ["2S", "2H", "AS", "AH"]) == 10
    assert stage_points(4, ["2S", "2H", "AS", "AH"]) == 28
    assert stage_points(0, []) == 0


def test_the_dealer_changes_every_stage_and_keeps_alternating_into_the_next_game():
    stage_starts = {}
    for state in random_match(5, target=150):
        stage_starts.setdefault((state.game_number, state.stage), state)
    starts = list(stage_starts.items())[:6]
    assert [key for key, _ in starts] == [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 1)]
    assert [state.dealer for _, state in starts] == [1, 0, 1, 0, 1, 0]
    assert [state.to_play for _, state in starts] == [0, 1, 0, 1, 0, 1], "non-dealer leads"


def test_stages_two_to_four_deal_five_each_from_the_reshuffled_stock_and_old_trump():
    state = play_first_legal(
        rounds.new_match(1, {"decks": [SWEEP_DEAL]}), until=lambda state: state.stage == 2
    )
    assert state.dealer == 0 and state.to_play == 1
    # Stage 2 reshuffles the 33 stock cards and the old trump card 2S; the order given for
    # shuffle 1 names them first, in the order the stage deals them.
    part = sorted(set(SWEEP_DEAL[19:]) | {"2S"})
    chosen = [*part[:5], *part[5:10], part[10]]
    stage_2 = stacked_order(*chosen)
    replayed = play_first_legal(
        rounds.new_match(1, {"decks": [SWEEP_DEAL, stage_2]}),
        until=lambda state: state.stage == 2,
    )
    seat_0, seat_1 = rounds.observation(replayed, 0), rounds.observation(replayed, 1)
    assert seat_1["hand"][-5:] == chosen[:5], "the stage's non-dealer gets the first five"
    assert seat_0["hand"][-5:] == chosen[5:10]
    assert len(seat_0["hand"]) == len(seat_1["hand"]) == 9
    assert seat_0["trump_cards"] == [chosen[10]]
    assert seat_0["stock_size"] == 34 - 11
    assert frozenset(replayed.stock) == frozenset(part[11:])


def test_each_stage_turns_up_a_new_trump_card_and_the_stock_shrinks_to_three():
    seen = {}
    for state in random_match(11):
        if state.game_number == 1 and state.stage not in seen:
            seen[state.stage] = (state.trump_cards, len(state.stock), state.hands)
    assert [stock for _, stock, _ in seen.values()] == [33, 23, 13, 3, 0]
    assert [len(cards) for cards, _, _ in seen.values()] == [1, 1, 1, 1, 2]
    assert all(len(hand) == 9 for stage in (1, 2, 3, 4) for hand in seen[stage][2])
    assert all(len(hand) == 5 for hand in seen[5][2])
    trump_cards = [cards[0] for cards, _, _ in seen.values()]
    assert len(set(trump_cards)) == 5


def test_stage_five_deals_one_card_each_and_turns_up_two_trump_cards():
    at_stage_5 = play_first_legal(
        rounds.new_match(2, {"decks": [SWEEP_DEAL]}), until=lambda state: state.stage == 5
    )
    last_four = sorted(at_stage_5.stage_deck)
    assert len(last_four) == 4
    chosen = [last_four[3], last_four[2], last_four[1], last_four[0]]
    decks = [*at_stage_5.orders[:4], stacked_order(*chosen)]
    state = play_first_legal(
        rounds.new_match(2, {"decks": decks}), until=lambda state: state.stage == 5
    )
    non_dealer = 1 - state.dealer
    assert state.hands[non_dealer][-1] == chosen[0]
    assert state.hands[state.dealer][-1] == chosen[1]
    assert state.trump_cards == (chosen[2], chosen[3])
    assert rounds.observation(state, 0)["trump_cards"] == [chosen[2], chosen[3]]
    assert state.stock == ()


def test_the_first_stage_5_trump_card_rules_tricks_1_to_4_and_the_second_trick_5():
    assert trump_for_trick(("AS", "2H"), 0) == "S"
    assert trump_for_trick(("AS", "2H"), 3) == "S"
    assert trump_for_trick(("AS", "2H"), 4) == "H"
    assert trump_for_trick(("AS",), 4) == "S"
    decided_by_the_second_card = 0
    for seed in range(40):
        for before, after in itertools.pairwise(random_match(seed, target=1)):
            if before.stage != 5 or before.tricks_played != 4 or before.trick == ():
                continue
            first, second = before.trump_cards
            assert before.trump == second[1]
            (leader, led), (_, followed) = after.last_trick
            expected = 1 - leader if highest_of_suit_or_trump(led, followed, second[1]) else leader
            assert after.last_trick_winner == expected
            with_first = highest_of_suit_or_trump(led, followed, first[1])
            decided_by_the_second_card += with_first != (expected != leader)
    assert decided_by_the_second_card > 0, "no sample where the two trump cards disagree"


def test_the_default_target_is_200_and_the_winner_has_reached_it_with_the_higher_score():
    assert rounds.describe()["options"][0]["default"] == 200
    final = random_match(7)[-1]
    assert final.winner is not None
    assert final.scores[final.winner] >= 200
    assert final.scores[final.winner] > final.scores[1 - final.winner]


def test_a_game_below_the_target_is_followed_by_another_game():
    states = random_match(8, target=10_000)[:400]
    assert any(state.game_number == 2 for state in states)
    first_of_game_2 = next(state for state in states if state.game_number == 2)
    assert first_of_game_2.winner is None and first_of_game_2.scores != [0, 0]


def test_the_match_is_decided_only_by_differing_scores_at_the_target():
    assert match_winner((200, 150), 200) == 0
    assert match_winner((190, 230), 200) == 1
    assert match_winner((210, 210), 200) is None, "equal scores play another game"
    assert match_winner((199, 150), 200) is None


def test_a_target_of_1_ends_the_match_after_the_first_game_whose_scores_differ():
    for seed in range(10):
        states = random_match(seed, target=1)
        final = states[-1]
        assert final.winner is not None
        for state in states:
            if state.game_number > 1 and state.stage == 1 and state.tricks_played == 0:
                assert state.scores[0] == state.scores[1], "a decided match went on"


@pytest.mark.parametrize("target", [0, -5, "200", 1.5, True])
def test_a_bad_target_is_rejected_naming_the_option(target):
    with pytest.raises(ValueError, match="target"):
        rounds.new_match(1, {"target": target})


def test_the_view_never_names_the_opponents_cards_or_the_stock():
    for state in random_match(13)[::7]:
        for seat in (0, 1):
            view = rounds.observation(state, seat)
            shown = json.dumps({k: v for k, v in view.items() if not k.startswith("last_")})
            hidden = set(state.hands[1 - seat]) | set(state.stock)
            assert not [card for card in hidden if f'"{card}"' in shown]
            assert view["opponent_hand_size"] == len(state.hands[1 - seat])
