"""A small HTTP client of the evalhub REST API (standard library only), used by
``evalhub submit`` and ``evalhub status`` and by the organisers' ``evalhub task
push``, ``evalhub test-data push`` and ``evalhub runs pull``."""

from __future__ import annotations

import http.client
import json
import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

from evalhub.client import multipart

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
        return Response(response.status, _payload(raw))

    def get(self, path: str) -> dict[str, object]:
        response = self.request("GET", path)
        if response.status != 200:
            raise ApiError(response.status, response.payload)
        return response.payload

    def upload(
        self,
        path: str,
        *,
        fields: dict[str, str] | None = None,
        files: list[tuple[str, Path]],
        progress: Progress | None = None,
        method: str = "POST",
    ) -> Response:
        """A multipart request: the form ``fields`` and each ``(part name, file)``
        streamed from disk; ``progress(sent, total)`` counts the files' bytes."""
        boundary = f"evalhub-{uuid.uuid4().hex}"
        head = b"".join(
            multipart.field(boundary, name, value)
            for name, value in (fields or {}).items()
        )
        parts = [
            (multipart.file_head(boundary, name, file), file) for name, file in files
        ]
        tail = f"--{boundary}--\r\n".encode()
        total = sum(file.stat().st_size for _, file in files)
        length = len(head) + len(tail)
        length += sum(len(part) + file.stat().st_size + 2 for part, file in parts)

        def body() -> Iterator[bytes]:
            sent = 0
            yield head
            for part, file in parts:
                yield part
                with file.open("rb") as fh:
                    while chunk := fh.read(CHUNK):
                        sent += len(chunk)
                        yield chunk
                        if progress:
                            progress(sent, total)
                yield b"\r\n"
            if progress and total == 0:
                progress(0, 0)
            yield tail

        return self.request(
            method,
            path,
            body=body(),
            length=length,
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )

    def download(
        self, path: str, dest: Path, *, progress: Progress | None = None
    ) -> int:
        """Stream ``path`` into ``dest`` (written beside it first, then renamed, so
        an interrupted download leaves no partial file under its name); returns the
        bytes written. ApiError for any answer but 200."""
        conn = self._connection()
        part = dest.with_name(dest.name + ".part")
        try:
            conn.request("GET", self.base + path, headers=self._headers())
            response = conn.getresponse()
            if response.status != 200:
                raise ApiError(response.status, _payload(response.read()))
            total = int(response.headers.get("Content-Length") or 0)
            received = 0
            with part.open("wb") as out:
                while chunk := response.read(CHUNK):
                    out.write(chunk)
                    received += len(chunk)
                    if progress:
                        progress(received, max(total, received))
            if progress and received == 0:
                progress(0, 0)
            os.replace(part, dest)
            return received
        finally:
            conn.close()
            part.unlink(missing_ok=True)

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
        fields = {"method_name": method_name, "method_description": method_description}
        if hidden:
            fields["hidden"] = "true"
        if track:
            fields["track"] = track
        response = self.upload(
            f"/api/tasks/{quote(task)}/phases/{quote(phase)}/runs",
            fields=fields,
            files=[("file", path)],
            progress=progress,
        )
        return _expect(response, 201, 403, 422)

    # --- the organiser API ---------------------------------------------------
    def import_bundle(
        self, path: Path, *, progress: Progress | None = None
    ) -> Response:
        """Create a task from a bundle: 201 (the task), 403 or 422 (``errors``)."""
        response = self.upload(
            "/api/bundles", files=[("bundle", path)], progress=progress
        )
        return _expect(response, 201, 403, 422)

    def push_test_data(
        self,
        *,
        task: str,
        phase: str,
        test_set: str,
        files: list[tuple[str, Path]],
        progress: Progress | None = None,
    ) -> Response:
        """Upload a test set's files (``(role, path)``) as a draft: 201 (the
        preview, with the ``token`` that confirms or discards it) or 422."""
        response = self.upload(
            _test_data_path(task, phase, test_set), files=files, progress=progress
        )
        return _expect(response, 201, 422)

    def confirm_test_data(
        self, *, task: str, phase: str, test_set: str, token: str
    ) -> Response:
        """Store a draft: 200, or 409 (the test set changed since the check)."""
        path = f"{_test_data_path(task, phase, test_set)}/{quote(token)}"
        return _expect(self.request("POST", path), 200, 409)

    def discard_test_data(
        self, *, task: str, phase: str, test_set: str, token: str
    ) -> None:
        path = f"{_test_data_path(task, phase, test_set)}/{quote(token)}"
        _expect(self.request("DELETE", path), 204)

    def phase_settings(self, *, task: str, phase: str, section: str) -> Response:
        """A section of a phase's settings (organisers): 200, or 404."""
        return _expect(
            self.request("GET", _settings_path(task, phase, section)), 200, 404
        )

    def change_phase_settings(
        self, *, task: str, phase: str, section: str, values: dict[str, object]
    ) -> Response:
        """Change the named settings (the others kept): 200 with the settings in
        force, or 422 with every problem (nothing stored), or 404."""
        data = json.dumps(values).encode("utf-8")
        response = self.request(
            "PUT",
            _settings_path(task, phase, section),
            body=iter([data]),
            length=len(data),
            headers={"Content-Type": "application/json"},
        )
        return _expect(response, 200, 404, 422)

    def task_runs(
        self, *, task: str, phase: str = "", status: str = "", track: str = ""
    ) -> dict[str, object]:
        """Every run of the task with every score (organisers)."""
        query = urlencode(
            {
                k: v
                for k, v in (("phase", phase), ("status", status), ("track", track))
                if v
            }
        )
        return self.get(
            f"/api/tasks/{quote(task)}/runs" + (f"?{query}" if query else "")
        )

    def download_run(
        self, *, task: str, run_id: int, dest: Path, progress: Progress | None = None
    ) -> int:
        """A run's file as submitted (organisers)."""
        path = f"/api/tasks/{quote(task)}/runs/{int(run_id)}/file"
        return self.download(path, dest, progress=progress)

    def download_runs_zip(
        self, *, task: str, phase: str, dest: Path, progress: Progress | None = None
    ) -> int:
        """Every run file of a phase and ``manifest.csv``, as one zip (organisers)."""
        path = f"/api/tasks/{quote(task)}/phases/{quote(phase)}/runs.zip"
        return self.download(path, dest, progress=progress)

    def task(self, slug: str) -> dict[str, object]:
        """A task, its phases, test sets and the files the token's user may have."""
        return self.get(f"/api/tasks/{quote(slug)}")

    def download_file(
        self,
        *,
        task: str,
        phase: str,
        test_set: str,
        role: str,
        dest: Path,
        progress: Progress | None = None,
    ) -> int:
        """A test set's file (403 until the task's data terms are accepted)."""
        path = (
            f"/api/tasks/{quote(task)}/phases/{quote(phase)}/testsets/"
            f"{quote(test_set)}/files/{quote(role)}"
        )
        return self.download(path, dest, progress=progress)

    def roster(
        self,
        *,
        task: str,
        filter: str = "",
        search: str = "",  # noqa: A002
    ) -> dict[str, object]:
        """The task's teams and members (organisers)."""
        return self.get(_roster_path(task, "participants", filter, search))

    def download_roster(
        self,
        *,
        task: str,
        dest: Path,
        filter: str = "",
        search: str = "",  # noqa: A002
    ) -> int:
        """The roster as CSV (organisers)."""
        return self.download(
            _roster_path(task, "participants.csv", filter, search), dest
        )

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


def _roster_path(task: str, name: str, filter: str, search: str) -> str:  # noqa: A002
    query = urlencode({k: v for k, v in (("filter", filter), ("search", search)) if v})
    return f"/api/tasks/{quote(task)}/{name}" + (f"?{query}" if query else "")


def _test_data_path(task: str, phase: str, test_set: str) -> str:
    return (
        f"/api/tasks/{quote(task)}/phases/{quote(phase)}/testsets/"
        f"{quote(test_set)}/test-data"
    )


def _settings_path(task: str, phase: str, section: str) -> str:
    return f"/api/tasks/{quote(task)}/phases/{quote(phase)}/settings/{quote(section)}"


def _payload(raw: bytes) -> dict[str, object]:
    try:
        payload = json.loads(raw.decode("utf-8")) if raw else {}
    except (UnicodeDecodeError, json.JSONDecodeError):
        payload = {"detail": raw[:500].decode("utf-8", "replace")}
    return payload if isinstance(payload, dict) else {"items": payload}


def _expect(response: Response, *statuses: int) -> Response:
    """``response`` if its status is one the caller handles; ApiError otherwise."""
    if response.status not in statuses:
        raise ApiError(response.status, response.payload)
    return response


def token_from_env(explicit: str | None) -> str | None:
    return explicit or os.environ.get("EVALHUB_TOKEN") or None
