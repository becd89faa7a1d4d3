"""A match: everything about one, from its row to who may see what of it.

- ``models``: the match, its append-only event log, its seats and their stderr.
- ``services``: the one writer of match rows: create, claim, renew, append, finish, fail,
  recover a dead worker's match, create a replacement.
- ``play``: playing a claimed match through the referee (``arena.referee``) into its log.
- ``selectors``: reads: the log, its replay, a viewer's view of it.
- ``redaction`` (pure) and ``visibility``: what each viewer sees (``docs/visibility.md``).
- ``api``, ``serializers``, ``urls``, ``admin``: the match API and admin pages.
- ``management/commands/replay_matches``: replay every stored match and report failures.

The log's format (event types, canonical JSON, the hash chain) and the fold that replays
it are pure cores shared with the referee, so they live below the bots layer, in
``games/events.py`` and ``games/replay.py`` (``docs/event-log.md``).
"""
