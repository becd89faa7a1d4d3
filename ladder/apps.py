from typing import Any

from django.apps import AppConfig


class LadderConfig(AppConfig):
    name = "ladder"
    verbose_name = "Ladder, challenges and version tests"

    def ready(self) -> None:
        from matches.signals import match_finished

        match_finished.connect(_watch, dispatch_uid="ladder_match_watch")


def _watch(sender: Any, *, match_id: int, reason: str, **kwargs: Any) -> None:
    from .services import ladder_match_watch

    ladder_match_watch(match_id=match_id, reason=reason)
