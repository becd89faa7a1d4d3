"""The authors' pages: signing in and out with the accounts the API uses (Django's sessions),
signing up, and an author's own bots, with what they upload and start from there.

Thin, as the public pages are: read the form, call the one service the API calls for the
same thing, and say on the page what came of it. A refusal is a message on the page, never
a 500; the forms carry Django's CSRF token, and count against the API's rate limits
(``web.throttles``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView, redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt, csrf_protect

from bots.models import Bot, BotVersion
from bots.permissions import can_change_bot
from bots.services import bots as bot_services
from bots.services.accounts import user_sign_up, user_token_rotate
from bots.services.upload import bot_version_upload, upload_runtime_choose
from bots.upload_files import CappedMemoryUpload, upload_capped, upload_file
from errors import DomainError, InvalidFields
from ladder import services as ladder_services
from tournaments.sprt import SprtParameters

from . import author_pages
from .forms import BotCreateForm, ChallengeForm, SignUpForm, VersionTestForm, form_problems
from .throttles import throttle_wait, wait_words

View = Callable[..., HttpResponse]


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


@login_required
def my_bots(request: HttpRequest) -> HttpResponse:
    return _my_bots_page(request, BotCreateForm())


def _my_bots_page(request: HttpRequest, form: BotCreateForm, status: int = 200) -> HttpResponse:
    page = author_pages.my_bots_page(user=request.user)
    context = {"page": page, "form": form, "token_shown": request.GET.get("token") == "shown"}
    response = render(request, "web/my_bots.html", context, status=status)
    # The page shows the author's API token: no cache keeps it.
    response["Cache-Control"] = "private, no-store"
    return response


def _my_bots(anchor: str = "") -> str:
    return reverse("web:my-bots") + (f"#{anchor}" if anchor else "")


def author_action(view: View) -> View:
    """A form's target on the authors' page: POST only, by a signed-in author. Anyone else
    is sent to sign in, and then to their page (the action's own URL shows nothing)."""

    @functools.wraps(view)
    def action(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(_my_bots(), resolve_url(settings.LOGIN_URL))
        if request.method != "POST":
            return redirect(_my_bots())
        return view(request, *args, **kwargs)

    return action


@author_action
def bot_create(request: HttpRequest) -> HttpResponse:
    form = BotCreateForm(request.POST)
    if form.is_valid():
        asked = form.cleaned_data
        try:
            bot = bot_services.bot_create(
                owner=request.user,
                game_id=asked["game"],
                name=asked["name"],
                description=asked["description"],
                on_ladder=asked["on_ladder"],
            )
        except InvalidFields as error:
            form.add_refusal(error)
        else:
            messages.success(request, f"{bot} created: upload its first version below.")
            return redirect(_my_bots(f"bot-{bot.pk}"))
    # What was typed stays in the form, beside why it was refused.
    return _my_bots_page(request, form, status=400)


@author_action
def token_rotate(request: HttpRequest) -> HttpResponse:
    user_token_rotate(user=request.user)
    messages.success(request, "Your API token was replaced: the old one no longer works.")
    return redirect(reverse("web:my-bots") + "?token=shown#api-token")


# The file is read through a capped handler, which must be in place before anything reads
# the body; the CSRF check reads it, so it runs after (Django's documented order).
@csrf_exempt
@author_action
def version_upload(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        handler = upload_capped(request)
    except DomainError as error:
        messages.error(request, f"The upload was refused: {error.message}.")
        return redirect(_my_bots(f"bot-{pk}"))
    return _version_upload(request, pk, handler)


@csrf_protect
def _version_upload(request: HttpRequest, pk: int, handler: CappedMemoryUpload) -> HttpResponse:
    bot = get_object_or_404(Bot, pk=pk)
    if not can_change_bot(request.user, bot):
        raise PermissionDenied(
            f"this bot ({bot}) belongs to another author: only its owner uploads to it"
        )
    wait = throttle_wait(request, scope="upload")
    if wait is not None:
        messages.error(request, f"Too many uploads: try again {wait_words(wait)}.")
        return redirect(_my_bots(f"bot-{pk}"))
    choice = None
    try:
        upload = upload_file(request.FILES.get("file"), handler)
        data = upload.read()
        choice = upload_runtime_choose(
            bot=bot, filename=upload.name, data=data, asked=request.POST.get("runtime")
        )
        version = bot_version_upload(
            bot=bot, filename=upload.name, data=data, runtime=choice.runtime.name
        )
    except DomainError as error:
        runtime = f" (for {choice.words})" if choice else ""
        messages.error(request, f"The upload to {bot.name}{runtime} was refused: {error.message}.")
    else:
        version.refresh_from_db()  # its check may have run already (eager tasks)
        status = _status_words(version.status)
        messages.success(request, f"{version} uploaded for {choice.words}: {status}.")
    return redirect(_my_bots(f"bot-{pk}"))


def _status_words(status: str) -> str:
    if status == BotVersion.Status.PENDING:
        return "it is being checked, its status shows here when the check is done"
    return f"its check found it {status}"


@author_action
def challenge_start(request: HttpRequest) -> HttpResponse:
    form = ChallengeForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"The challenge was not started: {form_problems(form)}.")
        return redirect(_my_bots())
    asked = form.cleaned_data
    try:
        challenge = ladder_services.challenge_create(
            user=request.user,
            version=author_pages.version_to_play(version_id=asked["version"]),
            opponent=author_pages.version_to_play(version_id=asked["opponent"]),
            sets=asked["sets"],
        )
    except DomainError as error:
        messages.error(request, f"The challenge was not started: {error.message}.")
        return redirect(_my_bots())
    messages.success(request, f"{challenge.name}: started.")
    return redirect("web:challenge", challenge.pk)


@author_action
def version_test_start(request: HttpRequest) -> HttpResponse:
    form = VersionTestForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"The version test was not started: {form_problems(form)}.")
        return redirect(_my_bots())
    asked = form.cleaned_data
    try:
        test = ladder_services.version_test_create(
            user=request.user,
            candidate=author_pages.version_to_play(version_id=asked["candidate"]),
            baseline=author_pages.version_to_play(version_id=asked["baseline"]),
            parameters=SprtParameters(),
        )
    except DomainError as error:
        messages.error(request, f"The version test was not started: {error.message}.")
        return redirect(_my_bots())
    messages.success(request, f"{test.name}: started.")
    return redirect("web:version-test", test.pk)
