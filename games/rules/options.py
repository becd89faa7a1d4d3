"""Declared match options: each game lists its options once, and one parser checks them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Option:
    """One option a game accepts: its default, what it means, and how a value is checked."""

    name: str
    default: Any
    description: str
    check: Callable[[str, Any], Any]
    schema: Mapping[str, Any]

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "default": self.default,
            "description": self.description,
            **self.schema,
        }


def int_option(name: str, default: int, description: str, *, minimum: int, maximum: int) -> Option:
    def check(key: str, value: Any) -> int:
        if type(value) is not int or not minimum <= value <= maximum:
            raise ValueError(
                f"option {key!r} must be an integer from {minimum} to {maximum}, got {value!r}"
            )
        return value

    schema = {"type": "integer", "minimum": minimum, "maximum": maximum}
    return Option(name, default, description, check, schema)


def choice_option(name: str, default: Any, description: str, choices: tuple[Any, ...]) -> Option:
    def check(key: str, value: Any) -> Any:
        # type() as well as ==, so that True is not taken for 1.
        if not any(type(value) is type(c) and value == c for c in choices):
            raise ValueError(f"option {key!r} must be one of {list(choices)!r}, got {value!r}")
        return value

    return Option(name, default, description, check, {"enum": list(choices)})


def parse_options(declared: tuple[Option, ...], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults overlaid with ``given``; unknown names and bad values raise ``ValueError``."""
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise ValueError(f"options must be a JSON object, got {given!r}")
    by_name = {option.name: option for option in declared}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown!r}; this game accepts {sorted(by_name)!r}")
    return {
        name: option.check(name, given[name]) if name in given else option.default
        for name, option in by_name.items()
    }
