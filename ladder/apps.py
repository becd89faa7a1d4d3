from django.apps import AppConfig


class LadderConfig(AppConfig):
    name = "ladder"
    verbose_name = "Ladder, challenges and version tests"
