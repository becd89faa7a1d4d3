"""The pages' forms: they read what was typed, the services judge it.

A form checks only what a page asks (the same password twice, a number where a number
goes); every rule of an account, an upload, a challenge or a version test is the service's,
or the API's own input rule, so a page refuses exactly what the API refuses.
"""

from __future__ import annotations

from django import forms

from bots.serializers import SignUpInputSerializer
from errors import InvalidFields


class SignUpForm(forms.Form):
    username = forms.CharField(max_length=40, help_text="3 to 40 of A–Z a–z 0–9 _ . -")
    email = forms.EmailField(required=False, help_text="Optional.")
    password = forms.CharField(strip=False, widget=forms.PasswordInput)
    password_again = forms.CharField(strip=False, widget=forms.PasswordInput)

    def clean(self) -> dict:
        data = super().clean()
        if data.get("password") != data.get("password_again"):
            self.add_error("password_again", "the two passwords differ")
        # The API's rule for a new account's fields (the username's letters among them).
        given = {name: self.data.get(name, "") for name in ("username", "password", "email")}
        account = SignUpInputSerializer(data=given)
        if not account.is_valid():
            for name, messages in account.errors.items():
                if name not in self.errors:
                    self.add_error(name, [str(message) for message in messages])
        return data

    def add_refusal(self, error: InvalidFields) -> None:
        """Show the service's refusal beside the fields it names."""
        for name, messages in error.messages.items():
            self.add_error(name if name in self.fields else None, messages)


class ChallengeForm(forms.Form):
    version = forms.IntegerField()
    opponent = forms.IntegerField()
    sets = forms.IntegerField()


class VersionTestForm(forms.Form):
    candidate = forms.IntegerField()
    baseline = forms.IntegerField()


def form_problems(form: forms.Form) -> str:
    """A form's errors in one line, for a message on the page it came from."""
    return "; ".join(
        f"{name}: {' '.join(messages)}" if name != "__all__" else " ".join(messages)
        for name, messages in form.errors.items()
    )
