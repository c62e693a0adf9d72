from __future__ import annotations

from oauth2_provider.oauth2_validators import OAuth2Validator

#: A user of this last name has an address the provider has not verified.
UNVERIFIED = "unverified"


class Validator(OAuth2Validator):
    """The claims a university's provider gives: its user name, the name and the
    address, with whether the provider verified it."""

    def get_additional_claims(self, request) -> dict[str, object]:  # noqa: ANN001
        user = request.user
        return {
            "preferred_username": user.username,
            "name": user.first_name,
            "email": user.email,
            "email_verified": user.last_name != UNVERIFIED,
        }
