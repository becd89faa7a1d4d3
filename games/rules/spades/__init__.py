from .rules import Spades, SpadesState

__all__ = ["Spades", "SpadesState"]
