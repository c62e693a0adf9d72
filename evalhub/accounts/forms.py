"""allauth's login form, its field named for what it takes (a user name or a verified
address: ``adapter.AccountAdapter.authenticate``)."""

from __future__ import annotations

from allauth.account.forms import LoginForm as AllauthLoginForm

LOGIN_LABEL = "Username or verified e-mail address"


class LoginForm(AllauthLoginForm):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["login"]
        field.label = LOGIN_LABEL
        field.widget.attrs["placeholder"] = ""
        field.widget.attrs["autocomplete"] = "username"
