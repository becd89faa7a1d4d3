"""The bots app's writes, and all that reads settings to run a bot: the only modules that
write its rows (``tests/test_layers.py``).

- ``bots``: an author's bots, the built-in bots, a version's watched matches;
- ``accounts``: bot authors' accounts and API tokens;
- ``upload``: reading an upload, storing its code, creating the version;
- ``check``: an uploaded version's check (its plan, the smoke test, the verdict);
- ``launch``: the launcher a version plays through, its code on this worker, the server's
  limits and the sandbox as settings configure it;
- ``code_cache``: uploaded code in the store every worker reads, and this worker's cache.
"""
