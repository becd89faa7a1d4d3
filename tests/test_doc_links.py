"""The README and docs/ link only inside the repository, and every link lands somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
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
