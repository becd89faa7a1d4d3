"""What the ladder, challenge and version-test API reads and writes."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from rest_framework import serializers

from base.serializers import ClosedInputSerializer
from tournaments.sprt import ELO_LIMIT, SPRT_BOUNDS, SprtParameters

from .selectors import SetStatus
from .services import CHALLENGE_SETS, POOL_SIZE

_SPRT = SprtParameters()


class VersionBriefSerializer(serializers.Serializer):
    version_id = serializers.IntegerField(source="pk")
    bot_id = serializers.IntegerField()
    bot = serializers.CharField(source="bot.name")
    version = serializers.IntegerField(source="number")
    owner = serializers.CharField(source="bot.owner.username", allow_null=True, default=None)
    builtin = serializers.SerializerMethodField()

    def get_builtin(self, version: Any) -> bool:
        return bool(version.builtin)


class LadderRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    version = VersionBriefSerializer()
    mu = serializers.FloatField(help_text="The rating estimate (openskill).")
    sigma = serializers.FloatField(help_text="Its uncertainty.")
    conservative = serializers.FloatField(help_text="mu - 3 sigma: the table's order.")
    low = serializers.FloatField(help_text="mu - 3 sigma.")
    high = serializers.FloatField(help_text="mu + 3 sigma.")
    sets = serializers.IntegerField(help_text="Ladder sets finished.")
    placement_sets = serializers.IntegerField(help_text="Sets a new version plays to be placed.")
    placing = serializers.BooleanField(help_text="Still in its placement sets.")
    last_played = serializers.DateTimeField(allow_null=True)


class LadderSerializer(serializers.Serializer):
    game = serializers.CharField()
    sets_in_flight = serializers.IntegerField()
    rows = LadderRowSerializer(many=True)


class SetSerializer(serializers.Serializer):
    """A finished duplicate set; ``outcome`` is from the first entrant's side."""

    id = serializers.IntegerField()
    tournament_id = serializers.IntegerField(source="pairing.tournament_id")
    first = VersionBriefSerializer(source="pairing.first.version")
    second = VersionBriefSerializer(source="pairing.second.version")
    outcome = serializers.CharField()
    first_wins = serializers.IntegerField()
    second_wins = serializers.IntegerField()
    first_points = serializers.IntegerField()
    second_points = serializers.IntegerField()
    finished_at = serializers.DateTimeField()


class OpponentRecordSerializer(serializers.Serializer):
    """A version's finished sets against one opponent version, from the version's side."""

    opponent = VersionBriefSerializer()
    sets = serializers.IntegerField(help_text="Finished duplicate sets against it.")
    wins = serializers.IntegerField(help_text="Sets won.")
    draws = serializers.IntegerField(help_text="Sets drawn.")
    losses = serializers.IntegerField(help_text="Sets lost.")
    matches_won = serializers.IntegerField()
    matches_lost = serializers.IntegerField()
    points = serializers.IntegerField(help_text="Match points for, over those sets.")
    opponent_points = serializers.IntegerField(help_text="Match points against.")
    score = serializers.FloatField(help_text="(sets won + drawn / 2) / sets.")
    score_interval = serializers.ListField(
        child=serializers.FloatField(), help_text="95% Wilson interval of the score."
    )
    last_met = serializers.DateTimeField(allow_null=True, help_text="When their last set ended.")
    matches = serializers.SerializerMethodField(
        help_text="URLs of their matches, newest first, at most 20."
    )

    def get_matches(self, record: Any) -> list[str]:
        request = self.context.get("request")
        urls = [reverse("match-detail", args=[pk]) for pk in record.match_ids]
        return [request.build_absolute_uri(url) for url in urls] if request else urls


class VersionHeadToHeadSerializer(serializers.Serializer):
    """A bot version's record against every opponent version it finished a set against."""

    bot_id = serializers.IntegerField()
    bot = serializers.CharField()
    version = serializers.IntegerField(help_text="The version's number.")
    version_id = serializers.IntegerField()
    rows = OpponentRecordSerializer(many=True, help_text="The opponent met last first.")


class ChallengeCreateSerializer(ClosedInputSerializer):
    takes_only = "a challenge takes only"

    version = serializers.IntegerField(help_text="Your ready version.")
    opponent = serializers.IntegerField(help_text="Any ready version of the same game.")
    sets = serializers.IntegerField(
        min_value=CHALLENGE_SETS[0], max_value=CHALLENGE_SETS[1], help_text="Duplicate sets."
    )


def _sprt_field(kind: type[serializers.Field], name: str) -> serializers.Field:
    """An input of ``SprtParameters``' ``name``: its default and bounds are the test's own."""
    bound = SPRT_BOUNDS[name]
    return kind(default=getattr(_SPRT, name), min_value=bound.low, max_value=bound.high)


class VersionTestCreateSerializer(ClosedInputSerializer):
    takes_only = "a version test takes only"

    candidate = serializers.IntegerField(help_text="Your new version.")
    baseline = serializers.IntegerField(
        required=False, help_text="Your version to beat (or give a pool)."
    )
    pool = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        min_length=POOL_SIZE[0],
        max_length=POOL_SIZE[1],
        help_text=f"{POOL_SIZE[0]}-{POOL_SIZE[1]} ready versions of any author, played in"
        " turn: is the candidate stronger than their average?",
    )
    elo0 = _sprt_field(serializers.FloatField, "elo0")
    elo1 = _sprt_field(serializers.FloatField, "elo1")
    alpha = _sprt_field(serializers.FloatField, "alpha")
    beta = _sprt_field(serializers.FloatField, "beta")
    max_sets = _sprt_field(serializers.IntegerField, "max_sets")

    def validate(self, data: dict) -> dict:
        data = super().validate(data)
        if ("baseline" in data) == ("pool" in data):
            raise serializers.ValidationError({"baseline": "give either baseline or pool"})
        # The test's own rule (``SprtParameters``), said under the field it is about.
        names = ("elo0", "elo1", "alpha", "beta", "max_sets")
        try:
            SprtParameters(**{name: data[name] for name in names})
        except ValueError as error:
            raise serializers.ValidationError({"elo1": str(error)}) from None
        return data


class HeadToHeadSerializer(serializers.Serializer):
    """The sets of a challenge or version test so far, all from the side of ``first`` (the
    challenger or the candidate), whichever seed it has."""

    sets_planned = serializers.IntegerField()
    sets = serializers.IntegerField(help_text="Sets finished.")
    wins = serializers.IntegerField(help_text="Sets the first version (the challenger) won.")
    draws = serializers.IntegerField()
    losses = serializers.IntegerField(help_text="Sets the first version lost.")
    first_points = serializers.IntegerField(
        source="points", help_text="Match points of the first version."
    )
    second_points = serializers.IntegerField(
        source="opponent_points", help_text="Match points of its opponents."
    )
    score = serializers.FloatField(
        allow_null=True, help_text="Mean set score of the first version (a draw is 1/2)."
    )
    score_interval = serializers.ListField(
        child=serializers.FloatField(),
        help_text="95% Wilson interval of the score, the score read as a proportion of sets.",
    )
    elo_interval = serializers.ListField(
        child=serializers.FloatField(),
        help_text=f"The same interval as set-Elo differences, cut at ±{ELO_LIMIT:.0f}: an end"
        " there means that far or farther.",
    )


class AuthorSetSerializer(serializers.Serializer):
    """One set, from the side of the challenger (or the candidate)."""

    number = serializers.IntegerField()
    opponent = VersionBriefSerializer()
    status = serializers.ChoiceField(
        choices=[s.value for s in SetStatus],
        help_text="not_played: the challenge or test stopped before the set was played.",
    )
    result = serializers.CharField(help_text="won, drawn or lost; empty until finished.")
    matches_won = serializers.IntegerField()
    matches_lost = serializers.IntegerField()
    points = serializers.IntegerField()
    opponent_points = serializers.IntegerField()
    reason = serializers.CharField(help_text="Why the set was not played; empty otherwise.")
    match_ids = serializers.ListField(
        child=serializers.IntegerField(), help_text="Its matches played or being played."
    )


class AuthorTournamentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField()
    status = serializers.CharField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    first = VersionBriefSerializer()
    second = VersionBriefSerializer(
        allow_null=True, help_text="The one opponent; null for a version test's pool."
    )
    opponents = VersionBriefSerializer(many=True, help_text="Every opponent of the first.")
    result = HeadToHeadSerializer()
    position = serializers.IntegerField(
        allow_null=True,
        help_text="Its next task's place in the queue (1: next); null when none of it waits.",
    )
    matches_left = serializers.IntegerField(help_text="Its matches running or waiting.")
    eta_seconds = serializers.IntegerField(
        allow_null=True,
        help_text=(
            "Seconds until it is expected to finish, at the pace of the last hour's matches"
            " and the workers alive (GET /api/queue/); null once over, or when no worker"
            " could play it."
        ),
    )


class SprtSerializer(serializers.Serializer):
    elo0 = serializers.FloatField()
    elo1 = serializers.FloatField()
    alpha = serializers.FloatField()
    beta = serializers.FloatField()
    max_sets = serializers.IntegerField()
    llr = serializers.FloatField(
        help_text="Log-likelihood ratio of H1 (elo1) against H0; exactly 0 before any set."
    )
    lower_bound = serializers.FloatField(help_text="At or below it: not better (H0).")
    upper_bound = serializers.FloatField(help_text="At or above it: better (H1).")
    verdict = serializers.ChoiceField(choices=["pending", "better", "not_better", "inconclusive"])


class VersionTestSerializer(AuthorTournamentSerializer):
    sprt = SprtSerializer()


class ChallengeDetailSerializer(AuthorTournamentSerializer):
    sets = AuthorSetSerializer(many=True)


class VersionTestDetailSerializer(VersionTestSerializer):
    sets = AuthorSetSerializer(many=True)
