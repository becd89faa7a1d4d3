"""Settings read from the environment refuse bad values with a message naming the variable."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_float, env_int, env_list


def test_unset_variables_give_their_defaults(monkeypatch):
    monkeypatch.delenv("BAIZE_X", raising=False)
    assert env_int("BAIZE_X", 3) == 3
    assert env_float("BAIZE_X", 1.5) == 1.5
    assert env_bool("BAIZE_X", True) is True
    assert env_list("BAIZE_X", ["a"]) == ["a"]


def test_set_variables_are_parsed(monkeypatch):
    monkeypatch.setenv("BAIZE_X", "7")
    assert env_int("BAIZE_X", 3) == 7 and env_float("BAIZE_X", 1.0) == 7.0
    monkeypatch.setenv("BAIZE_X", "off")
    assert env_bool("BAIZE_X", True) is False
    monkeypatch.setenv("BAIZE_X", "a, b,,c")
    assert env_list("BAIZE_X", []) == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("reader", "default", "raw", "message"),
    [
        (env_int, 1, "seven", "must be an integer"),
        (env_int, 1, "-1", "must be at least 0"),
        (env_float, 1.0, "fast", "must be a number"),
        (env_bool, True, "maybe", "must be a boolean"),
    ],
)
def test_bad_values_name_the_variable_and_the_problem(monkeypatch, reader, default, raw, message):
    monkeypatch.setenv("BAIZE_X", raw)
    with pytest.raises(ImproperlyConfigured, match=f"BAIZE_X {message}"):
        reader("BAIZE_X", default)
