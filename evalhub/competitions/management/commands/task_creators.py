from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from evalhub.competitions.services import creators, roles


class Command(BaseCommand):
    help = (
        "Grant or withdraw the right to create tasks (as site staff do on "
        "/staff/creators/; recorded as made on the command line), or list who "
        "was granted it."
    )

    def add_arguments(self, parser):  # noqa: ANN001, ANN201
        parser.add_argument("action", choices=["grant", "withdraw", "list"])
        parser.add_argument("usernames", nargs="*", metavar="username")

    def handle(self, *args, action: str, usernames: list[str], **options):  # noqa: ANN002, ANN003, ANN201
        self.stdout.write(roles.creators_rule())
        if action == "list":
            for row in creators.granted():
                self.stdout.write(f"{row.user.username}: {', '.join(row.grounds)}")  # type: ignore[attr-defined]
            return
        if not usernames:
            raise CommandError(f"{action}: name at least one user")
        users = get_user_model().objects.filter(username__in=usernames)
        found = {u.username: u for u in users}
        missing = [name for name in usernames if name not in found]
        if missing:
            raise CommandError(f"no such user: {', '.join(missing)}")
        change = creators.grant if action == "grant" else creators.withdraw
        for name in usernames:
            changed = change(user=found[name], by=None)
            done = "granted to" if action == "grant" else "withdrawn from"
            state = done if changed else "unchanged for"
            self.stdout.write(f"the right to create tasks is {state} {name}")
