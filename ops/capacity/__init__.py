"""``make capacity``: how many matches per second one PostgreSQL and one Redis carry.

- ``workload``: the fixed workload: two uploads of a bot that sleeps on the wall clock at
  each decision, played against each other in a round robin of stacked decks, so that every
  match is the same match and a worker's time goes to waiting and to the shared parts;
- ``counters``: what a process says to PostgreSQL and Redis, counted inside it (the workers
  are started through ``ops.capacity.worker``, which installs them);
- ``server``: what the servers say they did for this run's database (rows, transactions,
  WAL) and for everyone (Redis' command statistics, the WAL's position);
- ``report``: the table and the curve.

``manage.py capacity`` (``ops/management/commands/capacity.py``) ties them together.
"""
