"""Several evalhub "nodes" on one machine for ``drain.py --nodes K``: each node has
its own data folder (``EVALHUB_VAR_DIR``, so its own ``private/`` folder) and shares
only PostgreSQL, Redis and an S3 protocol server: moto's standalone server from PyPI
(``moto_server`` beside the Python running this, as ``tests/deploy/test_two_nodes.py``
starts it), on 127.0.0.1, with an empty bucket, stopped at the end."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from stack import free_port, wait

BUCKET = "evalhub-bench"
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}
# Every node signs sessions with the same key (otherwise each keeps a generated key
# in its own folder).
SECRET_KEY = "drain-bench-nodes-share-this-secret-key-0123456789"


@contextlib.contextmanager
def s3_server() -> Iterator[dict[str, str]]:
    """moto's S3 server with an empty bucket; yields the environment an operator
    sets on every node (and on the shell that submits the runs)."""
    import boto3

    moto = Path(sys.executable).with_name("moto_server")
    if not moto.exists():
        raise SystemExit(f"{moto} not found: pip install 'moto[server]' (dev extra)")
    folder = Path(tempfile.mkdtemp(prefix="evalhub-bench-s3-"))
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    with (folder / "moto.log").open("wb") as out:
        proc = subprocess.Popen(
            [str(moto), "-H", "127.0.0.1", "-p", str(port)],
            cwd=folder,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        client = boto3.client(
            "s3",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        )

        def bucket_made() -> bool:
            if proc.poll() is not None:
                raise SystemExit((folder / "moto.log").read_text(errors="replace"))
            try:
                client.create_bucket(Bucket=BUCKET)
            except Exception:  # noqa: BLE001 - the server is still starting
                return False
            return True

        wait(bucket_made, "moto's S3 server", 60)
        env = {
            **CREDENTIALS,
            "DJANGO_SECRET_KEY": SECRET_KEY,
            "EVALHUB_STORAGE": "s3",
            "EVALHUB_S3_BUCKET": BUCKET,
            "EVALHUB_S3_ENDPOINT_URL": endpoint,
            "EVALHUB_S3_REGION": "us-east-1",
        }
        yield env
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def bucket_objects(env: dict[str, str]) -> int:
    """How many objects the bucket holds."""
    import boto3

    client = boto3.client(
        "s3",
        endpoint_url=env["EVALHUB_S3_ENDPOINT_URL"],
        region_name=env["EVALHUB_S3_REGION"],
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
    )
    pages = client.get_paginator("list_objects_v2").paginate(
        Bucket=env["EVALHUB_S3_BUCKET"]
    )
    return sum(page.get("KeyCount", 0) for page in pages)


def node_env(base: dict[str, str], folder: Path) -> dict[str, str]:
    """A node's environment: the shared services of ``base``, its own data folder."""
    folder.mkdir(parents=True, exist_ok=True)
    env = dict(base)
    env.pop("EVALHUB_PRIVATE_ROOT", None)  # default: <its folder>/private
    env["EVALHUB_VAR_DIR"] = str(folder)
    return env


def stored_files(folder: Path) -> list[str]:
    """Every file in a node's data folder but the static files' folder (collected
    or served from the repository): with S3 storage there should be none."""
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and "staticfiles" not in p.parts
    )
