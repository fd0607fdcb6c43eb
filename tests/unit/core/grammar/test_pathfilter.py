"""files --regex / --glob: full-path filters (globset defaults, the Rust regex dialect)."""

from __future__ import annotations

import pytest

from pysift.core.grammar.pathfilter import PathFilter, compile_glob, compile_path_regex
from pysift.errors import UsageError


@pytest.mark.parametrize("glob, path, keeps", [
    ("*.md", "/w/docs/a.md", True),          # * crosses / (globset's default)
    ("*.md", "/w/docs/a.mdx", False),        # the whole path must match
    ("**/src/**", "/w/proj/src/a/b.rs", True),
    ("**/src/**", "/w/proj/srcx/a.rs", False),
    ("/w/**/b.rs", "/w/b.rs", True),         # ** as a component also matches none
    ("/w/**/b.rs", "/w/x/y/b.rs", True),
    ("/w/?.txt", "/w/a.txt", True),
    ("/w/[ab].txt", "/w/b.txt", True),
    ("/w/[!ab].txt", "/w/b.txt", False),
    ("/w/[^ab].txt", "/w/c.txt", True),
    ("/w/*.{md,rs}", "/w/x.rs", True),
    ("/w/*.{md,rs}", "/w/x.py", False),
    ("/w/\\*.md", "/w/*.md", True),
    ("/w/\\*.md", "/w/a.md", False),
    ("/tmp/*", "/tmp/a/b", True),
])
def test_glob(glob: str, path: str, keeps: bool) -> None:
    assert PathFilter(glob=compile_glob(glob)).keeps(path) is keeps


@pytest.mark.parametrize("glob, path, keeps", [
    ("**/STATE.md", "D:\\Work\\Okki\\STATE.md", True),
    ("**/Okki/**", "D:\\Work\\Okki\\data\\a.json", True),
    ("D:/Work/**", "D:\\Work\\Okki\\STATE.md", True),
    ("**/08_客户跟进/*.md", "d:/Work/08_客户跟进/a.md", True),
    ("**/src/**", "\\\\srv\\share\\src\\a.rs", True),   # a UNC path
    ("**/STATE.md", "D:\\Work\\OLDSTATE.md", False),
    ("**/b.md", "/w/a\\b.md", False),   # a POSIX name may hold a backslash
    # a pattern spelling the backslashes as the rows print them (escaped) keeps matching
    ("D:\\\\Work\\\\**", "D:\\Work\\Okki\\STATE.md", True),
    ("**\\\\Okki\\\\*", "D:\\Work\\Okki\\STATE.md", True),
])
def test_a_glob_reads_a_windows_path_s_backslashes_as_separators(
        glob: str, path: str, keeps: bool) -> None:
    """Claude Code on Windows records `D:\\…` paths; globset (csift) matches them with
    `\\` as a separator on Windows. `**/STATE.md` kept none of them (twenty-third
    session: `files --glob` answered "no file mutations found" for a written file)."""
    assert PathFilter(glob=compile_glob(glob)).keeps(path) is keeps


@pytest.mark.parametrize("glob", ["/w/[ab", "{a,b", "{a,{b,c}}", "[z-a]", "trailing\\"])
def test_invalid_glob_names_the_forms(glob: str) -> None:
    with pytest.raises(UsageError) as err:
        compile_glob(glob)
    assert str(err.value).startswith(f"invalid --glob {glob!r}:")
    assert "** spans directories" in str(err.value)


def test_regex_is_case_sensitive_unless_asked() -> None:
    rs = PathFilter(regex=compile_path_regex(r"\.rs$"))
    assert rs.keeps("/w/a.rs") and not rs.keeps("/w/A.RS") and not rs.keeps("/w/a.rsx")
    caseless = PathFilter(regex=compile_path_regex(r"(?i)\.rs$"))
    assert caseless.keeps("/w/A.RS")
    verbose = PathFilter(regex=compile_path_regex(r"(?x) \.rs $ "))
    assert verbose.keeps("/w/a.rs") and not verbose.keeps("/w/a.RS")
    assert PathFilter(regex=compile_path_regex("docs")).keeps("/w/docs/a.md")  # anywhere


@pytest.mark.parametrize("pattern", ["[", "(?<=a)b", "(unclosed"])
def test_invalid_regex_names_the_forms(pattern: str) -> None:
    with pytest.raises(UsageError) as err:
        compile_path_regex(pattern)
    assert str(err.value).startswith(f"invalid --regex {pattern!r}:")
    assert "Rust-syntax regex" in str(err.value)


def test_an_error_offset_is_the_typed_patterns() -> None:
    with pytest.raises(UsageError) as err:
        compile_path_regex("(?<=a)b")
    assert "(at offset 0)" in str(err.value)


def test_filters_are_anded() -> None:
    both = PathFilter(regex=compile_path_regex("src"), glob=compile_glob("*.rs"))
    assert both.keeps("/w/src/a.rs")
    assert not both.keeps("/w/src/a.md") and not both.keeps("/w/lib/a.rs")
    assert PathFilter().keeps("anything") and not PathFilter().active
