"""The admin panel for bots: a bot's name and description may change; its history may not.

Versions are immutable once stored (their code is addressed by its hash and matches name
the version that played), so that page is read-only. Bots are created by their owners
over the API (or by the built-in sync), never here. Every list joins what its rows print:
no query per row.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from base.admin import ReadOnlyAdmin

from .models import Bot, BotVersion

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
