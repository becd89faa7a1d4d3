"""SVG line charts: coordinates inside the plot, round ticks covering the data."""

from __future__ import annotations

from web.charts import HEIGHT, LEFT, line_chart, nice_range, ticks


def coordinates(points: str) -> list[tuple[float, float]]:
    return [tuple(map(float, pair.split(","))) for pair in points.split()]


def test_a_series_spans_the_plot_from_left_to_right():
    chart = line_chart([[0, 10, 5, 20]])
    xs = [x for x, _ in coordinates(chart.polylines[0])]
    assert xs[0] == LEFT and xs[-1] == chart.right
    assert xs == sorted(xs)


def test_higher_values_are_drawn_higher():
    chart = line_chart([[0, 10]])
    (_, low), (_, high) = coordinates(chart.polylines[0])
    assert 0 < high < low < HEIGHT


def test_the_band_is_a_closed_outline_around_the_line():
    chart = line_chart([[5, 6, 7]], band=([1, 2, 3], [9, 10, 11]))
    outline = coordinates(chart.band)
    assert len(outline) == 6
    assert outline[0][0] == outline[-1][0] == LEFT


def test_ticks_are_round_and_cover_the_range():
    low, high = nice_range(-3.2, 47.9)
    assert low <= -3.2 and high >= 47.9
    assert ticks(low, high)[0] == low and ticks(low, high)[-1] == high
    assert all(float(t).is_integer() for t in ticks(0, 50))


def test_a_flat_series_still_has_a_range():
    chart = line_chart([[7, 7, 7]])
    assert chart.y_min < 7 < chart.y_max
    assert all(0 < y < HEIGHT for _, y in coordinates(chart.polylines[0]))
