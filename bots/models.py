"""Bots and their immutable versions; the matches they play live in the ``matches`` app."""

from __future__ import annotations

from django.db import models


class Bot(models.Model):
    """A named bot for one game. Built-in bots ship with Baize and have no owner."""

    name = models.SlugField(max_length=64)
    game = models.CharField(max_length=32)
    owner = models.ForeignKey(
        "auth.User", null=True, blank=True, on_delete=models.PROTECT, related_name="bots"
    )
    description = models.TextField(blank=True)
    #: Its latest ready version plays on the game's ladder (the owner's choice).
    on_ladder = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "name"], name="bot_unique_name")]
        ordering = ["game", "name"]

    def __str__(self) -> str:
        return f"{self.game}/{self.name}"


class BotVersion(models.Model):
    """One immutable version of a bot's code; matches record which version played."""

    class Status(models.TextChoices):
        PENDING = "pending"
        READY = "ready"
        REJECTED = "rejected"

    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    #: Name of a program under ``arena/builtin/`` for built-in bots; empty for uploads.
    builtin = models.CharField(max_length=64, blank=True)
    content_hash = models.CharField(max_length=64)
    #: The row of the runtimes table it is written for (``arena.runtimes``); what runs it.
    runtime = models.CharField(max_length=32, default="python")
    #: What the runtime's toolchain said of its version when the version was built or
    #: checked, one line per tool: with the runtime, what a match is reproducible to.
    toolchain = models.TextField(blank=True)
    #: The content hash of the built files it plays, for a runtime that builds; "" if none.
    build_hash = models.CharField(max_length=64, blank=True)
    #: The sources' and toolchain's hash the build is stored under (``arena.builds``): the
    #: same sources built by the same toolchain are never built again.
    build_key = models.CharField(max_length=64, blank=True, db_index=True)
    #: The build's output (bounded), compiler messages included; its owner and staff only.
    build_log = models.TextField(blank=True)
    #: Bytes of code (all files unpacked); 0 for built-in bots.
    size = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    #: Why a version was rejected (or is still waiting); shown to its owner and staff only.
    status_reason = models.TextField(blank=True)
    #: The version's stderr during its check; shown to its owner and staff only.
    check_log = models.TextField(blank=True)
    #: Its check found that it plays series (protocol version 2): one process per seat plays
    #: several matches in a row. Says what the bot does; whether it does is its own choice.
    plays_series = models.BooleanField(default=False)
    #: Its first ladder matches (``BAIZE_WATCHED_MATCHES``) are watched as its check is: the
    #: first it forfeited there, which and how (``bots.services.bots.version_watch_mark``); ""
    #: if none. Public: the match and its forfeit are.
    watch_note = models.TextField(blank=True)
    #: The upload time of an uploaded version.
    created_at = models.DateTimeField(auto_now_add=True)
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="bot_version_unique_number"),
            models.UniqueConstraint(
                fields=["bot", "content_hash", "runtime"],
                condition=models.Q(builtin=""),
                name="bot_version_unique_upload",
            ),
        ]
        ordering = ["bot", "number"]

    def __str__(self) -> str:
        return f"{self.bot} v{self.number}"


class CodeBlob(models.Model):
    """The code of uploaded versions, once per content hash, where every worker can read it.

    ``data`` is the canonical zip of the files (``arena.bot_code.zip_code``); a worker unpacks it
    into its local cache (``bots.services.code_cache``) and checks the hash before any bot runs it.
    Used unless ``BAIZE_CODE_STORAGE`` names a storage of ``STORAGES`` instead.
    """

    content_hash = models.CharField(max_length=64, primary_key=True)
    data = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.content_hash


class SandboxRange(models.Model):
    """A range of sandbox slot uids of one host, leased by the worker that runs bots under them.

    One row per host and range, made when a worker first asks for the range. A worker holds
    its range while it renews the lease (``expires_at``); a clean exit releases it (``holder``
    empty); a range whose holder stopped renewing is taken by the next worker once the lease
    has lapsed, which first ends whatever the holder left under the uids
    (``bots.services.uid_ranges``). In the database, not Redis: Redis keeps nothing across a
    restart, and a lease forgotten while its worker lives would hand that worker's uids to a
    newcomer, which would kill its bots as leftovers.
    """

    #: The kernel's boot id: the same in every container of one host, another on every host
    #: (and after a reboot, when nothing of the old leases runs any more).
    host = models.CharField(max_length=64)
    index = models.PositiveIntegerField()
    uid_base = models.BigIntegerField()
    slots = models.PositiveIntegerField()
    #: Who holds it (the worker's name and pid); empty when free.
    holder = models.CharField(max_length=200, blank=True)
    leased_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["host", "index"], name="sandbox_range_unique_index")
        ]
        ordering = ["host", "index"]

    def __str__(self) -> str:
        held = f"held by {self.holder}" if self.holder else "free"
        return f"range {self.index} of host {self.host[:8]} (uid {self.uid_base}, {held})"
