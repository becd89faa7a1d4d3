"""The ratings in the admin: each game's leaderboard with its ratings, best first, and the
recompute and reset actions, which ask for a reason and are recorded."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from base.admin import ReadOnlyAdmin

from ..admin_actions import with_reason
from . import services as rating_services
from .models import Leaderboard, Rating


class RatingInline(admin.TabularInline):
    model = Rating
    fields = ["version", "conservative", "mu", "sigma", "sets", "updated_at"]
    readonly_fields = fields
    ordering = ["-conservative", "id"]
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("version__bot")


@admin.register(Leaderboard)
class LeaderboardAdmin(admin.ModelAdmin):
    """The ratings of each game, best first, with the recompute and reset actions."""

    list_display = ["game", "last_seq", "reset_after_seq"]
    readonly_fields = ["game", "last_seq", "reset_after_seq"]
    inlines = [RatingInline]
    actions = ["recompute", "reset"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description="Recompute the ratings from the event logs")
    def recompute(self, request: HttpRequest, queryset: QuerySet) -> TemplateResponse | None:
        def perform(leaderboard: Leaderboard, data: dict) -> str:
            result = rating_services.ratings_recompute(
                game_id=leaderboard.game, user=request.user, reason=data["reason"]
            )
            verdict = (
                "identical to the stored ratings, bit for bit"
                if result.identical
                else f"{len(result.differing)} rating(s) differed and were rewritten"
            )
            return f"{leaderboard.game}: {result.updates} updates replayed; {verdict}"

        return with_reason(self, request, queryset, title="Recompute ratings", perform=perform)

    @admin.action(description="Reset the ratings (everyone back to the prior)")
    def reset(self, request: HttpRequest, queryset: QuerySet) -> TemplateResponse | None:
        def perform(leaderboard: Leaderboard, data: dict) -> str:
            wiped = rating_services.ratings_reset(
                game_id=leaderboard.game, user=request.user, reason=data["reason"]
            )
            return f"{leaderboard.game}: {wiped} rating(s) reset"

        return with_reason(self, request, queryset, title="Reset ratings", perform=perform)


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ["version", "leaderboard", "conservative", "mu", "sigma", "sets"]
    list_filter = ["leaderboard__game"]
    list_select_related = ["version__bot", "leaderboard"]
    ordering = ["leaderboard", "-conservative"]
