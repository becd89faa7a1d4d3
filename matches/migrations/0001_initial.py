"""The matches app takes over the match tables; the database is not touched.

``Match`` and ``MatchEvent`` were models of the ``games`` app, ``MatchSeat`` and
``SeatStderr`` of the ``bots`` app. Their tables keep their names (``db_table``), so the
event rows, their append-only trigger and every foreign key stay exactly as they are:
this migration and its three siblings only move the models in Django's state.
"""

import django.core.validators
import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("bots", "0002_uploads"),
        ("games", "0002_match_event_append_only"),
    ]

    # Only Django's idea of the models changes; the tables are already what it describes.
    state_operations = [
        migrations.CreateModel(
            name="Match",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("game", models.CharField(max_length=32)),
                ("rules_version", models.CharField(max_length=16)),
                ("options", models.JSONField(default=dict)),
                (
                    "seed",
                    models.BigIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(0),
                            django.core.validators.MaxValueValidator(9223372036854775807),
                        ]
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("running", "Running"),
                            ("finished", "Finished"),
                            ("failed", "Failed"),
                        ],
                        default="pending",
                        max_length=16,
                    ),
                ),
                ("winner", models.SmallIntegerField(blank=True, null=True)),
                ("scores", models.JSONField(blank=True, null=True)),
                (
                    "result_reason",
                    models.CharField(
                        blank=True,
                        choices=[("played", "played"), ("forfeit", "forfeit")],
                        max_length=16,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("claimed_by", models.CharField(blank=True, max_length=255)),
                ("lease_expires_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "verbose_name_plural": "matches",
                "db_table": "games_match",
                "ordering": ["id"],
                "indexes": [models.Index(fields=["status"], name="match_status")],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("seed__gte", 0)), name="match_seed_not_negative"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("winner__isnull", True), ("winner__in", [0, 1]), _connector="OR"
                        ),
                        name="match_winner_is_a_seat",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="MatchSeat",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seat", models.PositiveSmallIntegerField()),
                (
                    "match",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="seats",
                        to="matches.match",
                    ),
                ),
                (
                    "version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="seats",
                        to="bots.botversion",
                    ),
                ),
            ],
            options={
                "db_table": "bots_matchseat",
                "ordering": ["match", "seat"],
            },
        ),
        migrations.CreateModel(
            name="SeatStderr",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("text", models.TextField(blank=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "seat",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="stderr",
                        to="matches.matchseat",
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "seat stderr",
                "db_table": "bots_seatstderr",
            },
        ),
        migrations.CreateModel(
            name="MatchEvent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seq", models.PositiveIntegerField()),
                (
                    "type",
                    models.CharField(
                        choices=[
                            ("match_started", "Match Started"),
                            ("shuffle", "Shuffle"),
                            ("decision", "Decision"),
                            ("forfeit", "Forfeit"),
                            ("match_finished", "Match Finished"),
                        ],
                        max_length=32,
                    ),
                ),
                ("payload", models.JSONField()),
                ("hash", models.CharField(max_length=64)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "match",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="events",
                        to="matches.match",
                    ),
                ),
            ],
            options={
                "db_table": "games_matchevent",
                "ordering": ["match", "seq"],
                "constraints": [
                    models.UniqueConstraint(fields=("match", "seq"), name="match_event_unique_seq")
                ],
            },
        ),
        migrations.AddConstraint(
            model_name="matchseat",
            constraint=models.UniqueConstraint(fields=("match", "seat"), name="match_seat_unique"),
        ),
        migrations.AddConstraint(
            model_name="matchseat",
            constraint=models.CheckConstraint(
                condition=models.Q(("seat__in", [0, 1])), name="match_seat_0_or_1"
            ),
        ),
    ]

    operations = [migrations.SeparateDatabaseAndState(state_operations=state_operations)]
