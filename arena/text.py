"""Text a bot or an uploader wrote, made storable on every database: ``storable_text``.

Pure: no Django, so the Django-free core (the runner, the referee, builds) may use it too.

Two kinds of character are text to Python and refused by a database:

- NUL (U+0000): PostgreSQL refuses it in any text value (psycopg raises ``DataError``
  "cannot contain NUL (0x00) characters"), and ``jsonb`` refuses the ``\\u0000`` escape;
  SQLite keeps it, so a suite on SQLite never sees the problem. A bot writes it easily:
  ``/proc/self/environ`` is NUL-separated, a C string written by its buffer's length ends
  with one.
- a lone surrogate (U+D800 to U+DFFF): half of a UTF-16 pair, which UTF-8 cannot encode, so
  the text cannot even be sent to the database. Bytes decoded with ``surrogateescape`` hold
  them (``b"\\xff"`` becomes U+DCFF), and so does JSON's ``"\\udc80"``.

``storable_text`` writes each of them as the escape Python and JSON readers know, where it
stood: NUL as the four characters ``\\x00``, a surrogate as ``\\u`` and its four hex digits
(``\\udcff``). Every other character is kept as it is (other control characters, U+FFFD,
backslashes), so text that was storable comes back unchanged. Escapes, not U+FFFD: a bot's
stderr is decoded with U+FFFD for each byte that is not UTF-8 (``arena.runner``), and a NUL
is not one of those. The bot did write it, and ``\\x00`` at its place tells its author what
and where (the environment's separators, a terminator sent by mistake) and keeps the text's
shape. Reversible enough: each escape reads back as the character it stands for, except
where the bot itself wrote the four characters ``\\x00`` (backslashes are not doubled, so as
to leave storable text unchanged).
"""

from __future__ import annotations

import re

#: What no database stores as text: NUL and the surrogates (lone, in a Python string).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable_text(text: str) -> str:
    """``text`` with each NUL written as ``\\x00`` and each surrogate as ``\\uXXXX``: text
    every database stores and UTF-8 encodes. Text without them is returned as it is."""
    if _UNSTORABLE.search(text) is None:
        return text
    return _UNSTORABLE.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    character = found.group()
    return "\\x00" if character == "\0" else f"\\u{ord(character):04x}"
