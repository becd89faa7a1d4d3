from .rules import Snag, SnagState

__all__ = ["Snag", "SnagState"]
