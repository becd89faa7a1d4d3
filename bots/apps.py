from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"

    def ready(self) -> None:
        from . import monitoring, worker_sandbox

        monitoring.connect()
        worker_sandbox.connect()
