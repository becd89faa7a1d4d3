"""The pages' forms: they read what was typed, the services judge it.

A form checks only what a page asks (the same password twice, a number where a number
goes); every rule of an account, an upload, a challenge or a version test is the service's,
or the API's own input rule, so a page refuses exactly what the API refuses.
"""

from __future__ import annotations

from django import forms

from bots.serializers import BotInputSerializer, SignUpInputSerializer
from errors import InvalidFields
from games.rules import GAMES


class RefusableForm(forms.Form):
    """A form whose service may refuse it field by field (``InvalidFields``)."""

    def add_refusal(self, error: InvalidFields) -> None:
        """Show the service's refusal beside the fields it names."""
        for name, messages in error.messages.items():
            self.add_error(name if name in self.fields else None, messages)


class SignUpForm(RefusableForm):
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


class BotCreateForm(RefusableForm):
    """A new bot: its game, name and description, and whether it joins the ladder."""

    game = forms.ChoiceField()
    name = forms.CharField(max_length=64, help_text="Unique in its game: A–Z a–z 0–9 _ -")
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    on_ladder = forms.BooleanField(
        required=False,
        initial=True,
        label="On the ladder",
        help_text="Its latest ready version plays the game's ladder; leave it off for a test bot.",
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Read now: a game registered late is offered.
        self.fields["game"].choices = [(game.id, game.name) for game in GAMES.values()]

    def clean(self) -> dict:
        data = super().clean()
        # The API's rule for a new bot's fields (a name is a slug, a description's length).
        given = {name: self.data.get(name, "") for name in ("game", "name", "description")}
        bot = BotInputSerializer(data=given)
        if not bot.is_valid():
            for name, messages in bot.errors.items():
                if name in self.fields and name not in self.errors:
                    self.add_error(name, [str(message) for message in messages])
        return data


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
