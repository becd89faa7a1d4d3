"""The values a numeric setting may take (pure): stated once, read by checks and inputs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bound:
    """The values a numeric setting may take, both ends included."""

    low: float
    high: float

    def holds(self, value: float) -> bool:
        return self.low <= value <= self.high

    def describe(self, name: str) -> str:
        return f"{name} must be from {self.low:g} to {self.high:g}"
