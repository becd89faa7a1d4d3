"""Turn the round robins of migration 0001 into pairings and duplicate sets.

Before, a tournament's matches carried a round and a set number; now a match belongs to a
duplicate set of a pairing. Each old set (two matches, seats swapped) becomes one
``DuplicateSet`` of the pairing of its two entrants, settled from its matches if both
finished. Old deals keep their seeds; the tournament seed becomes text and is committed to
by its SHA-256, as new tournaments are.
"""

import hashlib
from collections import defaultdict

from django.db import migrations


def forwards(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    for tournament in Tournament.objects.all():
        tournament.seed_sha256 = hashlib.sha256(tournament.seed.encode()).hexdigest()
        tournament.entrant_count = tournament.entrants.count()
        tournament.progress = 1
        tournament.save(update_fields=["seed_sha256", "entrant_count", "progress"])
        _convert_matches(apps, tournament)


def _convert_matches(apps, tournament):
    TournamentMatch = apps.get_model("tournaments", "TournamentMatch")
    MatchSeat = apps.get_model("bots", "MatchSeat")
    links = list(TournamentMatch.objects.filter(tournament=tournament).order_by("match_id"))
    seats = defaultdict(dict)
    for seat in MatchSeat.objects.filter(match_id__in=[link.match_id for link in links]):
        seats[seat.match_id][seat.seat] = seat.version_id
    entrant_of = {e.version_id: e for e in tournament.entrants.all()}
    by_set = defaultdict(list)
    for link in links:
        by_set[(link.round, link.set_number)].append(link)
    pairings = {}
    for (round_number, _), set_links in sorted(by_set.items()):
        first_match = set_links[0]
        first = entrant_of[seats[first_match.match_id][0]]
        second = entrant_of[seats[first_match.match_id][1]]
        pairing = pairings.get((round_number, first.pk, second.pk))
        if pairing is None:
            pairing = _pairing_create(apps, tournament, round_number, first, second, pairings)
        _set_create(apps, pairing, set_links, seats, first)


def _pairing_create(apps, tournament, round_number, first, second, pairings):
    Pairing = apps.get_model("tournaments", "Pairing")
    table = 1 + sum(1 for key in pairings if key[0] == round_number)
    pairing = Pairing.objects.create(
        tournament=tournament,
        key=f"r{round_number}t{table}",
        bracket="rounds",
        round=round_number,
        table=table,
        first=first,
        second=second,
    )
    pairings[(round_number, first.pk, second.pk)] = pairing
    return pairing


def _set_create(apps, pairing, set_links, seats, first):
    DuplicateSet = apps.get_model("tournaments", "DuplicateSet")
    Match = apps.get_model("games", "Match")
    number = DuplicateSet.objects.filter(pairing=pairing).count() + 1
    matches = {m.pk: m for m in Match.objects.filter(id__in=[link.match_id for link in set_links])}
    duplicate_set = DuplicateSet.objects.create(
        pairing=pairing, number=number, seed=matches[set_links[0].match_id].seed
    )
    results = []
    for link in set_links:
        link.duplicate_set = duplicate_set
        link.first_seat = 0 if seats[link.match_id][0] == first.version_id else 1
        link.save(update_fields=["duplicate_set", "first_seat"])
        results.append((link.first_seat, matches[link.match_id]))
    if all(match.status == "finished" for _, match in results):
        _settle(duplicate_set, results)


def _settle(duplicate_set, results):
    first_wins = second_wins = first_points = second_points = 0
    for first_seat, match in results:
        first_points += match.scores[first_seat]
        second_points += match.scores[1 - first_seat]
        first_wins += match.winner == first_seat
        second_wins += match.winner != first_seat
    first, second = (first_wins, first_points), (second_wins, second_points)
    duplicate_set.outcome = (
        "drawn" if first == second else ("first" if first > second else "second")
    )
    duplicate_set.first_wins, duplicate_set.second_wins = first_wins, second_wins
    duplicate_set.first_points, duplicate_set.second_points = first_points, second_points
    duplicate_set.status = "finished"
    duplicate_set.finished_at = max(match.finished_at for _, match in results)
    duplicate_set.save()
    pairing = duplicate_set.pairing
    if pairing.sets.filter(status="playing").exists():
        return
    pairing.status = "finished"
    pairing.finished_at = duplicate_set.finished_at
    pairing.save(update_fields=["status", "finished_at"])


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0002_formats_sets_ratings"),
        ("bots", "0001_initial"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
