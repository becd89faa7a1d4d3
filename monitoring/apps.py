from django.apps import AppConfig


class MonitoringConfig(AppConfig):
    name = "monitoring"
    verbose_name = "Monitoring: metrics, health, workers' heartbeats"

    def ready(self) -> None:
        from . import exposition, logs

        exposition.scrape_collector_add("workers", exposition.workers_collect)
        logs.task_context_connect()
