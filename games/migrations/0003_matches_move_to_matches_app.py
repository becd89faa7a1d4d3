"""Match and MatchEvent now belong to the matches app (state only; see matches 0001)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_match_event_append_only"),
        ("bots", "0003_match_seats_move_to_matches"),
        ("tournaments", "0006_match_in_matches_app"),
    ]

    # Only Django's idea of the models changes; the tables are already what it describes.
    state_operations = [
        migrations.RemoveField(
            model_name="matchevent",
            name="match",
        ),
        migrations.DeleteModel(
            name="Match",
        ),
        migrations.DeleteModel(
            name="MatchEvent",
        ),
    ]

    operations = [migrations.SeparateDatabaseAndState(state_operations=state_operations)]
