"""Tournaments, their pairings and duplicate sets, recurring tournaments and the audit.

The rating models are ``tournaments.ratings.models``: same app, same tables.

Status changes are made by conditional updates in ``services`` and ``scheduling``, never by
saving a loaded row, so two workers can never start or advance one tournament twice.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from . import formats
from .brackets import Side
from .config import TournamentConfig, config_of, default_of
from .duplicate import SetOutcome
from .planning import NO_BRACKET

# The rating models live in their own package; importing it registers them with this app.
from .ratings import models as ratings_models  # noqa: F401
from .sprt import SprtParameters
from .swiss import PairingSystem


def default_time_bank() -> float:
    """A new tournament's time bank: the setting at the time it is created."""
    return settings.BAIZE_TIME_BANK_SECONDS


TIME_BANK_HELP = "Seconds of overtime per bot and match beyond the decision limit."
#: Keys are ``arena.sandbox.SandboxLimits`` fields, checked against ``LIMIT_OVERRIDE_RANGES``.
SANDBOX_OVERRIDES_HELP = 'Sandbox limits other than the settings, e.g. {"cpu_seconds": 30}.'


class TournamentConfigFields(models.Model):
    """A tournament's settings (``config.TournamentConfig``), shared by a tournament and a
    recurring tournament, which passes them on to each tournament it spawns."""

    name = models.CharField(max_length=120)
    game = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    #: A name in ``formats.FORMATS`` (the table, not field choices, says which exist).
    format = models.CharField(max_length=32, default=formats.Format.ROUND_ROBIN.value)
    #: Swiss rounds; left empty, ``ceil(log2 entrants)`` is set when the tournament starts.
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    #: How Swiss rounds are paired (``tournaments.swiss``); tournaments made before the
    #: Dutch system came keep Monrad, the way their rounds were paired.
    pairing_system = models.CharField(
        max_length=8,
        choices=[(system.value, system.value) for system in PairingSystem],
        default=PairingSystem.DUTCH.value,
        help_text="Swiss pairing: dutch (FIDE Dutch system) or monrad (1 v 2, 3 v 4).",
    )
    #: Duplicate sets each pairing plays; a set is two matches on one seed with seats swapped.
    sets_per_pair = models.PositiveSmallIntegerField(default=default_of("sets_per_pair"))
    decision_timeout = models.FloatField(default=default_of("decision_timeout"))
    time_bank_seconds = models.FloatField(default=default_time_bank, help_text=TIME_BANK_HELP)
    sandbox_overrides = models.JSONField(default=dict, blank=True, help_text=SANDBOX_OVERRIDES_HELP)

    class Meta:
        abstract = True

    @property
    def config(self) -> TournamentConfig:
        return config_of(self)


class Tournament(TournamentConfigFields):
    class Status(models.TextChoices):
        DRAFT = "draft"
        SCHEDULED = "scheduled"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    #: Why the tournament was cancelled (or anything else its status needs explained).
    status_reason = models.TextField(blank=True)
    #: The secret every deal seed derives from; published only once the tournament is over.
    secret = models.CharField(max_length=128)
    #: SHA-256 (hex) of ``secret``, public from creation: the deals were fixed in advance.
    secret_sha256 = models.CharField(max_length=64)
    starts_at = models.DateTimeField(null=True, blank=True)
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="organised_tournaments",
    )
    recurrence = models.ForeignKey(
        "RecurringTournament",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tournaments",
    )
    #: Entries so far; bumped with F() so an entry and the start cannot cross.
    entrant_count = models.PositiveIntegerField(default=0)
    #: Bumped by every advance (new pairings, results); advances are conditional on it.
    progress = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status"]),
            models.Index(fields=["status", "starts_at"], name="tournament_due"),
        ]
        constraints = [
            # One ladder per game, however many ticks race to make it.
            models.UniqueConstraint(
                fields=["game"], condition=models.Q(format="ladder"), name="tournament_one_ladder"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"

    @property
    def secret_public(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.CANCELLED)


class Entrant(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="entries")
    #: Entry order, from 1.
    position = models.PositiveIntegerField()
    #: Place in the bracket's order from 1 (best; the API calls it the seed), fixed at the
    #: start by conservative rating, then entry order.
    bracket_position = models.PositiveIntegerField(null=True, blank=True)
    rating_at_start = models.FloatField(null=True, blank=True)
    #: The sets of its pairings finished so far, when the latest did, and when its newest
    #: pairing was made: kept as they happen (``services.scheduling``), so the ladder reads
    #: them without going through its whole history.
    sets_finished = models.PositiveIntegerField(default=0)
    last_set_finished_at = models.DateTimeField(null=True, blank=True)
    last_paired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "version"], name="entrant_unique_version"
            ),
            models.UniqueConstraint(
                fields=["tournament", "position"], name="entrant_unique_position"
            ),
        ]
        ordering = ["tournament", "position"]

    def __str__(self) -> str:
        return f"#{self.position} {self.version}"


class Pairing(models.Model):
    """Two entrants meeting in one round or bracket pairing; ``second`` empty is a Swiss bye."""

    #: NONE: not in an elimination bracket (round robin, Swiss, ladder, ...); its value is
    #: ``planning.NO_BRACKET``, "rounds", as the API and the stored rows have it.
    Bracket = models.TextChoices(
        "Bracket", [("NONE", (NO_BRACKET, "Rounds")), *[(s.name, s.value) for s in Side]]
    )

    class Status(models.TextChoices):
        PLAYING = "playing"
        FINISHED = "finished"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="pairings")
    #: ``r3t2`` (round 3, table 2) in a round robin or Swiss, the bracket pairing's key otherwise.
    key = models.CharField(max_length=16)
    bracket = models.CharField(max_length=8, choices=Bracket.choices, default=Bracket.NONE)
    round = models.PositiveIntegerField()
    table = models.PositiveIntegerField()
    first = models.ForeignKey(Entrant, on_delete=models.PROTECT, related_name="+")
    second = models.ForeignKey(
        Entrant, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PLAYING)
    #: The entrant going through (elimination), empty in round robins and Swiss.
    winner = models.ForeignKey(
        Entrant, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "key"], name="pairing_unique_key")
        ]
        ordering = ["tournament", "round", "bracket", "table"]
        # The ladder is one tournament that keeps every pairing it made: its tick and its
        # advance read those still playing, and those made in the last hours, by index.
        indexes = [
            models.Index(fields=["tournament", "status"], name="pairing_by_status"),
            models.Index(fields=["tournament", "created_at"], name="pairing_by_creation"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} {self.key}"


class DuplicateSet(models.Model):
    """Two matches on one seed with the seats swapped; its result is read from their logs."""

    Outcome = models.TextChoices("Outcome", [(o.name, o.value) for o in SetOutcome])

    class Status(models.TextChoices):
        PLAYING = "playing"
        FINISHED = "finished"
        #: Its tournament stopped (cancelled, or a version test decided) and dropped a match
        #: of it unplayed: it will never finish.
        NOT_PLAYED = "not_played"

    pairing = models.ForeignKey(Pairing, on_delete=models.CASCADE, related_name="sets")
    number = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    outcome = models.CharField(max_length=8, choices=Outcome.choices, blank=True)
    first_wins = models.PositiveSmallIntegerField(default=0)
    second_wins = models.PositiveSmallIntegerField(default=0)
    first_points = models.IntegerField(default=0)
    second_points = models.IntegerField(default=0)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pairing", "number"], name="set_unique_number")
        ]
        ordering = ["pairing", "number"]
        indexes = [models.Index(fields=["status", "finished_at"], name="set_finished")]

    def __str__(self) -> str:
        return f"{self.pairing} set {self.number}"

    @property
    def key(self) -> str:
        return f"{self.pairing.key}/{self.number}"


def current(relation: str = "") -> models.Q:
    """Of a set's matches, the current one of each seat arrangement: not replaced.

    ``relation`` reaches the links from another model (``"matches__"`` from a set or a
    tournament, ``"tournament_match__"`` from a match).
    """
    return models.Q(**{f"{relation}replaced_at__isnull": True})


class TournamentMatch(models.Model):
    """A match of a duplicate set. A replaced match (its worker died) stays, with the reason."""

    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="matches")
    duplicate_set = models.ForeignKey(
        DuplicateSet, on_delete=models.PROTECT, related_name="matches"
    )
    match = models.OneToOneField(
        "matches.Match", on_delete=models.PROTECT, related_name="tournament_match"
    )
    #: The seat the pairing's first entrant takes: 0 in one match of the set, 1 in the other.
    first_seat = models.PositiveSmallIntegerField()
    dispatched_at = models.DateTimeField(null=True, blank=True)
    #: Set when a fresh match took this one's place; ``failure`` says why.
    replaced_at = models.DateTimeField(null=True, blank=True)
    failure = models.TextField(blank=True)

    class Meta:
        ordering = ["tournament", "duplicate_set", "first_seat", "match"]
        verbose_name_plural = "tournament matches"
        constraints = [
            models.UniqueConstraint(
                fields=["duplicate_set", "first_seat"],
                condition=current(),
                name="one_current_match_per_seating",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.duplicate_set} match {self.match_id}"


class RecurringTournament(TournamentConfigFields):
    """A template the tick turns into a scheduled tournament of every active bot, periodically."""

    every = models.DurationField(help_text="Time between two tournaments, e.g. 1 day.")
    next_start_at = models.DateTimeField()
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["next_start_at", "id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.game}, every {self.every})"


class ManualChange(models.Model):
    """The audit of changes made by hand: who, what, why."""

    class Action(models.TextChoices):
        SCHEDULE = "schedule"
        START = "start"
        CANCEL = "cancel"
        RERUN_MATCH = "rerun_match"
        RATINGS_RECOMPUTE = "ratings_recompute"
        RATINGS_RESET = "ratings_reset"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    action = models.CharField(max_length=24, choices=Action.choices)
    reason = models.TextField()
    tournament = models.ForeignKey(
        Tournament, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    match = models.ForeignKey(
        "matches.Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    game = models.CharField(max_length=32, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.user}: {self.action}"


class VersionTest(models.Model):
    """The sequential test a ``version_test`` tournament runs (``tournaments.sprt``).

    The tournament's first entrant is the candidate; the others are the baseline, or the
    versions of the pool it is tested against, played in turn. The verdict and the counts
    it was reached on are written once, when the test stops.
    """

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="version_test"
    )
    elo0 = models.FloatField(default=0.0)
    elo1 = models.FloatField(default=50.0)
    alpha = models.FloatField(default=0.05)
    beta = models.FloatField(default=0.05)
    max_sets = models.PositiveIntegerField(default=1000)
    verdict = models.CharField(max_length=16, default="pending")
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    llr = models.FloatField(default=0.0)

    def __str__(self) -> str:
        return f"test {self.tournament_id}: {self.verdict}"

    @property
    def parameters(self) -> SprtParameters:
        return SprtParameters(self.elo0, self.elo1, self.alpha, self.beta, self.max_sets)
