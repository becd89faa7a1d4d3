from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.events import EventType

from .models import Match
from .visibility import VIEW_CHOICES, deal_in_play, match_fields


class MatchSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    bot = serializers.CharField(source="version.bot.name")
    version = serializers.IntegerField(source="version.number")
    version_id = serializers.IntegerField()
    runtime = serializers.CharField(source="version.runtime")
    toolchain = serializers.SerializerMethodField(
        help_text="The version's toolchain, one line per tool (the match's own, as run, is in"
        " its match_started event)."
    )

    def get_toolchain(self, seat: Any) -> list[str]:
        return seat.version.toolchain.splitlines()


class MatchSerializer(serializers.ModelSerializer):
    """A match as anyone may see it: no seed or stacked decks while its deal is in play.

    The context's ``deals_in_play`` (``matches.visibility.deals_in_play`` over the page) says
    which; without it each match asks for itself.
    """

    seats = MatchSeatSerializer(many=True, read_only=True)
    seed = serializers.SerializerMethodField(
        help_text="The deal's seed: null while any match dealt from it is still in play."
    )
    options = serializers.SerializerMethodField(
        help_text="The options as given; stacked `decks` left out while the deal is in play."
    )
    deal_in_play = serializers.SerializerMethodField(
        help_text="A match dealt the same cards (this one or its twin) is still to finish."
    )

    class Meta:
        model = Match
        fields = [
            "id",
            "game",
            "rules_version",
            "options",
            "seed",
            "deal_in_play",
            "status",
            "winner",
            "scores",
            "result_reason",
            "seats",
            "created_at",
            "started_at",
            "finished_at",
        ]

    def _in_play(self, match: Match) -> bool:
        in_play = self.context.get("deals_in_play")
        if in_play is None:
            return deal_in_play(match)
        return (match.game, match.seed) in in_play

    def _withheld(self, match: Match) -> bool:
        """The seed and stacked decks are left out: in this public shape, while the deal is
        in play."""
        return self._in_play(match)

    def get_seed(self, match: Match) -> int | None:
        return match_fields(match, deal_in_play=self._withheld(match))["seed"]

    def get_options(self, match: Match) -> dict[str, Any]:
        return match_fields(match, deal_in_play=self._withheld(match))["options"]

    def get_deal_in_play(self, match: Match) -> bool:
        return self._in_play(match)


class MatchAccessSerializer(MatchSerializer):
    """A match in one viewer's view: the context's ``access`` (``matches.visibility``) says
    whether the deal is in play, the same for every viewer, and whether this view withholds
    it (the ``full`` view never does)."""

    view = serializers.ChoiceField(
        choices=VIEW_CHOICES, help_text="The view this response is shown in."
    )
    views = serializers.ListField(
        child=serializers.ChoiceField(choices=VIEW_CHOICES),
        help_text="The views of this match the requester may ask for (`?view=`).",
    )
    score_parts = serializers.ListField(
        child=serializers.DictField(),
        allow_null=True,
        help_text="The finished parts of the match that score points of their own, in order"
        " (Rounds: each stage, with `deal_number`, `game_number`, `stage`, `dealer`,"
        " `tricks_won` and the `points` each seat scores for it, added to `scores` when its"
        " game ends); null for a game that reports none, or while the match's moves are"
        " withheld.",
    )

    class Meta(MatchSerializer.Meta):
        fields = [*MatchSerializer.Meta.fields, "view", "views", "score_parts"]

    def _in_play(self, match: Match) -> bool:
        return self.context["access"].deal_in_play

    def _withheld(self, match: Match) -> bool:
        return self.context["access"].deal_withheld


class MatchEventSerializer(serializers.Serializer):
    """An event as the requester's view shows it (``matches.redaction``)."""

    seq = serializers.IntegerField()
    type = serializers.ChoiceField(choices=[kind.value for kind in EventType])
    payload = serializers.JSONField()
    hash = serializers.CharField(
        allow_null=True, help_text="Null where it is withheld with part of the event."
    )
    redacted = serializers.CharField(
        required=False, help_text="What of the stored event this view withholds, if anything."
    )


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
        help_text="By seat, the observations the view shows at this step: both once the deal"
        " is out of play (or in the full view), one in a seat's view, none otherwise.",
    )
    view = serializers.ChoiceField(choices=VIEW_CHOICES)


class SeatStderrSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    seat = serializers.IntegerField()
    bot = serializers.CharField()
    version = serializers.IntegerField()
    stderr = serializers.CharField(allow_blank=True)
