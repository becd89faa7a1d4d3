"""A recurring tournament has a pairing system too (existing ones keep dutch, the default),
and a format is a name the formats table knows rather than one of fixed field choices."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0008_pairing_system"),
    ]

    operations = [
        migrations.AddField(
            model_name="recurringtournament",
            name="pairing_system",
            field=models.CharField(
                choices=[("dutch", "dutch"), ("monrad", "monrad")],
                default="dutch",
                help_text="Swiss pairing: dutch (FIDE Dutch system) or monrad (1 v 2, 3 v 4).",
                max_length=8,
            ),
        ),
        migrations.AlterField(
            model_name="recurringtournament",
            name="format",
            field=models.CharField(default="round_robin", max_length=32),
        ),
        migrations.AlterField(
            model_name="tournament",
            name="format",
            field=models.CharField(default="round_robin", max_length=32),
        ),
    ]
