"""The bot author's loop: a live ladder per game, challenges, and version tests.

All three play duplicate sets through the tournaments machinery (``tournaments.formats``:
``ladder``, ``challenge``, ``version_test``), so they share its matches, leases, recovery,
visibility and event logs; ladder sets are rated like a tournament's, challenges and tests
are not. This app decides who plays whom on the ladder (``matchmaking``, pure), creates
challenges and tests for authors, and shows the results.
"""
