"""Typed readers for settings from the environment; a bad value stops start-up with a message."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from django.core.exceptions import ImproperlyConfigured

N = TypeVar("N", int, float)

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


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
    return _env_number(name, default, float, "a number", minimum)


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    return _env_number(name, default, int, "an integer", minimum)


def _env_number(name: str, default: N, parse: Callable[[str], N], kind: str, minimum: N) -> N:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = parse(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be {kind}, got {raw!r}") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {raw!r}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]
