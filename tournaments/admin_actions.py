"""What the tournaments' and the ratings' admin actions share: asking for a reason first,
and the read-only admin of history."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from . import services


class ReasonForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=500)


def with_reason(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet,
    *,
    title: str,
    perform: Callable[[Any, dict], str],
    form_class: type[ReasonForm] = ReasonForm,
) -> TemplateResponse | None:
    """Ask for a reason (and any other field of ``form_class``), then ``perform`` each object.

    ``perform(obj, cleaned_data)`` returns a message for the user; a ``TournamentError``
    becomes an error message for that object.
    """
    form = form_class(request.POST if "apply" in request.POST else None)
    if form.is_bound and form.is_valid():
        for obj in queryset:
            try:
                modeladmin.message_user(request, perform(obj, form.cleaned_data))
            except services.TournamentError as error:
                modeladmin.message_user(request, f"{obj}: {error}", messages.ERROR)
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "form": form,
        "queryset": queryset,
        "opts": modeladmin.model._meta,
        "action": request.POST.get("action"),
        "action_checkbox_name": ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "admin/tournaments/action_reason.html", context)
