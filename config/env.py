"""Typed readers for settings from the environment; a bad value stops start-up with a message.

Each reader refuses, naming the variable, a value the service could not honour: text where
a number belongs, a number below its minimum, ``nan`` or ``inf``, a word outside its choices.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from django.core.exceptions import ImproperlyConfigured

N = TypeVar("N", int, float)

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
#: A DRF throttle rate: requests, then a period whose first letter DRF reads (s, m, h, d).
_RATE = re.compile(r"\d+/(s|sec|second|m|min|minute|h|hour|d|day)")


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    if raw.lower() in _TRUE:
        return True
    if raw.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    return _env_number(name, default, float, "a finite number", minimum, "")


def env_int(name: str, default: int, *, minimum: int = 0, why: str = "") -> int:
    """An integer; ``why`` says, in the message, why a fraction will not do."""
    return _env_number(name, default, int, "a whole number", minimum, why)


def _env_number(
    name: str, default: N, parse: Callable[[str], N], kind: str, minimum: N, why: str
) -> N:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = parse(raw)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value):
        reason = f" ({why})" if why else ""
        raise ImproperlyConfigured(f"{name} must be {kind}, got {raw!r}{reason}")
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {raw!r}")
    return value


def env_choice(name: str, default: str, choices: Sequence[str]) -> str:
    raw = os.environ.get(name)
    if raw is None:
        return default
    if raw.upper() not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, got {raw!r}")
    return raw.upper()


def env_rate(name: str, default: str) -> str:
    """A throttle rate such as ``10/hour`` (``0/hour`` refuses every request of its kind)."""
    raw = os.environ.get(name, default)
    if not _RATE.fullmatch(raw):
        raise ImproperlyConfigured(
            f"{name} must be requests per second, minute, hour or day, e.g. 10/hour; got {raw!r}"
        )
    return raw


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]
