"""The dangerous-rm check that tells an escalation-blocked lane from a slow one."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pysift.core.bash_danger import dangerous_rm_target, is_dangerous_rm

HELD = [
    ('rm -rf "$SCRATCH/$f"', '"$SCRATCH/$f"'),
    ("rm $DIR/*", "$DIR/*"),
    ("rm ${DIR}/$x", "${DIR}/$x"),
    ('rm "$X"/', '"$X"/'),
    ("rmdir $D/", "$D/"),
    ("rm -rf $BUILD//", "$BUILD//"),
    ("rm -f $OUT/'a b'", "$OUT/'a"),
    # a teardown loop: the removal sits in a for body behind `do`
    ('SCRATCH="/tmp/x"\nfor f in a b; do\n  [ -f "$SCRATCH/$f" ] && rm -f "$SCRATCH/$f" && echo ok\ndone',
     '"$SCRATCH/$f"'),
    ("if true; then rm $TMP/*; fi", "$TMP/*"),
    ("cd /x && rm -rf $T/*", "$T/*"),
    ("make clean & rm -r $W/*", "$W/*"),  # a lone & ends a clause
    ("FOO=1 BAR=2 /bin/rm -rf $D/*", "$D/*"),  # assignments and a path before the verb
    ("\\rm -rf $D/*", "$D/*"),
    ("(rm -rf $D/*)", "$D/*"),
    ("! rm $D/*", "$D/*"),
    ("rm -rf \\\n  $D/*", "$D/*"),  # a line continuation
    ("X=/tmp/real\nrm -rf $X/*", "$X/*"),  # lexical: the assignment above is not read
]

SAFE = [
    "rm -rf /tmp/build",
    "echo $HOME/x",  # no rm
    "rm -rf ./dist",
    "rm $FILE",  # a variable with no slash after it
    "rm $TMP/build",  # a literal name after the slash
    "rm ${DIR}/sub",
    'docker exec "$node" ctr images rm docker.io/library/img 2>&1',  # rm is a subcommand
    "rm -r $X > $TMP/",  # the redirection's target, not an operand
    "rm -r $X 2>$TMP/",
    "rm '$D/*'",  # single-quoted: no expansion
    "git rm $F/*",  # the clause starts with git
    "echo `rm $D/*`",  # inside a backtick substitution, which is dropped
    "x=$(rm $D/*)",  # inside $( ), dropped
    "rmx $D/*",
    "",
]


@pytest.mark.parametrize(("command", "target"), HELD, ids=lambda v: v if len(v) < 40 else v[:40])
def test_held_removals(command: str, target: str) -> None:
    assert dangerous_rm_target(command) == target
    assert is_dangerous_rm(command)


@pytest.mark.parametrize("command", SAFE)
def test_not_held(command: str) -> None:
    assert not is_dangerous_rm(command)


@given(st.text(alphabet=st.sampled_from(list("rm $/{}()\"'`&|;\n\\-*xd<>2")), max_size=60))
def test_never_raises(command: str) -> None:
    result = dangerous_rm_target(command)
    assert result is None or (result.lstrip('"').startswith("$") and "rm" in command)


@given(st.text())
def test_never_raises_on_any_text(command: str) -> None:
    dangerous_rm_target(command)
