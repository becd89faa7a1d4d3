"""A tournament's secret and an entrant's bracket position get names of their own: "seed"
is the deal seed (``DuplicateSet.seed``, ``Match.seed``)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0009_config_fields_shared")]

    operations = [
        migrations.RenameField("tournament", "seed", "secret"),
        migrations.RenameField("tournament", "seed_sha256", "secret_sha256"),
        migrations.RenameField("entrant", "seed", "bracket_position"),
    ]
