from .rules import Jam, JamState

__all__ = ["Jam", "JamState"]
