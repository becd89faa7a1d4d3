"""The admin panel for organisers: tournaments with their round table or bracket inline,
recurring tournaments, the ratings per game (``ratings.admin``), and the audit of manual
changes.

The admin is an interface like the API: it validates, calls a service, and shows the
result. Every action that changes something by hand asks for a reason first and is
recorded (``ManualChange``) with who and why. History stays read-only: pairings, sets,
matches, ratings and the audit cannot be edited here.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from base.admin import ReadOnlyAdmin
from games.rules import GAMES
from matches.models import Match

from . import services
from .admin_actions import ReasonForm, with_reason
from .config import BOUNDS, CONFIG_FIELDS, TournamentConfig
from .formats import format_names
from .models import (
    Entrant,
    ManualChange,
    Pairing,
    RecurringTournament,
    Tournament,
    TournamentMatch,
    current,
    default_time_bank,
)

# The ratings' admin is its own module; importing it registers it with this site.
from .ratings import admin as ratings_admin  # noqa: F401
from .swiss import PairingSystem

Status = Tournament.Status
GAME_CHOICES = [(game_id, game.name) for game_id, game in sorted(GAMES.items())]
PAIRING_SYSTEMS = [(system.value, system.value) for system in PairingSystem]
CONFIG_FIELDS = list(CONFIG_FIELDS)


class ScheduleForm(ReasonForm):
    starts_at = forms.DateTimeField(help_text="With a time zone offset, or in the server's zone.")


def _time_bank_field() -> forms.FloatField:
    return forms.FloatField(
        required=False,
        min_value=BOUNDS["time_bank_seconds"].low,
        max_value=BOUNDS["time_bank_seconds"].high,
        help_text="Seconds of overtime each bot may use over a match; empty: the setting.",
    )


def _organised_formats() -> list[tuple[str, str]]:
    return [(name, name.replace("_", " ")) for name in format_names(organised=True)]


class TournamentConfigForm(forms.ModelForm):
    """The settings of a tournament or a recurring tournament, checked as one configuration."""

    game = forms.ChoiceField(choices=GAME_CHOICES)
    format = forms.ChoiceField(choices=_organised_formats)
    pairing_system = forms.ChoiceField(
        choices=PAIRING_SYSTEMS,
        required=False,
        initial=PairingSystem.DUTCH.value,
        help_text="Swiss only: dutch (FIDE Dutch system) or monrad (1 v 2, 3 v 4); empty: dutch.",
    )
    time_bank_seconds = _time_bank_field()

    def clean(self) -> dict:
        data = super().clean()
        if data.get("time_bank_seconds") is None:
            data["time_bank_seconds"] = default_time_bank()
        data["pairing_system"] = data.get("pairing_system") or PairingSystem.DUTCH.value
        data["sandbox_overrides"] = data.get("sandbox_overrides") or {}
        if any(name not in data for name in CONFIG_FIELDS):
            return data  # a field is already refused, with its own message
        try:
            services.tournament_config_check(self.config())
        except services.TournamentError as error:
            at_fault = error.field if error.field in self.fields else None
            detail = {at_fault: error.message} if at_fault else error.message
            raise forms.ValidationError(detail) from None
        return data

    def config(self) -> TournamentConfig:
        return TournamentConfig(**{name: self.cleaned_data[name] for name in CONFIG_FIELDS})


class TournamentForm(TournamentConfigForm):
    class Meta:
        model = Tournament
        fields = CONFIG_FIELDS


class EntrantFormSet(BaseInlineFormSet):
    """New entrants go through ``tournament_enter`` (game, readiness, entries still open)."""

    def clean(self) -> None:
        super().clean()
        tournament = self.instance
        for form in self.extra_forms:
            version = form.cleaned_data.get("version") if form.has_changed() else None
            if version is None:
                continue
            if version.bot.game != tournament.game:
                form.add_error("version", f"{version} plays {version.bot.game}")
            elif version.status != version.Status.READY:
                form.add_error("version", f"{version} is {version.status}, not ready")


class EntrantInline(admin.TabularInline):
    model = Entrant
    formset = EntrantFormSet
    fields = ["version", "position", "bracket_position", "rating_at_start"]
    readonly_fields = ["position", "bracket_position", "rating_at_start"]
    raw_id_fields = ["version"]
    extra = 0
    ordering = ["bracket_position", "position"]

    def _open(self, obj: Tournament | None) -> bool:
        return obj is None or obj.status in (Status.DRAFT, Status.SCHEDULED)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._open(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._open(obj) and super().has_delete_permission(request, obj)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("version__bot")


class PairingInline(admin.TabularInline):
    """The round table, or the bracket pairing by pairing: who met, how the sets went."""

    model = Pairing
    fk_name = "tournament"
    fields = ["key", "bracket", "round", "first", "second", "sets_played", "status", "winner"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["round", "bracket", "table"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return (
            super()
            .get_queryset(request)
            .select_related("first__version__bot", "second__version__bot", "winner__version__bot")
            .prefetch_related("sets")
        )

    @admin.display(description="sets (first-second, match wins)")
    def sets_played(self, pairing: Pairing) -> str:
        return ", ".join(
            f"{s.first_wins}-{s.second_wins}" if s.status == s.Status.FINISHED else "playing"
            for s in pairing.sets.all()
        )


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentForm
    list_display = ["id", "name", "game", "format", "status", "starts_at", "entrant_count"]
    list_filter = ["status", "format", "pairing_system", "game"]
    search_fields = ["name"]
    date_hierarchy = "created_at"
    inlines = [EntrantInline, PairingInline]
    actions = ["schedule", "start_now", "cancel", "rerun_failed_matches"]
    _history = [
        "status",
        "status_reason",
        "starts_at",
        "secret_sha256",
        "secret_shown",
        "organiser",
        "recurrence",
        "started_at",
        "finished_at",
    ]

    def get_fields(self, request: HttpRequest, obj: Tournament | None = None) -> list[str]:
        return CONFIG_FIELDS if obj is None else [*CONFIG_FIELDS, *self._history]

    def get_readonly_fields(self, request: HttpRequest, obj: Tournament | None = None):
        if obj is None:
            return []
        editable = obj.status in (Status.DRAFT, Status.SCHEDULED)
        return self._history if editable else [*CONFIG_FIELDS, *self._history]

    @admin.display(description="secret")
    def secret_shown(self, tournament: Tournament) -> str:
        return tournament.secret if tournament.secret_public else "secret until the tournament ends"

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        if change:
            config = {name: form.cleaned_data[name] for name in CONFIG_FIELDS}
            if not services.tournament_configure(tournament=obj, **config):
                self.message_user(request, f"{obj} has started; not changed", messages.ERROR)
            return
        created = services.tournament_create(config=form.config(), organiser=request.user)
        obj.pk, obj.secret, obj.secret_sha256 = created.pk, created.secret, created.secret_sha256
        obj._state.adding = False

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        if formset.model is not Entrant:
            return super().save_formset(request, form, formset, change)
        instances = formset.save(commit=False)
        try:
            for entrant in formset.deleted_objects:
                services.tournament_withdraw(entrant=entrant)
            for entrant in instances:
                services.tournament_enter(tournament=form.instance, version=entrant.version)
        except services.TournamentError as error:
            self.message_user(request, str(error), messages.ERROR)

    @admin.action(description="Schedule the selected tournaments")
    def schedule(self, request: HttpRequest, queryset: QuerySet) -> TemplateResponse | None:
        def perform(tournament: Tournament, data: dict) -> str:
            starts_at = data["starts_at"]
            if not services.tournament_schedule(
                tournament=tournament, starts_at=starts_at, user=request.user, reason=data["reason"]
            ):
                raise services.TournamentError(f"it is {tournament.status}; not scheduled")
            return f"{tournament}: scheduled for {starts_at:%Y-%m-%d %H:%M %Z}"

        return with_reason(
            self, request, queryset, title="Schedule", perform=perform, form_class=ScheduleForm
        )

    @admin.action(description="Start the selected tournaments now")
    def start_now(self, request: HttpRequest, queryset: QuerySet) -> TemplateResponse | None:
        def perform(tournament: Tournament, data: dict) -> str:
            if not services.tournament_start_now(
                tournament=tournament, user=request.user, reason=data["reason"]
            ):
                tournament.refresh_from_db()
                raise services.TournamentError(
                    f"not started: it is {tournament.status} {tournament.status_reason}".strip()
                )
            return f"{tournament}: started"

        return with_reason(self, request, queryset, title="Start now", perform=perform)

    @admin.action(description="Cancel the selected tournaments")
    def cancel(self, request: HttpRequest, queryset: QuerySet) -> TemplateResponse | None:
        def perform(tournament: Tournament, data: dict) -> str:
            if not services.tournament_cancel(
                tournament=tournament, reason=data["reason"], user=request.user
            ):
                raise services.TournamentError(f"it is {tournament.status}; not cancelled")
            return f"{tournament}: cancelled"

        return with_reason(self, request, queryset, title="Cancel", perform=perform)

    @admin.action(description="Re-run the failed matches of the selected tournaments")
    def rerun_failed_matches(self, request: HttpRequest, queryset: QuerySet):
        def perform(tournament: Tournament, data: dict) -> str:
            failed = Match.objects.filter(
                current("tournament_match__"),
                tournament_match__tournament=tournament,
                status=Match.Status.FAILED,
            )
            reruns = [
                services.match_rerun(match=match, user=request.user, reason=data["reason"])
                for match in failed
            ]
            return f"{tournament}: {len(reruns)} failed match(es) replaced and sent"

        return with_reason(self, request, queryset, title="Re-run failed matches", perform=perform)


@admin.register(TournamentMatch)
class TournamentMatchAdmin(admin.ModelAdmin):
    """Every match of every tournament, replaced ones with why; failed ones can be re-run."""

    list_display = ["match", "tournament", "duplicate_set", "first_seat", "status", "replaced_at"]
    list_filter = ["match__status", ("replaced_at", admin.EmptyFieldListFilter)]
    list_select_related = ["match", "tournament", "duplicate_set__pairing__tournament"]
    readonly_fields = [
        "tournament",
        "duplicate_set",
        "match",
        "first_seat",
        "dispatched_at",
        "replaced_at",
        "failure",
    ]
    actions = ["rerun"]
    search_fields = ["=match__id", "tournament__name"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="status")
    def status(self, link: TournamentMatch) -> str:
        return link.match.status

    @admin.action(description="Re-run the selected failed matches")
    def rerun(self, request: HttpRequest, queryset: QuerySet) -> TemplateResponse | None:
        def perform(link: TournamentMatch, data: dict) -> str:
            replacement = services.match_rerun(
                match=link.match, user=request.user, reason=data["reason"]
            )
            return f"match {link.match_id}: replaced by match {replacement.match_id}"

        return with_reason(self, request, queryset, title="Re-run", perform=perform)


class RecurringTournamentForm(TournamentConfigForm):
    class Meta:
        model = RecurringTournament
        fields = [*CONFIG_FIELDS, "every", "next_start_at", "active"]

    def clean(self) -> dict:
        data = super().clean()
        every = data.get("every")
        if every is not None and every.total_seconds() < 60:
            self.add_error("every", "at least one minute")
        return data


@admin.register(RecurringTournament)
class RecurringTournamentAdmin(admin.ModelAdmin):
    """E.g. a nightly round robin of every active bot: ``every`` 1 day from the first start.

    The periodic tick creates each tournament when its start is due, entering the latest
    ready version of every bot of the game, and starts it at once.
    """

    form = RecurringTournamentForm
    list_display = ["name", "game", "format", "every", "next_start_at", "active"]
    list_filter = ["active", "game", "format"]


@admin.register(ManualChange)
class ManualChangeAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "user", "action", "tournament", "match", "game", "reason"]
    list_filter = ["action", "game"]
    list_select_related = ["user", "tournament", "match"]
    date_hierarchy = "created_at"
