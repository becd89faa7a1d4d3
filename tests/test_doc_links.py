"""The repository stands alone: the README and docs/ link only inside it and every link lands
somewhere, and no page, docstring or comment refers to a file outside it."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: The project's own Python files: everything but the virtual environment and local state.
SOURCES = sorted(
    path
    for path in ROOT.rglob("*.py")
    if not {".venv", "var", "artifacts", "build"} & set(path.relative_to(ROOT).parts)
)
#: Names of what lies outside a clone: the workplace's shared folder and the documents in it
#: (the rulings, the sandbox's design notes, the games' original texts), and its absolute path.
OUTSIDE = re.compile(r"shared/|SANDBOX\.md|\bSANDBOX\b|RULINGS|seeds/|/work/")
#: A relative path climbing out of its folder (not the ellipsis of ``.../cancel/``).
CLIMBING = re.compile(r"(?<![.\w/])((?:\.\./)+[\w./-]*)")
#: ``[text](target)``, outside code spans and blocks (removed first).
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
LOCAL_SERVER = re.compile(r"^https?://(127\.0\.0\.1|localhost)(:\d+)?(/|$)")


def links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
    text = re.sub(r"`[^`\n]*`(?!\])", "", text)
    return LINK.findall(text) + re.findall(r"<(https?://[^>]+)>", text)


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_link_of_the_page_stays_in_the_repository_and_resolves(page):
    for target in links(page):
        if LOCAL_SERVER.match(target):
            continue  # the reader's own `make serve`
        assert "://" not in target and not target.startswith("/"), f"{page.name}: {target}"
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.is_relative_to(ROOT), f"{page.name} links outside: {target}"
        assert resolved.exists(), f"{page.name} links to a missing {target}"
        if anchor:
            assert anchor in anchors(resolved), f"{page.name}: no heading for {target}"


def outside_references(text: str) -> list[str]:
    return [match.group(0) for match in OUTSIDE.finditer(text)]


def docstrings_and_comments(source: Path) -> list[tuple[int, str]]:
    """Each docstring and comment of a Python file, with its line."""
    text = source.read_text()
    found = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                found.append((node.body[0].lineno, docstring))
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_no_page_refers_to_a_file_outside_the_repository(page):
    text = page.read_text()
    assert not outside_references(text), f"{page.name}: {outside_references(text)}"
    for climb in CLIMBING.findall(text):
        resolved = (page.parent / climb).resolve()
        assert resolved.is_relative_to(ROOT), f"{page.name} climbs outside: {climb}"


def test_no_docstring_or_comment_refers_to_a_file_outside_the_repository():
    found = [
        f"{source.relative_to(ROOT)}:{line}: {reference}"
        for source in SOURCES
        for line, text in docstrings_and_comments(source)
        for reference in outside_references(text) + CLIMBING.findall(text)
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "text",
    [
        # Spelled in two parts, so that this file is no such reference itself.
        "see ``" + "shared/" + "SANDBOX.md``",
        'as settled by RULINGS "Snag"',
        "the original (seeds/000.txt)",
        "(SANDBOX trap 5)",
        "the notes in ../notes.md",
        "/work/shared/x",
    ],
)
def test_the_check_catches_every_kind_of_outside_reference(tmp_path, text):
    source = tmp_path / "module.py"
    source.write_text(f'"""A module."""\n\n# {text}\nx = 1\n')
    [comment] = [text for line, text in docstrings_and_comments(source) if line == 3]
    assert outside_references(comment) + CLIMBING.findall(comment)


def test_names_and_ellipses_that_only_look_alike_pass():
    text = "``BAIZE_SANDBOX_UID_BASE``, the ``sandboxed`` queue, ``POST .../cancel/``"
    assert not outside_references(text) and not CLIMBING.findall(text)
