"""Static files are served by the app itself (WhiteNoise), with DEBUG off as in production."""

from __future__ import annotations

from django.test import Client, override_settings


@override_settings(DEBUG=False)
def test_the_web_pages_scripts_are_served_without_a_file_server():
    response = Client().get("/static/web/replay.js")
    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert len(body) > 0
