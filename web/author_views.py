"""The authors' pages: signing in and out with the accounts the API uses (Django's sessions),
and signing up.

Thin, as the public pages are: read the form, call the one service the API calls for the
same thing, and say on the page what came of it. The forms carry Django's CSRF token, and
count against the API's rate limits (``web.throttles``).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from bots.services.accounts import user_sign_up
from errors import InvalidFields

from .forms import SignUpForm
from .throttles import throttle_wait, wait_words


class SignInView(LoginView):
    """Django's sign-in, counted against the API's token exchange (both check a password)."""

    template_name = "web/sign_in.html"
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        wait = throttle_wait(request, scope="token")
        if wait is None:
            return super().post(request, *args, **kwargs)
        # The password is not even looked at: that is what the limit is for.
        refused = f"Too many sign-ins from here: try again {wait_words(wait)}."
        context = self.get_context_data(form=AuthenticationForm(request), refused=refused)
        return self.render_to_response(context, status=429)


def sign_up(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    form = SignUpForm(request.POST or None)
    status = 200
    if request.method == "POST":
        wait = throttle_wait(request, scope="sign_up")
        if wait is not None:
            form.add_error(None, f"Too many sign-ups from here: try again {wait_words(wait)}.")
            status = 429
        elif form.is_valid():
            try:
                user, _token = user_sign_up(
                    username=form.cleaned_data["username"],
                    password=form.cleaned_data["password"],
                    email=form.cleaned_data["email"],
                )
            except InvalidFields as error:
                form.add_refusal(error)
            else:
                login(request, user)
                messages.success(request, f"Welcome, {user.username}: you are signed in.")
                return redirect(settings.LOGIN_REDIRECT_URL)
    return render(request, "web/sign_up.html", {"form": form}, status=status)
