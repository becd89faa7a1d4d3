"""Test-wide set-up that must happen before Django reads its settings."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
