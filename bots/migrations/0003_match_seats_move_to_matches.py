"""MatchSeat and SeatStderr now belong to the matches app (state only; see matches 0001)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0002_uploads"),
        ("matches", "0001_initial"),
    ]

    # Only Django's idea of the models changes; the tables are already what it describes.
    state_operations = [
        migrations.RemoveField(
            model_name="seatstderr",
            name="seat",
        ),
        migrations.DeleteModel(
            name="MatchSeat",
        ),
        migrations.DeleteModel(
            name="SeatStderr",
        ),
    ]

    operations = [migrations.SeparateDatabaseAndState(state_operations=state_operations)]
