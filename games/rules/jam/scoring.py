"""Jam's game points: slams from tricks in a row, and a majority of the deal's 26 tricks.

Rules: ``docs/rules/jam.md`` (settled points: ``docs/rulings.md``).
A counter counts a player's tricks in a row and resets when she loses one. At 4 she banks a
baby slam (1 point); if she already has the deal's grand slam the counter restarts at 0.
At 5 (only reachable before a grand slam) the baby slam becomes her grand slam, worth 3
instead of 1, and the counter restarts at 0. At the end of the deal 14 tricks score 2 and
15 or more score 3, but only 2 for a player with a grand slam (no two three-point plays).
"""

from __future__ import annotations

import enum

BABY_SLAM_TRICKS = 4
GRAND_SLAM_TRICKS = 5
BABY_SLAM_POINTS = 1
GRAND_SLAM_POINTS = 3
FOURTEEN = 14
FIFTEEN = 15
FOURTEEN_POINTS = 2
FIFTEEN_POINTS = 3
RUBBER_POINTS = 5


class Slam(enum.Enum):
    BABY = "baby"
    GRAND = "grand"


def next_streak(streak: int, has_grand_slam: bool) -> tuple[int, Slam | None]:
    """``(counter, slam banked now or None)`` after the winner takes one more trick in a row."""
    streak += 1
    if streak == BABY_SLAM_TRICKS:
        return (0 if has_grand_slam else streak), Slam.BABY
    if streak == GRAND_SLAM_TRICKS:
        return 0, Slam.GRAND
    return streak, None


def majority_points(tricks: int, has_grand_slam: bool) -> int:
    """The end-of-deal points for taking ``tricks`` of the 26."""
    if tricks >= FIFTEEN and not has_grand_slam:
        return FIFTEEN_POINTS
    if tricks >= FOURTEEN:
        return FOURTEEN_POINTS
    return 0


def slam_points(baby_slams: int, has_grand_slam: bool) -> int:
    """The slam points of a deal; ``baby_slams`` counts those not grown into the grand slam."""
    return baby_slams * BABY_SLAM_POINTS + (GRAND_SLAM_POINTS if has_grand_slam else 0)


def rubber_winner(points: tuple[int, int]) -> int | None:
    """The seat that wins the rubber on these game points, checked only after a deal."""
    if max(points) < RUBBER_POINTS or points[0] == points[1]:
        return None
    return 0 if points[0] > points[1] else 1
