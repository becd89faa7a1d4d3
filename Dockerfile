# One image for web, worker and beat. It runs as the unprivileged user baize; only the
# worker runs as root (docker-compose.yml), because the sandbox of uploaded bots switches
# each bot to a uid of its own (setpriv), which only root may do. /app/var holds only what
# a container may lose: the local cache of uploaded code (filled from the database) and
# the sandbox's state.
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
# The sandbox's layers (manage.py sandbox): bubblewrap for the namespaces, util-linux for
# setpriv and prlimit, Debian's own /usr/bin/python3, which the bots run with, and its
# binding of libseccomp, which builds the seccomp filter (arena/sandbox/seccomp.py), and the C
# library's headers for native builds. Then the toolchains of the bot runtimes, as the
# runtimes table's rows name them (arena/runtimes.py prints them). The JDK's scripts expect
# man folders the slim image leaves out.
COPY arena/__init__.py arena/runtimes.py /tmp/table/arena/
RUN mkdir -p /usr/share/man/man1 \
    && apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap util-linux python3 \
        python3-seccomp libc6-dev $(cd /tmp/table && python3 -m arena.runtimes) \
    && rm -rf /var/lib/apt/lists/* /tmp/table
WORKDIR /app
COPY pyproject.toml README.md ./
COPY config ./config
COPY errors ./errors
COPY base ./base
COPY monitoring ./monitoring
COPY games ./games
COPY arena ./arena
COPY bots ./bots
COPY matches ./matches
COPY tournaments ./tournaments
COPY ladder ./ladder
COPY web ./web
COPY ops ./ops
COPY manage.py ./
RUN pip install --no-cache-dir '.[deploy]'
# The worker's entrypoint (docker-compose.yml says why it has one).
COPY deploy/worker-entrypoint ./deploy/
# uid 1000: docker-compose.yml gives it the metrics tmpfs by number.
RUN useradd --create-home --uid 1000 baize && mkdir -p /app/var/bots && chown -R baize /app/var
USER baize
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
