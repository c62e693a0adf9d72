"""A small HTTP client of the evalhub REST API (standard library only), used by
``evalhub submit`` and ``evalhub status``."""

from __future__ import annotations

import http.client
import json
import mimetypes
import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

CHUNK = 64 * 1024
TERMINAL_STATES = frozenset({"scored", "failed", "rejected"})

Progress = Callable[[int, int], None]


class ApiError(Exception):
    """The server answered with an error status (or could not be reached)."""

    def __init__(self, status: int, payload: dict[str, object]):
        self.status = status
        self.payload = payload
        super().__init__(f"HTTP {status}: {payload.get('detail', payload)}")


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    payload: dict[str, object]


class Client:
    def __init__(self, url: str, token: str | None, *, timeout: float = 120.0):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self.scheme = parts.scheme
        self.netloc = parts.netloc
        self.base = parts.path.rstrip("/")
        self.token = token
        self.timeout = timeout

    # --- transport -----------------------------------------------------------
    def _connection(self) -> http.client.HTTPConnection:
        cls = (
            http.client.HTTPSConnection
            if self.scheme == "https"
            else http.client.HTTPConnection
        )
        return cls(self.netloc, timeout=self.timeout)

    def _headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json", "User-Agent": "evalhub-cli"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return {**headers, **(extra or {})}

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Iterator[bytes] | None = None,
        length: int = 0,
        headers: dict[str, str] | None = None,
    ) -> Response:
        conn = self._connection()
        try:
            conn.putrequest(method, self.base + path)
            all_headers = self._headers(headers)
            if body is not None:
                all_headers["Content-Length"] = str(length)
            for key, value in all_headers.items():
                conn.putheader(key, value)
            conn.endheaders()
            if body is not None:
                for chunk in body:
                    conn.send(chunk)
            response = conn.getresponse()
            raw = response.read()
        finally:
            conn.close()
        try:
            payload = json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, json.JSONDecodeError):
            payload = {"detail": raw[:500].decode("utf-8", "replace")}
        if not isinstance(payload, dict):
            payload = {"items": payload}
        return Response(response.status, payload)

    def get(self, path: str) -> dict[str, object]:
        response = self.request("GET", path)
        if response.status != 200:
            raise ApiError(response.status, response.payload)
        return response.payload

    # --- endpoints -----------------------------------------------------------
    def submit(
        self,
        *,
        task: str,
        phase: str,
        method_name: str,
        path: Path,
        method_description: str = "",
        hidden: bool = False,
        progress: Progress | None = None,
        track: str = "",
    ) -> Response:
        """Upload a run (multipart). Returns 201, 422 (rejected: ``errors``) or 403
        responses; other statuses raise ApiError. ``track``: the slug of the
        phase's track the run enters (required when the phase has tracks)."""
        boundary = f"evalhub-{uuid.uuid4().hex}"
        fields = {"method_name": method_name, "method_description": method_description}
        if hidden:
            fields["hidden"] = "true"
        if track:
            fields["track"] = track
        head = b"".join(_field(boundary, name, value) for name, value in fields.items())
        content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        head += (
            f"--{boundary}\r\n"
            f'Content-Disposition: form-data; name="file"; filename="{_quote_name(path.name)}"\r\n'
            f"Content-Type: {content_type}\r\n\r\n"
        ).encode()
        tail = f"\r\n--{boundary}--\r\n".encode()
        size = path.stat().st_size
        length = len(head) + size + len(tail)

        def body() -> Iterator[bytes]:
            sent = 0
            yield head
            with path.open("rb") as fh:
                while chunk := fh.read(CHUNK):
                    sent += len(chunk)
                    yield chunk
                    if progress:
                        progress(sent, size)
            if progress and size == 0:
                progress(0, 0)
            yield tail

        response = self.request(
            "POST",
            f"/api/tasks/{quote(task)}/phases/{quote(phase)}/runs",
            body=body(),
            length=length,
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
        if response.status not in (201, 403, 422):
            raise ApiError(response.status, response.payload)
        return response

    def run(self, run_id: int) -> dict[str, object]:
        return self.get(f"/api/runs/{int(run_id)}")

    def wait(
        self,
        run_id: int,
        *,
        interval: float = 2.0,
        timeout: float | None = None,
        on_status: Callable[[dict[str, object]], None] | None = None,
    ) -> dict[str, object]:
        """Poll the run until it reaches a final state (or ``timeout`` seconds)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            run = self.run(run_id)
            if on_status:
                on_status(run)
            if run.get("status") in TERMINAL_STATES:
                return run
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"run {run_id} is still {run.get('status')}")
            time.sleep(interval)


def _field(boundary: str, name: str, value: str) -> bytes:
    return (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="{name}"\r\n\r\n'
        f"{value}\r\n"
    ).encode()


def _quote_name(name: str) -> str:
    return name.replace("\\", "_").replace('"', "_").replace("\r", "").replace("\n", "")


def token_from_env(explicit: str | None) -> str | None:
    return explicit or os.environ.get("EVALHUB_TOKEN") or None
