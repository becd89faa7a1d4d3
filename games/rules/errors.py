"""The exceptions the rules engines raise."""


class IllegalAction(ValueError):
    """An action that the rules do not allow in the given state (or that is malformed)."""


class GameOver(IllegalAction):
    """An action offered to a match that has already ended."""
