"""A worker task's matches played as sets (``matches.play.matches_play_as_sets``): the
sealing rule's order, each match with the bots of its own seats."""

from __future__ import annotations

import pytest

from matches.models import Match
from matches.play import matches_play_as_sets
from matches.selectors import match_event_records

from .test_match_log import new_match, version

pytestmark = pytest.mark.django_db


def test_a_tasks_first_seatings_are_played_before_its_second_ones():
    a, b = version("a", "random"), version("b", "random")
    sets = [(new_match(seed, [a, b]), new_match(seed, [b, a])) for seed in (1, 2, 3)]
    ids = [match.pk for pair in sets for match in pair]

    played = list(matches_play_as_sets(match_ids=ids))

    assert played == [pair[0].pk for pair in sets] + [pair[1].pk for pair in sets]
    assert all(Match.objects.get(pk=pk).status == Match.Status.FINISHED for pk in ids)


def test_a_set_whose_first_seating_is_done_plays_its_second_with_its_own_seats():
    a, b = version("a", "random"), version("b", "random")
    first, alone = new_match(1, [a, b]), new_match(2, [b, a])
    twin = new_match(1, [b, a])

    played = list(matches_play_as_sets(match_ids=[first.pk, twin.pk, alone.pk]))

    # The lone match of deal 2 has b in seat 0: it is a second seating, played with deal
    # 1's, by processes seated as its seats say.
    assert played == [first.pk, twin.pk, alone.pk]
    for match in (first, twin, alone):
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED
        players = match_event_records(match=match)[0].payload["players"]
        assert [p["version_id"] for p in players] == [
            seat.version_id for seat in match.seats.order_by("seat")
        ]


def test_one_version_in_both_seats_plays_a_deals_second_match_as_its_second_seating():
    a = version("a", "random")
    one, two = new_match(5, [a, a]), new_match(5, [a, a])
    other = new_match(6, [a, a])

    played = list(matches_play_as_sets(match_ids=[one.pk, two.pk, other.pk]))

    assert played == [one.pk, other.pk, two.pk]


def test_a_task_of_two_pairings_is_refused():
    a, b, c = version("a", "random"), version("b", "random"), version("c", "random")
    with pytest.raises(ValueError, match="a task plays one pairing"):
        list(matches_play_as_sets(match_ids=[new_match(1, [a, b]).pk, new_match(1, [a, c]).pk]))
