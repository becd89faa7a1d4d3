from __future__ import annotations

from rest_framework import serializers

from .models import Match, MatchEvent


class MatchSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    bot = serializers.CharField(source="version.bot.name")
    version = serializers.IntegerField(source="version.number")
    version_id = serializers.IntegerField()


class MatchSerializer(serializers.ModelSerializer):
    seats = MatchSeatSerializer(many=True, read_only=True)

    class Meta:
        model = Match
        fields = [
            "id",
            "game",
            "rules_version",
            "options",
            "seed",
            "status",
            "winner",
            "scores",
            "result_reason",
            "seats",
            "created_at",
            "started_at",
            "finished_at",
        ]


class MatchEventSerializer(serializers.ModelSerializer):
    """An event as stored; with ``hide_card_orders`` in the context, shuffles show no cards."""

    class Meta:
        model = MatchEvent
        fields = ["seq", "type", "payload", "hash", "created_at"]

    def to_representation(self, instance: MatchEvent) -> dict:
        data = super().to_representation(instance)
        if self.context.get("hide_card_orders") and instance.type == MatchEvent.Type.SHUFFLE:
            data["payload"] = {"k": instance.payload["k"], "order": None}
        return data


class ReplayStepSerializer(serializers.Serializer):
    step = serializers.IntegerField(help_text="Decisions applied so far (0 is the start).")
    steps = serializers.IntegerField(help_text="Decisions in the stored log.")
    to_play = serializers.IntegerField(allow_null=True)
    scores = serializers.ListField(child=serializers.IntegerField())
    winner = serializers.IntegerField(allow_null=True)
    last_decision = serializers.DictField(allow_null=True)
    public = serializers.DictField(
        help_text="What a spectator may see at this step, while the match runs and after:"
        " the parts of the two observations that are equal, and `hand_sizes`."
    )
    observations = serializers.DictField(
        allow_null=True,
        help_text="Each seat's observation at this step; only once the match is over.",
    )


class SeatStderrSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    seat = serializers.IntegerField()
    bot = serializers.CharField()
    version = serializers.IntegerField()
    stderr = serializers.CharField(allow_blank=True)
