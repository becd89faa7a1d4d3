"""Read-only admin pages: matches and their events are written by services, never by hand."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import Match, MatchEvent


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ["id", "game", "rules_version", "seed", "status", "winner", "result_reason"]
    list_filter = ["status", "game", "result_reason"]
    date_hierarchy = "created_at"


@admin.register(MatchEvent)
class MatchEventAdmin(ReadOnlyAdmin):
    list_display = ["match", "seq", "type", "created_at"]
    list_filter = ["type"]
    list_select_related = ["match"]
    search_fields = ["=match__id"]
    show_full_result_count = False
