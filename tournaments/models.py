"""Tournaments, their entrants and the matches they schedule."""

from __future__ import annotations

from django.db import models


class Tournament(models.Model):
    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin"

    class Status(models.TextChoices):
        DRAFT = "draft"
        SCHEDULED = "scheduled"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    name = models.CharField(max_length=120)
    game = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    format = models.CharField(max_length=32, choices=Format.choices, default=Format.ROUND_ROBIN)
    #: Duplicate sets each pair plays; a set is two matches on one seed with seats swapped.
    sets_per_pair = models.PositiveSmallIntegerField(default=1)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    seed = models.BigIntegerField()
    decision_timeout = models.FloatField(default=1.0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"


class Entrant(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="entries")
    #: Entry order, from 1; the last tie-break of the standings.
    position = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "version"], name="entrant_unique_version"
            ),
            models.UniqueConstraint(
                fields=["tournament", "position"], name="entrant_unique_position"
            ),
        ]
        ordering = ["tournament", "position"]

    def __str__(self) -> str:
        return f"{self.tournament}: #{self.position} {self.version}"


class TournamentMatch(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="matches")
    match = models.OneToOneField(
        "games.Match", on_delete=models.PROTECT, related_name="tournament_match"
    )
    round = models.PositiveIntegerField()
    #: Matches of one duplicate set share a seed and swap seats.
    set_number = models.PositiveIntegerField()

    class Meta:
        ordering = ["tournament", "round", "set_number", "match"]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.round} match {self.match_id}"
