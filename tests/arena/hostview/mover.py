"""Moves every host-wide figure it can, for as long as it runs: tries to lock memory, fills
its tmpfs (the page cache), holds many files open and locked, makes and removes files
(inodes), allocates and touches memory, forks, and burns CPU in threads. Answers its first
line once all of that is under way, with what the locks and ``sysinfo`` said."""

import ctypes
import fcntl
import json
import mmap
import os
import sys
import threading
import time

libc = ctypes.CDLL(None, use_errno=True)
said = {}

buffer = mmap.mmap(-1, 1 << 20)
address = ctypes.addressof(ctypes.c_char.from_buffer(buffer))
said["mlock"] = libc.mlock(ctypes.c_void_p(address), ctypes.c_size_t(1 << 20))
said["mlock_errno"] = ctypes.get_errno()
said["sysinfo"] = libc.sysinfo(ctypes.create_string_buffer(256))
said["sysinfo_errno"] = ctypes.get_errno()

held = []
for n in range(40):
    path = f"/tmp/held-{n}"
    file = open(path, "wb")  # noqa: SIM115 (held open on purpose, to the end)
    file.write(os.urandom(64 << 10))
    try:
        fcntl.flock(file, fcntl.LOCK_EX)
    except OSError as error:  # the filter refuses exclusive locks: a shared one, then
        said["flock_ex_errno"] = error.errno
        fcntl.flock(file, fcntl.LOCK_SH)
    held.append(file)

memory = bytearray(128 << 20)
for offset in range(0, len(memory), 4096):
    memory[offset] = 1


def churn_files():
    n = 0
    while True:
        path = f"/dev/shm/churn-{n % 200}"
        with open(path, "wb") as file:
            file.write(b"x" * 4096)
        if n % 2:
            os.unlink(path)
        n += 1


def burn():
    x = 0
    while True:
        x += 1


threading.Thread(target=churn_files, daemon=True).start()
for _ in range(3):
    threading.Thread(target=burn, daemon=True).start()
children = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        burn()
    children.append(pid)

sys.stdin.readline()
time.sleep(0.5)
print(json.dumps(said), flush=True)
sys.stdin.readline()
