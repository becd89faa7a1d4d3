"""Bots and their immutable versions."""

from __future__ import annotations

from django.db import models


class Bot(models.Model):
    """A named bot for one game. Built-in bots ship with Baize and have no owner."""

    name = models.SlugField(max_length=64)
    game = models.CharField(max_length=32)
    owner = models.ForeignKey(
        "auth.User", null=True, blank=True, on_delete=models.PROTECT, related_name="bots"
    )
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "name"], name="bot_unique_name")]
        ordering = ["game", "name"]

    def __str__(self) -> str:
        return f"{self.game}/{self.name}"


class BotVersion(models.Model):
    """One immutable version of a bot's code; matches record which version played."""

    class Status(models.TextChoices):
        PENDING = "pending"
        READY = "ready"
        REJECTED = "rejected"

    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    #: Name of a program under ``bots/builtin/`` for built-in bots; empty for uploads.
    builtin = models.CharField(max_length=64, blank=True)
    content_hash = models.CharField(max_length=64)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    status_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="bot_version_unique_number")
        ]
        ordering = ["bot", "number"]

    def __str__(self) -> str:
        return f"{self.bot} v{self.number}"


class MatchSeat(models.Model):
    """Which bot version sits in which seat of a match."""

    match = models.ForeignKey("games.Match", on_delete=models.PROTECT, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="seats")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="match_seat_unique"),
            models.CheckConstraint(condition=models.Q(seat__in=[0, 1]), name="match_seat_0_or_1"),
        ]
        ordering = ["match", "seat"]

    def __str__(self) -> str:
        return f"match {self.match_id} seat {self.seat}: {self.version}"
