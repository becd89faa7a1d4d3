"""Adding an entrant: the one race every entry goes through, an organiser's or the ladder's."""

from __future__ import annotations

from collections.abc import Collection

from django.db import transaction
from django.db.models import F

from bots.models import BotVersion

from ..models import Entrant, Tournament


def entrant_add(
    *, tournament: Tournament, version: BotVersion, open_statuses: Collection[str] | None = None
) -> Entrant | None:
    """Enter ``version`` at the tournament's next position; None if the tournament is no
    longer in one of ``open_statuses`` (any status when None).

    The position is taken by a conditional update of the tournament's entrant count, in the
    same transaction as the entrant: an entry racing the start either lands before the start
    reads the entrants or finds the tournament started. ``IntegrityError`` (nothing changed)
    if the version has entered already, perhaps a moment ago by a racing request or tick.
    """
    with transaction.atomic():
        rows = Tournament.objects.filter(id=tournament.pk)
        if open_statuses is not None:
            rows = rows.filter(status__in=open_statuses)
        if rows.update(entrant_count=F("entrant_count") + 1) != 1:
            return None
        position = Tournament.objects.values_list("entrant_count", flat=True).get(id=tournament.pk)
        return Entrant.objects.create(tournament=tournament, version=version, position=position)
