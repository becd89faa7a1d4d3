"""Template filters of the public pages."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def points(value: float) -> str:
    """Set points as players write them: 1.5 is ``1½``, 0.5 is ``½``."""
    whole, half = int(value), value - int(value) >= 0.5
    if not half:
        return str(whole)
    return "½" if whole == 0 else f"{whole}½"


#: The minus sign of a negative score: a hyphen after the dash of a pair would read ``–-``.
MINUS = "\u2212"


@register.filter
def against(first: int, second: int) -> str:
    """Two scores, for and against, as ``639–958``; a negative one with a minus sign, and
    in brackets after the dash: ``639–(−958)``, ``−12–40``."""

    def signed(value: int) -> str:
        return f"{MINUS}{-value}" if value < 0 else str(value)

    shown = signed(second)
    return f"{signed(first)}–{f'({shown})' if second < 0 else shown}"


@register.filter
def index(sequence: list, position: int):
    return sequence[position]


@register.filter
def label(value: str) -> str:
    """An enum value as words: ``single_elimination`` is ``single elimination``."""
    return str(value).replace("_", " ")


@register.filter
def tie_break(row, name: str) -> str:
    """A standing row's value for a named tie-break, without a trailing ``.0``."""
    return f"{row.tie_break(name):g}"


@register.filter
def pair(first, second) -> list:
    return [first, second]


#: The rating scale the interval bars share: openskill's prior is 25 ± 3 × 8.33.
SCALE_LOW, SCALE_HIGH, SCALE_PIXELS = -10.0, 60.0, 160.0


@register.filter
def interval(mu: float, sigma: float) -> dict[str, float]:
    """Pixel positions of a bar from μ − 3σ to μ + 3σ and a mark at μ, clipped to the scale."""

    def x(value: float) -> float:
        clipped = min(max(value, SCALE_LOW), SCALE_HIGH)
        return (clipped - SCALE_LOW) / (SCALE_HIGH - SCALE_LOW) * SCALE_PIXELS

    low, high = mu - 3 * sigma, mu + 3 * sigma
    return {"low": low, "high": high, "x": x(low), "width": x(high) - x(low), "mid": x(mu)}


@register.filter
def get(mapping: dict, key):
    return mapping.get(key)
