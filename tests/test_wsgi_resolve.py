"""The WSGI application gunicorn serves (``evalhub.wsgi``) resolves each address
once: a second request to the same address reuses the first one's match; an
address that matches nothing is still answered 404 every time."""

from __future__ import annotations

import io
import sys

from django.urls import URLResolver, get_resolver


def get(path: str) -> str:
    from evalhub.wsgi import application

    status = []
    environ = {
        "REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000",
        "HTTP_HOST": "127.0.0.1", "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1", "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""), "wsgi.errors": sys.stderr,
        "wsgi.multithread": True, "wsgi.multiprocess": True,
        "wsgi.run_once": False, "wsgi.version": (1, 0),
    }  # fmt: skip
    body = application(environ, lambda s, h, *a: status.append(s))
    b"".join(body)
    body.close()
    return status[0]


def test_an_address_is_resolved_once(monkeypatch, db) -> None:  # noqa: ANN001
    from evalhub import wsgi

    wsgi._resolved.cache_clear()  # noqa: SLF001
    root = get_resolver()
    resolved = []
    real = URLResolver.resolve

    def counting(self, path):  # noqa: ANN001, ANN202
        if self is root:
            resolved.append(path)
        return real(self, path)

    monkeypatch.setattr(URLResolver, "resolve", counting)
    assert get("/favicon.ico").startswith("301")
    assert get("/favicon.ico").startswith("301")
    assert resolved == ["/favicon.ico"]
    assert get("/no-such-page/").startswith("404")
    assert get("/no-such-page/").startswith("404")
    assert resolved == ["/favicon.ico", "/no-such-page/", "/no-such-page/"]
