"""Plays series and notes, at each ``start``, which of its files are still there.

On stderr, at each ``start``: ``files process=TOKEN match=N tmp=[...] shm=[...] held=...``,
the names in ``/tmp`` and ``/dev/shm`` and what it reads through a file it still holds
open. Then it writes files for the next match: a note in ``/tmp``, a nested folder, a file
in ``/dev/shm``, and a file it keeps open. Plays the first legal action.

Arguments: ``plant PATH``, a path of the host's, for symlinks to it planted in ``/tmp`` (a
bot that hopes the runner follows them when it empties ``/tmp``); ``flood N``, N more empty
files in ``/tmp``.
"""

import json
import os
import sys

args = sys.argv[1:]
plant = args[args.index("plant") + 1] if "plant" in args else None
flood = int(args[args.index("flood") + 1]) if "flood" in args else 0
TOKEN = os.urandom(8).hex()
held = None


def note(position: int) -> None:
    if held is None:
        kept = "none"
    else:
        held.seek(0)
        kept = held.read()
    tmp = sorted(os.listdir("/tmp"))
    shm = sorted(os.listdir("/dev/shm"))
    print(
        f"files process={TOKEN} match={position} tmp={tmp} shm={shm} held={kept}",
        file=sys.stderr,
        flush=True,
    )


def write_files(position: int) -> None:
    global held
    with open(f"/tmp/note-{position}.txt", "w") as file:
        file.write("from an earlier match")
    os.makedirs("/tmp/folder/inner", exist_ok=True)
    with open("/tmp/folder/inner/deep.txt", "w") as file:
        file.write("deep")
    with open("/dev/shm/shared.txt", "w") as file:
        file.write("shared")
    if held is None:
        held = open("/tmp/held.txt", "w+")  # noqa: SIM115 (held open across matches)
        held.write(f"held since match {position}")
        held.flush()
    for n in range(flood):
        open(f"/tmp/flood-{position}-{n}", "w").close()
    if plant is not None:
        os.symlink(plant, f"/tmp/escape-{position}")
        os.symlink(os.path.join(plant, "canary.txt"), f"/tmp/escape-file-{position}")


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        position = message["series"]["match"]
        note(position)
        write_files(position)
        print(json.dumps({"type": "ready", "series": True}), flush=True)
    elif message["type"] == "decide":
        action = message["observation"]["legal_actions"][0]
        print(json.dumps({"action": action}), flush=True)
