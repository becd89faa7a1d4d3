"""The Celery application; configuration comes from Django settings (``CELERY_*``)."""

import os
from typing import Any

from celery import Celery
from celery.signals import celeryd_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("baize")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@celeryd_init.connect
def _no_banner_in_json_logs(sender: str, instance: Any, **kwargs: Any) -> None:
    """With ``LOG_FORMAT=json`` every line a worker writes is a JSON object: its start-up
    banner, printed rather than logged, is left out (``--quiet``)."""
    if os.environ.get("LOG_FORMAT", "").lower() == "json":
        instance.quiet = True
