"""What a Bash command changes, resolved against the record's cwd: command shapes as
Claude Code writes them (chains, heredocs, Windows paths, interpreter one-liners)."""

from __future__ import annotations

import pytest

from pysift.core.shell import changes_nothing, may_name, mutations, opaque_markers

CWD = "/home/ada/proj"


def rows(command: str, cwd: str | None = CWD) -> list[tuple[str, str | None, str]]:
    return [(m.path, m.resolution, m.verb) for m in mutations(command, cwd)]


@pytest.mark.parametrize("command, expected", [
    # plain verbs, relative and absolute operands
    ("rm -rf build dist", [(f"{CWD}/build", "cwd-joined", "rm"), (f"{CWD}/dist", "cwd-joined", "rm")]),
    ("rm -f /tmp/a.log", [("/tmp/a.log", "absolute", "rm")]),
    ("rm -- -weird", [(f"{CWD}/-weird", "cwd-joined", "rm")]),
    ("rmdir old", [(f"{CWD}/old", "cwd-joined", "rmdir")]),
    # `unlink` is read (its name holds none of the other programs' names)
    ("unlink stale.lock", [(f"{CWD}/stale.lock", "cwd-joined", "rm")]),
    ("unlink /tmp/a.sock", [("/tmp/a.sock", "absolute", "rm")]),
    ("mkdir -p src/app/api -m 755", [(f"{CWD}/src/app/api", "cwd-joined", "mkdir")]),
    ("touch -r ref.txt new.txt", [(f"{CWD}/new.txt", "cwd-joined", "touch")]),
    ("echo done | tee -a run.log", [(f"{CWD}/run.log", "cwd-joined", "tee-a")]),
    ("make 2>&1 | tee build.log /dev/null", [(f"{CWD}/build.log", "cwd-joined", "tee")]),
    ("cp -r src/ ../backup/", [("/home/ada/backup", "cwd-joined", "cp")]),
    ("cp -t dest a b", [(f"{CWD}/dest", "cwd-joined", "cp")]),
    ("mv old.py new.py", [(f"{CWD}/new.py", "cwd-joined", "mv"), (f"{CWD}/old.py", "cwd-joined", "mv-from")]),
    ("install -m 644 conf /etc/app/conf", [("/etc/app/conf", "absolute", "install")]),
    ("ln -sf ../shared/cfg cfg", [(f"{CWD}/cfg", "cwd-joined", "ln")]),
    ("rsync -av src/ host:/srv/src/", []),
    ("rsync -av src/ /mnt/copy/", [("/mnt/copy", "absolute", "rsync")]),
    ("rm /tmp/./a/../b.txt", [("/tmp/b.txt", "absolute", "rm")]),
    ("truncate -s 0 app.log", [(f"{CWD}/app.log", "cwd-joined", "truncate")]),
    # in-place editors
    ("sed -i 's/a/b/g' one.txt two.txt", [(f"{CWD}/one.txt", "cwd-joined", "sed-i"), (f"{CWD}/two.txt", "cwd-joined", "sed-i")]),
    ("sed -i '' 's/a/b/' mac.txt", [(f"{CWD}/mac.txt", "cwd-joined", "sed-i")]),
    ("sed -i.bak -e 's/a/b/' -e 's/c/d/' conf.ini", [(f"{CWD}/conf.ini", "cwd-joined", "sed-i")]),
    ("sed -n '1,5p' notes.md", []),
    ("perl -pi -e 's/foo/bar/' lib/a.pm", [(f"{CWD}/lib/a.pm", "cwd-joined", "perl-i")]),
    ("perl -pi script.pl data.txt", []),
    # perl's bundled switches: -i takes the rest of its word (the backup suffix), -e the
    # program (the rest of its word or the next one)
    ("perl -i -pe 's/foo/bar/' lib/a.pm", [(f"{CWD}/lib/a.pm", "cwd-joined", "perl-i")]),
    ("perl -i.bak -pe 's/a/b/' x.txt y.txt", [(f"{CWD}/x.txt", "cwd-joined", "perl-i"), (f"{CWD}/y.txt", "cwd-joined", "perl-i")]),
    ("perl -0777 -pi -e 's/a/b/gs' all.txt", [(f"{CWD}/all.txt", "cwd-joined", "perl-i")]),
    ("perl -i -ne 'print unless /x/' keep.txt", [(f"{CWD}/keep.txt", "cwd-joined", "perl-i")]),
    ("perl -ie 's/a/b/' e.txt", []),  # -i with the suffix `e`: the program is a file
    ("perl -ne 'print' f.txt", []),
    # find: which files -delete or a changing -exec reaches is decided at run time, so the
    # reading is each start directory, as for `rm -r DIR`
    ("find . -name '*.pyc' -delete", [(CWD, "cwd-joined", "find")]),
    ("find . -type d -name __pycache__ -exec rm -rf {} +", [(CWD, "cwd-joined", "find")]),
    ("find src lib -name '*.py' -exec sed -i 's/a/b/' {} \\;", [(f"{CWD}/src", "cwd-joined", "find"), (f"{CWD}/lib", "cwd-joined", "find")]),
    ("find -L /srv/app -exec npx prettier --write {} +", [("/srv/app", "absolute", "find")]),
    ("find -delete", [(CWD, "cwd-joined", "find")]),
    ("find . -name '*.py' -exec grep -l TODO {} \\;", []),
    ("find . -name x -print", []),
    # what an -exec program changes besides the path it is given, and -fprint's file
    ("find . -name '*.py' -exec cp {} /tmp/bak/ \\;", [(CWD, "cwd-joined", "find"), ("/tmp/bak", "absolute", "cp")]),
    ("find . -name '*.log' -exec mv {} /srv/archive/ \\;", [(CWD, "cwd-joined", "find"), ("/srv/archive", "absolute", "mv")]),
    ("find . -name '*.py' -exec sh -c 'rm \"$1\"' _ {} \\;", [("$1", "unresolved", "rm")]),
    ("find . -name '*.txt' -exec cp {} {}.bak \\;", [(CWD, "cwd-joined", "find"), ("${find_path}.bak", "unresolved", "cp")]),
    ("find . -name '*.md' -fprint list.txt", [(f"{CWD}/list.txt", "cwd-joined", "flag-output")]),
    # start points read from a file: any path
    ("find -files0-from list.bin -name '*.tmp' -delete", [("${find_path}", "unresolved", "find")]),
    # `bash -c 'SCRIPT'` (sh, zsh...): the script's own commands, from the directory its
    # cds reach
    ("bash -c 'rm -f /tmp/a.txt'", [("/tmp/a.txt", "absolute", "rm")]),
    ("sudo sh -c \"echo hi > /etc/motd\"", [("/etc/motd", "absolute", ">")]),
    ("bash -c 'cd sub && touch x'", [(f"{CWD}/sub/x", "cd-tracked", "touch")]),
    ("cd d && bash -lc 'rm y'", [(f"{CWD}/d/y", "cd-tracked", "rm")]),
    ("bash -o pipefail -c 'rm w'", [(f"{CWD}/w", "cwd-joined", "rm")]),
    ("bash -c \"rm $F\"", [("$F", "unresolved", "rm")]),
    ("bash -c \"cd $D && rm z\"", [("z", "unresolved", "rm")]),
    ("bash -c \"$CMD\"", []),
    ("bash run.sh out.txt", []),
    ("bash -c 'ls -la'", []),
    # redirections
    ("echo hi > out.txt", [(f"{CWD}/out.txt", "cwd-joined", ">")]),
    ("date >> /var/log/x.log 2>&1", [("/var/log/x.log", "absolute", ">>")]),
    ("pytest -q > /dev/null 2>&1", []),
    ("npm test 2> err.txt", [(f"{CWD}/err.txt", "cwd-joined", ">")]),
    ("echo \"a > b\" 'c > d'", []),
    ("grep -c 'x > y' file", []),
    # downloads, archives, output flags
    ("curl -sL -o tool.tgz https://example.com/t.tgz", [(f"{CWD}/tool.tgz", "cwd-joined", "curl")]),
    ("curl -O https://example.com/x.zip", []),
    ("wget -O page.html https://example.com", [(f"{CWD}/page.html", "cwd-joined", "wget")]),
    ("dd if=/dev/zero of=disk.img bs=1M count=1", [(f"{CWD}/disk.img", "cwd-joined", "dd")]),
    ("zip -r site.zip public -x '*.map'", [(f"{CWD}/site.zip", "cwd-joined", "zip")]),
    ("tar -czf /tmp/src.tgz src", [("/tmp/src.tgz", "absolute", "tar")]),
    ("tar -tzf x.tgz", []),
    ("pytest --junitxml=reports/junit.xml", [(f"{CWD}/reports/junit.xml", "cwd-joined", "flag-output")]),
    ("kubectl get pods --output json", []),
    # git: markers, named paths, dry runs
    ("git status && git log --oneline", []),
    ("git add -A && git commit -m 'x'", [("git:add", None, "git"), ("git:commit", None, "git")]),
    ("git -C sub checkout main", [("git:checkout", None, "git")]),
    ("git checkout HEAD -- a.py", [(f"{CWD}/a.py", "cwd-joined", "git-checkout")]),
    ("git rm --cached big.bin", [("git:rm", None, "git")]),
    ("git rm -r old/", [(f"{CWD}/old", "cwd-joined", "git-rm")]),
    ("git mv a.md docs/a.md", [(f"{CWD}/docs/a.md", "cwd-joined", "git-mv"), (f"{CWD}/a.md", "cwd-joined", "git-mv-from")]),
    ("git restore --staged x", [("git:restore", None, "git")]),
    ("git clean -n", []),
    ("git clean -fd", [("git:clean", None, "git")]),
    ("git apply --check fix.patch", []),
    ("git stash list", []),
    # class markers
    ("cargo fmt", [("fmt:cargo", None, "fmt")]),
    ("cargo fmt --check", []),
    ("npx prettier --write src/a.ts src/b.ts", [(f"{CWD}/src/a.ts", "cwd-joined", "fmt"), (f"{CWD}/src/b.ts", "cwd-joined", "fmt")]),
    ("npx prettier --check .", []),
    ("ruff format", [("fmt:ruff", None, "fmt")]),
    ("ruff check --fix pkg/mod.py", [(f"{CWD}/pkg/mod.py", "cwd-joined", "fmt")]),
    ("black --check .", []),
    ("npm install && npm run build", [("pkg:npm", None, "pkg")]),
    ("pnpm add zod", [("pkg:pnpm", None, "pkg")]),
    ("npm run format", [("fmt:npm-script", None, "fmt")]),
    ("pip install -r requirements.txt", [("pkg:pip", None, "pkg")]),
    ("python -m pip install requests", [("pkg:pip", None, "pkg")]),
    ("uv sync", [("pkg:uv", None, "pkg")]),
    ("unzip -o dist.zip -d out", [("extract:unzip", None, "extract")]),
    ("unzip -l dist.zip", []),
    ("patch -p1 < fix.diff", [("extract:patch", None, "extract")]),
    # launchers are peeled
    ("sudo rm -f /etc/x.conf", [("/etc/x.conf", "absolute", "rm")]),
    ("env FOO=1 BAR=2 touch f", [(f"{CWD}/f", "cwd-joined", "touch")]),
    ("timeout 30 /bin/rm stale.lock", [(f"{CWD}/stale.lock", "cwd-joined", "rm")]),
    ("FOO=bar rm x", [(f"{CWD}/x", "cwd-joined", "rm")]),
    # read-only programs
    ("ls -la src && cat a.txt | grep x && find . -name '*.py'", []),
])
def test_command_shapes(command: str, expected: list[tuple[str, str | None, str]]) -> None:
    assert rows(command) == expected


@pytest.mark.parametrize("command, expected", [
    ("rm \"$OUT\"", [("$OUT", "unresolved", "rm")]),
    ("rm ${TMPDIR:-/tmp}/x", [("${TMPDIR:-/tmp}/x", "unresolved", "rm")]),
    ("mkdir -p ~/.cache/app", [("~/.cache/app", "unresolved", "mkdir")]),
    ("rm -f *.pyc", [("*.pyc", "unresolved", "rm")]),
    ("rm -f /tmp/*.log", [("/tmp/*.log", "unresolved", "rm")]),
    ("touch \"$(date +%F).md\"", [("$(date +%F).md", "unresolved", "touch")]),
    ("rm '~/literal'", [(f"{CWD}/~/literal", "cwd-joined", "rm")]),
    ("rm '*.pyc'", [(f"{CWD}/*.pyc", "cwd-joined", "rm")]),
])
def test_dynamic_operands_stay_as_typed(command: str, expected: list) -> None:
    assert rows(command) == expected


XI = "${xargs_input}"  # the operand xargs reads at run time


@pytest.mark.parametrize("command, expected", [
    # the items xargs hands its program are named by no text: an operand that may be any
    # file (absolute items included), as `rm "$F"` is
    ("find . -name '*.pyc' | xargs rm", [(XI, "unresolved", "rm")]),
    ("git ls-files -z '*.tmp' | xargs -0 rm -f", [(XI, "unresolved", "rm")]),
    ("ls *.log | xargs -r unlink", [(XI, "unresolved", "rm")]),
    ("grep -l old . -r | xargs -0rn1 sed -i 's/old/new/'", [(XI, "unresolved", "sed-i")]),
    ("grep -rl v1 src | xargs perl -pi -e 's/v1/v2/'", [(XI, "unresolved", "perl-i")]),
    ("git diff --name-only | xargs npx prettier --write", [(XI, "unresolved", "fmt")]),
    ("git ls-files '*.bak' | xargs git rm", [(XI, "unresolved", "git-rm")]),
    ("cat list.txt | xargs -n 1 -P 4 sudo rm -rf", [(XI, "unresolved", "rm")]),
    ("xargs -a stale.txt rm", [(XI, "unresolved", "rm")]),
    ("xargs --arg-file stale.txt -- truncate -s 0", [(XI, "unresolved", "truncate")]),
    # -I R / -i / --replace put the items where R stands; -J R (BSD) at the argument R
    ("ls | xargs -I{} rm {}", [(XI, "unresolved", "rm")]),
    ("ls | xargs -I % mv % old/", [(f"{CWD}/old", "cwd-joined", "mv"), (XI, "unresolved", "mv-from")]),
    ("ls | xargs -i cp {} {}.orig", [(XI + ".orig", "unresolved", "cp")]),
    ("ls | xargs --replace=@ rm build/@", [("build/" + XI, "unresolved", "rm")]),
    ("ls | xargs -J % mv % dest", [(f"{CWD}/dest", "cwd-joined", "mv"), (XI, "unresolved", "mv-from")]),
    ("ls | xargs -I{} sh -c 'rm {}.bak'", [(XI + ".bak", "unresolved", "rm")]),
    ("ls | xargs -I{} rm tmp.txt", [(f"{CWD}/tmp.txt", "cwd-joined", "rm")]),
    ("ls | xargs -0 -n1 bash -c 'rm \"$0\"'", [("$0", "unresolved", "rm")]),
    # a program that changes nothing, none (echo), or one named by the input: nothing
    ("find . -name '*.py' | xargs grep -l TODO", []),
    ("ls | xargs", []),
    ("ls | xargs -I{} {} --version", []),
])
def test_xargs_reads_its_program(command: str, expected: list) -> None:
    assert rows(command) == expected


PI = "${parallel_input}"  # an item GNU parallel reads at run time (stdin, a file)
HERE = (CWD, "cwd-joined", "parallel")  # a command parallel runs that cannot be read


@pytest.mark.parametrize("command, expected", [
    # `:::` items are words of the command line: each is put in the template as parallel
    # quotes it, after its replacement strings ({} {.} {/} {//} {/.}) are applied
    ("parallel rm ::: a b", [(f"{CWD}/a", "cwd-joined", "rm"), (f"{CWD}/b", "cwd-joined", "rm")]),
    ("parallel -j4 'mv {} {.}.bak' ::: a.txt", [(f"{CWD}/a.bak", "cwd-joined", "mv"),
                                                (f"{CWD}/a.txt", "cwd-joined", "mv-from")]),
    ("parallel --jobs 2 rm {/} ::: src/a.txt", [(f"{CWD}/a.txt", "cwd-joined", "rm")]),
    ("parallel 'rm {//}/x {/.}.o' ::: src/a.c", [(f"{CWD}/src/x", "cwd-joined", "rm"),
                                                 (f"{CWD}/a.o", "cwd-joined", "rm")]),
    ("parallel rm ::: 'a b.txt'", [(f"{CWD}/a b.txt", "cwd-joined", "rm")]),
    ("parallel 'cd sub && rm {}' ::: a", [(f"{CWD}/sub/a", "cd-tracked", "rm")]),
    ("parallel -I @@ mv @@ old/ ::: a", [(f"{CWD}/old", "cwd-joined", "mv"),
                                          (f"{CWD}/a", "cwd-joined", "mv-from")]),
    ("parallel ::: 'rm a' 'touch b'", [(f"{CWD}/a", "cwd-joined", "rm"),
                                       (f"{CWD}/b", "cwd-joined", "touch")]),
    # items read at run time (stdin, `::::`, `-a`), a glob or an expansion, several
    # sources: an operand no text names, as xargs's
    ("ls *.py | parallel sed -i s/x/y/ {}", [(PI, "unresolved", "sed-i")]),
    ("git ls-files | parallel rm", [(PI, "unresolved", "rm")]),
    ("parallel -j4 'mv {} {.}.bak' ::: *.txt", [(PI + ".bak", "unresolved", "mv"),
                                                (PI, "unresolved", "mv-from")]),
    ("parallel rm :::: stale.txt", [(PI, "unresolved", "rm")]),
    ("parallel -a stale.txt rm", [(PI, "unresolved", "rm")]),
    ("parallel rm ::: \"$F\"", [(PI, "unresolved", "rm")]),
    ("parallel rm {1}/{2} ::: a b ::: c", [(f"{PI}/{PI}", "unresolved", "rm")]),
    ("seq 3 | parallel 'rm {= $_ .= \".tmp\" =}'", [(PI, "unresolved", "rm")]),
    # commands parallel reads at run time, or a command line this reading cannot follow:
    # files under the cwd may have changed
    ("parallel < jobs.txt", [HERE]),
    ("cat jobs.txt | parallel -j8", [HERE]),
    ("parallel --frobnicate rm ::: a", [HERE]),
    # a dry run, or a program that changes nothing
    ("parallel --dry-run rm ::: a", []),
    ("parallel echo ::: a b", []),
])
def test_gnu_parallel_reads_its_command(command: str, expected: list) -> None:
    """GNU parallel ran a command template nothing read: `parallel rm ::: a b` and
    `ls *.py | parallel sed -i s/x/y/ {}` changed files and `files` listed none."""
    assert rows(command) == expected


def test_an_xargs_operand_may_name_any_file() -> None:
    [rm] = mutations("find . -name '*.pyc' | xargs rm", CWD)
    assert may_name(rm, f"{CWD}/src/app.py") and may_name(rm, "/etc/hosts")
    [bak] = mutations("ls | xargs -i cp {} {}.orig", CWD)
    assert may_name(bak, f"{CWD}/src/app.py.orig") and not may_name(bak, f"{CWD}/src/app.py")


def test_no_record_cwd_leaves_relative_operands_unresolved() -> None:
    assert rows("rm a /tmp/b", None) == [("a", "unresolved", "rm"), ("/tmp/b", "absolute", "rm")]


@pytest.mark.parametrize("command, expected", [
    ("cd src && rm x.py", [(f"{CWD}/src/x.py", "cd-tracked")]),
    ("cd src; cd ../lib && touch y", [(f"{CWD}/lib/y", "cd-tracked")]),
    ("cd /opt/app && rm -rf cache", [("/opt/app/cache", "cd-tracked")]),
    ("cd \"$REPO\" && rm x", [("x", "unresolved")]),
    ("cd && rm x", [("x", "unresolved")]),
    ("cd ~/proj && rm x", [("x", "unresolved")]),
    ("cd \"$REPO\" && cd /abs && rm x", [("/abs/x", "cd-tracked")]),
    ("cd a && cd - && rm x", [(f"{CWD}/x", "cd-tracked")]),
    ("pushd sub && touch in && popd && touch out", [(f"{CWD}/sub/in", "cd-tracked"), (f"{CWD}/out", "cwd-joined")]),
    ("(cd sub && touch in) && touch out", [(f"{CWD}/sub/in", "cd-tracked"), (f"{CWD}/out", "cwd-joined")]),
    ("cd sub | cat; touch out", [(f"{CWD}/out", "cwd-joined")]),
    ("cd sub & touch out", [(f"{CWD}/out", "cwd-joined")]),
    ("x=$(cd sub && pwd); touch out", [(f"{CWD}/out", "cwd-joined")]),
    ("touch before && cd sub", [(f"{CWD}/before", "cwd-joined")]),
    ("cd -P ./real && rm ../x", [(f"{CWD}/x", "cd-tracked")]),
    ("if cd build; then rm -rf out; fi", [(f"{CWD}/build/out", "cd-tracked")]),
])
def test_cd_chains(command: str, expected: list[tuple[str, str]]) -> None:
    assert [(m.path, m.resolution) for m in mutations(command, CWD)] == expected


@pytest.mark.parametrize("command, expected", [
    # a cd that may not have run leaves the cwd unknown: no run could give a/b/f
    ("cd a || cd b; touch f", [("f", "unresolved")]),
    ("true && cd a || cd b; touch f", [("f", "unresolved")]),
    ("[ -d x ] && cd x; touch f", [("f", "unresolved")]),
    ("test -d x && cd x\ntouch f", [("f", "unresolved")]),
    ("if [ -d y ]; then cd y; fi; touch f", [("f", "unresolved")]),
    ("if [ -d y ]\nthen\n  cd y\nfi\ntouch f", [("f", "unresolved")]),
    ("case $m in a) cd a;; b) touch g;; esac; touch f", [(f"{CWD}/g", "cwd-joined"), ("f", "unresolved")]),
    ("while read l; do touch a; cd /abs; touch b; done; touch f",
     [("a", "unresolved"), ("/abs/b", "cd-tracked"), ("f", "unresolved")]),
    # a cd's failure taken up by `||` continues in the old directory
    ("cd sub 2>/dev/null || true; touch f", [("f", "unresolved")]),
    ("cd x && make || echo no > log", [("log", "unresolved")]),
    ("! cd a; touch f", [("f", "unresolved")]),
    # a body's last status is its compound's: an || or && after fi takes the cd's failure up
    ("if true; then cd a; fi || touch f", [(f"{CWD}/f", "cwd-joined")]),
    ("if true; then cd a; fi && exit 1; touch f", [(f"{CWD}/f", "cwd-joined")]),
    # ... and is certain where the command runs only after it succeeded
    ("cd sub || exit 1; touch f", [(f"{CWD}/sub/f", "cd-tracked")]),
    ("[ -d x ] && cd x && touch f", [(f"{CWD}/x/f", "cd-tracked")]),
    ("test -d z || mkdir z && cd z && touch f", [(f"{CWD}/z", "cwd-joined"), (f"{CWD}/z/f", "cd-tracked")]),
    ("if [ -d y ]; then cd y; touch f; else touch g; fi",
     [(f"{CWD}/y/f", "cd-tracked"), (f"{CWD}/g", "cwd-joined")]),
    ("for f in a b; do touch $f; done; touch g", [("$f", "unresolved"), (f"{CWD}/g", "cwd-joined")]),
    ("[ -d x ] && (cd x; touch f); touch g", [(f"{CWD}/x/f", "cd-tracked"), (f"{CWD}/g", "cwd-joined")]),
    # an unconditional cd stays a presumed success (SPEC §4.9's inference)
    ("cd a; touch f", [(f"{CWD}/a/f", "cd-tracked")]),
    ("cd a && touch f; touch g", [(f"{CWD}/a/f", "cd-tracked"), (f"{CWD}/a/g", "cd-tracked")]),
])
def test_conditional_cd(command: str, expected: list[tuple[str, str]]) -> None:
    assert [(m.path, m.resolution) for m in mutations(command, CWD)] == expected


def test_a_floating_operand_is_marked_and_disclosed() -> None:
    [m] = mutations("cd a || cd b; rm q.txt", CWD)
    assert m.floating and m.resolution == "unresolved" and m.verbatim == "q.txt"
    assert not mutations("rm \"$D/q.txt\"", CWD)[0].floating  # a variable, not a cwd
    assert not mutations("cd a; rm q.txt", CWD)[0].floating
    assert [(m.path, m.verbatim) for m in opaque_markers("cd a || cd b; rm q.txt")] == [
        ("cwd-unknown:rm", "q.txt")]
    assert opaque_markers("cd a; rm q.txt") == ()


@pytest.mark.parametrize("command, expected", [
    ("git -C other rm r.txt", [(f"{CWD}/other/r.txt", "cd-tracked")]),
    ("git -C other checkout -- r.txt", [(f"{CWD}/other/r.txt", "cd-tracked")]),
    ("git -C a -C ../b mv x y", [(f"{CWD}/b/y", "cd-tracked"), (f"{CWD}/b/x", "cd-tracked")]),
    ("git -C /srv/repo restore f", [("/srv/repo/f", "cd-tracked")]),
    ("cd sub && git -C ../o rm f", [(f"{CWD}/o/f", "cd-tracked")]),
    ("git -C \"\" rm f", [(f"{CWD}/f", "cwd-joined")]),
    ("git -C \"$R\" rm f", [("f", "unresolved")]),
    ("git -C other rm /abs/f", [("/abs/f", "absolute")]),
    ("git -C other checkout main", [("git:checkout", None)]),
])
def test_git_dash_c_moves_the_operands(command: str, expected: list[tuple[str, str | None]]) -> None:
    assert [(m.path, m.resolution) for m in mutations(command, CWD)] == expected


def test_windows_cwd_joins_with_backslashes() -> None:
    got = mutations('cd "d:\\Work\\App" && echo x > data/a.json && rm ../old.txt', "D:\\Work")
    assert [(m.path, m.resolution) for m in got] == [
        ("D:\\Work\\App\\data\\a.json", "cd-tracked"), ("D:\\Work\\old.txt", "cd-tracked")]
    assert [(m.path, m.resolution) for m in mutations("rm notes.txt", "C:\\Users\\me")] == [
        ("C:\\Users\\me\\notes.txt", "cwd-joined")]
    assert [(m.path, m.resolution) for m in mutations("cp a /c/Users/me/b", "C:\\x")] == [
        ("/c/Users/me/b", "absolute")]
    # one spelling for every row of a file: drive letter upper-cased, separators unified
    assert [m.path for m in mutations("rm d:/Work/a.txt d:\\\\Work\\\\b.txt", None)] == [
        "D:\\Work\\a.txt", "D:\\Work\\b.txt"]


def test_relative_and_absolute_spellings_resolve_alike() -> None:
    rel = mutations("rm docs/../src/a.py", CWD)[0]
    absolute = mutations(f"cd {CWD} && rm src/a.py", "/elsewhere")[0]
    assert rel.path == absolute.path == f"{CWD}/src/a.py"
    assert rel.verbatim == "docs/../src/a.py"


def test_heredoc_written_then_run() -> None:
    command = "cat > /tmp/gen.py <<'PY'\nopen('x.txt', 'w').write('a > b')\nPY\npython3 /tmp/gen.py"
    assert rows(command) == [("/tmp/gen.py", "absolute", ">")]


@pytest.mark.parametrize("command, expected", [
    ("python3 -c \"open('out.json', 'w').write('{}')\"", [(f"{CWD}/out.json", "cwd-joined", "interp-write")]),
    ("python3 - <<'PY'\nfrom pathlib import Path\nPath('notes/a.md').write_text('x')\nPY",
     [(f"{CWD}/notes/a.md", "cwd-joined", "interp-write")]),
    ("python <<EOF\nOUT = 'r.csv'\nwith open(OUT, 'a') as f:\n    f.write('1')\nEOF",
     [(f"{CWD}/r.csv", "cwd-joined", "interp-write")]),
    ("python -c \"import sys; open(sys.argv[1], 'w')\" x", [("interp:python", None, "interp")]),
    ("python -c \"print(open('in.txt').read())\"", []),
    ("node -e \"require('fs').writeFileSync('/tmp/o.txt', 'x')\"", [("/tmp/o.txt", "absolute", "interp-write")]),
    ("node -e \"const p = base + '.json'; fs.writeFileSync(p, s)\"", [("interp:node", None, "interp")]),
    ("ruby -e \"File.write('v.txt', '1')\"", [(f"{CWD}/v.txt", "cwd-joined", "interp-write")]),
    ("python3 -c \"for p in ps:\n  open(p, 'w')\"", [("interp:python", None, "interp")]),
    ("python3 script.py --verbose", []),
])
def test_interpreter_write_idioms(command: str, expected: list) -> None:
    assert rows(command) == expected


def test_one_hop_constant_rebound_is_opaque() -> None:
    script = "python3 - <<'PY'\np = 'a.txt'\np = 'b.txt'\nopen(p, 'w')\nPY"
    assert rows(script) == [("interp:python", None, "interp")]


def test_a_command_the_shell_refuses_changes_nothing() -> None:
    """bash refuses the line (a syntax error) before running any of it: no row, and
    not even the `rm` before the `&&` ran (it had kept every operand, unresolved)."""
    assert mutations("rm -rf build && echo \"oops > out.txt", CWD) == ()
    assert mutations("touch 'a b", CWD) == ()
    # the lines before the refused one ran (bash reads a line at a time), resolved as usual
    got = mutations("rm -rf build\ntouch 'a b", CWD)
    assert [(m.path, m.resolution) for m in got] == [(f"{CWD}/build", "cwd-joined")]


def test_create_guess_follows_the_verb() -> None:
    by_verb = {m.verb: m.is_create for m in mutations(
        "touch a; echo > b; echo >> c; rm d; mv e f; sed -i s/x/y/ g", CWD)}
    assert by_verb == {"touch": True, ">": True, ">>": False, "rm": False, "mv": True,
                       "mv-from": False, "sed-i": False}


def test_substitution_commands_count() -> None:
    assert rows("echo \"$(touch made.txt)\"") == [(f"{CWD}/made.txt", "cwd-joined", "touch")]
    assert rows("diff <(sort a) <(sort b) > d.txt") == [(f"{CWD}/d.txt", "cwd-joined", ">")]


def test_opaque_markers_leave_out_index_only_git() -> None:
    got = opaque_markers("git add -A && git commit -m x && npx prettier --write && git reset --hard")
    assert [m.path for m in got] == ["fmt:prettier", "git:reset"]
    assert opaque_markers("rm a.txt") == ()


def test_non_string_input_is_no_mutation() -> None:
    assert mutations(None, CWD) == ()  # type: ignore[arg-type]
    assert mutations(42, CWD) == ()  # type: ignore[arg-type]


@pytest.mark.parametrize("command, marker", [
    ("uv run ruff format", "fmt:ruff"),
    ("poetry run ruff format", "fmt:ruff"),
    ("pdm run cargo fmt", "fmt:cargo"),
])
def test_project_env_launchers_run_the_tool(command: str, marker: str) -> None:
    assert [m.path for m in mutations(command, "/w")] == [marker]
    assert [m.path for m in opaque_markers(command)] == [marker]
    assert mutations("uv run pytest", "/w") == ()


@pytest.mark.parametrize("command, nothing", [
    ("git status --short", True), ("ls -la src/ | grep x", True), ("cargo test 2>&1 | tail", True),
    ("rm x", False), ("echo > f", False), ("cd a && touch b", False), ("npm install", False),
    ("rm $X", False), ("echo 'a > b'", True),
])
def test_changes_nothing_agrees_with_mutations(command: str, nothing: bool) -> None:
    from pysift.core.shell import changes_nothing

    assert changes_nothing(command) is nothing
    assert (mutations(command, CWD) == ()) is nothing
    assert (mutations(command, None) == ()) is nothing


# -- may_name: an unresolved pattern operand against a file ---------------------------------


@pytest.mark.parametrize("command, cwd, path, expected", [
    ("sed -i s/a/b/ *.txt", "/w/proj", "/w/proj/g.txt", True),
    ("sed -i s/a/b/ *.txt", "/w/proj", "/w/proj/sub/g.txt", False),
    ("sed -i s/a/b/ *.md", "/w/proj", "/w/proj/g.txt", False),
    ("sed -i s/a/b/ sub/*", "/w/proj", "/w/proj/sub/x/g.txt", True),  # a directory holding it
    ("rm -rf $D", "/w/proj", "/w/proj/g.txt", True),
    ('rm -f "$D/foo.log"', "/w/proj", "/w/proj/g.txt", False),
    ('rm -f "$D/g.txt"', "/w/proj", "/w/proj/g.txt", True),
    ("rm ~/x/g.txt", "/w/proj", "/home/u/x/g.txt", True),
    ("rm ./$F", "/w/proj", "/w/proj/g.txt", True),
    ("rm ./$F", "/w/proj", "/w/other/g.txt", True),  # F may be `../other/g.txt`
    ("rm ./$F.log", "/w/proj", "/w/other/g.txt", False),
    ("cd $X && rm *.txt", "/w/proj", "/a/b/g.txt", True),  # its directory is unknown
    ("rm /tmp/*.txt", "/w/proj", "/w/proj/g.txt", False),
    ("echo hi > a.tx?", "/w/proj", "/w/proj/a.txt", True),
    ("rm {a,b}.txt", "/w", "/w/a.txt", True),
    # on POSIX a quoted backslash is a character of the name, no separator
    ("rm $X'a\\b'", "/w", "/w/xa\\b", True),
    # a brace stands for its alternatives, not for any text (`c.txt` had matched), and a
    # brace nested in one is read whole (`{a,{b,c}}` had named none of b.txt, c.txt)
    ("rm {a,b}.txt", "/w", "/w/c.txt", False),
    ("rm {a,{b,c}}.txt", "/w", "/w/c.txt", True),
    ("rm {a,{b,c}}.txt", "/w", "/w/d.txt", False),
    ("rm -f {,x}.bak", "/w", "/w/.bak", True),
    ("rm {1..3}.log", "/w", "/w/2.log", True),
    ("rm {a,'b,c'}*.txt", "/w", "/w/b,c.txt", True),  # the quotes are gone: a superset
    ("rm '{a,b}'*.txt", "/w", "/w/{a,b}1.txt", True),
    ("rm {a,b}/*.txt", "/w", "/w/b/g.txt", True),
    ("rm {a,b}/*.txt", "/w", "/w/c/g.txt", False),
    ("rm *.JSON", "D:\\W", "d:/w/a.json", True),  # a Windows name, without case
    ("rm a.txt", "/w", "/w/a.txt", False),  # resolved: not a pattern
    ("rm $'\\u00e9'.txt", "/w", "/w/g.txt", True),  # a quote the shells may read apart
    ("rm $'\\cA'.md", "/w", "/w/g.txt", False),
    # `.` and `..` read as the shell reads them: a `./` in a pattern whose directory is
    # unknown, or a `..` above the command's directory, had never matched any file
    ("cd $X && rm ./*.py", "/w/proj", "/w/proj/app.py", True),
    ("cd $X && rm ./*.txt", "/w/proj", "/w/proj/app.py", False),
    ("cd $X && ls | xargs -I{} rm ./{}", "/w/proj", "/w/proj/app.py", True),
    ("cd $X && rm ../lib/*.py", "/w/proj", "/w/lib/app.py", True),
    ("cd $X && rm ../lib/*.py", "/w/proj", "/w/proj/app.py", False),
    ("rm ../$F", "/w/proj/src", "/w/proj/app.py", True),
    ("rm /w/proj/src/../$F", "/w", "/w/proj/app.py", True),
    ("rm src/../$F.md", "/w/proj/src", "/w/proj/app.py", False),  # /w/proj/src/$F.md
    ('rm "$D"/../app.py', "/w/proj", "/srv/app.py", True),  # $D/.. is any directory
    ('rm "$D"/../app.py', "/w/proj", "/srv/main.py", False),
    ("rm ${F//a/b}", "/w/proj", "/srv/app.py", True),
    # an expansion may hold a `..` of its own: what stands before it may be climbed out
    # of (`sub/$F` from /w/proj had been taken to name only files under /w/proj/sub)
    ("rm -rf sub/$D", "/w/proj", "/w/other/app.py", True),
    ('rm "build/$F/app.py"', "/w/proj", "/w/proj/src/app.py", True),
    ('rm "build/$F/app.py"', "/w/proj", "/w/proj/src/main.py", False),
    ("rm /tmp/$(cat target)", "/w/proj", "/w/proj/app.py", True),
    ("rm sub/$(echo $X)/app.py", "/w/proj", "/w/proj/main.py", False),
    ("rm sub/`echo ..`/app.py", "/w/proj", "/w/proj/app.py", True),
    ("rm sub/{a,../src}/app.py", "/w/proj", "/w/proj/src/app.py", True),
    ("rm {a,src/b}/../app.py", "/w/proj", "/w/proj/src/app.py", True),
    ("rm sub/.*/app.py", "/w/proj", "/w/proj/app.py", True),  # `.*` is `..` (bash < 5.2)
    ("rm sub/*/app.py", "/w/proj", "/w/proj/app.py", False),
    ("rm ~-/app.py", "/w/proj", "/srv/app.py", True),  # ~- is $OLDPWD: any directory
])
def test_may_name(command: str, cwd: str, path: str, expected: bool) -> None:
    assert any(may_name(m, path) for m in mutations(command, cwd)) is expected


@pytest.mark.parametrize("command", ["printf x > $'\\x71'.txt", "printf x > $'q\\056txt'",
                                     "printf x > $'\\161.txt'", "printf x > $'\\u0071'.txt",
                                     "$'\\x72m' q.txt"])
def test_a_name_spelled_through_ansi_c_escapes_is_the_file(command: str) -> None:
    from pysift.core.shell import unquoted

    assert [(m.path, m.resolution) for m in mutations(command, CWD)] == [
        (f"{CWD}/q.txt", "cwd-joined")]
    assert "q.txt" in unquoted(command)  # what the cheap name tests look in


@pytest.mark.parametrize("name", [
    "rm", "rmdir", "unlink", "find", "mkdir", "touch", "tee", "cp", "mv", "install", "ln", "rsync",
    "sed", "perl", "truncate", "git", "curl", "wget", "dd", "zip", "tar", "python3", "node",
    "nodejs", "ruby", "cargo", "rustfmt", "prettier", "black", "ruff", "eslint", "gofmt",
    "clang-format", "dprint", "npm", "pnpm", "yarn", "bun", "pip", "poetry", "uv", "unzip",
    "7z", "patch", "parallel",
])
def test_every_program_read_passes_the_cheap_gate(name: str) -> None:
    # the gate answers "changes nothing" without a parse: a program the table reads but
    # the gate lacks is never read (`unlink f` listed nothing)
    from pysift.core.shell import might_change_files
    from pysift.core.shell.verbs import _SIMPLE

    assert set(_SIMPLE) <= {"rm", "rmdir", "unlink"}
    assert might_change_files(f"{name} x")


def test_a_parallel_item_file_beside_literal_items_is_read_at_run_time() -> None:
    assert rows("parallel -a more.txt rm {1} ::: a") == [(PI, "unresolved", "rm")]
    assert not changes_nothing("cat jobs.txt | parallel")


def test_parallel_items_past_the_limit_are_read_as_one_pattern_never_dropped() -> None:
    many = " ".join(f"f{n}" for n in range(100))
    assert rows(f"parallel rm ::: {many}") == [(PI, "unresolved", "rm")]
    assert rows(f"parallel ::: {many} 'rm x'") == [HERE]
    assert rows("parallel --colsep , 'rm {1}' ::: a,b") == [(PI, "unresolved", "rm")]
