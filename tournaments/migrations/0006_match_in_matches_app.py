"""Tournament links point at matches.Match: the same table, so state only (matches 0001)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0005_time_bank_sandbox_overrides"),
        ("matches", "0001_initial"),
    ]

    # Only Django's idea of the models changes; the tables are already what it describes.
    state_operations = [
        migrations.AlterField(
            model_name="manualchange",
            name="match",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="matches.match",
            ),
        ),
        migrations.AlterField(
            model_name="tournamentmatch",
            name="match",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="tournament_match",
                to="matches.match",
            ),
        ),
    ]

    operations = [migrations.SeparateDatabaseAndState(state_operations=state_operations)]
