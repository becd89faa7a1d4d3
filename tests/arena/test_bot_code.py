"""Reading uploads: what is accepted, what is refused and why, the hash, and the store."""

from __future__ import annotations

import pytest

from arena.bot_code import BotCode, UploadLimits, UploadRejected, read_upload, store_code
from tests.bots.uploads import (
    GOOD_BOT,
    SPLIT_BOT,
    SPLIT_STRATEGY,
    SYNTAX_ERROR,
    zip_bomb,
    zip_lying_about_size,
    zip_of,
    zip_with_symlink,
)

LIMITS = UploadLimits(max_bytes=64 * 1024, max_unpacked_bytes=256 * 1024, max_files=10)


def refusal(filename: str, data: bytes, limits: UploadLimits = LIMITS) -> UploadRejected:
    with pytest.raises(UploadRejected) as caught:
        read_upload(filename, data, limits)
    return caught.value


def test_a_py_file_becomes_bot_py():
    code = read_upload("my_bot.py", GOOD_BOT, LIMITS)
    assert code.files == {"bot.py": GOOD_BOT}
    assert code.size == len(GOOD_BOT)


def test_a_zip_keeps_its_files_and_folders():
    data = zip_of({"bot.py": SPLIT_BOT, "strategy.py": SPLIT_STRATEGY, "data/table.txt": b"1"})
    code = read_upload("bot.zip", data, LIMITS)
    assert set(code.files) == {"bot.py", "strategy.py", "data/table.txt"}


def test_the_same_code_has_the_same_hash_as_py_or_zip():
    as_py = read_upload("bot.py", GOOD_BOT, LIMITS)
    as_zip = read_upload("bot.zip", zip_of({"bot.py": GOOD_BOT}), LIMITS)
    assert as_py.content_hash == as_zip.content_hash
    assert len(as_py.content_hash) == 64


def test_a_hash_depends_on_paths_as_well_as_contents():
    one = BotCode({"bot.py": b"x", "a.py": b""})
    other = BotCode({"bot.py": b"x", "b.py": b""})
    assert one.content_hash != other.content_hash


def test_a_syntax_error_is_refused_with_the_name_the_author_gave_the_file_and_its_line():
    error = refusal("bad.py", SYNTAX_ERROR)
    assert error.code == "syntax_error"
    assert error.message.startswith("bad.py line 3:")


def test_a_syntax_error_in_a_zip_s_bot_py_names_it_as_it_is_in_the_zip():
    error = refusal("bad.zip", zip_of({"bot.py": SYNTAX_ERROR}))
    assert (error.code, error.message.split(":")[0]) == ("syntax_error", "bot.py line 3")


def test_a_syntax_error_in_a_helper_module_is_refused_too():
    error = refusal("bot.zip", zip_of({"bot.py": GOOD_BOT, "lib/helper.py": b"def (:"}))
    assert (error.code, error.message.split(":")[0]) == ("syntax_error", "lib/helper.py line 1")


def test_an_oversize_file_is_refused_with_413():
    error = refusal("bot.py", b"#" * (LIMITS.max_bytes + 1))
    assert (error.code, error.status) == ("too_large", 413)


def test_other_file_types_are_refused():
    assert refusal("bot.tar.gz", b"...").code == "unsupported_file"


def test_a_non_zip_named_zip_is_refused():
    assert refusal("bot.zip", GOOD_BOT).code == "not_a_zip"


@pytest.mark.parametrize("name", ["../evil.py", "a/../../evil.py", "/etc/cron.d/x", "a\\..\\b"])
def test_a_path_leaving_the_folder_is_refused(name):
    error = refusal("bot.zip", zip_of({"bot.py": GOOD_BOT, name: b"x"}))
    assert error.code == "zip_traversal"


def test_a_symlink_is_refused():
    error = refusal("bot.zip", zip_with_symlink("secrets", "/etc/passwd"))
    assert (error.code, error.message) == ("zip_link", "the zip holds a link: 'secrets'")


def test_a_zip_bomb_is_refused_from_its_declared_size():
    data = zip_bomb(LIMITS.max_unpacked_bytes + 1)
    assert len(data) < LIMITS.max_bytes  # small as sent, huge unpacked
    error = refusal("bot.zip", data)
    assert (error.code, error.status) == ("zip_too_large", 413)


def test_a_zip_lying_about_its_sizes_is_refused_while_reading():
    error = refusal("bot.zip", zip_lying_about_size(LIMITS.max_unpacked_bytes * 2))
    assert error.code in ("zip_too_large", "not_a_zip")


def test_too_many_files_are_refused():
    files = {"bot.py": GOOD_BOT, **{f"f{n}.txt": b"" for n in range(LIMITS.max_files)}}
    assert refusal("bot.zip", zip_of(files)).code == "zip_too_many_files"


def test_a_zip_without_bot_py_at_its_root_says_where_it_found_one():
    error = refusal("bot.zip", zip_of({"mybot/bot.py": GOOD_BOT}))
    assert error.code == "no_entry_point"
    assert "found mybot/bot.py" in error.message


def test_storing_writes_each_file_once_under_its_hash(tmp_path):
    code = read_upload(
        "bot.zip", zip_of({"bot.py": SPLIT_BOT, "strategy.py": SPLIT_STRATEGY}), LIMITS
    )
    folder = store_code(code, tmp_path)
    assert folder == tmp_path / code.content_hash
    assert (folder / "strategy.py").read_bytes() == SPLIT_STRATEGY
    assert (folder / "bot.py").stat().st_mode & 0o777 == 0o644
    assert folder.stat().st_mode & 0o777 == 0o755
    assert store_code(code, tmp_path) == folder
    assert [p.name for p in tmp_path.iterdir()] == [code.content_hash]  # no staging left


def test_storing_never_changes_code_already_stored(tmp_path):
    code = BotCode({"bot.py": GOOD_BOT})
    folder = store_code(code, tmp_path)
    (folder / "bot.py").write_bytes(b"tampered")  # only an operator could do this
    store_code(code, tmp_path)
    assert (folder / "bot.py").read_bytes() == b"tampered"
