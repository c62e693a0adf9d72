"""The admin's forms that ask the rules of ``services/roles.py``, so that the admin
(organisers are staff users; site staff edit teams) is no way around them."""

from __future__ import annotations

from django import forms

from evalhub.competitions.services import roles


class SharedTaskForm(forms.ModelForm):
    def clean_organisers(self) -> list[object]:
        """The console's rules hold here too: the owner stays, and nobody in a team
        registered for the task becomes an organiser."""
        users = self.cleaned_data["organisers"]
        task = self.instance
        if task.pk is None:
            return users
        kept = {u.pk for u in users}
        before = set(task.organisers.values_list("pk", flat=True))
        try:
            for user_id in before - kept:
                roles.refuse_removal(task=task, user_id=user_id, acting=None)
            for user in users:
                if user.pk not in before:
                    roles.refuse_overlap(task=task, user=user)
        except roles.Refused as exc:
            raise forms.ValidationError(str(exc)) from None
        return users


class RegistrationForm(forms.ModelForm):
    def clean(self) -> dict[str, object]:
        """No team with an organiser of the task registers for it."""
        data = super().clean()
        task, team = data.get("task"), data.get("team")
        if task is not None and team is not None:
            try:
                roles.refuse_overlap(task=task, team=team)
            except roles.OrganiserCompetes as exc:
                raise forms.ValidationError(str(exc)) from None
        return data


class TeamForm(forms.ModelForm):
    def clean_members(self) -> list[object]:
        """No organiser of a task joins a team registered for it."""
        users = self.cleaned_data["members"]
        team = self.instance
        if team.pk is None:
            return users
        before = set(team.members.values_list("pk", flat=True))
        try:
            for user in users:
                if user.pk not in before:
                    roles.refuse_overlap(team=team, user=user)
        except roles.OrganiserCompetes as exc:
            raise forms.ValidationError(str(exc)) from None
        return users
