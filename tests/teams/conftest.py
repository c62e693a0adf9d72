from __future__ import annotations

import pytest


@pytest.fixture
def bob(django_user_model):  # noqa: ANN001, ANN201
    return django_user_model.objects.create_user(
        "bob", email="Bob@Example.org", password="pw-bob-1"
    )
