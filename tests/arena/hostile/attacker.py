"""One bot, many attacks on the sandbox: ``attacker.py ATTACK [ARG...]``.

It answers ``start``, then at its first decision runs ATTACK. An attack that the sandbox
stops raises, so the bot crashes with the reason on stderr; one that gets through answers
``{"play": "LEAKED ..."}``, an illegal action that names what leaked. Some attacks are the
misbehaviour itself (looping, flooding, exiting) and never answer.
"""

import contextlib
import json
import os
import signal
import socket
import sys
import time


def leaked(what):
    return {"play": f"LEAKED {what}"[:200]}


def infinite_loop(observation):
    while True:
        pass


def fork_bomb(observation):
    while True:
        with contextlib.suppress(OSError):
            os.fork()


def allocate_4_gib(observation):
    block = bytearray(4 << 30)
    return leaked(f"allocated {len(block)} bytes")


def write_1_gib_file(observation):
    chunk = b"x" * (1 << 20)
    with open("/tmp/big", "wb") as big:
        for _ in range(1024):
            big.write(chunk)
    return leaked("wrote 1 GiB")


def write_own_code(observation):
    with open(os.path.abspath(__file__), "a") as own:
        own.write("# changed by the bot\n")
    return leaked("changed its own code")


def flood_stdout(observation):
    chunk = b"x" * (1 << 20)
    for _ in range(100):
        os.write(1, chunk)
    return leaked("wrote 100 MB to stdout")


def flood_stderr(observation):
    chunk = b"x" * (1 << 20)
    for _ in range(100):
        os.write(2, chunk)
    return leaked("wrote 100 MB to stderr")


def tcp_connect(observation, host, port):
    with socket.create_connection((host, int(port)), timeout=2):
        return leaked(f"connected to {host}:{port}")


def unix_connect(observation, path):
    with socket.socket(socket.AF_UNIX) as unix:
        unix.connect(path)
        return leaked(f"connected to {path}")


def dns_lookup(observation, name):
    return leaked(socket.getaddrinfo(name, 80))


def read_file(observation, path):
    with open(path, "rb") as secret:
        return leaked(f"{path}: {secret.read(40)!r}")


def double_fork_setsid(observation):
    """Leave a SIGTERM-ignoring, setsid grandchild behind, then play on normally."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            while True:
                time.sleep(60)
        os._exit(0)
    os.wait()
    return None


def ignore_sigterm(observation):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    return None


def close_stdout(observation):
    os.close(1)
    time.sleep(60)


def exit_mid_match(observation):
    print("leaving now", file=sys.stderr, flush=True)
    os._exit(0)


def kill_everyone(observation):
    """Signal every process this uid may signal; the opponent must not be among them."""
    # ProcessLookupError: nothing else it may signal, the expected outcome.
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)
    return None


def list_processes(observation):
    """Every other process this bot can see: in its own PID namespace, none."""
    others = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
    others.remove(os.getpid())
    if others:
        return leaked(f"saw processes {others}")
    raise ProcessLookupError(f"pid {os.getpid()}, and no other process in sight")


def trace_opponent(observation):
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for pid in range(1, 64):
        if pid != os.getpid() and libc.ptrace(16, pid, 0, 0) == 0:  # PTRACE_ATTACH
            return leaked(f"traced pid {pid}")
    raise PermissionError(f"ptrace refused: errno {ctypes.get_errno()}")


def garbage(observation):
    os.write(1, b"\x00\xff not json at all\n")
    time.sleep(60)


def illegal(observation):
    return {"play": "1X"}


def fill_every_writable_path(observation):
    """Write 1 MiB files (under the per-file limit) into every folder it can, as many as
    fit, and report how much each folder took: memory pinned in tmpfs outlives the heap."""
    chunk = b"x" * (1 << 20)
    taken = {}
    for folder in ("/", "/dev", "/dev/shm", "/tmp", "/bot", "/proc", "/usr", "/run"):
        written = 0
        for n in range(256):
            try:
                with open(os.path.join(folder, f"fill-{n}"), "wb") as filler:
                    filler.write(chunk)
                written += len(chunk)
            except OSError:
                break
        taken[folder] = written
    return {"play": "WROTE " + json.dumps(taken, separators=(",", ":"))}


def pin_memory_everywhere(observation):
    """Spin a thread per CPU, fill /tmp and /dev/shm, pipes at their largest, then the heap,
    1 MiB at a time: everything a bot can pin at once. Answers how far it got, if alive."""
    import fcntl
    import threading

    for _ in range(os.cpu_count() or 1):
        threading.Thread(target=lambda: [None for _ in iter(int, 1)], daemon=True).start()
    chunk = b"x" * (1 << 20)
    pinned = {"files": 0, "pipes": 0, "heap": 0}
    for folder in ("/tmp", "/dev/shm"):
        with contextlib.suppress(OSError):
            for n in range(1024):
                with open(os.path.join(folder, f"pin-{n}"), "wb") as filler:
                    filler.write(chunk)
                pinned["files"] += len(chunk)
    pipes = []
    with contextlib.suppress(OSError):
        while True:
            reader, writer = os.pipe()
            pipes.append((reader, writer))
            size = fcntl.fcntl(writer, 1031, 1 << 20)  # F_SETPIPE_SZ, as large as allowed
            os.set_blocking(writer, False)
            with contextlib.suppress(BlockingIOError):
                while True:
                    pinned["pipes"] += os.write(writer, chunk[:size])
    heap = []
    with contextlib.suppress(MemoryError):
        while True:
            heap.append(bytearray(chunk))
            pinned["heap"] += len(chunk)
    return {"play": "PINNED " + json.dumps(pinned, separators=(",", ":"))}


def widen_cpu_affinity(observation):
    os.sched_setaffinity(0, range(os.cpu_count() or 1))
    return leaked(f"widened its affinity to {sorted(os.sched_getaffinity(0))}")


ATTACKS = {name: function for name, function in globals().items() if callable(function)}
PERSISTENT = {"kill_everyone"}


def main(attack, args):
    attacked = False
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            print('{"type": "ready"}', flush=True)
        elif message["type"] == "decide":
            observation = message["observation"]
            action = None
            if not attacked or attack in PERSISTENT:
                attacked = True
                action = ATTACKS[attack](observation, *args)
            action = action or observation["legal_actions"][0]
            print(json.dumps({"action": action}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
