"""Fixtures of the page tests: an empty cache for each test, a fast password hasher, and
headless Chromium; the bots tests' sandbox and code store, for uploads from the pages."""

import os

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection

from tests.bots.conftest import code_store, sandbox  # noqa: F401
from tests.web.browser import DESKTOP, FLAGS, chromium_path
from web.live import kept_pages_forget


@pytest.fixture(autouse=True)
def empty_cache():
    """Pages are cached by version; every test starts from an empty cache."""
    cache.clear()
    kept_pages_forget()
    yield
    cache.clear()
    kept_pages_forget()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    # Playwright's sync API keeps an event loop in this thread; the ORM calls the tests
    # make between page actions are still plain synchronous code.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=executable, args=FLAGS)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=DESKTOP)
    tab = context.new_page()
    tab.errors = []
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    tab.on(
        "console",
        lambda m: m.type == "error" and tab.errors.append(f"{m.text} ({m.location.get('url')})"),
    )
    yield tab
    context.close()


@pytest.fixture
def live_db(transactional_db):
    """Committed rows, which a live server's thread can read; emptied after the test.

    On PostgreSQL the append-only trigger refuses the test runner's TRUNCATE of a log that
    holds events; DDL is the one way past it, so the log is emptied here with the trigger
    off for a moment, and the runner's own flush then finds it empty.
    """
    yield
    if connection.vendor != "postgresql":
        return
    trigger = "matches_eventbatch_refuse_truncate"
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE matches_eventbatch DISABLE TRIGGER {trigger}")
        try:
            call_command("flush", interactive=False, verbosity=0)
        finally:
            cursor.execute(f"ALTER TABLE matches_eventbatch ENABLE ALWAYS TRIGGER {trigger}")
