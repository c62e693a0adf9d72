"""The traffic benchmark's client side (``traffic.py``): one keep-alive HTTP/1.1
connection per simulated person, with a cookie jar and the login form (stdlib
asyncio only), and the recorder of latencies and errors per endpoint."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict

from stack import PASSWORD


class Conn:
    """One keep-alive HTTP/1.1 connection with a cookie jar."""

    def __init__(self, port: int):
        self.port = port
        self.cookies: dict[str, str] = {}
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: dict | None = None
    ) -> tuple[int, dict[str, str], bytes]:  # type: ignore[type-arg]
        for attempt in range(2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(
                    "127.0.0.1", self.port
                )
            try:
                return await self._once(method, path, body, headers or {})
            except (ConnectionError, asyncio.IncompleteReadError):
                self.writer.close()
                self.writer = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _once(self, method, path, body, headers):  # noqa: ANN001, ANN202
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}"]
        if self.cookies:
            lines.append(
                "Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            )
        for k, v in headers.items():
            lines.append(f"{k}: {v}")
        lines.append(f"Content-Length: {len(body)}")
        assert self.writer is not None and self.reader is not None
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split()[1])
        response_headers: dict[str, str] = {}
        for line in header_lines:
            if not line:
                continue
            name, _, value = line.partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "set-cookie":
                cname, _, rest = value.partition("=")
                self.cookies[cname.strip()] = rest.split(";", 1)[0]
            response_headers[name] = value
        if response_headers.get("transfer-encoding") == "chunked":
            data = b""
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
                chunk = await self.reader.readexactly(size + 2)
                if not size:
                    break
                data += chunk[:-2]
        else:
            data = await self.reader.readexactly(
                int(response_headers.get("content-length", "0"))
            )
        if response_headers.get("connection", "").lower() == "close":
            self.writer.close()
            self.writer = None
        return status, response_headers, data

    async def login(self, username: str) -> None:
        await self.request("GET", "/accounts/login/")
        form = (
            f"login={username}&password={PASSWORD}"
            f"&csrfmiddlewaretoken={self.cookies.get('csrftoken', '')}"
        ).encode()
        status, _, _ = await self.request(
            "POST", "/accounts/login/", form,
            {"Content-Type": "application/x-www-form-urlencoded",
             "Referer": f"http://127.0.0.1:{self.port}/accounts/login/"},
        )  # fmt: skip
        if status != 302:
            raise RuntimeError(f"login of {username} failed: HTTP {status}")


class Recorder:
    def __init__(self) -> None:
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, list[str]] = defaultdict(list)
        self.recording = False

    def add(self, endpoint: str, seconds: float, ok: bool, what: str = "") -> None:
        if not self.recording:
            return
        if ok:
            self.latencies[endpoint].append(seconds)
        else:
            self.errors[endpoint].append(what)

    def summary(self, seconds: float) -> dict[str, dict]:  # type: ignore[type-arg]
        out = {}
        for endpoint in sorted(set(self.latencies) | set(self.errors)):
            values = sorted(self.latencies[endpoint])
            errors = self.errors[endpoint]

            def q(p: float, values: list[float] = values) -> float | None:
                if not values:
                    return None
                i = min(len(values) - 1, int(round(p * (len(values) - 1))))
                return round(values[i] * 1000, 1)

            out[endpoint] = {
                "requests": len(values) + len(errors),
                "errors": len(errors),
                "error_kinds": sorted(set(errors))[:5],
                "throughput_per_s": round(len(values) / seconds, 1),
                "p50_ms": q(0.5),
                "p90_ms": q(0.9),
                "p99_ms": q(0.99),
                "max_ms": q(1.0),
            }
        return out


async def timed(rec: Recorder, endpoint: str, coro, expect: int):  # noqa: ANN001, ANN201
    t0 = time.perf_counter()
    try:
        status, headers, body = await coro
    except Exception as exc:  # noqa: BLE001 - counted as an error
        rec.add(endpoint, time.perf_counter() - t0, False, type(exc).__name__)
        return None
    dt = time.perf_counter() - t0
    rec.add(endpoint, dt, status == expect, f"HTTP {status}")
    return status, headers, body
