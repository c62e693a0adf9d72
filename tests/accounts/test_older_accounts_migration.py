"""Migration accounts 0001: an account from before e-mail with an address in
``User.email`` gets it as its primary, unverified address; one without keeps none."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

ALLAUTH = ("account", "0009_emailaddress_unique_primary_email")
BEFORE = [("accounts", None), ALLAUTH]
AFTER = [("accounts", "0001_addresses_of_older_accounts")]


@pytest.mark.django_db(transaction=True)
def test_user_email_becomes_an_unverified_primary_address():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state([ALLAUTH]).apps
    users = old.get_model("auth", "User").objects
    users.create(username="old-with", email="Old.One@Example.org")
    users.create(username="old-without", email="")
    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    rows = list(
        new.get_model("account", "EmailAddress").objects.values_list(
            "user__username", "email", "verified", "primary"
        )
    )
    assert rows == [("old-with", "old.one@example.org", False, True)]
