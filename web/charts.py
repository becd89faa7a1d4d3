"""Line charts drawn as inline SVG: the numbers in, the coordinates out (no plotting library).

A chart is a fixed view box; the template scales it to the page width. Each series is a
polyline, an optional band is a polygon (an interval around a line, e.g. a rating's
uncertainty), and the y axis gets a few round ticks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 26


@dataclass
class Tick:
    y: float
    label: str


@dataclass
class LineChart:
    """Pixel coordinates of a chart of ``x`` from 0 to ``x_max``."""

    x_max: float
    y_min: float
    y_max: float
    polylines: list[str] = field(default_factory=list)
    band: str = ""
    ticks: list[Tick] = field(default_factory=list)
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    bottom: float = HEIGHT - BOTTOM
    right: float = WIDTH - RIGHT

    def x(self, value: float) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * (value / self.x_max if self.x_max else 0)

    def y(self, value: float) -> float:
        span = self.y_max - self.y_min
        return TOP + (HEIGHT - TOP - BOTTOM) * (1 - (value - self.y_min) / span)

    def points(self, values: Sequence[float], xs: Sequence[float] | None = None) -> str:
        xs = range(len(values)) if xs is None else xs
        return " ".join(f"{self.x(x):.1f},{self.y(y):.1f}" for x, y in zip(xs, values, strict=True))


def line_chart(
    series: Sequence[Sequence[float]],
    band: tuple[Sequence[float], Sequence[float]] | None = None,
) -> LineChart:
    """A chart of equally long series against their index, with an optional band."""
    values = [v for s in series for v in s] + ([v for b in band for v in b] if band else [])
    length = max((len(s) for s in series), default=0)
    low, high = nice_range(min(values, default=0), max(values, default=1))
    chart = LineChart(x_max=max(length - 1, 1), y_min=low, y_max=high)
    chart.polylines = [chart.points(s) for s in series]
    if band:
        lower, upper = band
        xs = list(range(len(lower)))
        chart.band = chart.points(list(upper)) + " " + chart.points(lower[::-1], xs[::-1])
    chart.ticks = [Tick(chart.y(value), f"{value:g}") for value in ticks(low, high)]
    return chart


def nice_range(low: float, high: float) -> tuple[float, float]:
    """The range widened to round numbers, never empty."""
    if high <= low:
        low, high = low - 1, high + 1
    step = nice_step(high - low)
    return math.floor(low / step) * step, math.ceil(high / step) * step


def nice_step(span: float, count: int = 4) -> float:
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)


def ticks(low: float, high: float) -> list[float]:
    step = nice_step(high - low)
    count = round((high - low) / step)
    return [round(low + i * step, 10) for i in range(count + 1)]
