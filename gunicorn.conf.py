"""gunicorn settings read by every web process started from the repository's root
(Procfile, deploy/, ``manage.py up``, bench/); command-line options override them.
Measured in bench/README.md ("Traffic at issue size").

``reuse_port``: each worker process listens on a socket of its own and the kernel
spreads new connections evenly over them. With one shared socket, whichever process
wakes first accepts, and browsers' keep-alive connections pile up on a few processes:
measured with 250 keep-alive clients on 4 processes, one process ran at a full core
(its threads waiting on each other for Python's interpreter lock) while another sat
at a tenth, and leaderboard p99 doubled.

``workers`` x ``threads``: 1 process per core, 8 threads each. A page served from
the cache is a few milliseconds of CPU around several round trips to PostgreSQL and
Redis, and a run upload holds a thread for its synchronous parse: with 2 or 4 threads
per process, cached pages queued behind uploads and fragment renders in the same
process (p99 of signed-in pages 240 ms at 4 x 4, 193 ms at 4 x 8 on 2 cores; 4 x 16
was worse again). Once pages cost a few milliseconds, 2 processes per core only made
each request dearer: on 2 cores, 2 x 8 served the same traffic at 10 % less CPU per
request than 4 x 8 (anonymous board 1.41 against 1.56 ms, signed in 4.04 against 4.33)
with lower p99s (bench/README.md, "Web processes per core"). ``WEB_CONCURRENCY`` and
``WEB_THREADS`` override them.

``control_socket``: gunicorn's control interface, one per instance, in its data
folder (``EVALHUB_VAR_DIR``), not one ``~/.gunicorn/gunicorn.ctl`` that every server
of a user on the machine would share (and take from each other).

``when_ready``: with ``reuse_port`` the workers open the listening sockets, so
gunicorn's own "Listening at:" line is empty; the log names the addresses here."""

import hashlib
import os
import tempfile
from pathlib import Path


def _control_socket() -> str:
    default = Path(__file__).resolve().parent / "var"
    var = Path(os.environ.get("EVALHUB_VAR_DIR") or default).resolve()
    path = var / "gunicorn.ctl"
    if len(str(path)) > 100:  # AF_UNIX paths are limited to ~107 bytes
        tag = hashlib.sha256(str(var).encode()).hexdigest()[:12]
        path = Path(tempfile.gettempdir()) / f"evalhub-{tag}" / "gunicorn.ctl"
    path.parent.mkdir(parents=True, exist_ok=True)
    return str(path)


def when_ready(server) -> None:  # noqa: ANN001
    addresses = ", ".join(
        address if address.startswith("unix:") else f"http://{address}"
        for address in server.cfg.bind
    )
    server.log.info("Serving evalhub at %s", addresses)


reuse_port = True
workers = int(os.environ.get("WEB_CONCURRENCY") or os.cpu_count() or 1)
threads = int(os.environ.get("WEB_THREADS") or 8)
control_socket = _control_socket()
