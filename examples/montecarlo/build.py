"""Build the Monte Carlo bot's upload: ``bot.py`` and a copy of the engine, ``games/rules``.

    python examples/montecarlo/build.py            # var/montecarlo/ and var/montecarlo.zip
    python examples/montecarlo/build.py OUT_DIR    # OUT_DIR/montecarlo/ and its .zip

The folder is what the zip holds, ready for ``manage.py play snag var/montecarlo heuristic``;
upload the zip as a new version (docs/bot-author-guide.md). Standard library only.
"""

from __future__ import annotations

import shutil
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
ENGINE = REPOSITORY / "games" / "rules"
#: Only the engine's sources go in: no bytecode caches, nothing else of the repository.
ENGINE_FILES = "*.py"


def bundle_files() -> dict[str, Path]:
    """The upload's files by their path in the zip, with where each comes from."""
    files = {"bot.py": HERE / "bot.py", "games/__init__.py": REPOSITORY / "games" / "__init__.py"}
    for source in sorted(ENGINE.rglob(ENGINE_FILES)):
        files[f"games/rules/{source.relative_to(ENGINE).as_posix()}"] = source
    return files


def build(out_dir: Path) -> Path:
    """Write ``out_dir/montecarlo/`` and ``out_dir/montecarlo.zip``; return the folder."""
    folder = out_dir / "montecarlo"
    shutil.rmtree(folder, ignore_errors=True)
    files = bundle_files()
    with zipfile.ZipFile(out_dir / "montecarlo.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for name, source in files.items():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            archive.write(source, name)
    return folder


def main() -> None:
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else REPOSITORY / "var"
    out_dir.mkdir(parents=True, exist_ok=True)
    folder = build(out_dir)
    print(f"{folder}/ and {folder}.zip: bot.py and games/rules ({len(bundle_files())} files)")


if __name__ == "__main__":
    main()
