"""Upload payloads for the tests: good bots, broken ones, and hostile zip files."""

from __future__ import annotations

import io
import stat
import struct
import zipfile

GOOD_BOT = b"""import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        print("thinking", file=sys.stderr, flush=True)
        action = message["observation"]["legal_actions"][0]
        print(json.dumps({"action": action}), flush=True)
"""
#: A C++ bot that builds in a fraction of the starter's time (no JSON library): it reads the
#: referee's compact JSON and plays the first legal action.
FIRST_LEGAL_CPP = b"""#include <iostream>
#include <string>
int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.rfind("{\\"type\\":\\"start\\"", 0) == 0) {
            std::cout << "{\\"type\\": \\"ready\\"}" << std::endl;
        } else if (line.rfind("{\\"type\\":\\"decide\\"", 0) == 0) {
            std::size_t first = line.find("\\"legal_actions\\":[") + 17, depth = 0, end = first;
            do { depth += line[end] == '{'; depth -= line[end] == '}'; ++end; } while (depth);
            std::cout << "{\\"action\\": " << line.substr(first, end - first) << "}" << std::endl;
        }
    }
}
"""
#: A good bot split in two modules: bot.py imports its helper from its own folder.
SPLIT_BOT = b"""import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from strategy import choose

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        print(json.dumps({"action": choose(message["observation"])}), flush=True)
"""
SPLIT_STRATEGY = b"def choose(observation):\n    return observation['legal_actions'][-1]\n"
SYNTAX_ERROR = b"import json\n\ndef broken(:\n    pass\n"
CRASHING_BOT = b"""import sys
sys.stdin.readline()
print('{"type": "ready"}', flush=True)
sys.stdin.readline()
raise RuntimeError("my strategy is not written yet")
"""
SILENT_BOT = b"import sys, time\nsys.stdin.readline()\ntime.sleep(60)\n"
ILLEGAL_BOT = b"""import sys
for line in sys.stdin:
    if '"start"' in line:
        print('{"type": "ready"}', flush=True)
    elif '"decide"' in line:
        print('{"action": {"play": "1X"}}', flush=True)
"""


#: Behaves in its first two matches, then plays an illegal card in every match from the
#: third on: it counts the matches by their place in the series (``series.match``), so it
#: forfeits from its third match whether a process plays several or one.
LATE_FORFEIT_BOT = b"""import json
import sys

place = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        place = message["series"]["match"]
        print(json.dumps({"type": "ready", "series": True}), flush=True)
    elif message["type"] == "decide":
        action = message["observation"]["legal_actions"][0] if place < 3 else {"play": "1X"}
        print(json.dumps({"action": action}), flush=True)
"""
#: Writes the hand it holds at its first decision of each match to stderr.
HAND_NOTING_BOT = b"""import json
import sys

first = False
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        first = True
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        observation = message["observation"]
        if first:
            print("hand " + " ".join(sorted(observation["hand"])), file=sys.stderr, flush=True)
            first = False
        print(json.dumps({"action": observation["legal_actions"][0]}), flush=True)
"""


def zip_of(files: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def zip_with_symlink(name: str, target: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", GOOD_BOT)
        link = zipfile.ZipInfo(name)
        link.create_system = 3  # Unix: the mode in the high bits is honoured
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, target)
    return buffer.getvalue()


def zip_bomb(unpacked_bytes: int) -> bytes:
    """A small zip whose one member unpacks to ``unpacked_bytes`` of zeros."""
    return zip_of({"bot.py": GOOD_BOT, "padding.bin": b"\0" * unpacked_bytes})


def zip_lying_about_size(real_bytes: int) -> bytes:
    """A zip whose header claims a tiny member that really unpacks to ``real_bytes``."""
    data = bytearray(zip_of({"bot.py": GOOD_BOT, "data.bin": b"\0" * real_bytes}))
    # Patch the declared uncompressed size (local header and central directory) to 1 byte.
    name = b"data.bin"
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = 0
        while True:
            start = data.find(signature, start)
            if start < 0:
                break
            name_at = start + (30 if signature == b"PK\x03\x04" else 46)
            if data[name_at : name_at + len(name)] == name:
                data[start + offset : start + offset + 4] = (1).to_bytes(4, "little")
            start += 4
    return bytes(data)


def is_static_elf(data: bytes) -> bool:
    """Whether ``data`` is a 64-bit ELF file with no ``PT_INTERP`` (the dynamic loader's
    program header): it runs with no library beside it."""
    assert data[:4] == b"\x7fELF" and data[4] == 2, "a 64-bit ELF file"
    (phoff,) = struct.unpack_from("<Q", data, 0x20)
    entry_size, count = struct.unpack_from("<HH", data, 0x36)
    types = [struct.unpack_from("<I", data, phoff + i * entry_size)[0] for i in range(count)]
    return 3 not in types  # PT_INTERP
