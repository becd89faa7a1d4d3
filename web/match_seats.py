"""What a match page shows the owner of a seat's bot (and staff) to debug it: the match's log
as that seat saw it, the bot's stderr in the match, its code, and the exact command that
plays the match again at home with the bot in that seat (``manage.py play --replay``,
docs/bot-author-guide.md, "Reproduce a match at home"). Nobody else sees any of it.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from arena.runtimes import DEFAULT_RUNTIME
from bots.models import BotVersion
from bots.permissions import can_see_private
from matches.models import Match, MatchSeat
from matches.selectors import seat_stderr
from matches.visibility import match_access

#: The interpreter the command names: the one ``make`` installs Django in, in a checkout.
PYTHON = ".venv/bin/python"


@dataclass(frozen=True)
class SeatTools:
    seat: int
    version: BotVersion
    #: What the bot wrote to stderr in this match ("" if nothing was kept).
    stderr: str
    #: The match's log as the seat saw it, to download, and the name it is saved under.
    log_url: str
    log_name: str
    #: The version's uploaded code as a ``.zip`` and its name; "" for a built-in bot.
    code_url: str
    code_name: str
    #: The seat's view leaves the seed out while a match dealt these cards is in play: its
    #: log cannot be replayed until then.
    seed_withheld: bool
    #: The shell lines that play the match again with this bot in this seat.
    commands: tuple[str, ...]


def seats_to_debug(*, match: Match, user: Any) -> list[SeatTools]:
    """The seats of ``match`` whose bot ``user`` may debug (its owner, staff), in seat order."""
    seats = MatchSeat.objects.filter(match=match).select_related("version__bot").order_by("seat")
    return [_tools(match, seat, user) for seat in seats if can_see_private(user, seat.version.bot)]


def _tools(match: Match, seat: MatchSeat, user: Any) -> SeatTools:
    version, view = seat.version, f"seat{seat.seat}"
    log_name = f"match-{match.pk}-{view}.jsonl"
    code_url = code_name = ""
    if not version.builtin:
        bot = version.bot
        code_url = reverse("bot-version-code", args=[bot.pk, version.number])
        code_name = f"{bot.game}-{bot.name}-v{version.number}.zip"
    return SeatTools(
        seat=seat.seat,
        version=version,
        stderr=seat_stderr(seat=seat),
        log_url=f"{reverse('match-log', args=[match.pk])}?view={view}",
        log_name=log_name,
        code_url=code_url,
        code_name=code_name,
        seed_withheld=match_access(match=match, user=user, view=view).deal_withheld,
        commands=replay_commands(
            version=version, seat=seat.seat, log_name=log_name, code_name=code_name
        ),
    )


def replay_commands(
    *, version: BotVersion, seat: int, log_name: str, code_name: str
) -> tuple[str, ...]:
    """From a checkout of Baize, with the log (and the code) downloaded beside it: unpack the
    code, then ``play --replay LOG --seat N BOT``, naming the runtime where it is not the
    default. A built-in bot is named by its strategy; the command seeds it as the log
    records (``bot_seed``)."""
    if version.builtin:
        bot, unpack = version.builtin, ()
    else:
        bot = code_name.removesuffix(".zip")
        unpack = (f"unzip -o -d {shlex.quote(bot)} {shlex.quote(code_name)}",)
    play = [PYTHON, "manage.py", "play", "--replay", log_name, "--seat", str(seat), bot]
    if not version.builtin and version.runtime != DEFAULT_RUNTIME:
        play += ["--runtime", version.runtime]
    return (*unpack, shlex.join(play))
