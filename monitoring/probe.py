"""The health checks of the containers, without starting Django (they run every few seconds):

    python -m monitoring.probe web      # /readyz of the web process on this host answers 200
    python -m monitoring.probe worker   # this host's worker beat in the last ALIVE_SECONDS
    python -m monitoring.probe beat     # this host's beat sent a task in the last three ticks

Each prints one line saying why it is healthy or not (``docker inspect`` shows it), and exits
0 or 1. A worker whose sandbox is below ``full`` is healthy (it plays the built-in bots and
the tick) and says so: it takes no uploaded code. Standard library only.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

#: As ``monitoring.selectors``: a worker beats every 5 s and is dead after 20 s without one.
ALIVE_SECONDS = 20.0


def var_dir() -> Path:
    default = Path(__file__).resolve().parent.parent / "var"
    return Path(os.environ.get("BAIZE_VAR_DIR") or default)


def latest_heartbeat(kind: str) -> dict | None:
    found = []
    for path in (var_dir() / "heartbeats").glob(f"{kind}-*.json"):
        try:
            found.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    return max(found, key=lambda beat: beat.get("seen_at", 0), default=None)


def web(port: str = "8000") -> tuple[bool, str]:
    url = f"http://127.0.0.1:{port}/readyz"
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return True, f"ready: {response.read().decode()}"
    except urllib.error.HTTPError as error:
        return False, f"not ready ({error.code}): {error.read().decode()}"
    except OSError as error:
        return False, f"no answer at {url}: {error}"


def worker() -> tuple[bool, str]:
    beat = latest_heartbeat("worker")
    if beat is None:
        return False, "no heartbeat yet: the worker has not started (or cannot write var/)"
    age = time.time() - beat["seen_at"]
    if age > ALIVE_SECONDS:
        return False, f"{beat['name']}: last heartbeat {age:.0f} s ago"
    if beat.get("database", "ok") != "ok":
        return False, f"{beat['name']}: alive, but its database is {beat['database']}"
    said = f"{beat['name']}: alive, {beat['busy']} of {beat['concurrency']} busy"
    if beat.get("sandbox") != "full":
        reason = beat.get("sandbox_reason") or "no reason given"
        return (
            True,
            f"{said}; sandbox {beat.get('sandbox')}, below full ({reason}):"
            " it takes no uploaded code",
        )
    return True, f"{said}; sandbox full"


def beat() -> tuple[bool, str]:
    sent = latest_heartbeat("beat")
    tick = float(os.environ.get("BAIZE_TICK_SECONDS") or 10)
    limit = 3 * tick + 10
    if sent is None:
        return False, "the beat has sent nothing yet"
    age = time.time() - sent["seen_at"]
    if age > limit:
        return False, f"{sent['name']}: last task sent {age:.0f} s ago (more than {limit:.0f})"
    return True, f"{sent['name']}: last task sent {age:.0f} s ago"


CHECKS = {"web": web, "worker": worker, "beat": beat}


def main(argv: list[str]) -> int:
    if len(argv) < 1 or argv[0] not in CHECKS:
        print(f"usage: python -m monitoring.probe {'|'.join(CHECKS)}", file=sys.stderr)
        return 2
    healthy, said = CHECKS[argv[0]](*argv[1:])
    print(said)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
