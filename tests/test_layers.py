"""The layers point one way: ops -> config -> web -> ladder -> tournaments -> matches -> bots
-> monitoring -> arena -> games. On top, ``ops`` holds the tooling (benchmarks, simulations,
the demo), which no layer below imports; ``monitoring`` (metrics, health, heartbeats) knows
no domain, and every layer above records through it; ``arena`` runs programs under a
referee (runner, sandbox, series, the set player) and imports no Django and no app.

Beneath them all, ``errors`` holds the refusals every layer raises (the Django-free arena's too),
and ``base`` what every app shares (the closed input serializer, the read-only admin, the
queues and priorities, the retry policy): it imports no app, and no app imports another
for one of these. Each app's rows have one
writer, its services (bots' and tournaments' a package), and no module reaches another by a name
computed at run time, which this test could not see.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = [
    "base",
    "games",
    "arena",
    "monitoring",
    "bots",
    "matches",
    "tournaments",
    "ladder",
    "web",
    "config",
    "ops",
]
PROJECT = set(LAYERS)
#: Every package of the project's own code (the examples are bots, not Baize).
PACKAGES = ["errors", *LAYERS]
#: Methods that write rows, on a manager, a queryset or a model instance.
WRITES = {
    "create",
    "update",
    "save",
    "delete",
    "bulk_create",
    "bulk_update",
    "get_or_create",
    "update_or_create",
}
TOURNAMENT_MODELS = {
    "Tournament",
    "Entrant",
    "Pairing",
    "DuplicateSet",
    "TournamentMatch",
    "VersionTest",
    "RecurringTournament",
}
#: The rating rows: tournaments' app, their own package (``tournaments/ratings/``).
RATING_MODELS = {"Leaderboard", "Rating", "RatingUpdate", "RatingChange"}
MATCH_MODELS = {"Match", "MatchEventBatch", "MatchSeat", "SeatStderr"}
#: Modules named like a standard-library module, and why the name stays: each is reached
#: only as a submodule (``app.selectors``, ``strategies.random``), never as a top-level one.
STDLIB_NAMES_KEPT = {
    "selectors": "an app's reads, named by the project's convention (services and selectors)",
    "random": "the strategy of the built-in bot called random, loaded by the bot's name",
}
#: The standard library's ways to load a module by a name held in a variable.
LOADERS = {"import_module", "__import__", "find_spec", "spec_from_file_location"}
#: The one module that loads modules by a computed name, and why it may.
LOADS_BY_NAME = {
    "arena/builtin/strategies/__init__.py": "a strategy of its own package, by the bot's name",
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def python_files(package: str) -> list[Path]:
    return [p for p in (ROOT / package).rglob("*.py") if "migrations" not in p.parts]


def project_files() -> list[Path]:
    return [path for package in PACKAGES for path in python_files(package)]


def _receiver_names(node: ast.expr) -> list[str]:
    """The names along a call's receiver: ``Entrant.objects.filter(x).update`` gives
    ``Entrant``, ``objects``, ``filter``."""
    names = []
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            if isinstance(node, ast.Name):
                names.append(node.id)
            return names


def written_models(path: Path, models: set[str]) -> set[str]:
    """The ``models`` whose rows ``path`` writes through their managers and querysets, or
    through an instance named after the model (``entrant.delete()``)."""
    snake = {re.sub(r"(?<!^)(?=[A-Z])", "_", model).lower(): model for model in models}
    written = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in WRITES:
            continue
        if any(k.arg == "commit" for k in node.keywords):  # a form's save(commit=False)
            continue
        for name in _receiver_names(node.func.value):
            if name in models:
                written.add(name)
            elif name in snake:
                written.add(snake[name])
    return written


def writers_of(models: set[str]) -> dict[str, set[str]]:
    found = {}
    for path in project_files():
        written = written_models(path, models)
        if written:
            found[str(path.relative_to(ROOT))] = written
    return found


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imports_only_the_layers_below_it(layer):
    above = set(LAYERS[LAYERS.index(layer) + 1 :])
    offending = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in python_files(layer)
        for name in imported_modules(path)
        if name.split(".")[0] in above
    }
    assert not offending


def test_the_rules_engines_import_only_the_standard_library():
    offending = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in python_files("games/rules")
        for name in imported_modules(path)
        if name.split(".")[0] not in sys.stdlib_module_names and not name.startswith("games.rules")
    }
    assert not offending


@pytest.mark.parametrize(
    "module",
    [
        "games/replay.py",
        "games/events.py",
        "games/confidence.py",
        "tournaments/formats.py",
        "tournaments/standings.py",
        "tournaments/sprt.py",
        "tournaments/ratings/maths.py",
    ],
)
def test_the_pure_cores_import_no_django(module):
    names = imported_modules(ROOT / module)
    assert not {
        name for name in names if name.split(".")[0] in {"django", "celery", "rest_framework"}
    }


def test_the_errors_every_layer_raises_import_only_the_standard_library():
    offending = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in python_files("errors")
        for name in imported_modules(path)
        if name.split(".")[0] not in sys.stdlib_module_names
    }
    assert not offending


def test_only_the_tournaments_services_write_the_tournament_models():
    writers = writers_of(TOURNAMENT_MODELS)
    assert writers, "the check finds no writer at all: it has gone blind"
    assert {path for path in writers if not path.startswith("tournaments/services/")} == set()


def test_only_the_ratings_services_write_the_rating_models():
    assert set(writers_of(RATING_MODELS)) == {"tournaments/ratings/services.py"}


def test_only_the_matches_services_write_a_match():
    assert set(writers_of(MATCH_MODELS)) == {"matches/services.py"}


def test_the_write_check_sees_a_write_from_outside(tmp_path):
    """The check itself: a write of each kind it must see, in a module it must refuse."""
    source = (
        "Tournament.objects.filter(id=1).update(progress=2)\n"
        "entrant.delete()\n"
        "DuplicateSet.objects.create(pairing=p)\n"
        "form.save(commit=False)\n"
    )
    path = tmp_path / "outsider.py"
    path.write_text(source)
    assert written_models(path, TOURNAMENT_MODELS) == {"Tournament", "Entrant", "DuplicateSet"}


#: Who writes each app's rows: the folder of its ``models.py`` -> the modules, or packages
#: (ending in "/"), that may write them. Every ``models.py`` of the project needs an entry.
APP_WRITERS: dict[str, tuple[str, ...]] = {
    "bots": ("bots/services/",),
    "matches": ("matches/services.py",),
    # The manual changes an organiser or staff makes are recorded by the audit module.
    "tournaments": ("tournaments/services/", "tournaments/audit.py"),
    # The ratings are a room of the tournaments app, with a writer of their own.
    "tournaments/ratings": ("tournaments/ratings/services.py",),
    "monitoring": ("monitoring/services.py",),
}
#: Rows of Django's own apps that an app writes as its own: the accounts of bot authors.
FOREIGN_MODELS = {"bots": {"User", "Token"}}


def model_names(path: Path) -> set[str]:
    """The models that ``path`` (a ``models.py``) defines: its top-level classes deriving from
    ``models.Model`` (any ``*.Model``) or from another model of the file."""
    classes = [
        node
        for node in ast.parse(path.read_text(), filename=str(path)).body
        if isinstance(node, ast.ClassDef)
    ]
    found: set[str] = set()
    while True:
        more = {
            node.name
            for node in classes
            if any(
                (isinstance(base, ast.Attribute) and base.attr == "Model")
                or (isinstance(base, ast.Name) and base.id in found | {"Model"})
                for base in node.bases
            )
        }
        if more <= found:
            return found
        found |= more


def app_models(app: str) -> set[str]:
    return model_names(ROOT / app / "models.py") | FOREIGN_MODELS.get(app, set())


def outside_writes(app: str, files: list[Path], root: Path = ROOT) -> dict[str, set[str]]:
    """The modules among ``files`` that write ``app``'s rows without being its writers."""
    allowed = APP_WRITERS[app]
    models = app_models(app)
    found = {}
    for path in files:
        name = str(path.relative_to(root))
        if any(
            name == writer or (writer.endswith("/") and name.startswith(writer))
            for writer in allowed
        ):
            continue
        written = written_models(path, models)
        if written:
            found[name] = written
    return found


def test_every_app_with_models_has_its_writers_named():
    apps = {
        str(path.parent.relative_to(ROOT)) for path in project_files() if path.name == "models.py"
    }
    assert apps == set(APP_WRITERS)


@pytest.mark.parametrize("app", sorted(APP_WRITERS))
def test_only_an_apps_writers_write_its_rows(app):
    models = app_models(app)
    assert models - FOREIGN_MODELS.get(app, set()), f"no model found in {app}/models.py"
    assert writers_of(models), (
        f"the check finds no writer of {app}'s rows at all: it has gone blind"
    )
    assert outside_writes(app, project_files()) == {}


def test_the_per_app_write_check_refuses_an_outsider_and_lets_the_writers_be(tmp_path):
    """The per-app check itself: every app's rows written from a module of no writer are
    seen, the same writes from the app's own writer are not; models come from the AST."""
    assert {"Bot", "BotVersion", "CodeBlob"} <= app_models("bots")
    assert "Status" not in app_models("bots")  # a model's choices are no model
    source = (
        "BotVersion.objects.filter(id=1).update(status='ready')\n"
        "user.save()\n"
        "Token.objects.get_or_create(user=user)\n"
        "match_event_batch.delete()\n"
        "Entrant.objects.bulk_create(entrants)\n"
    )
    outsider = tmp_path / "web" / "outsider.py"
    outsider.parent.mkdir()
    outsider.write_text(source)
    expected = {
        "bots": {"BotVersion", "User", "Token"},
        "matches": {"MatchEventBatch"},
        "tournaments": {"Entrant"},
    }
    for app, written in expected.items():
        assert outside_writes(app, [outsider], tmp_path) == {"web/outsider.py": written}
        writer = APP_WRITERS[app][0]
        inside = tmp_path / (f"{writer}inside.py" if writer.endswith("/") else writer)
        inside.parent.mkdir(parents=True, exist_ok=True)
        inside.write_text(source)
        name = str(inside.relative_to(tmp_path))
        for other, its_rows in expected.items():
            seen = {} if other == app else {name: its_rows}
            assert outside_writes(other, [inside], tmp_path) == seen


#: The bots app's Django-free core, as ``games/rules`` is: it runs a bot and referees its
#: matches, and knows nothing of rows, settings or tasks (the settings reach it as arguments,
#: from ``bots.services.launch``). Modules, or packages ending in "/".
#: The arena: every module of the package, Django-free.
ARENA = "arena"
#: What the arena may import of the project besides itself: the rules, the event log and its
#: fold, and the refusals every layer raises.
ARENA_MAY_IMPORT = ("games.rules", "games.events", "games.replay", "errors")
#: The frameworks the arena stays out of.
FRAMEWORKS = {"django", "celery", "rest_framework", "drf_spectacular"}


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules_resolved(path: Path, root: Path = ROOT) -> set[str]:
    """Every module ``path`` imports, anywhere in it, relative imports made absolute; for
    ``from package import name``, both ``package`` and ``package.name`` (a submodule or not)."""
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def arena_files(root: Path = ROOT) -> list[Path]:
    return sorted((root / ARENA).rglob("*.py"))


def arena_offences(files: list[Path], root: Path = ROOT) -> set[str]:
    """The imports of ``files`` that leave the arena: a framework, or a module of the project
    that is neither in the arena nor one it may import (an app's models, services...)."""
    allowed = (ARENA, *ARENA_MAY_IMPORT)
    offending = set()
    for path in files:
        for name in imported_modules_resolved(path, root):
            top = name.split(".")[0]
            inside = name in allowed or name.startswith(tuple(f"{m}." for m in allowed))
            if top in FRAMEWORKS or (top in PACKAGES and not inside):
                offending.add(f"{path.relative_to(root)}: {name}")
    return offending


def test_the_arena_imports_no_django_and_no_app():
    files = arena_files()
    assert len(files) > 20
    assert arena_offences(files) == set()


def test_the_arena_check_sees_django_and_an_apps_modules(tmp_path):
    """The check itself: a lazy settings import, an app's models or services, each refused;
    the arena's own modules and the rules are not."""
    folder = tmp_path / "arena" / "sandbox"
    folder.mkdir(parents=True)
    outsider = folder / "outsider.py"
    outsider.write_text(
        "from ..runner import LaunchSpec\n"
        "from .slots import acquire_slot\n"
        "from games.rules import Game\n"
        "from bots.models import BotVersion\n"
        "from bots.services.launch import sandbox_config\n"
        "from matches import services\n"
        "def limits():\n"
        "    from django.conf import settings\n"
    )
    assert arena_offences([outsider], tmp_path) == {
        "arena/sandbox/outsider.py: bots.models",
        "arena/sandbox/outsider.py: bots.models.BotVersion",
        "arena/sandbox/outsider.py: bots.services.launch",
        "arena/sandbox/outsider.py: bots.services.launch.sandbox_config",
        "arena/sandbox/outsider.py: matches",
        "arena/sandbox/outsider.py: matches.services",
        "arena/sandbox/outsider.py: django.conf",
        "arena/sandbox/outsider.py: django.conf.settings",
    }


def test_no_module_loads_another_by_a_name_computed_at_run_time():
    by_name = set()
    for path in project_files():
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Call):
                called = _receiver_names(node.func)
                if called[:1] in ([name] for name in LOADERS):
                    by_name.add(str(path.relative_to(ROOT)))
    assert by_name == set(LOADS_BY_NAME)


def test_no_module_is_named_like_a_standard_library_module():
    named = {path.stem if path.stem != "__init__" else path.parent.name for path in project_files()}
    assert {name for name in named if name in sys.stdlib_module_names} == set(STDLIB_NAMES_KEPT)
