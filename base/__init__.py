"""What every app shares, beneath them all (above ``errors``, the refusals, which the
Django-free ``arena`` raises too): the inputs' closed serializer, the read-only admin page,
the Celery queues and priorities, and the tasks' retry policy. No app imports another app
for one of these; ``base`` imports no app.
"""
