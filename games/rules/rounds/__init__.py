from .rules import Rounds, RoundsState

__all__ = ["Rounds", "RoundsState"]
