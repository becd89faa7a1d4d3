"""Read-only admin pages: matches, seats and stderr are written by services only.

A match's events have no admin page of their own: stored in batches keyed by ``(match,
seq)``, they cannot have one; a match's page counts them and links to its log in the API.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.db.models.functions import Length
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from base.admin import ReadOnlyAdmin

from .models import Match, MatchSeat, SeatStderr
from .selectors import match_event_count


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ["id", "game", "rules_version", "seed", "status", "winner", "result_reason"]
    list_filter = ["status", "game", "result_reason"]
    date_hierarchy = "created_at"
    readonly_fields = ["event_log"]

    @admin.display(description="event log")
    def event_log(self, match: Match) -> str:
        url = reverse("match-events", kwargs={"pk": match.pk})
        return format_html('<a href="{}">{} events</a>', url, match_event_count(match_id=match.pk))


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
