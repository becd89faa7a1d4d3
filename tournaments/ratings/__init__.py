"""Ratings, a room of their own inside the tournaments app.

``maths`` is the pure rating model (openskill); ``models`` the rows (app ``tournaments``);
``services`` their one writer; ``selectors`` the one way seeding, the pages, the API and
the ladder read them; ``api`` and ``serializers`` the leaderboard and rating history;
``admin`` the leaderboards with the recompute and reset actions.
"""
