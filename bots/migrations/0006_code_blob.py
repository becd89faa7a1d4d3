"""Uploaded code moves into the store every worker reads (``bots.services.code_cache``).

The schema: one table of code blobs by content hash. The data: every uploaded version whose
folder is in this host's ``BAIZE_BOT_CODE_DIR`` (the store before) is put into the shared
store; the folders stay, as this host's warm cache. A version found nowhere is named, and can
be imported later from another host's folder with ``manage.py code_store_import``.
"""

from django.conf import settings
from django.db import migrations, models


def import_stored_uploads(apps, schema_editor):
    from bots.services.code_cache import code_store_import

    versions = apps.get_model("bots", "BotVersion")
    hashes = set(versions.objects.filter(builtin="").values_list("content_hash", flat=True))
    if not hashes:
        return
    blob_model = apps.get_model("bots", "CodeBlob")
    imported, missing = code_store_import(
        settings.BAIZE_BOT_CODE_DIR, hashes, blob_model=blob_model
    )
    print(f"\n  uploaded code: {len(imported)} moved into the shared store", end="")
    if missing:
        print(
            f"; {len(missing)} not in {settings.BAIZE_BOT_CODE_DIR} (run manage.py"
            " code_store_import --from <folder> where they are): " + ", ".join(missing),
            end="",
        )


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0005_bot_on_ladder"),
    ]

    operations = [
        migrations.CreateModel(
            name="CodeBlob",
            fields=[
                (
                    "content_hash",
                    models.CharField(max_length=64, primary_key=True, serialize=False),
                ),
                ("data", models.BinaryField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
        ),
        migrations.RunPython(import_stored_uploads, migrations.RunPython.noop),
    ]
