"""The built-in bots: ordinary bot programs (``main.py STRATEGY``) shipped with Baize."""
