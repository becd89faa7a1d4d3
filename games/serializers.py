from __future__ import annotations

from rest_framework import serializers


class GameSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    rules_version = serializers.CharField()
    deck_size = serializers.IntegerField()
    options = serializers.ListField(child=serializers.DictField())
