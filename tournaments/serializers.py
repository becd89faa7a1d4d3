from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from base.serializers import ClosedInputSerializer
from matches.models import Match
from matches.serializers import MatchAccessSerializer, MatchSerializer

from . import config
from .formats import format_names, format_spec, kinds
from .models import DuplicateSet, Entrant, Pairing, Tournament
from .selectors import pairing_result
from .swiss import PairingSystem

#: Ids and numbers the database can hold (a larger one is a 400, not an overflow).
MAX_ID = 2**63 - 1
PAIRING_SYSTEM_HELP = (
    "How Swiss rounds are paired: dutch (the FIDE Dutch system: top half against bottom "
    "half of each score group) or monrad (1 v 2, 3 v 4). Ignored by other formats."
)


class EntrantSerializer(serializers.ModelSerializer):
    bot = serializers.CharField(source="version.bot.name")
    bot_id = serializers.IntegerField(source="version.bot_id")
    version = serializers.IntegerField(source="version.number")
    version_id = serializers.IntegerField()
    bracket_position = serializers.IntegerField(
        allow_null=True,
        read_only=True,
        help_text="Place in the bracket's order from 1 (best), fixed at the start.",
    )

    class Meta:
        model = Entrant
        fields = [
            "id",
            "position",
            "bracket_position",
            "rating_at_start",
            "bot",
            "bot_id",
            "version",
            "version_id",
        ]


class TournamentSerializer(serializers.ModelSerializer):
    secret_sha256 = serializers.CharField(
        read_only=True, help_text="SHA-256 (hex) of the secret: its commitment."
    )
    secret = serializers.SerializerMethodField(
        help_text="The secret every deal seed derives from: null until the tournament is over."
    )
    format = serializers.CharField(help_text="A format of the formats table.")
    kind = serializers.SerializerMethodField(
        help_text="organised (an organiser's), or ladder, challenge or version_test."
    )

    class Meta:
        model = Tournament
        fields = [
            "id",
            "name",
            "game",
            "options",
            "format",
            "kind",
            "rounds",
            "pairing_system",
            "sets_per_pair",
            "status",
            "status_reason",
            "decision_timeout",
            "time_bank_seconds",
            "sandbox_overrides",
            "secret_sha256",
            "secret",
            "starts_at",
            "created_at",
            "started_at",
            "finished_at",
        ]

    def get_secret(self, tournament: Tournament) -> str | None:
        return tournament.secret if tournament.secret_public else None

    @extend_schema_field(serializers.ChoiceField(choices=kinds()))
    def get_kind(self, tournament: Tournament) -> str:
        return format_spec(tournament.format).kind


class TournamentDetailSerializer(TournamentSerializer):
    entrants = EntrantSerializer(many=True, read_only=True, source="entrants_list")
    matches = serializers.DictField(child=serializers.IntegerField(), source="match_counts")

    class Meta(TournamentSerializer.Meta):
        fields = [*TournamentSerializer.Meta.fields, "entrants", "matches"]


def _bounds(name: str) -> str:
    bound = config.BOUNDS[name]
    return f"From {bound.low:g} to {bound.high:g}."


class TournamentCreateSerializer(ClosedInputSerializer):
    takes_only = "a tournament takes only"

    name = serializers.CharField(max_length=120)
    game = serializers.CharField()
    format = serializers.CharField(
        default=config.default_of("format"),
        help_text="An organiser's format from the formats table, checked as the request"
        " comes (a 400 lists them).",
    )
    options = serializers.DictField(required=False, default=dict)
    # The bounds are the configuration's own (``config.BOUNDS``), checked with the rest of it:
    # the help says them, the check refuses what is out of them, naming the field.
    sets_per_pair = serializers.IntegerField(
        default=config.default_of("sets_per_pair"), help_text=_bounds("sets_per_pair")
    )
    rounds = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=config.default_of("rounds"),
        help_text=_bounds("rounds"),
    )
    pairing_system = serializers.ChoiceField(
        choices=[system.value for system in PairingSystem],
        default=config.default_of("pairing_system"),
        help_text=PAIRING_SYSTEM_HELP,
    )
    decision_timeout = serializers.FloatField(
        default=config.default_of("decision_timeout"), help_text=_bounds("decision_timeout")
    )
    time_bank_seconds = serializers.FloatField(
        required=False,
        help_text="Overtime per bot and match; left out: the server's setting. "
        + _bounds("time_bank_seconds"),
    )
    sandbox_overrides = serializers.DictField(
        child=serializers.IntegerField(),
        required=False,
        default=dict,
        help_text="Sandbox limits of uploaded bots other than the settings, by SandboxLimits "
        "field: memory_bytes, cpu_seconds, processes, file_bytes, open_files, tmp_bytes.",
    )
    starts_at = serializers.DateTimeField(
        required=False, allow_null=True, default=None, help_text="Given: scheduled at once."
    )

    def validate_format(self, name: str) -> str:
        # Read at request time: a format registered after import is offered too.
        organised = format_names(organised=True)
        if name not in organised:
            raise serializers.ValidationError(
                f"{name!r} is not an organiser's format; known: {', '.join(organised)}"
            )
        return name

    def validate_sandbox_overrides(self, overrides: dict[str, int]) -> dict[str, int]:
        try:
            config.sandbox_overrides_check(overrides)
        except config.TournamentError as error:
            raise serializers.ValidationError(str(error)) from None
        return overrides

    def validated_config(self) -> config.TournamentConfig:
        """The tournament's configuration (checked when the tournament is created)."""
        data = {**self.validated_data}
        data.pop("starts_at", None)
        return config.TournamentConfig(**data)


class EntryCreateSerializer(ClosedInputSerializer):
    """A bot version by its id, or by its bot and the number its author sees (``v3``)."""

    bot = serializers.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        required=False,
        allow_null=True,
        default=None,
        help_text="A bot's id: then version is that bot's version number, not an id.",
    )
    version = serializers.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        help_text="The id of a ready bot version of the game; with bot, its version number.",
    )


class ScheduleSerializer(ClosedInputSerializer):
    starts_at = serializers.DateTimeField()


class CancelSerializer(ClosedInputSerializer):
    reason = serializers.CharField(max_length=500)


class EntrantBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    bracket_position = serializers.IntegerField(allow_null=True)
    bot = serializers.CharField(source="version.bot.name")
    version = serializers.IntegerField(source="version.number")
    version_id = serializers.IntegerField()


class DuplicateSetSerializer(serializers.ModelSerializer):
    """A set; its deal seed only once both its matches are over (matches.visibility)."""

    seed = serializers.SerializerMethodField(
        help_text="The deal seed of the set: null while its matches are being played."
    )

    class Meta:
        model = DuplicateSet
        fields = [
            "number",
            "seed",
            "status",
            "outcome",
            "first_wins",
            "second_wins",
            "first_points",
            "second_points",
            "finished_at",
        ]

    def get_seed(self, duplicate_set: DuplicateSet) -> int | None:
        finished = duplicate_set.status == DuplicateSet.Status.FINISHED
        return duplicate_set.seed if finished else None


class PairingResultSerializer(serializers.Serializer):
    first = serializers.FloatField(help_text="Set points of the first entrant so far.")
    second = serializers.FloatField(help_text="Set points of the second entrant so far.")
    sets_finished = serializers.IntegerField()
    decided = serializers.BooleanField(help_text="Every set the pairing plays is over.")


class PairingSerializer(serializers.ModelSerializer):
    first = EntrantBriefSerializer()
    second = EntrantBriefSerializer(allow_null=True, help_text="Null: a bye.")
    winner = serializers.SerializerMethodField(
        help_text="The winning entrant once the pairing is decided; null before, or if drawn."
    )
    result = serializers.SerializerMethodField()
    sets = DuplicateSetSerializer(many=True)

    class Meta:
        model = Pairing
        fields = [
            "id",
            "key",
            "bracket",
            "round",
            "table",
            "status",
            "first",
            "second",
            "winner",
            "result",
            "sets",
            "created_at",
            "finished_at",
        ]

    def get_result(self, pairing: Pairing) -> dict[str, Any]:
        return PairingResultSerializer(pairing_result(pairing=pairing)).data

    def get_winner(self, pairing: Pairing) -> int | None:
        return pairing_result(pairing=pairing)["winner"]


class RoundSerializer(serializers.Serializer):
    bracket = serializers.CharField()
    round = serializers.IntegerField()
    pairings = serializers.IntegerField()
    finished = serializers.IntegerField()


# The schema keeps the component's published name.
@extend_schema_serializer(component_name="BracketGame")
class BracketPairingSerializer(serializers.Serializer):
    key = serializers.CharField()
    side = serializers.CharField()
    round = serializers.IntegerField()
    sources = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField(help_text="waiting, ready, played, walkover or skipped")
    first = EntrantBriefSerializer(allow_null=True)
    second = EntrantBriefSerializer(allow_null=True)
    winner = EntrantBriefSerializer(allow_null=True)
    pairing = serializers.IntegerField(source="pairing.id", allow_null=True, default=None)


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    entrant = serializers.IntegerField()
    bracket_position = serializers.IntegerField(allow_null=True)
    bot = serializers.CharField()
    version = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True, help_text="Elimination only.")
    played = serializers.IntegerField(help_text="Duplicate sets played.")
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    byes = serializers.IntegerField()
    score = serializers.FloatField(help_text="Set points: 1 a win or bye, 1/2 a draw.")
    head_to_head = serializers.FloatField()
    buchholz = serializers.FloatField()
    sonneborn_berger = serializers.FloatField()
    points_difference = serializers.IntegerField()
    points_for = serializers.IntegerField()
    points_against = serializers.IntegerField()
    tie_breaks = serializers.ListField(
        child=serializers.CharField(), help_text="The tie-breaks in the order they apply."
    )


class MatchTournamentSerializer(serializers.Serializer):
    """The tournament a match was played for: what it is and what made it."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    format = serializers.CharField()
    # Not a choice list: one read at import would miss a format registered later.
    kind = serializers.CharField(
        help_text="organised (an organiser's), or ladder, challenge or version_test."
    )


def _match_tournament(match: Match) -> dict[str, Any] | None:
    link = getattr(match, "tournament_match", None)
    if link is None:
        return None
    tournament = link.tournament
    kind = format_spec(tournament.format).kind
    return {"id": tournament.pk, "name": tournament.name, "format": tournament.format, "kind": kind}


_MATCH_TOURNAMENT_HELP = "The tournament it was played for, with its kind; null for none."


class MatchWithTournamentSerializer(MatchSerializer):
    """A match as anyone may see it (``MatchSerializer``), with the tournament it was for."""

    tournament = serializers.SerializerMethodField(help_text=_MATCH_TOURNAMENT_HELP)

    class Meta(MatchSerializer.Meta):
        fields = [*MatchSerializer.Meta.fields, "tournament"]

    @extend_schema_field(MatchTournamentSerializer(allow_null=True))
    def get_tournament(self, match: Match) -> dict[str, Any] | None:
        return _match_tournament(match)


class MatchAccessWithTournamentSerializer(MatchAccessSerializer):
    """A match in one viewer's view (``MatchAccessSerializer``), with its tournament."""

    tournament = serializers.SerializerMethodField(help_text=_MATCH_TOURNAMENT_HELP)

    class Meta(MatchAccessSerializer.Meta):
        fields = [*MatchAccessSerializer.Meta.fields, "tournament"]

    @extend_schema_field(MatchTournamentSerializer(allow_null=True))
    def get_tournament(self, match: Match) -> dict[str, Any] | None:
        return _match_tournament(match)
