"""The ratings API's serialisers: a leaderboard row and one change of a rating history."""

from __future__ import annotations

from rest_framework import serializers

from ..models import DuplicateSet, Entrant
from .models import Rating, RatingChange


class RatingSerializer(serializers.ModelSerializer):
    game = serializers.CharField(source="leaderboard.game")
    bot = serializers.CharField(source="version.bot.name")
    bot_id = serializers.IntegerField(source="version.bot_id")
    version = serializers.IntegerField(source="version.number")
    version_id = serializers.IntegerField()
    rating = serializers.FloatField(source="conservative", help_text="mu - 3 sigma")
    rank = serializers.IntegerField()

    class Meta:
        model = Rating
        fields = [
            "rank",
            "game",
            "bot",
            "bot_id",
            "version",
            "version_id",
            "rating",
            "mu",
            "sigma",
            "sets",
            "updated_at",
        ]


class RatingChangeSerializer(serializers.ModelSerializer):
    game = serializers.CharField(source="update.leaderboard.game")
    seq = serializers.IntegerField(source="update.seq")
    counted = serializers.SerializerMethodField(help_text="False once a reset wiped it.")
    version = serializers.IntegerField(source="version.number")
    version_id = serializers.IntegerField()
    tournament = serializers.IntegerField(source="update.duplicate_set.pairing.tournament_id")
    set = serializers.SerializerMethodField()
    opponent = serializers.SerializerMethodField()
    outcome = serializers.SerializerMethodField(help_text="win, loss or draw for this bot.")
    rating_after = serializers.FloatField(source="conservative_after")
    created_at = serializers.DateTimeField(source="update.created_at")

    class Meta:
        model = RatingChange
        fields = [
            "game",
            "seq",
            "counted",
            "version",
            "version_id",
            "tournament",
            "set",
            "opponent",
            "outcome",
            "mu_before",
            "sigma_before",
            "mu_after",
            "sigma_after",
            "rating_after",
            "created_at",
        ]

    def get_counted(self, change: RatingChange) -> bool:
        return change.update.seq > change.update.leaderboard.reset_after_seq

    def get_set(self, change: RatingChange) -> str:
        return change.update.duplicate_set.key

    def get_opponent(self, change: RatingChange) -> str:
        opponent = self._sides(change)[1]
        return f"{opponent.version.bot.name} v{opponent.version.number}"

    def get_outcome(self, change: RatingChange) -> str:
        outcome = change.update.duplicate_set.outcome
        if outcome == DuplicateSet.Outcome.DRAWN:
            return "draw"
        is_first = self._sides(change)[0] == change.update.duplicate_set.pairing.first
        return "win" if (outcome == DuplicateSet.Outcome.FIRST) == is_first else "loss"

    def _sides(self, change: RatingChange) -> tuple[Entrant, Entrant]:
        pairing = change.update.duplicate_set.pairing
        if pairing.first.version_id == change.version_id:
            return pairing.first, pairing.second
        return pairing.second, pairing.first
