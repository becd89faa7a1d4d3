"""Ratings from finished duplicate sets: incremental, recomputed from the logs, reset."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from games.events import EventType
from matches.selectors import match_event_records
from tournaments.duplicate import SetMatch, set_result
from tournaments.models import ManualChange, TournamentMatch
from tournaments.ratings.maths import PRIOR, RatedSet, skills_replay
from tournaments.ratings.models import Rating, RatingChange, RatingUpdate
from tournaments.ratings.services import ratings_recompute, ratings_reset

from ..conftest import play_all, start, strategy_bots, tournament_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated_field(db):
    """Five bots after two Swiss rounds (4 sets, 2 byes), three after a round robin (3 sets)."""
    versions = strategy_bots(5)
    play_all(start(tournament_with(versions, format="swiss", rounds=2, secret="one")))
    play_all(start(tournament_with(versions[1:4], secret="two")))
    return versions


def stored_bits():
    return {
        rating.version_id: (rating.mu.hex(), rating.sigma.hex(), rating.conservative.hex())
        for rating in Rating.objects.all()
    }


def replayed_from_the_logs():
    """Ratings computed here from scratch: the updates' order and the match_finished events."""
    sets = []
    for update in RatingUpdate.objects.order_by("seq").select_related(
        "duplicate_set__pairing__first", "duplicate_set__pairing__second"
    ):
        links = TournamentMatch.objects.filter(
            duplicate_set=update.duplicate_set, replaced_at__isnull=True
        )
        matches = []
        for link in links:
            final = match_event_records(match=link.match)[-1]
            assert final.type == EventType.MATCH_FINISHED
            matches.append(
                SetMatch(link.first_seat, final.payload["winner"], final.payload["scores"])
            )
        pairing = update.duplicate_set.pairing
        outcome = set_result(matches).outcome
        sets.append(RatedSet(pairing.first.version_id, pairing.second.version_id, outcome))
    return {
        version: (skill.mu.hex(), skill.sigma.hex(), skill.conservative.hex())
        for version, skill in skills_replay(sets).items()
    }


def test_every_finished_set_is_rated_once_in_the_order_it_finished(rated_field):
    updates = list(RatingUpdate.objects.order_by("seq"))
    assert len(updates) == 4 + 3
    assert [u.seq for u in updates] == list(range(1, 8))
    finished = [u.duplicate_set.finished_at for u in updates]
    assert finished == sorted(finished)
    assert RatingChange.objects.count() == 2 * 7
    for rating in Rating.objects.all():
        assert rating.sets == RatingChange.objects.filter(version=rating.version).count()


def test_ratings_recomputed_from_scratch_equal_the_incremental_ones_bit_for_bit(rated_field):
    incremental = stored_bits()
    assert len(incremental) == 5
    assert replayed_from_the_logs() == incremental
    result = ratings_recompute(game_id="snag", write=False)
    assert result.identical and result.updates == 7
    ratings_recompute(game_id="snag", reason="check")
    assert stored_bits() == incremental


def test_a_rating_changed_behind_the_logs_back_is_found_and_rewritten(rated_field):
    honest = stored_bits()
    tampered = Rating.objects.first()
    Rating.objects.filter(pk=tampered.pk).update(mu=tampered.mu + 1e-9)
    admin = User.objects.create_user("admin")
    result = ratings_recompute(game_id="snag", user=admin, reason="audit")
    assert result.differing == (tampered.version_id,)
    assert stored_bits() == honest
    change = ManualChange.objects.get()
    assert (change.user, change.action, change.reason) == (admin, "ratings_recompute", "audit")
    assert change.detail["differing_versions"] == [tampered.version_id]


def test_the_recompute_command_checks_and_fails_on_a_difference(rated_field, capsys):
    call_command("ratings_recompute", "--game", "snag", "--check")
    assert "7 updates replayed, 5 ratings: identical bit for bit" in capsys.readouterr().out
    Rating.objects.filter(pk=Rating.objects.first().pk).update(sigma=1.0)
    with pytest.raises(CommandError, match="1 rating"):
        call_command("ratings_recompute", "--game", "snag", "--check")


def test_a_reset_starts_everyone_again_from_the_prior_and_keeps_the_history(rated_field):
    admin = User.objects.create_user("admin")
    assert ratings_reset(game_id="snag", user=admin, reason="new season") == 5
    assert not Rating.objects.exists()
    assert RatingChange.objects.count() == 14, "history is kept"
    play_all(start(tournament_with(rated_field[:2], secret="three")))
    after = {rating.version_id: rating for rating in Rating.objects.all()}
    first_change = RatingChange.objects.filter(update__seq=8).first()
    assert (first_change.mu_before, first_change.sigma_before) == (PRIOR.mu, PRIOR.sigma)
    assert set(after) == {rated_field[0].pk, rated_field[1].pk}
    result = ratings_recompute(game_id="snag", write=False)
    assert result.identical and result.updates == 1
    assert ManualChange.objects.filter(action="ratings_reset", reason="new season").exists()


def test_a_new_tournament_is_seeded_by_the_ratings(rated_field):
    best_first = list(Rating.objects.order_by("-conservative").values_list("version_id", flat=True))
    tournament = start(tournament_with(list(reversed(rated_field)), format="single_elimination"))
    seeded = list(
        tournament.entrants.order_by("bracket_position").values_list("version_id", flat=True)
    )
    assert seeded == best_first
