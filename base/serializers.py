"""The one shape of every input of the API: a serializer that refuses what it does not take."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class ClosedInputSerializer(serializers.Serializer):
    """An input that refuses, by name, any field it does not take: a misspelt or read-only
    field is an error, never silently ignored. Every input of the API is one."""

    #: How the refusal goes on, before the fields this input takes.
    takes_only = "this input takes only"
    #: Fields the resource shows but this input does not take: refused as read-only.
    read_only_names: tuple[str, ...] = ()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        given = self.initial_data if hasattr(self.initial_data, "keys") else {}
        others = sorted(set(given) - set(self.fields))
        if others:
            taken = ", ".join(self.fields)
            raise serializers.ValidationError(
                {
                    name: f"{'read-only' if name in self.read_only_names else 'unknown field'}:"
                    f" {self.takes_only} {taken}"
                    for name in others
                }
            )
        return attrs
