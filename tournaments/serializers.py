from __future__ import annotations

from rest_framework import serializers

from .models import Entrant, Tournament


class EntrantSerializer(serializers.ModelSerializer):
    bot = serializers.CharField(source="version.bot.name")
    version = serializers.IntegerField(source="version.number")
    version_id = serializers.IntegerField()

    class Meta:
        model = Entrant
        fields = ["id", "position", "bot", "version", "version_id"]


class TournamentSerializer(serializers.ModelSerializer):
    class Meta:
        model = Tournament
        fields = [
            "id",
            "name",
            "game",
            "options",
            "format",
            "sets_per_pair",
            "status",
            "decision_timeout",
            "created_at",
            "started_at",
            "finished_at",
        ]


class TournamentDetailSerializer(TournamentSerializer):
    entrants = EntrantSerializer(many=True, read_only=True, source="entrants_list")
    matches = serializers.DictField(child=serializers.IntegerField(), source="match_counts")

    class Meta(TournamentSerializer.Meta):
        fields = [*TournamentSerializer.Meta.fields, "entrants", "matches"]


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    entrant = serializers.IntegerField()
    bot = serializers.CharField()
    version = serializers.IntegerField()
    played = serializers.IntegerField()
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    head_to_head = serializers.IntegerField()
    points_difference = serializers.IntegerField()
    points_for = serializers.IntegerField()
    points_against = serializers.IntegerField()
