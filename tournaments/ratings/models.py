"""The rating models: a game's leaderboard, its ratings, and their history of updates.

They belong to the ``tournaments`` app (its ``models`` imports this module), so their
tables and migrations are the app's. Only ``tournaments.ratings.services`` writes them;
everyone reads them through ``tournaments.ratings.selectors``.
"""

from __future__ import annotations

from django.db import models

from .maths import Skill


class Leaderboard(models.Model):
    """The ratings of one game; its row orders and serialises the game's rating updates."""

    game = models.CharField(max_length=32, unique=True)
    #: The seq of the last rating update applied (``RatingUpdate.seq``).
    last_seq = models.PositiveIntegerField(default=0)
    #: Updates up to this seq were wiped by a reset and no longer count.
    reset_after_seq = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["game"]

    def __str__(self) -> str:
        return f"{self.game} ratings"


class Rating(models.Model):
    leaderboard = models.ForeignKey(Leaderboard, on_delete=models.CASCADE, related_name="ratings")
    version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="ratings")
    mu = models.FloatField()
    sigma = models.FloatField()
    #: ``mu - 3 sigma``, stored to order the leaderboard in the database.
    conservative = models.FloatField()
    sets = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["leaderboard", "version"], name="rating_unique_version")
        ]
        ordering = ["leaderboard", "-conservative", "id"]

    def __str__(self) -> str:
        return f"{self.version}: {self.conservative:.2f}"


class RatingUpdate(models.Model):
    """One duplicate set applied to a game's ratings; ``seq`` is the order they apply in."""

    leaderboard = models.ForeignKey(Leaderboard, on_delete=models.PROTECT, related_name="updates")
    seq = models.PositiveIntegerField()
    duplicate_set = models.OneToOneField(
        "tournaments.DuplicateSet", on_delete=models.PROTECT, related_name="rating_update"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["leaderboard", "seq"], name="rating_update_unique_seq")
        ]
        ordering = ["leaderboard", "seq"]

    def __str__(self) -> str:
        return f"{self.leaderboard} #{self.seq}"


class RatingChange(models.Model):
    """A bot version's rating before and after one update: its rating history."""

    update = models.ForeignKey(RatingUpdate, on_delete=models.CASCADE, related_name="changes")
    version = models.ForeignKey(
        "bots.BotVersion", on_delete=models.PROTECT, related_name="rating_changes"
    )
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["update", "version"], name="rating_change_unique")
        ]
        ordering = ["update", "version"]

    def __str__(self) -> str:
        return f"{self.update}: {self.version}"

    @property
    def conservative_after(self) -> float:
        return Skill(self.mu_after, self.sigma_after).conservative
