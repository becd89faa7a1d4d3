from django.db import migrations, models

CHOICES = [("dutch", "dutch"), ("monrad", "monrad")]
HELP = "Swiss pairing: dutch (FIDE Dutch system) or monrad (1 v 2, 3 v 4)."


class Migration(migrations.Migration):
    """Swiss pairing systems. Tournaments that exist get Monrad, the way their rounds have
    been paired; new ones default to the Dutch system."""

    dependencies = [
        ("tournaments", "0007_ladder_challenge_version_test"),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="pairing_system",
            field=models.CharField(choices=CHOICES, default="monrad", help_text=HELP, max_length=8),
        ),
        migrations.AlterField(
            model_name="tournament",
            name="pairing_system",
            field=models.CharField(choices=CHOICES, default="dutch", help_text=HELP, max_length=8),
        ),
        migrations.AlterModelOptions(
            name="tournamentmatch",
            options={
                "ordering": ["tournament", "duplicate_set", "first_seat", "match"],
                "verbose_name_plural": "tournament matches",
            },
        ),
    ]
