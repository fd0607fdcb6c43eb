"""The fold index's lexical harvest: error lines, identifiers, path tokens."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pysift.seedindex.lexicon import (
    ERROR_LINE_CHARS,
    IDENTIFIER_PATTERN,
    error_lines,
    identifiers,
    path_tokens,
)

PYTEST_RUN = b"""collected 12 items
tests/test_passes.py ..F.
FAILED tests/test_passes.py::test_iss - AssertionError: late
=== 1 failed, 11 passed in 0.42s ===
"""


def test_error_lines_are_the_lines_holding_a_failure_word_in_order() -> None:
    assert error_lines(PYTEST_RUN) == [
        "FAILED tests/test_passes.py::test_iss - AssertionError: late",
        "=== 1 failed, 11 passed in 0.42s ==="]


def test_a_line_saying_there_is_no_failure_is_not_an_error() -> None:
    assert error_lines(b"=== 0 failed, 12 passed ===\nno errors found\nNo errors\n") == []


def test_the_fixed_phrases_and_error_classes_are_errors() -> None:
    lines = [b"npm ERR! code ELIFECYCLE", b"Segmentation fault (core dumped)",
             b"bash: ./run: Permission denied", "✗ lint".encode(),
             b"Traceback (most recent call last):", b"  raise KeyError(x)",
             b"error[E0308]: mismatched types", b"thread 'main' panicked at src/x.rs:3"]
    assert error_lines(b"\n".join(lines)) == [line.decode().strip() for line in lines]


def test_an_error_line_is_trimmed_and_clipped_to_240_characters() -> None:
    [line] = error_lines(b"   error: " + b"x" * 400 + b"   \n")
    assert len(line) == ERROR_LINE_CHARS and line.endswith("…")
    assert line.startswith("error: xxx")
    assert error_lines(b"  error: short  ") == ["error: short"]


def test_a_word_merely_containing_error_is_not_one() -> None:
    assert error_lines(b"terror\nmirrors\nfailover_host = a\n") == []


def test_identifiers_are_the_exact_tokens_recovery_greps_for() -> None:
    data = (b"ISS_PASS_0000 parseEpoch TleParser 0x7f3a commit 3f9ac21b "
            b"a1b2c3d4-e5f6-4789-8abc-def012345678 v1.24.3 24000 plain words 1234")
    assert identifiers(data) == [
        "ISS_PASS_0000", "parseEpoch", "TleParser", "0x7f3a", "3f9ac21b",
        "a1b2c3d4-e5f6-4789-8abc-def012345678", "v1.24.3", "24000"]


def test_a_hex_run_shorter_than_8_or_longer_than_64_is_not_an_identifier() -> None:
    assert identifiers(b"ab12 " + b"a1" * 40 + b" abc1234f") == ["abc1234f"]


def test_an_identifier_starts_after_a_non_ascii_letter_as_re2_reads_a_word_boundary() -> None:
    # the boundary is ASCII (RE2's): an accented letter is no word character
    assert identifiers("façade_mode 名前_id abc_def".encode()) == ["ade_mode", "abc_def"]


def _identifiers_by_re2(data: bytes) -> list[str]:
    """The harvest as RE2 matched it, one call per token (the reference)."""
    import re2
    from re2 import _re2

    match = re2.compile(IDENTIFIER_PATTERN)._regexp.Match
    out, pos, size = [], 0, len(data)
    while pos <= size:
        start, end = match(_re2.RE2.Anchor.UNANCHORED, data, pos, size)[0]
        if start < 0:
            break
        pos = end if end > pos else pos + 1
        token = data[start:end]
        if not 8 <= end - start <= 64 and not token.strip(b"0123456789abcdef") and not (
                token.isdigit()):
            continue
        out.append(token.decode())
    return out


_TOKENISH = st.lists(st.one_of(
    st.sampled_from([b"_", b"0x", b"-", b".", b" ", b"\n", b"v", b"\xc3\xa9", b"\xff", b"\xe5\x90\x8d"]),
    st.text(alphabet="abcdefxyzABCXYZ0123456789", min_size=1, max_size=12).map(str.encode),
), max_size=40).map(b"".join)


@given(_TOKENISH)
def test_identifiers_are_what_re2_matched_token_by_token(data: bytes) -> None:
    assert identifiers(data) == _identifiers_by_re2(data)


def test_path_tokens_are_paths_with_an_extension_or_two_absolute_segments() -> None:
    data = (b"modified: src/orbit/tle.py\nsee ~/notes/todo.md and /etc/hosts.d/x and "
            b"../lib/util.c; open https://example.com/a/b.html or a/b without dot")
    assert path_tokens(data) == ["src/orbit/tle.py", "~/notes/todo.md", "/etc/hosts.d/x",
                                 "../lib/util.c"]


@given(st.text(max_size=300))
def test_the_harvest_is_deterministic_and_never_fails(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    for harvest in (error_lines, identifiers, path_tokens):
        assert harvest(data) == harvest(data)


def test_a_product_version_is_no_path() -> None:
    data = (b"Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 Chrome/147.0.0.0 "
            b"Safari/537.36 lib/python3.11/x.py logs/app.log.1 /opt/app/1.2")
    assert path_tokens(data) == ["lib/python3.11/x.py", "logs/app.log.1", "/opt/app/1.2"]


def test_an_absolute_windows_path_is_a_path_with_its_non_ascii_segments() -> None:
    data = ("已保存 D:\\Work\\08_客户\\数据_2026-04-28T10-09-30.json。日志 "
            "C:\\Users\\ADMINI~1\\AppData\\Local\\Temp\\b8m809g6h.output, "
            "\\\\nas\\share$\\report.docx and d:/work/explore.js; C:\\boot.ini").encode()
    assert path_tokens(data) == [
        "D:\\Work\\08_客户\\数据_2026-04-28T10-09-30.json",
        "C:\\Users\\ADMINI~1\\AppData\\Local\\Temp\\b8m809g6h.output",
        "\\\\nas\\share$\\report.docx", "d:/work/explore.js", "C:\\boot.ini"]


def test_a_drive_alone_or_a_source_code_spelling_is_no_windows_path() -> None:
    # `E:\` names no file; `C:\\Users` is a path as a string literal spells it, not a path
    data = b'cd E:\\ then const home = "C:\\\\Users\\\\x"; s = `\\\\${c.text}\\\\`'
    assert path_tokens(data) == []


def test_a_count_of_failures_that_ends_in_zero_is_still_an_error() -> None:
    """Only a standalone none-word reports none: "10 failed" is ten failures."""
    data = (b"Tests: 10 failed, 90 passed\n20 failed, 5 passed\nBuild finished with 30 "
            b"errors\npiano errors\n=== 0 failed ===\n(no errors)\nzero failures\n")
    assert error_lines(data) == ["Tests: 10 failed, 90 passed", "20 failed, 5 passed",
                                 "Build finished with 30 errors", "piano errors"]


def test_a_long_error_line_keeps_the_word_that_made_it_one() -> None:
    [late] = error_lines(b"  " + b"x" * 300 + b" due to 404 error " + b"y" * 300 + b"\n")
    assert len(late) <= ERROR_LINE_CHARS and "404 error" in late
    assert late.startswith("…") and late.endswith("…")
    [end] = error_lines(b"x" * 300 + b" failed")
    assert len(end) <= ERROR_LINE_CHARS and end.endswith("x failed") and end.startswith("…")


def test_a_path_token_is_never_a_piece_cut_from_a_longer_name() -> None:
    """Nothing is listed that the text does not name whole: a route group or a dynamic
    segment belongs to its path, a name glued to a non-ASCII word or a numeric suffix is
    not cut out of it."""
    data = ("M src/app/(admin)/dashboard/page.tsx\nM src/app/[id]/edit/page.tsx\n"
            "pages/[...slug].tsx backups/app.json.backup.1778213437515 "
            "文档/scripts/build.sh /home/用户/docs/a.py a/b.py-old").encode()
    assert path_tokens(data) == ["src/app/(admin)/dashboard/page.tsx",
                                 "src/app/[id]/edit/page.tsx", "pages/[...slug].tsx"]


def test_a_path_in_punctuation_or_prose_is_found_without_it() -> None:
    data = ('(see src/a.py) (/usr/local/bin) open(/tmp/x.txt) File "/usr/lib/py/x.py", '
            "src/b.py:12:3: 见“/tmp/c.py” 文件：/tmp/d.py see /usr/local/lib. "
            "已保存到D:\\Work\\客户\\报告.md。").encode()
    assert path_tokens(data) == ["src/a.py", "/usr/local/bin", "/tmp/x.txt", "/usr/lib/py/x.py",
                                 "src/b.py", "/tmp/c.py", "/tmp/d.py", "/usr/local/lib",
                                 "D:\\Work\\客户\\报告.md"]


def test_a_grep_context_line_names_its_file() -> None:
    data = (b"/w/p/src/main.ts-12-import { a } from './b';\n/w/p/src/main.ts:13:x\n"
            b"src/c.py-7-\n")
    assert path_tokens(data) == ["/w/p/src/main.ts", "/w/p/src/main.ts", "src/c.py"]
