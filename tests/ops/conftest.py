"""The ops tests that need the real sandbox use the bots tests' fixture and marker."""

from tests.bots.conftest import sandbox  # noqa: F401
