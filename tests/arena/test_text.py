"""``storable_text``: any text a bot or an uploader wrote, made storable on every database."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from arena.text import storable_text

#: Characters UTF-8 encodes and PostgreSQL stores: everything but NUL and the surrogates.
STORABLE = st.characters(exclude_categories=["Cs"], exclude_characters="\0")
#: Any text, NUL and surrogates drawn often (``st.text`` draws characters by the size of
#: their ranges, and so almost never NUL or a surrogate).
ANY_TEXT = st.lists(
    st.one_of(st.characters(codec=None), st.just("\0"), st.characters(categories=["Cs"]))
).map("".join)


@given(ANY_TEXT)
@example("\0")
@example("\ud83d\ude00")  # a pair, as two code points: each half is still not UTF-8
@example(b"\xff\xfe\0bytes".decode("utf-8", "surrogateescape"))
def test_any_text_becomes_utf_8_without_a_nul(text):
    stored = storable_text(text)

    assert "\0" not in stored
    stored.encode("utf-8")
    assert storable_text(stored) == stored, "storing it again changes nothing"


@given(st.text(STORABLE))
@example("a backslash \\x00 written by the bot, and U+FFFD \ufffd, stay")
@example("tabs\tbells\a and escapes \x1b[0m stay")
def test_text_without_nul_or_surrogates_is_returned_as_it_is(text):
    assert storable_text(text) is text


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("a\0b", "a\\x00b"),
        ("\0\0", "\\x00\\x00"),
        ("lone \udc80 surrogate", "lone \\udc80 surrogate"),
        ("\ud800\udfff", "\\ud800\\udfff"),
        (b"PATH=/bin\0\xff".decode("utf-8", "surrogateescape"), "PATH=/bin\\x00\\udcff"),
        ("é ☃ 😀", "é ☃ 😀"),
    ],
)
def test_nul_is_written_x00_and_a_surrogate_u_and_its_four_hex_digits(text, stored):
    assert storable_text(text) == stored


def test_the_escapes_read_back_as_the_characters_they_stand_for():
    """Reversible enough: JSON (and Python) read ``\\udc80`` back, NUL as ``\\u0000``."""
    text = "x\udc80y"
    assert json.loads(f'"{storable_text(text)}"') == text
    assert storable_text("\0").encode().decode("unicode_escape") == "\0"
