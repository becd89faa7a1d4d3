#!/usr/bin/env python3
"""``make deploy-check``: build the image, run the deployment for real, and check it works.

Needs a running Docker daemon (``docker info`` must answer; DOCKER_HOST is honoured) and a
compose tool: ``docker-compose`` (1.29 verified) or ``docker compose``. Standard library only.

It brings up docker-compose.yml plus deploy/check.compose.yml under a project name of its
own: web, beat, PostgreSQL, Redis and the worker service scaled to three containers
(``--scale worker=3``), none given a sandbox uid base: each leases a range of the host's, and
they share nothing but PostgreSQL and Redis (no volume), as if on other hosts. It checks each
worker says sandbox level full on a range of its own. Then it signs up, uploads a bot, waits
for its check (by a worker that has never seen the code) and for the ladder to play it,
uploads the C++ and Java starter kits (built and checked in a worker's sandbox, then played
on the ladder), runs a small round robin, kills the worker container playing one of its
matches, and checks the tournament finishes with every match logged exactly once; then it
starts the killed container again, which leases a range afresh (its old one, lapsed, if no
lower one is free) and says full. It removes its containers, volumes, network and image at
the end, passed or failed.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = f"baizecheck{os.getpid()}"
START = time.monotonic()
#: Containers of the one worker service (``up --scale worker=N``).
WORKER_SCALE = 3
#: The first uid of the check's leased ranges, away from those of any other check running on
#: this host at the same time (its own database, so its own leases): check.compose.yml's
#: ranges fit in a million uids.
RANGES_BASE = 20_000_000 + (os.getpid() % 100) * 1_000_000

#: The uploaded bot: it thinks a little each decision, so a match lasts long enough to kill
#: its worker in the middle of it.
SLOW_BOT = b"""import json, sys, time

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        time.sleep(0.15)
        actions = message["observation"]["legal_actions"]
        print(json.dumps({"action": actions[len(actions) // 2]}), flush=True)
"""


class CheckFailed(RuntimeError):
    pass


def say(message: str) -> None:
    print(f"[{time.monotonic() - START:7.1f}s] {message}", flush=True)


def compose_command() -> list[str]:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    raise CheckFailed("no compose tool: install docker-compose or the docker compose plugin")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Deployment:
    def __init__(self) -> None:
        self.compose = [
            *compose_command(),
            "-p",
            PROJECT,
            "-f",
            str(ROOT / "docker-compose.yml"),
            "-f",
            str(ROOT / "deploy" / "check.compose.yml"),
        ]
        self.port = free_port()
        self.env = {
            **os.environ,
            "SECRET_KEY": secrets.token_urlsafe(40),
            "ALLOWED_HOSTS": "localhost,127.0.0.1",
            "BAIZE_HTTP_PORT": str(self.port),
            "BAIZE_IMAGE": f"{PROJECT}:latest",
            "BAIZE_CHECK_RANGES_BASE": str(RANGES_BASE),
            # Prometheus's token: /metrics answers it (README "Monitoring").
            "BAIZE_METRICS_TOKEN": METRICS_TOKEN,
        }
        self.base = f"http://127.0.0.1:{self.port}"

    def run(self, *args: str, check: bool = True, quiet: bool = False) -> str:
        done = subprocess.run(
            [*self.compose, *args], cwd=ROOT, env=self.env, capture_output=quiet, text=True
        )
        if check and done.returncode != 0:
            raise CheckFailed(f"{' '.join(args[:2])} failed ({done.returncode}): {done.stderr}")
        return done.stdout or ""

    def docker(self, *args: str, check: bool = True, stderr: bool = False) -> str:
        """What ``docker args`` wrote (``stderr``: on both streams, as ``docker logs`` does)."""
        done = subprocess.run(["docker", *args], env=self.env, capture_output=True, text=True)
        if check and done.returncode != 0:
            raise CheckFailed(f"docker {args[0]} failed ({done.returncode}): {done.stderr}")
        return done.stdout + (done.stderr if stderr else "")

    def workers(self) -> dict[str, str]:
        """Each container of the worker service, by its host name (what ``claimed_by`` says)."""
        found = {}
        for container in self.run("ps", "-q", "worker", quiet=True).split():
            name = self.docker("inspect", "--format", "{{.Config.Hostname}}", container).strip()
            found[name] = container
        return found

    def django(self, code: str) -> object:
        """Run ``code`` in the web container's Django; it prints one JSON line last."""
        out = self.run("exec", "-T", "web", "python", "manage.py", "shell", "-c", code, quiet=True)
        return json.loads(out.strip().splitlines()[-1])

    def api(self, method: str, path: str, body: object = None, token: str = "") -> dict:
        headers = {"Authorization": f"Token {token}"} if token else {}
        data = None
        if isinstance(body, tuple):  # (filename, bytes[, runtime]): a multipart upload
            boundary = uuid.uuid4().hex
            headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
            runtime = body[2] if len(body) > 2 else "python"
            data = (
                (
                    f'--{boundary}\r\nContent-Disposition: form-data; name="runtime"\r\n\r\n'
                    f"{runtime}\r\n"
                    f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                    f'filename="{body[0]}"\r\nContent-Type: application/octet-stream\r\n\r\n'
                ).encode()
                + body[1]
                + f"\r\n--{boundary}--\r\n".encode()
            )
        elif body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            raise CheckFailed(f"{method} {path}: {error.code} {error.read()[:500]!r}") from None


def wait_for(what: str, probe, timeout: float, every: float = 2.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = probe()
        except (CheckFailed, OSError, ValueError) as error:
            value, last = None, error
        else:
            last = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise CheckFailed(f"timed out after {timeout:.0f}s waiting for {what}: {last}")
        time.sleep(every)


def check(deployment: Deployment) -> None:
    say(f"building the image and starting project {PROJECT} (web on port {deployment.port})")
    # One build: web, worker and beat run the same image (BAIZE_IMAGE).
    deployment.run("build", "web")
    say("image built")
    deployment.run("up", "-d", "--no-build", "--scale", f"worker={WORKER_SCALE}")
    wait_for("web to answer /api/games/", lambda: deployment.api("GET", "/api/games/"), 300)
    workers = deployment.workers()
    say(
        f"web, beat, postgres, redis and {len(workers)} containers of the worker service (no"
        f" uid base given to any) are up; /api/games/ answers"
    )
    if len(workers) != WORKER_SCALE:
        raise CheckFailed(f"{len(workers)} worker containers, not {WORKER_SCALE}: {workers}")
    check_worker_ranges(deployment, workers)
    check_health(deployment)

    account = deployment.api(
        "POST", "/api/accounts/", {"username": "checker", "password": secrets.token_hex(12)}
    )
    token = account["token"]
    bot = deployment.api("POST", "/api/bots/", {"game": "snag", "name": "slowpoke"}, token)
    version = deployment.api(
        "POST", f"/api/bots/{bot['id']}/versions/", ("slowpoke.py", SLOW_BOT), token
    )
    say(f"signed up, uploaded {bot['id']} v{version['number']} ({version['content_hash'][:12]})")
    path = f"/api/bots/{bot['id']}/versions/{version['number']}/"

    def checked():
        body = deployment.api("GET", path, token=token)
        return body if body["status"] != "pending" else None

    verdict = wait_for("the upload's check", checked, 300)
    if verdict["status"] != "ready":
        raise CheckFailed(f"the upload was {verdict['status']}: {verdict['status_reason']}")
    say("the upload was checked: ready")

    played = wait_for(
        "a ladder match of the upload",
        lambda: deployment.django(LADDER_PLAYED % {"version": version["id"]}),
        600,
    )
    say(f"the ladder played it: match {played['match']} by {played['worker']}")
    for host, container in workers.items():
        cached = deployment.docker("exec", container, "ls", "/app/var/bots").split()
        say(f"{host} has the upload in its local cache: {version['content_hash'] in cached}")

    play_native_bots(deployment, token)

    tournament = deployment.django(TOURNAMENT_START % {"version": version["id"]})
    say(f"round robin {tournament['id']} started: {tournament['matches']} matches in round 1")
    victim = wait_for(
        "a running match of the tournament",
        lambda: deployment.django(RUNNING_MATCH % {"tournament": tournament["id"]}),
        300,
        every=1.0,
    )
    host = victim["worker"].split(":")[0]
    if host not in workers:
        raise CheckFailed(f"match {victim['match']} is claimed by unknown {victim['worker']}")
    deployment.docker("kill", workers[host])
    say(
        f"killed {host} (one of the worker service's containers) while it played match "
        f"{victim['match']} (event {victim['events']} logged so far)"
    )

    finished = wait_for(
        f"tournament {tournament['id']} to finish",
        lambda: deployment.django(TOURNAMENT_DONE % {"tournament": tournament["id"]}),
        900,
        every=3.0,
    )
    say(f"tournament finished: {json.dumps(finished)}")
    problems = deployment.django(EXACTLY_ONCE % {"tournament": tournament["id"]})
    if problems["errors"]:
        raise CheckFailed("matches not logged exactly once: " + "; ".join(problems["errors"]))
    say(
        f"exactly once: {problems['matches']} matches, each played match has one gapless "
        f"log ending in one match_finished ({problems['events']} events); "
        f"{problems['replaced']} replaced after its worker died, by "
        f"{', '.join(problems['played_by'])}"
    )
    restart_killed_worker(deployment, host, workers[host])
    check_metrics(deployment)


def worker_sandbox(deployment: Deployment, host: str, container: str) -> dict[str, str]:
    """What ``manage.py sandbox`` says in the worker container: its level, its uids and where
    its range comes from."""
    report = deployment.docker("exec", container, "python", "manage.py", "sandbox", check=False)
    lines = report.splitlines()
    said = {
        "level": lines[0] if lines else "?",
        "uids": next((line.split(": ", 1)[1] for line in lines if "  uids: " in line), "?"),
        "range": next((line.split(": ", 1)[1] for line in lines if "uid range: " in line), "?"),
    }
    if said["level"] != "sandbox level: full":
        raise CheckFailed(f"{host}'s sandbox is not full:\n{report}")
    return said


def worker_range_logged(deployment: Deployment, container: str, since: str = "") -> str:
    """The line of the worker's log that names the range it leased at start."""
    since_args = ("--since", since) if since else ()
    log = deployment.docker("logs", *since_args, container, stderr=True)
    lines = [line for line in log.splitlines() if "sandbox uids " in line]
    if not lines:
        raise CheckFailed("the worker has not leased a range yet")
    return lines[-1].split("sandbox uids ", 1)[1]


def check_worker_ranges(deployment: Deployment, workers: dict[str, str]) -> None:
    """Each worker leased a range of its own, of one host, and says full on it."""
    hosts, uids = set(), set()
    for host, container in workers.items():
        logged = wait_for(
            f"{host} to lease a range", lambda c=container: worker_range_logged(deployment, c), 300
        )
        said = worker_sandbox(deployment, host, container)
        shares = deployment.docker("exec", container, "sh", "-c", "ls /app/var/bots | wc -l")
        say(
            f"{host}: {said['level']}, uids {said['uids']}; {said['range']}; uploaded code in"
            f" its cache: {shares.strip()} folders"
        )
        say(f"{host}'s start log: sandbox uids {logged}")
        uids.add(said["uids"])
        hosts.add(said["range"].split(" of host ", 1)[1].split(",")[0])
    if len(uids) != len(workers) or len(hosts) != 1:
        raise CheckFailed(f"the workers' ranges are not apart on one host: {uids}, {hosts}")
    say(f"{len(workers)} ranges apart, all of host {hosts.pop()} (the kernel's boot id)")


def restart_killed_worker(deployment: Deployment, host: str, container: str) -> None:
    """The killed worker's container started again leases a range afresh and says full."""
    since = str(int(time.time()))
    deployment.docker("start", container)
    logged = wait_for(
        f"{host} to lease a range again",
        lambda: worker_range_logged(deployment, container, since),
        300,
    )
    said = worker_sandbox(deployment, host, container)
    say(f"{host} started again: {said['level']}; its log: sandbox uids {logged}")


#: The services docker-compose.yml gives a health check, and how long each may take to pass.
HEALTH_CHECKED = {"web": 300, "worker": 300, "beat": 300}
METRICS_TOKEN = secrets.token_urlsafe(24)


def containers(deployment: Deployment, service: str) -> list[str]:
    """The running containers of ``service`` (several when it is scaled)."""
    listed = deployment.run("ps", "-q", service, quiet=True).split()
    running = "{{.State.Running}}"
    return [
        c for c in listed if deployment.docker("inspect", "--format", running, c).strip() == "true"
    ]


def check_health(deployment: Deployment) -> None:
    """Each health check of docker-compose.yml passes, and says what it saw."""
    for service, timeout in HEALTH_CHECKED.items():
        for container in containers(deployment, service):

            def healthy(c: str = container) -> dict | None:
                raw = deployment.docker("inspect", "--format", "{{json .State.Health}}", c)
                health = json.loads(raw or "null")
                return health if health and health["Status"] == "healthy" else None

            health = wait_for(f"{service}'s health check to pass", healthy, timeout)
            said = health["Log"][-1]["Output"].strip().splitlines()[0][:200]
            say(f"{service} is healthy: {said}")


def _samples(text: str, name: str) -> float:
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith(name + "{") or line.startswith(name + " ")
    )


#: A worker's own /metrics, read from inside its container (the port is not published).
WORKER_SCRAPE = (
    "import os, urllib.request; r = urllib.request.Request('http://127.0.0.1:9808/metrics',"
    " headers={'Authorization': 'Bearer ' + os.environ['BAIZE_METRICS_TOKEN']});"
    " body = urllib.request.urlopen(r, timeout=30).read().decode(); print('answered'); print(body)"
)


def check_metrics(deployment: Deployment) -> None:
    """/metrics of web answers the token (and nobody without it), with what it reads at
    scrape time; each live worker's own endpoint counts the matches its processes played."""
    request = urllib.request.Request(
        deployment.base + "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        web = response.read().decode()
    try:
        urllib.request.urlopen(deployment.base + "/metrics", timeout=30)
        raise CheckFailed("/metrics answered without the token")
    except urllib.error.HTTPError as error:
        if error.code != 404:
            raise
    say(
        f"web's /metrics: {_samples(web, 'baize_workers_alive'):.0f} workers alive, "
        f"{_samples(web, 'baize_http_requests_total'):.0f} requests counted, "
        f"{_samples(web, 'baize_queue_messages'):.0f} tasks queued"
    )
    for container in containers(deployment, "worker"):

        def scraped(c: str = container) -> str | None:
            said = deployment.docker("exec", c, "python", "-c", WORKER_SCRAPE, check=False)
            return said if said.startswith("answered") else None

        # A worker started again serves its metrics once it is ready.
        worker = wait_for(f"worker {container[:12]}'s /metrics", scraped, 120)
        say(
            f"worker {container[:12]}'s /metrics (port 9808): "
            f"{_samples(worker, 'baize_matches_started_total'):.0f} matches started, "
            f"{_samples(worker, 'baize_matches_finished_total'):.0f} finished, "
            f"{_samples(worker, 'baize_upload_checks_total'):.0f} upload checks"
        )


def play_native_bots(deployment: Deployment, token: str) -> None:
    """The C++ and Java starter kits, uploaded, built and checked by a worker in the sandbox
    (its check plays ladder sets against a built-in bot), then played on the ladder."""
    starters = ROOT / "examples" / "starters"
    uploads = {
        "cpp": ("bot.cpp", (starters / "cpp" / "bot.cpp").read_bytes()),
        "java": ("kit.zip", zipped(starters / "java")),
    }
    versions = {}
    for runtime, (name, data) in uploads.items():
        bot = deployment.api(
            "POST", "/api/bots/", {"game": "snag", "name": f"{runtime}-kit"}, token
        )
        version = deployment.api(
            "POST", f"/api/bots/{bot['id']}/versions/", (name, data, runtime), token
        )
        versions[runtime] = (f"/api/bots/{bot['id']}/versions/{version['number']}/", version)
    for runtime, (path, version) in versions.items():

        def checked(path: str = path):
            body = deployment.api("GET", path, token=token)
            return body if body["status"] != "pending" else None

        verdict = wait_for(f"the {runtime} upload's build and check", checked, 600)
        if verdict["status"] != "ready":
            raise CheckFailed(
                f"the {runtime} upload was {verdict['status']}: {verdict['status_reason']}"
                f"\n{verdict['build_log'][-2000:]}"
            )
        say(f"the {runtime} upload was built and checked: ready ({verdict['toolchain']})")
        played = wait_for(
            f"a ladder match of the {runtime} upload",
            lambda version=version: deployment.django(LADDER_PLAYED % {"version": version["id"]}),
            600,
        )
        say(f"the ladder played the {runtime} bot: match {played['match']} by {played['worker']}")


def zipped(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.iterdir()):
            archive.write(path, path.name)
    return buffer.getvalue()


#: Snippets run in the web container's Django shell; each prints one JSON line.
LADDER_PLAYED = """
import json
from matches.models import MatchSeat
seat = (MatchSeat.objects.filter(version_id=%(version)d, match__status="finished")
        .select_related("match").first())
print(json.dumps(seat and {"match": seat.match_id, "worker": seat.match.claimed_by}))
"""
TOURNAMENT_START = """
import json
from bots.models import BotVersion
from bots.services.bots import builtin_bots_sync
from tournaments.config import TournamentConfig
from tournaments.services import tournament_create, tournament_enter, tournament_start_now
config = TournamentConfig(name="deploy check", game="snag", options={"target": 30},
                          decision_timeout=2.0)
t = tournament_create(config=config)
for v in [BotVersion.objects.get(id=%(version)d), *builtin_bots_sync(game_id="snag")]:
    tournament_enter(tournament=t, version=v)
tournament_start_now(tournament=t, user=None, reason="deploy check")
print(json.dumps({"id": t.id, "matches": t.matches.count()}))
"""
RUNNING_MATCH = """
import json
from matches.models import Match
from matches.selectors import match_event_count
m = (Match.objects.filter(tournament_match__tournament_id=%(tournament)d, status="running")
     .exclude(claimed_by="").first())
events = m and match_event_count(match_id=m.id)
print(json.dumps(bool(events) and {"match": m.id, "worker": m.claimed_by, "events": events}))
"""
TOURNAMENT_DONE = """
import json
from tournaments.models import Tournament
t = Tournament.objects.get(id=%(tournament)d)
print(json.dumps(t.status == "finished" and
                 {"status": t.status, "matches": t.matches.count(),
                  "standings": [e.version_id for e in t.entrants.all()]}))
"""
EXACTLY_ONCE = """
import json
from collections import Counter
from matches.selectors import match_event_records
from tournaments.models import TournamentMatch
errors, events, played_by, replaced = [], 0, set(), 0
links = TournamentMatch.objects.filter(tournament_id=%(tournament)d).select_related("match")
slots = Counter()
for link in links:
    m = link.match
    log = match_event_records(match=m)
    seqs = [record.seq for record in log]
    kinds = [record.type for record in log]
    events += len(seqs)
    if seqs != list(range(len(seqs))) and seqs != list(range(1, len(seqs) + 1)):
        errors.append(f"match {m.id}: seqs not gapless")
    if link.replaced_at is not None:
        replaced += 1
        if kinds.count("match_finished"):
            errors.append(f"replaced match {m.id} has a result")
        continue
    slots[(link.duplicate_set_id, link.first_seat)] += 1
    played_by.add(m.claimed_by.split(":")[0])
    if m.status != "finished" or kinds.count("match_finished") != 1:
        errors.append(f"match {m.id}: {m.status}, {kinds.count('match_finished')} finishes")
errors += [f"set {k} seat {s} played {n} times" for (k, s), n in slots.items() if n != 1]
print(json.dumps({"errors": errors, "matches": sum(slots.values()), "events": events,
                  "replaced": replaced, "played_by": sorted(played_by)}))
"""


def main() -> int:
    try:
        subprocess.run(["docker", "info"], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        print(
            "deploy-check needs a running Docker daemon: `docker info` does not answer"
            " (start Docker, or set DOCKER_HOST to its socket)",
            file=sys.stderr,
        )
        return 2
    try:
        deployment = Deployment()
    except CheckFailed as error:
        print(f"deploy-check: {error}", file=sys.stderr)
        return 2
    try:
        check(deployment)
    except CheckFailed as error:
        say(f"FAILED: {error}")
        for service in ("worker", "web"):
            log = deployment.run("logs", "--no-color", service, check=False, quiet=True)
            told = [line for line in log.splitlines() if "_tick" not in line]
            print("\n".join(told[-40:]))
        return 1
    finally:
        say("cleaning up: containers, volumes, network and image of the project")
        deployment.run("down", "-v", "--rmi", "local", "--remove-orphans", check=False, quiet=True)
        subprocess.run(["docker", "rmi", "-f", f"{PROJECT}:latest"], capture_output=True)
    say("deploy-check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
