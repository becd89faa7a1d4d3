"""Twins never overlap: a match is claimed only while no other match of its deal runs."""

from __future__ import annotations

from matches import services
from matches.models import Match
from matches.play import match_play

from .test_visibility import owned_version, twins


def test_a_match_is_not_claimed_while_its_twin_is_running(db):
    first, second = owned_version(None, "snag", "a"), owned_version(None, "snag", "b")
    playing, twin = twins("snag", 11, first, second)
    assert services.match_claim(match_id=playing.pk, worker="one")

    assert not services.match_claim(match_id=twin.pk, worker="two")
    assert match_play(match_id=twin.pk) is None
    assert Match.objects.get(pk=twin.pk).status == Match.Status.PENDING


def test_a_twin_is_claimed_once_the_other_match_of_its_deal_ended(db):
    first, second = owned_version(None, "snag", "a"), owned_version(None, "snag", "b")
    played, twin = twins("snag", 12, first, second)
    match_play(match_id=played.pk)
    played.refresh_from_db()

    match_play(match_id=twin.pk)

    twin.refresh_from_db()
    assert played.status == twin.status == Match.Status.FINISHED
    assert twin.started_at >= played.finished_at


def test_a_failed_twin_does_not_hold_back_its_deal(db):
    first, second = owned_version(None, "snag", "a"), owned_version(None, "snag", "b")
    failed, twin = twins("snag", 13, first, second)
    assert services.match_claim(match_id=failed.pk, worker="one")
    assert services.match_fail(match_id=failed.pk)

    assert services.match_claim(match_id=twin.pk, worker="two")


def test_matches_of_other_deals_run_side_by_side(db):
    first, second = owned_version(None, "snag", "a"), owned_version(None, "snag", "b")
    one, _ = twins("snag", 14, first, second)
    other, _ = twins("snag", 15, first, second)
    assert services.match_claim(match_id=one.pk, worker="one")

    assert services.match_claim(match_id=other.pk, worker="two")
