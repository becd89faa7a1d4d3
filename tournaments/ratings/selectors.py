"""Rating reads: the one way seeding, the ladder, the pages and the API read the ratings.

Each runs a fixed number of queries, whatever the size.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Count, QuerySet

from ..formats import format_names
from ..models import DuplicateSet
from .maths import Skill
from .models import Rating, RatingChange


def rating_skills(*, game_id: str, version_ids: Sequence[int]) -> dict[int, Skill]:
    """The rated versions among ``version_ids`` with their skill in the game; an unrated
    version is missing (its skill is ``maths.PRIOR``)."""
    rows = Rating.objects.filter(leaderboard__game=game_id, version_id__in=version_ids)
    return {
        version: Skill(mu, sigma)
        for version, mu, sigma in rows.values_list("version_id", "mu", "sigma")
    }


def leaderboard(*, game_id: str) -> QuerySet[Rating]:
    """The game's ratings, best conservative rating first."""
    return (
        Rating.objects.filter(leaderboard__game=game_id)
        .select_related("version__bot", "leaderboard")
        .order_by("-conservative", "id")
    )


def rated_counts() -> dict[str, int]:
    """Game -> how many bot versions have a rating in it."""
    return dict(Rating.objects.values_list("leaderboard__game").annotate(count=Count("id")))


def bot_ratings(*, bot_id: int) -> dict[int, Rating]:
    """Version -> its rating (with its leaderboard), for the rated versions of a bot."""
    ratings = Rating.objects.filter(version__bot_id=bot_id).select_related("leaderboard")
    return {rating.version_id: rating for rating in ratings}


def rating_history(*, bot_id: int) -> QuerySet[RatingChange]:
    """Every rating change of every version of a bot, in the order they were applied."""
    return (
        RatingChange.objects.filter(version__bot_id=bot_id)
        .select_related(
            "version",
            "update__leaderboard",
            "update__duplicate_set__pairing__tournament",
            "update__duplicate_set__pairing__first__version__bot",
            "update__duplicate_set__pairing__second__version__bot",
        )
        .order_by("update__leaderboard__game", "update__seq")
    )


def duplicate_sets_unrated() -> list[int]:
    """Finished sets not rated yet, in the order they finished."""
    return list(
        DuplicateSet.objects.filter(status=DuplicateSet.Status.FINISHED, rating_update__isnull=True)
        .filter(pairing__tournament__format__in=format_names(rated=True))
        .order_by("finished_at", "id")
        .values_list("id", flat=True)
    )
