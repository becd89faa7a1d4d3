"""A tournament's configuration as one value, with its check (pure; no Django).

``TournamentConfig`` holds every setting a tournament is created with and an organiser may
change until it starts; a recurring tournament holds the same and passes it on to each
tournament it spawns. Its fields are the model fields of
``models.TournamentConfigFields``, which both models share, so ``config_of(row)`` reads
one from either and ``config.fields()`` writes it back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.sandbox.launcher import sandbox_overrides_check as sandbox_limits_check
from errors import DomainError
from games.rules import get_game

from .bounds import Bound
from .formats import Format, format_spec
from .swiss import PairingSystem

#: Each numeric setting's bounds, stated here alone: ``TournamentConfig.check``, the API's
#: input fields and the admin's form all read them.
BOUNDS: dict[str, Bound] = {
    #: Duplicate sets a pairing may play.
    "sets_per_pair": Bound(1, 100),
    #: More rounds than any field needs (a round robin's worth of 64 entrants).
    "rounds": Bound(1, 64),
    #: Seconds a bot may think about one decision.
    "decision_timeout": Bound(0.01, 60.0),
    #: Overtime per bot and match: at most an hour.
    "time_bank_seconds": Bound(0, 3600.0),
}


class TournamentError(DomainError, ValueError):
    """A tournament request that cannot be carried out, a configuration among them; the
    message says why and ``field`` names the setting at fault, if one is (400)."""


@dataclass(frozen=True)
class TournamentConfig:
    name: str
    game: str
    format: str = Format.ROUND_ROBIN
    options: Mapping[str, Any] = field(default_factory=dict)
    #: A format played in rounds (Swiss): how many; empty, the format's default at the start.
    rounds: int | None = None
    #: How Swiss rounds are paired (``tournaments.swiss``).
    pairing_system: str = PairingSystem.DUTCH
    #: Duplicate sets each pairing plays; a set is two matches on one seed, seats swapped.
    sets_per_pair: int = 1
    decision_timeout: float = 1.0
    #: Seconds of overtime per bot and match; None: the setting at creation.
    time_bank_seconds: float | None = None
    #: ``SandboxLimits`` fields replacing the settings' limits for its uploaded bots.
    sandbox_overrides: Mapping[str, int] = field(default_factory=dict)

    def check(self) -> None:
        """``TournamentError`` naming what is wrong, else None."""
        _check_options(self.game, self.options)
        try:
            spec = format_spec(self.format)
        except ValueError as error:
            raise TournamentError(str(error), field="format") from None
        if self.rounds is not None and spec.rounds is None:
            raise _error("rounds", "rounds is set for Swiss tournaments only")
        for name, bound in BOUNDS.items():
            value = getattr(self, name)
            if value is not None and not bound.holds(value):
                raise _error(name, bound.describe(name))
        if self.pairing_system not in {system.value for system in PairingSystem}:
            known = [system.value for system in PairingSystem]
            message = f"unknown pairing_system {self.pairing_system!r}; known: {known}"
            raise _error("pairing_system", message)
        sandbox_overrides_check(self.sandbox_overrides)
        if spec.check is not None:
            try:
                spec.check(self)
            except TournamentError:
                raise
            except ValueError as error:
                raise _error("format", str(error)) from None

    def fields(self) -> dict[str, Any]:
        """The configuration as model field values (``TournamentConfigFields``)."""
        values = {name: getattr(self, name) for name in CONFIG_FIELDS}
        values["options"] = dict(self.options or {})
        values["sandbox_overrides"] = dict(self.sandbox_overrides or {})
        return values

    def changed(self, **changes: Any) -> TournamentConfig:
        """This configuration with ``changes``; ``TournamentError`` for a non-setting."""
        unknown = sorted(set(changes) - set(CONFIG_FIELDS))
        if unknown:
            raise _error(unknown[0], f"not a tournament setting: {unknown}")
        return dataclasses.replace(self, **changes)


#: The settings of a tournament, in the order forms show them.
CONFIG_FIELDS = tuple(setting.name for setting in dataclasses.fields(TournamentConfig))


def default_of(name: str) -> Any:
    """The default of setting ``name``, as ``TournamentConfig`` states it."""
    setting = next(
        setting for setting in dataclasses.fields(TournamentConfig) if setting.name == name
    )
    if setting.default is not dataclasses.MISSING:
        return setting.default
    return setting.default_factory()  # type: ignore[misc]


def config_of(row: Any) -> TournamentConfig:
    """The configuration of a tournament or of a recurring tournament."""
    return TournamentConfig(**{name: getattr(row, name) for name in CONFIG_FIELDS})


def sandbox_overrides_check(overrides: Any) -> None:
    """``TournamentError`` if ``overrides`` are not sandbox limits within their ranges."""
    if overrides is not None and not isinstance(overrides, Mapping):
        message = f"sandbox_overrides is an object of limits, got {overrides!r}"
        raise _error("sandbox_overrides", message)
    try:
        sandbox_limits_check(overrides or {})
    except ValueError as error:
        raise _error("sandbox_overrides", str(error)) from None


def _check_options(game_id: str, options: Any) -> None:
    if options is not None and not isinstance(options, Mapping):
        raise _error("options", f"options are an object of option names, got {options!r}")
    try:
        game = get_game(game_id)
    except ValueError as error:
        raise _error("game", str(error)) from None
    try:
        game.new_match(0, dict(options or {}))
    except ValueError as error:
        raise _error("options", str(error)) from None


def _error(field: str, message: str) -> TournamentError:
    return TournamentError(message, field=field)
