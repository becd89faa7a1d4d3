import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="botversion",
            name="check_log",
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name="botversion",
            name="checked_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="botversion",
            name="size",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddConstraint(
            model_name="botversion",
            constraint=models.UniqueConstraint(
                condition=models.Q(("builtin", "")),
                fields=("bot", "content_hash"),
                name="bot_version_unique_upload",
            ),
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
                        to="bots.matchseat",
                    ),
                ),
            ],
        ),
    ]
