"""The admin panel for bots: a bot's name and description may change; its history may not.

Versions are immutable once stored (their code is addressed by its hash and matches name
the version that played), and seats and stderr are the record of matches already played,
so those pages are read-only. Bots are created by their owners over the API (or by the
built-in sync), never here. Every list joins what its rows print: no query per row.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Count, QuerySet
from django.db.models.functions import Length
from django.http import HttpRequest

from games.admin import ReadOnlyAdmin

from .models import Bot, BotVersion, MatchSeat, SeatStderr

VERSION_FIELDS = [
    "bot",
    "number",
    "builtin",
    "content_hash",
    "size",
    "status",
    "status_reason",
    "check_log",
    "created_at",
    "checked_at",
]


class BotVersionInline(admin.TabularInline):
    model = BotVersion
    fields = ["number", "builtin", "status", "size", "content_hash", "created_at", "checked_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ["-number"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class BotForm(forms.ModelForm):
    class Meta:
        model = Bot
        fields = ["name", "description"]

    def clean_name(self) -> str:
        # The game is read-only here, so the model's (game, name) check would skip the name.
        name = self.cleaned_data["name"]
        taken = Bot.objects.filter(game=self.instance.game, name=name)
        if taken.exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError(f"{self.instance.game} already has a bot named {name}")
        return name


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    form = BotForm
    list_display = ["id", "game", "name", "owner", "version_count", "created_at"]
    list_filter = ["game"]
    list_select_related = ["owner"]
    search_fields = ["name", "owner__username"]
    fields = ["game", "name", "owner", "description", "created_at"]
    readonly_fields = ["game", "owner", "created_at"]
    inlines = [BotVersionInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Bot]:
        return super().get_queryset(request).annotate(version_total=Count("versions"))

    @admin.display(description="versions", ordering="version_total")
    def version_count(self, bot: Bot) -> int:
        return bot.version_total


@admin.register(BotVersion)
class BotVersionAdmin(ReadOnlyAdmin):
    list_display = ["id", "bot", "number", "builtin", "status", "size", "created_at"]
    list_filter = ["status", "bot__game"]
    list_select_related = ["bot"]
    search_fields = ["bot__name", "=content_hash"]
    fields = VERSION_FIELDS
    date_hierarchy = "created_at"


@admin.register(MatchSeat)
class MatchSeatAdmin(ReadOnlyAdmin):
    list_display = ["match", "seat", "version", "stderr_chars"]
    list_filter = ["match__game", "match__status"]
    list_select_related = ["match", "version__bot"]
    search_fields = ["=match__id", "version__bot__name"]
    show_full_result_count = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[MatchSeat]:
        return super().get_queryset(request).annotate(stderr_length=Length("stderr__text"))

    @admin.display(description="stderr (characters)")
    def stderr_chars(self, seat: MatchSeat) -> int:
        return seat.stderr_length or 0


@admin.register(SeatStderr)
class SeatStderrAdmin(ReadOnlyAdmin):
    """A bot's stderr during one match: its author's debugging output, staff only here."""

    list_display = ["seat", "chars", "created_at"]
    list_select_related = ["seat__version__bot"]
    search_fields = ["=seat__match__id", "seat__version__bot__name"]
    fields = ["seat", "text", "created_at"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[SeatStderr]:
        return super().get_queryset(request).annotate(length=Length("text"))

    @admin.display(description="characters")
    def chars(self, stderr: SeatStderr) -> int:
        return stderr.length
