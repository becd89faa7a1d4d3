"""Rating writes: applying a finished duplicate set, recomputing a game's ratings, resetting them.

Each game has a ``Leaderboard`` row. Rating a set takes the next ``seq`` of that row by a
conditional update, then reads the two ratings and writes the new ones in the same
transaction, so the sets of one game are applied one at a time and ``RatingUpdate.seq``
is the order they were applied in. A recomputation replays those updates in ``seq`` order
from the prior, reading every set's result from the match event logs again, and therefore
gives exactly the stored ratings, bit for bit (a float survives the database unchanged).

This module is the only writer of the rating rows (``tests/test_layers.py`` checks it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F

from ..audit import manual_change_record
from ..formats import format_spec
from ..models import DuplicateSet, ManualChange
from ..selectors import set_results_from_logs
from . import selectors
from .maths import PRIOR, RatedSet, Skill, skills_after_set, skills_replay
from .models import Leaderboard, Rating, RatingChange, RatingUpdate

#: Times a rating update re-reads and retries after another set of its game took the seq.
APPLY_ATTEMPTS = 20


def leaderboard_for(*, game_id: str) -> Leaderboard:
    leaderboard, _ = Leaderboard.objects.get_or_create(game=game_id)
    return leaderboard


def rating_set_apply(*, set_id: int) -> bool:
    """Apply one finished duplicate set to its game's ratings; False if it was already rated."""
    duplicate_set = DuplicateSet.objects.select_related(
        "pairing__tournament", "pairing__first", "pairing__second"
    ).get(id=set_id)
    if duplicate_set.status != DuplicateSet.Status.FINISHED:
        raise ValueError(f"{duplicate_set} is not finished; only finished sets are rated")
    if not format_spec(duplicate_set.pairing.tournament.format).rated:
        return False  # a challenge or a version test leaves the ratings alone
    leaderboard = leaderboard_for(game_id=duplicate_set.pairing.tournament.game)
    for _ in range(APPLY_ATTEMPTS):
        seq = Leaderboard.objects.values_list("last_seq", flat=True).get(id=leaderboard.pk)
        with transaction.atomic():
            # Conditional update: sets of one game finishing at once are rated one at a
            # time; the loser of the race re-reads and takes the next seq.
            taken = Leaderboard.objects.filter(id=leaderboard.pk, last_seq=seq).update(
                last_seq=F("last_seq") + 1
            )
            if taken != 1:
                continue
            if RatingUpdate.objects.filter(duplicate_set_id=set_id).exists():
                transaction.set_rollback(True)
                return False
            _apply(leaderboard, seq + 1, duplicate_set)
        return True
    raise RuntimeError(f"could not take a rating seq for {duplicate_set} in {APPLY_ATTEMPTS} tries")


def _apply(leaderboard: Leaderboard, seq: int, duplicate_set: DuplicateSet) -> None:
    pairing = duplicate_set.pairing
    versions = (pairing.first.version_id, pairing.second.version_id)
    result = set_results_from_logs(set_ids=[duplicate_set.pk])[duplicate_set.pk]
    stored = {
        rating.version_id: rating
        for rating in Rating.objects.filter(leaderboard=leaderboard, version_id__in=versions)
    }
    before = [_skill(stored.get(version)) for version in versions]
    after = skills_after_set(before[0], before[1], result.outcome)
    update = RatingUpdate.objects.create(
        leaderboard=leaderboard, seq=seq, duplicate_set=duplicate_set
    )
    for version, old, new in zip(versions, before, after, strict=True):
        _rating_store(leaderboard, version, stored.get(version), new)
        RatingChange.objects.create(
            update=update,
            version_id=version,
            mu_before=old.mu,
            sigma_before=old.sigma,
            mu_after=new.mu,
            sigma_after=new.sigma,
        )


def _skill(rating: Rating | None) -> Skill:
    return PRIOR if rating is None else Skill(rating.mu, rating.sigma)


def _rating_store(
    leaderboard: Leaderboard, version_id: int, rating: Rating | None, skill: Skill
) -> None:
    if rating is None:
        Rating.objects.create(
            leaderboard=leaderboard,
            version_id=version_id,
            mu=skill.mu,
            sigma=skill.sigma,
            conservative=skill.conservative,
            sets=1,
        )
        return
    Rating.objects.filter(id=rating.pk).update(
        mu=skill.mu, sigma=skill.sigma, conservative=skill.conservative, sets=F("sets") + 1
    )


def ratings_apply_pending() -> int:
    """Rate the finished sets not rated yet (their worker died first), oldest first."""
    pending = selectors.duplicate_sets_unrated()
    return sum(rating_set_apply(set_id=set_id) for set_id in pending)


@dataclass(frozen=True)
class Recomputation:
    game: str
    updates: int
    ratings: int
    #: Bot versions whose stored rating differed from the recomputed one (before rewriting).
    differing: tuple[int, ...]

    @property
    def identical(self) -> bool:
        return not self.differing


def ratings_recompute(
    *, game_id: str, user: Any = None, reason: str = "", write: bool = True
) -> Recomputation:
    """Replay the game's rating updates from the prior and the event logs; compare, rewrite.

    With ``write=False`` nothing is changed: the result says whether the stored ratings are
    exactly what the logs give.
    """
    leaderboard = leaderboard_for(game_id=game_id)
    with transaction.atomic():
        # Lock the leaderboard: a set rated during the replay would be overwritten.
        leaderboard = Leaderboard.objects.select_for_update().get(id=leaderboard.pk)
        recomputed, history = _replay(leaderboard)
        stored = {r.version_id: r for r in Rating.objects.filter(leaderboard=leaderboard)}
        differing = tuple(
            sorted(
                version
                for version in recomputed.keys() | stored.keys()
                if _stored_skill(stored.get(version)) != recomputed.get(version)
            )
        )
        if write:
            _rewrite(leaderboard, recomputed, stored, history)
            manual_change_record(
                user=user,
                action=ManualChange.Action.RATINGS_RECOMPUTE,
                reason=reason,
                game=game_id,
                detail={"updates": len(history), "differing_versions": list(differing)},
            )
    return Recomputation(game_id, len(history), len(recomputed), differing)


def _stored_skill(rating: Rating | None) -> Skill | None:
    return None if rating is None else Skill(rating.mu, rating.sigma)


def _replay(
    leaderboard: Leaderboard,
) -> tuple[dict[int, Skill], list[tuple[RatingUpdate, RatedSet]]]:
    updates = list(
        RatingUpdate.objects.filter(leaderboard=leaderboard, seq__gt=leaderboard.reset_after_seq)
        .select_related("duplicate_set__pairing__first", "duplicate_set__pairing__second")
        .order_by("seq")
    )
    results = set_results_from_logs(set_ids=[u.duplicate_set_id for u in updates])
    history = []
    for update in updates:
        pairing = update.duplicate_set.pairing
        outcome = results[update.duplicate_set_id].outcome
        history.append(
            (update, RatedSet(pairing.first.version_id, pairing.second.version_id, outcome))
        )
    return skills_replay(rated for _, rated in history), history


def _rewrite(
    leaderboard: Leaderboard,
    recomputed: dict[int, Skill],
    stored: dict[int, Rating],
    history: list[tuple[RatingUpdate, RatedSet]],
) -> None:
    sets: dict[int, int] = {}
    for _, rated in history:
        sets[rated.first] = sets.get(rated.first, 0) + 1
        sets[rated.second] = sets.get(rated.second, 0) + 1
    Rating.objects.filter(leaderboard=leaderboard).exclude(version_id__in=recomputed).delete()
    for version, skill in recomputed.items():
        values = {"mu": skill.mu, "sigma": skill.sigma, "conservative": skill.conservative}
        Rating.objects.update_or_create(
            leaderboard=leaderboard, version_id=version, defaults={**values, "sets": sets[version]}
        )
    _rewrite_history(history)


def _rewrite_history(history: list[tuple[RatingUpdate, RatedSet]]) -> None:
    """Make every stored before/after pair agree with the replay (a no-op when identical)."""
    changes = {
        (change.update_id, change.version_id): change
        for change in RatingChange.objects.filter(update__in=[update for update, _ in history])
    }
    skills: dict[int, Skill] = {}
    changed = []
    for update, rated in history:
        before = (skills.get(rated.first, PRIOR), skills.get(rated.second, PRIOR))
        after = skills_after_set(before[0], before[1], rated.outcome)
        for version, old, new in zip((rated.first, rated.second), before, after, strict=True):
            skills[version] = new
            change = changes[(update.pk, version)]
            values = (old.mu, old.sigma, new.mu, new.sigma)
            if (
                change.mu_before,
                change.sigma_before,
                change.mu_after,
                change.sigma_after,
            ) != values:
                change.mu_before, change.sigma_before, change.mu_after, change.sigma_after = values
                changed.append(change)
    RatingChange.objects.bulk_update(
        changed, ["mu_before", "sigma_before", "mu_after", "sigma_after"]
    )


def ratings_reset(*, game_id: str, user: Any, reason: str) -> int:
    """Wipe a game's ratings: every bot starts again from the prior; the history is kept.

    Updates applied so far stop counting (a recomputation starts after them). Returns the
    number of ratings wiped.
    """
    leaderboard = leaderboard_for(game_id=game_id)
    with transaction.atomic():
        # Lock the leaderboard: a set rated during the reset would survive it half-applied.
        leaderboard = Leaderboard.objects.select_for_update().get(id=leaderboard.pk)
        Leaderboard.objects.filter(id=leaderboard.pk).update(reset_after_seq=leaderboard.last_seq)
        wiped, _ = Rating.objects.filter(leaderboard=leaderboard).delete()
        manual_change_record(
            user=user,
            action=ManualChange.Action.RATINGS_RESET,
            reason=reason,
            game=game_id,
            detail={"ratings_wiped": wiped, "reset_after_seq": leaderboard.last_seq},
        )
    return wiped
