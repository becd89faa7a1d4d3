"""Input and output shapes of the bots API; no logic beyond the shapes."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from base.serializers import ClosedInputSerializer

from .models import Bot, BotVersion
from .services.upload import RuntimeFrom

#: The longest description a bot may have, in characters.
MAX_DESCRIPTION = 2000


class SignUpInputSerializer(serializers.Serializer):
    username = serializers.RegexField(
        r"^[A-Za-z0-9_.-]{3,40}$", help_text="3-40 of A-Z a-z 0-9 _ . -"
    )
    password = serializers.CharField(write_only=True, trim_whitespace=False)
    email = serializers.EmailField(required=False, allow_blank=True, default="")


class TokenInputSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(write_only=True, trim_whitespace=False)


class AccountSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    token = serializers.CharField()


class JsonBooleanField(serializers.BooleanField):
    """A boolean given as a JSON ``true`` or ``false``: ``1``, ``1.0`` or ``"yes"`` are refused
    (DRF's own field would take them)."""

    default_error_messages = {"invalid": "Must be a JSON boolean, true or false."}

    def to_internal_value(self, data: Any) -> bool:
        if isinstance(data, bool):
            return data
        self.fail("invalid")


class ClosedBotInputSerializer(ClosedInputSerializer):
    """A bot's input: a field the bot shows but the input does not take is read-only."""

    read_only_names = ("id", "game", "name", "owner", "created_at", "latest_version")


class BotInputSerializer(ClosedBotInputSerializer):
    """A new bot; any other field is refused by name."""

    takes_only = "a new bot takes only"

    game = serializers.CharField(max_length=32)
    name = serializers.SlugField(max_length=64)
    description = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=MAX_DESCRIPTION
    )
    on_ladder = JsonBooleanField(
        required=False,
        default=True,
        help_text="Whether the bot's latest ready version plays on the ladder (default true).",
    )


class BotUpdateInputSerializer(ClosedBotInputSerializer):
    """A partial change: only the fields given change; any other field is refused by name."""

    takes_only = "a bot's owner may change only"

    description = serializers.CharField(
        required=False, allow_blank=True, max_length=MAX_DESCRIPTION
    )
    on_ladder = JsonBooleanField(
        required=False, help_text="Whether the bot's latest ready version plays on the ladder."
    )


class VersionUploadInputSerializer(serializers.Serializer):
    file = serializers.FileField(
        help_text="The runtime's single file (bot.py for python), or a .zip of the bot's folder"
    )
    runtime = serializers.CharField(
        required=False,
        help_text="A row of GET /api/runtimes/: what builds and runs the bot. Without it: the"
        " bot's last version's runtime if it takes these files, else the runtimes table's guess"
        " from the files' names (bot.cpp: cpp); the answer's runtime_from says which.",
    )


class BotVersionSerializer(serializers.ModelSerializer):
    """A version as everyone sees it."""

    bot = serializers.IntegerField(source="bot_id")
    uploaded_at = serializers.DateTimeField(source="created_at")

    class Meta:
        model = BotVersion
        fields = [
            "id",
            "bot",
            "number",
            "builtin",
            "content_hash",
            "size",
            "runtime",
            "toolchain",
            "status",
            "plays_series",
            "watch_note",
            "uploaded_at",
            "checked_at",
        ]


class BotVersionPrivateSerializer(BotVersionSerializer):
    """A version as its owner and staff see it: with why it was rejected, its build's output
    and its stderr."""

    class Meta(BotVersionSerializer.Meta):
        fields = [*BotVersionSerializer.Meta.fields, "status_reason", "build_log", "check_log"]


class UploadedVersionSerializer(BotVersionPrivateSerializer):
    """A version just uploaded, as its owner sees it, and where its runtime came from (the
    context's ``runtime_from``)."""

    runtime_from = serializers.SerializerMethodField(
        help_text="given: the upload named it; last_version: the bot's last version's, which"
        " takes these files; files: the runtimes table's guess from the files."
    )

    class Meta(BotVersionPrivateSerializer.Meta):
        fields = [*BotVersionPrivateSerializer.Meta.fields, "runtime_from"]

    @extend_schema_field(serializers.ChoiceField(choices=list(RuntimeFrom)))
    def get_runtime_from(self, version: BotVersion) -> str:
        return str(self.context["runtime_from"])


#: Every field of a bot as the API shows it.
BOT_FIELDS = [
    "id",
    "game",
    "name",
    "owner",
    "description",
    "on_ladder",
    "created_at",
    "latest_version",
]


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", default=None)
    latest_version = serializers.SerializerMethodField()

    class Meta:
        model = Bot
        fields = BOT_FIELDS

    def get_latest_version(self, bot: Bot) -> int | None:
        """The number of the bot's latest version ready to play (a rejected one is not)."""
        ready = BotVersion.Status.READY
        numbers = [version.number for version in bot.versions.all() if version.status == ready]
        return max(numbers, default=None)


class UploadLimitsSerializer(serializers.Serializer):
    max_bytes = serializers.IntegerField()
    max_unpacked_bytes = serializers.IntegerField()
    max_files = serializers.IntegerField()


class RuntimeSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    expects = serializers.CharField(help_text="What an upload for this runtime holds.")
    build = serializers.CharField(allow_null=True, help_text="The build command; null: none.")
    run = serializers.ListField(child=serializers.CharField(), help_text="Run from /bot.")
    available = serializers.BooleanField(help_text="Whether this server builds and plays it.")
    missing = serializers.CharField(allow_blank=True, help_text="Why it is not available.")
    toolchain = serializers.ListField(
        child=serializers.CharField(), help_text="The toolchain's exact versions."
    )
    address_space_limit = serializers.BooleanField(
        help_text="False: bounded by the slot's memory cgroup instead."
    )
    processes = serializers.IntegerField(allow_null=True)
    upload_limits = UploadLimitsSerializer()
    notes = serializers.CharField(allow_blank=True)


class SandboxSerializer(serializers.Serializer):
    level = serializers.CharField()
    safe = serializers.BooleanField()
    reason = serializers.CharField(allow_blank=True)
    layers = serializers.DictField(child=serializers.CharField(), required=False)
