"""Accounts made before e-mail (django-allauth) may carry an address in
``User.email`` (set in the admin): it becomes their primary address, unverified, so
their account page shows it and they can have it verified or change it."""

from __future__ import annotations

from django.conf import settings
from django.db import migrations


def addresses_from_user_email(apps, schema_editor) -> None:  # noqa: ANN001
    user_model = apps.get_model(settings.AUTH_USER_MODEL)
    address_model = apps.get_model("account", "EmailAddress")
    have = set(address_model.objects.values_list("user_id", flat=True))
    address_model.objects.bulk_create(
        address_model(user_id=pk, email=email.lower(), verified=False, primary=True)
        for pk, email in user_model.objects.exclude(email="").values_list("pk", "email")
        if pk not in have
    )


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("account", "0009_emailaddress_unique_primary_email"),
    ]

    operations = [
        migrations.RunPython(addresses_from_user_email, migrations.RunPython.noop)
    ]
