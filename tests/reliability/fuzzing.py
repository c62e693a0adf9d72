"""Shared Hypothesis strategies and checks for the parser fuzz tests in
``tests/task_types/<slug>/test_fuzz.py``: every parser given hostile bytes must end in
``FormatError`` or a result, never another exception, within a time bound."""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Callable

from hypothesis import strategies as st

from tasks.base import FormatError

#: Parsing one hostile file may take at most this many CPU seconds of this process
#: (CPU, not wall time: a busy machine slows the wall clock, not the work done; a
#: guard against quadratic parsing, not a benchmark).
TIME_BOUND = 10.0
#: The cheap checks the web request makes on any upload take at most this much CPU.
REQUEST_BOUND = 1.0


def outcome(call: Callable[[], object]) -> str:
    """Run a parser: "ok" or "format-error"; any other exception propagates (a bug)."""
    started = time.process_time()
    try:
        call()
        result = "ok"
    except FormatError as exc:
        assert exc.problems and all(str(p) for p in exc.problems)
        result = "format-error"
    elapsed = time.process_time() - started
    assert elapsed < TIME_BOUND, f"parser took {elapsed:.1f} s"
    return result


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


@st.composite
def mutated(draw: st.DrawFn, base: bytes) -> bytes:
    """``base`` (a valid file) with a few hostile edits."""
    data = base
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(
            st.sampled_from(
                [
                    "invalid-utf8",
                    "crlf",
                    "cr",
                    "extra-column",
                    "drop-column",
                    "truncate",
                    "duplicate-lines",
                    "bom",
                    "nul",
                    "blank-lines",
                    "random-line",
                    "long-line",
                ]
            )
        )
        lines = _lines(data)
        at = draw(st.integers(0, max(0, len(lines) - 1)))
        if kind == "invalid-utf8":
            pos = draw(st.integers(0, len(data)))
            data = (
                data[:pos]
                + draw(
                    st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xfe\xff"])
                )
                + data[pos:]
            )
        elif kind == "crlf":
            data = b"\r\n".join(lines[:at]) + b"\n" + b"\n".join(lines[at:])
        elif kind == "cr":
            data = data.replace(b"\n", b"\r", draw(st.integers(1, 5)))
        elif kind == "extra-column":
            lines[at] += b"\textra\t1.5"
            data = b"\n".join(lines)
        elif kind == "drop-column":
            lines[at] = lines[at].rsplit(b"\t", 1)[0]
            data = b"\n".join(lines)
        elif kind == "truncate":
            data = data[: draw(st.integers(0, len(data)))]
        elif kind == "duplicate-lines":
            lines[at:at] = [lines[at]] * draw(st.integers(1, 5))
            data = b"\n".join(lines)
        elif kind == "bom":
            data = b"\xef\xbb\xbf" + data
        elif kind == "nul":
            pos = draw(st.integers(0, len(data)))
            data = data[:pos] + b"\x00" + data[pos:]
        elif kind == "blank-lines":
            lines[at:at] = [b"", b"   ", b"\t"]
            data = b"\n".join(lines)
        elif kind == "random-line":
            lines[at] = draw(st.binary(max_size=200))
            data = b"\n".join(lines)
        elif kind == "long-line":
            lines[at] = lines[at] + b"x" * draw(st.integers(1_000, 200_000))
            data = b"\n".join(lines)
    return data


@st.composite
def files(draw: st.DrawFn, valid: dict[str, bytes]) -> dict[str, bytes]:
    """``valid`` with one file mutated or replaced by random bytes (missing files are
    caught by the platform before a parser runs)."""
    role = draw(st.sampled_from(sorted(valid)))
    out = dict(valid)
    if draw(st.booleans()):
        out[role] = draw(mutated(valid[role]))
    else:
        out[role] = draw(st.binary(max_size=4000))
    return out


HUGE_LINE = b"a" * (4 * 1024 * 1024)
MANY_LINES = b"x\ty\n" * 300_000

#: Member names that must never be written or trusted.
HOSTILE_NAMES = [
    "../escape.align",
    "/abs/path.align",
    "C:\\windows.align",
    "a/b/c/deep.align",
    "..",
    "./dot.align",
    "nul\x00.align",
    "dir/../x.align",
    "😀.align",
]


@st.composite
def zips(draw: st.DrawFn, members: dict[str, bytes]) -> bytes:
    """A zip of (some of) ``members`` with hostile names or contents mixed in."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        names = list(members)
        for name in draw(
            st.lists(st.sampled_from(names), max_size=len(names), unique=True)
        ):
            content = members[name]
            if draw(st.booleans()):
                content = draw(mutated(content))
            z.writestr(name, content)
        for name in draw(
            st.lists(st.sampled_from(HOSTILE_NAMES), max_size=3, unique=True)
        ):
            z.writestr(name, draw(st.binary(max_size=100)))
    data = buf.getvalue()
    if draw(st.booleans()):
        pos = draw(st.integers(0, len(data)))
        data = data[:pos] + draw(st.binary(max_size=20)) + data[pos + 1 :]
    return data


def zip_bomb(name: str, inflated_bytes: int = 80 * 1024 * 1024) -> bytes:
    """A small zip whose one member inflates to ``inflated_bytes`` zeros."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open(name, "w", force_zip64=True) as member:
            chunk = b"\0" * (1 << 20)
            for _ in range(inflated_bytes >> 20):
                member.write(chunk)
    return buf.getvalue()


def forged_size_zip(name: str, inflated_bytes: int = 80 * 1024 * 1024) -> bytes:
    """A zip bomb whose headers claim the member is 10 bytes long."""
    data = bytearray(zip_bomb(name, inflated_bytes))
    # Patch every uncompressed-size field we can find (local + central headers).
    for sig, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = 0
        while (i := data.find(sig, start)) != -1:
            data[i + offset : i + offset + 4] = (10).to_bytes(4, "little")
            start = i + 4
    return bytes(data)


# --- the per-task-type suite ------------------------------------------------------

RUN_NAMES = ["run.tsv", "run.txt", "run.zip", "run.json", "run.csv", "run"]


def _unzip(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: z.read(n) for n in z.namelist()}


def suite(slug: str, *, max_examples: int = 60) -> dict[str, Callable[..., None]]:
    """Property tests for one task type's parsers, built on its demo data. Use as
    ``globals().update(suite("<slug>"))`` in ``tests/task_types/<slug>/test_fuzz.py``."""
    from hypothesis import HealthCheck, given, settings

    from tasks import registry

    tt = registry.get(slug)
    demo = tt.demo(seed=0)
    conf = tt.parse_settings(dict(demo.settings))
    sets = demo.test_sets
    inputs = [tt.parse_inputs(dict(ts.inputs), conf) for ts in sets]
    run = next(iter(demo.runs[0][2].values()))
    run_name = "run.zip" if run[:2] == b"PK" else "run.tsv"
    fuzz = settings(
        max_examples=max_examples,
        deadline=None,  # the time bound is checked by outcome()
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )

    def parse_run(data: bytes, name: str) -> str:
        return outcome(lambda: tt.parse_phase_run(data, name, inputs, conf))

    @fuzz
    @given(st.binary(max_size=5000), st.sampled_from(RUN_NAMES))
    def test_run_random_bytes(data: bytes, name: str) -> None:
        parse_run(data, name)

    @fuzz
    @given(mutated(run))
    def test_run_mutated(data: bytes) -> None:
        parse_run(data, run_name)

    def test_run_huge_line_and_many_lines() -> None:
        for data in (HUGE_LINE, MANY_LINES, run + HUGE_LINE, run * 50):
            parse_run(data, run_name)

    def test_the_demo_run_parses() -> None:  # the fuzzing starts from a valid file
        assert parse_run(run, run_name) == "ok"

    @fuzz
    @given(files(dict(sets[0].inputs)))
    def test_inputs_hostile(candidate: dict[str, bytes]) -> None:
        outcome(lambda: tt.parse_inputs(candidate, conf))

    @fuzz
    @given(files(dict(sets[0].gold)))
    def test_gold_hostile(candidate: dict[str, bytes]) -> None:
        outcome(lambda: tt.parse_gold(candidate, inputs[0], conf))

    @fuzz
    @given(
        st.one_of(
            st.binary(max_size=5000),
            mutated(run),
            zips(_run_documents(run) or {"a.txt": run}),
        ),
        st.sampled_from(RUN_NAMES),
    )
    def test_request_checks_bounded(data: bytes, name: str) -> None:
        """What the web request does with an upload (services/validation.py): the
        cheap checks end in FormatError or the inflated size, fast, and a file small
        enough to be parsed in the request ends in FormatError or a result."""
        from django.conf import settings as django_settings

        from evalhub.competitions.services.runs import validation

        started = time.process_time()
        try:
            inflated = validation.precheck(data=data, filename=name)
        except FormatError:
            return
        assert time.process_time() - started < REQUEST_BOUND
        if inflated <= django_settings.INLINE_VALIDATION_BYTES:
            parse_run(data, name)

    def test_request_refuses_bombs_before_parsing() -> None:
        from evalhub.competitions.services.runs import validation

        bombs = [
            build(member)
            for member in ("a.txt", "doc.align")
            for build in (zip_bomb, lambda m: zip_bomb(m, 60 * 1024 * 1024))
        ]
        for bomb in bombs:
            started = time.process_time()
            try:
                validation.precheck(data=bomb, filename="run.zip")
            except FormatError as exc:
                assert "inflates" in str(exc)
            else:
                raise AssertionError("a bomb passed the request's checks")
            assert time.process_time() - started < REQUEST_BOUND

    tests = {name: fn for name, fn in locals().items() if name.startswith("test_")}
    zipped = {
        role: data
        for ts in sets[:1]
        for role, data in {**ts.inputs, **ts.gold}.items()
        if data[:2] == b"PK"
    }
    if zipped or run[:2] == b"PK":
        tests.update(_zip_tests(tt, conf, sets[0], inputs, run, zipped, fuzz))
    return tests


def _zip_tests(tt, conf, ts, inputs, run, zipped, fuzz):  # noqa: ANN001, ANN202
    from hypothesis import given

    def parse(role: str, data: bytes) -> str:
        files = {**ts.inputs, **ts.gold, role: data}
        if role in ts.inputs:
            return outcome(
                lambda: tt.parse_inputs({k: files[k] for k in ts.inputs}, conf)
            )
        return outcome(
            lambda: tt.parse_gold({k: files[k] for k in ts.gold}, inputs[0], conf)
        )

    tests = {}
    for role, data in zipped.items():
        members = _unzip(data)
        member = next(iter(members))

        def hostile(role: str, members: dict[str, bytes]):  # noqa: ANN202
            @fuzz
            @given(zips(members))
            def test_members(candidate: bytes) -> None:
                parse(role, candidate)

            return test_members

        def test_zip_bomb_and_traversal_rejected(
            role: str = role, member: str = member, members: dict = members
        ) -> None:
            for bad in (zip_bomb(member), forged_size_zip(member)):
                assert parse(role, bad) == "format-error"
            for name in HOSTILE_NAMES[:4]:
                buf = io.BytesIO()
                with zipfile.ZipFile(buf, "w") as z:
                    for n, content in members.items():
                        z.writestr(n, content)
                    z.writestr(name, b"x")
                assert parse(role, buf.getvalue()) == "format-error", name

        tests[f"test_{role}_zip_members_hostile"] = hostile(role, members)
        tests[f"test_{role}_zip_bomb_and_traversal_rejected"] = (
            test_zip_bomb_and_traversal_rejected
        )
    # Runs as zips of per-document members.
    docs = _run_documents(run)
    if docs:

        def parse_run(data: bytes) -> str:
            return outcome(lambda: tt.parse_phase_run(data, "run.zip", inputs, conf))

        @fuzz
        @given(zips(docs))
        def test_run_zip_hostile(candidate: bytes) -> None:
            parse_run(candidate)

        def test_run_zip_bomb_and_traversal_rejected() -> None:
            name = next(iter(docs))
            for bad in (zip_bomb(name), forged_size_zip(name)):
                assert parse_run(bad) == "format-error"
            for hostile in HOSTILE_NAMES[:4]:
                buf = io.BytesIO()
                with zipfile.ZipFile(buf, "w") as z:
                    for n, content in docs.items():
                        z.writestr(n, content)
                    z.writestr(hostile, b"[0]:[0]\n")
                assert parse_run(buf.getvalue()) == "format-error", hostile

        tests["test_run_zip_hostile"] = test_run_zip_hostile
        tests["test_run_zip_bomb_and_traversal_rejected"] = (
            test_run_zip_bomb_and_traversal_rejected
        )
    return tests


def _run_documents(run: bytes) -> dict[str, bytes]:
    """A text run with ``# <document>`` headers as {"<document>.align": bytes}."""
    if run[:2] == b"PK":
        return _unzip(run)
    docs: dict[str, list[bytes]] = {}
    current = None
    for line in run.split(b"\n"):
        if line.startswith(b"# "):
            current = line[2:].decode() + ".align"
            docs[current] = []
        elif current is not None:
            docs[current].append(line)
    return {k: b"\n".join(v) for k, v in docs.items()}
