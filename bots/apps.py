from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"

    def ready(self) -> None:
        from . import monitoring

        monitoring.connect()
