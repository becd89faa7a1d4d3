"""Accounts of bot authors: signing up and API tokens (``rest_framework.authtoken``)."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from errors import InvalidFields


@transaction.atomic
def user_sign_up(*, username: str, password: str, email: str = "") -> tuple[User, Token]:
    """A new user and their API token; ``InvalidFields`` when refused."""
    # Case-insensitive: "Alice" and "alice" would be one author to every reader.
    if User.objects.filter(username__iexact=username).exists():
        raise InvalidFields({"username": "this username is taken"})
    user = User(username=username, email=email)
    try:
        validate_password(password, user)
    except ValidationError as error:
        raise InvalidFields({"password": error.messages}) from None
    user.set_password(password)
    try:
        # Savepoint: two sign-ups with one name at once; the unique username decides.
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise InvalidFields({"username": "this username is taken"}) from None
    return user, Token.objects.create(user=user)


def user_token(*, username: str, password: str) -> Token | None:
    """The API token of the user with these credentials, or None."""
    user = authenticate(username=username, password=password)
    if user is None:
        return None
    token, _ = Token.objects.get_or_create(user=user)
    return token


@transaction.atomic
def user_token_rotate(*, user: User) -> Token:
    """A new API token for ``user`` in place of the old one, which stops working at once."""
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user)
