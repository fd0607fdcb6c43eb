"""The file-history store walk: the key, the entries that are backups, the order."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pysift.engines.recover.backups import list_backups, store_key


@given(st.text(min_size=1))
def test_the_key_is_the_sha256_prefix_of_the_path(path: str) -> None:
    digest = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()
    assert store_key(path) == digest[:16]


def test_only_regular_versioned_entries_of_the_key_are_backups(tmp_path: Path) -> None:
    key = store_key("/a/b.py")
    session = tmp_path / "file-history" / "s"
    session.mkdir(parents=True)
    (session / f"{key}@v3").write_text("x")
    (session / f"{key}@v10").write_text("y")
    (session / f"{key}@vx").write_text("not a version")
    (session / f"{key}@v4").mkdir()  # a dir in a backup's slot is no backup
    (session / f"{key}").write_text("no version")
    os.utime(session / f"{key}@v3", (100, 100))
    os.utime(session / f"{key}@v10", (100, 100))
    (tmp_path / "file-history" / "stray-file").write_text("not a session dir")
    listing = list_backups(tmp_path, "/a/b.py")
    assert [b.version for b in listing.backups] == ["v3", "v10"]  # same instant: by number
    assert listing.sessions == 1 and listing.present and not listing.unreadable


def test_named_sessions_without_a_store_dir_hide_nothing(tmp_path: Path) -> None:
    (tmp_path / "file-history").mkdir()
    listing = list_backups(tmp_path, "/a/b.py", sessions={"gone"})
    assert listing.backups == [] and listing.unreadable == [] and listing.present


def test_a_version_in_other_digits_is_no_backup(tmp_path: Path) -> None:
    """`v³` passed `str.isdigit` and then crashed the listing's sort in `int`."""
    for version in ("2", "\u00b3", "\u0663"):  # two, superscript three, Arabic-Indic three
        backup = tmp_path / "file-history" / "s" / f"{store_key('/a/b.py')}@v{version}"
        backup.parent.mkdir(parents=True, exist_ok=True)
        backup.write_text(version)
    listing = list_backups(tmp_path, "/a/b.py")
    assert [b.version for b in listing.backups] == ["v2"]
