"""moto's standalone S3 server for the tests that store files in a bucket (the two
nodes, the console's archive export): its command, an empty bucket once it
answers, and the storage settings that point django-storages at it."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.reliability.conftest import wait_for

REGION = "us-east-1"
#: moto accepts any; boto3 needs some (set in the environment of the test and
#: of the processes it starts).
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": REGION,
}


def command(port: int) -> list[str]:
    """moto's server on 127.0.0.1:``port`` (installed with the test extras)."""
    moto = Path(sys.executable).with_name("moto_server")
    return [str(moto), "-H", "127.0.0.1", "-p", str(port)]


def empty_bucket(endpoint: str, bucket: str, monkeypatch):  # noqa: ANN001, ANN201
    """Wait for the server at ``endpoint`` and create ``bucket`` (the credentials
    set in this process's environment); returns a boto3 client of it."""
    import boto3

    for name, value in CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    client = boto3.client("s3", endpoint_url=endpoint, region_name=REGION)

    def made() -> bool:
        try:
            client.create_bucket(Bucket=bucket)
        except Exception:  # noqa: BLE001 - the server is still starting
            return False
        return True

    wait_for(made, "moto's S3 server", timeout=60)
    return client


def storage(endpoint: str, bucket: str) -> dict[str, object]:
    """``STORAGES["default"]`` on that bucket, as ``EVALHUB_STORAGE=s3`` sets it."""
    return {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": bucket, "endpoint_url": endpoint,
            "region_name": REGION, "default_acl": None,
            "querystring_auth": True, "file_overwrite": False,
        },
    }  # fmt: skip
