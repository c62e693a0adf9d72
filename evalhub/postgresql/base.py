"""Django's PostgreSQL backend with cheaper connection health checks.

With ``CONN_HEALTH_CHECKS`` Django pings a kept connection (``SELECT 1``) before the
first query of every request. On a page served from the cache, which runs a single
query, the ping was a second round trip to PostgreSQL and about a tenth of the
request's CPU (bench/README.md, issue 47). Here a connection is pinged only when
nothing has shown it alive for ``HEALTH_CHECK_AFTER`` seconds: a request that ran
queries without a database error shows it alive when it ends. A connection that
has been quiet longer (where a restart of the database or a dropped idle
connection goes unnoticed) is still pinged first, as before, and any error still
makes Django check the connection at the end of the request and close it if it is
broken, so a connection lost while busy costs at most the requests that were
running on it."""

from __future__ import annotations

import time

from django.db.backends.postgresql import base

#: Seconds after the last sign of life (a request's queries, a ping) during which
#: a kept connection is used without a ping.
HEALTH_CHECK_AFTER = 5.0


class DatabaseWrapper(base.DatabaseWrapper):
    _alive_at = float("-inf")

    def close_if_unusable_or_obsolete(self) -> None:
        # Called as each request starts and ends: a connection that answered this
        # request's queries (checked or opened in it, no error since) is alive.
        if self.connection is not None and self.health_check_done:
            if not self.errors_occurred:
                self._alive_at = time.monotonic()
        super().close_if_unusable_or_obsolete()

    def close_if_health_check_failed(self) -> None:
        if (
            self.connection is not None
            and not self.health_check_done
            and time.monotonic() - self._alive_at < HEALTH_CHECK_AFTER
        ):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()
        if self.connection is not None:
            self._alive_at = time.monotonic()
