"""Django's PostgreSQL backend, its health checks made once per quiet spell
(``base.DatabaseWrapper``). ``settings.py`` names it as the engine for
``DATABASE_URL``s of PostgreSQL."""
