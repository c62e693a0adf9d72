"""Django's model backend, loading the signed-in user with a precompiled query.

Every signed-in request loads its user; compiling that query cost more than running
it (see ``evalhub.precompiled``). Everything else, passwords and permissions
included, is Django's ``ModelBackend``."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.contrib.auth.base_user import AbstractBaseUser

from evalhub.precompiled import Precompiled, fields, instance


def _user_query(pk: int):  # noqa: ANN202
    model = get_user_model()
    return model._default_manager.filter(pk=pk).values_list(*fields(model))


_USER = Precompiled(_user_query, pk=-2_000_000_002)


class ModelBackend(DjangoModelBackend):
    def get_user(self, user_id: object) -> AbstractBaseUser | None:
        try:
            pk = int(user_id)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            return None
        rows = _USER.rows(pk=pk)
        if not rows:
            return None
        user = instance(get_user_model(), rows[0])
        return user if self.user_can_authenticate(user) else None
