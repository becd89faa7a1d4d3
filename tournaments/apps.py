from django.apps import AppConfig
from django.conf import settings


class TournamentsConfig(AppConfig):
    name = "tournaments"

    def ready(self) -> None:
        if not settings.BAIZE_METRICS:
            return
        from matches.signals import match_finished, match_started

        from . import monitoring

        match_started.connect(monitoring.match_started_observe, dispatch_uid="metrics_started")
        match_finished.connect(monitoring.match_finished_observe, dispatch_uid="metrics_finished")
