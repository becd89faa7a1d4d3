"""The arena: running programs under a referee, Django-free.

A bot is a program speaking JSON lines; the arena starts it (``runner``), in the sandbox
where its code is untrusted (``sandbox``), referees a match between two of them
(``referee``, ``protocol``), keeps a process across the matches of a series (``series``),
plays a pairing's duplicate sets under the sealing rule (``set_player``), plays a recorded
match again at home (``replay``), and knows the languages a bot may be written in
(``runtimes``), how an upload is read (``bot_code``) and built (``builds``), the built-in
bots (``builtin``) and how a bot's text is stored (``text``).

Beneath the apps and above ``games``: it imports the rules engines, the event log and the
refusals (``errors``), and no Django and no app. The apps store what it plays.
"""
