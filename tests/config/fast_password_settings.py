"""The settings with a fast password hasher, for servers the tests start as other processes
(the suite's ``_fast_passwords`` fixture does the same in the test's own process).

Django's default hasher spends most of a second of CPU on each password it checks or sets,
on purpose; a test of what a server does with requests, not of how it stores passwords, need
not pay it on every request.
"""

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
