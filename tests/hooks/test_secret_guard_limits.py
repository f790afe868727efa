"""msd-secret-read-guard fails closed and stays linear: 1 MB of each parser path's worst case
is decided in under a second (the issue's bound; the budget stops far earlier), a command
that is too large or too complex is refused with its reason, and properties hold for any
input: the analysis never crashes, and a project without secrets never sees a "reading".

The in-process bounds count CPU time (time.process_time): the work the parser does, which
is what must stay linear; wall time on a shared test machine also counts other processes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest
from guard_cases import CASES, make_project
from hookkit import HOOKS_DIR, base_env, guard_helper, tool_event
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

MB = 1_000_000
HOOK = "msd-secret-read-guard.py"


def rep(piece: str, size: int = MB) -> str:
    return (piece * (size // len(piece) + 1))[:size]


# One hostile input per parser path: lexer runs, quotes, $'…', backticks, here-documents,
# nesting, grammar, braces, globs, parameters, interpreter code, sed, awk, find, xargs, …
HOSTILE = {
    "heredoc openers": rep("cat <<A\n"),
    "heredoc openers on one line": rep("cat <<A ") + "\n",
    "heredoc body near its delimiter": "cat <<EOF\n" + rep("EOFx\n"),
    "heredoc <<- with tabs": "cat <<-EOF\n" + rep("\t\tEOF x\n"),
    "command substitutions": rep("$("),
    "arithmetic": rep("$(("),
    "parentheses": rep("("),
    "double-quoted dollars": '"' + rep("$"),
    "single quotes": rep("'a'"),
    "words": rep("a "),
    "operators": rep(";|&"),
    "brace expansion": "echo " + rep("{a,b}"),
    "open braces": "echo " + rep("{"),
    "backslashes": rep("\\"),
    "backticks": rep("`a`"),
    "nested backticks": rep("`\\`"),
    "nested parameters": rep("${a:-"),
    "ANSI-C quoting": "cat " + rep("$'\\x41'"),
    "glob components": "cat " + rep("*/"),
    "assignments": rep("a=b; "),
    "python code": "python3 -c '" + rep("open(") + "'",
    "python strings": 'python3 -c "' + rep("'a'+") + '"',
    "awk program": "awk '" + rep('getline < "x"; ') + "'",
    "sed script": "sed '" + rep("r x\n") + "' README.md",
    "find expression": "find . " + rep("-o -name x ") + " -exec cat {} +",
    "xargs names": "echo " + rep(".env ") + " | xargs cat",
    "[[ ]] words": "[[ " + rep("a ") + "]]",
    "process substitutions": "cat " + rep("<(a) "),
    "array": "x=(" + rep("a ") + ")",
    "case arms": "case x in " + rep("a) b;; ") + "esac",
    "functions": rep("f(){ :; }; "),
    "loops": rep("for a in b; do :; done; "),
    "extglob": "cat " + rep("@(a|b)"),
    "redirections": rep("<a "),
    "printf feeding sh": "printf '" + rep("%s") + "' a | sh",
    "nested ifs": rep("if a; then "),
    "comment": "#" + rep("x"),
    "one big here-document": "cat > f.py <<'EOF'\n" + rep("print('hello world')\n") + "EOF\n",
    "sed script of blanks": "sed '" + rep(" ") + "x' README.md",
    "sed addresses": "sed '" + rep("/a\\/") + "' README.md",
    "unclosed glob brackets": "cat " + rep("[a"),
    "glob bracket classes": "cat " + rep("[[:alpha:"),
    "find -name brackets": "find . -name '" + rep("[a") + "' | xargs cat",
    "grep --include brackets": "grep -r --include='" + rep("[!") + "' KEY .",
    "a doubling variable": "a=x; " + 'a="$a$a"; ' * 40 + "cat $a",
    "appending to an array": "a=(x y); " + rep("a+=(x y); "),
    "IFS of many characters": "IFS='" + rep("]\\^-[", 500_000) + "'; x=y; cat $x $x",
    "aliases": "".join(f"alias a{i}=a{i + 1}\n" for i in range(60_000))[:MB] + "a0",
    "scripts written and run": rep("echo 'cat x.sh' > x.sh; bash x.sh; "),
    "links made": rep("ln -s .env l; cat l; "),
    "concatenated literals": 'python3 -c "open(' + rep("'a'+", 900_000) + "'')\"",
    "pathspec globs": "git log -- " + rep("'*a' "),
    "parallel names": "parallel cat ::: " + rep("a "),
    "unknown filters": "ls -a" + rep(" | sed p", 900_000) + " | xargs cat",
}


@pytest.fixture(scope="module")
def guard() -> ModuleType:
    return guard_helper()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("limits") / "proj")


@pytest.mark.parametrize("path", sorted(HOSTILE))
def test_each_parser_path_decides_1mb_in_under_a_second(
    guard: ModuleType, project: Path, path: str
) -> None:
    command = HOSTILE[path]
    started = time.process_time()
    verdict = guard.check_command(command, str(project))
    elapsed = time.process_time() - started
    assert elapsed < 1.0, f"{path}: {elapsed:.2f}s"
    assert verdict is None or verdict.startswith(("reading ", "too complex: "))


def test_budget_refusals_name_the_reason(guard: ModuleType, project: Path) -> None:
    assert guard.check_command(rep("$("), str(project)) == (
        "too complex: it is nested too deeply to check"
    )
    assert guard.check_command(rep("a "), str(project)) == (
        "too complex: it has too many parts to check"
    )
    assert guard.check_command("echo " + "{a,b}" * 11, str(project)).startswith("too complex")
    big = "cat README.md #" + rep("x", 1 << 20)
    assert guard.check_command(big, str(project)).startswith("too large: it is 1,048,")


def test_past_the_nesting_limit_is_too_complex(guard: ModuleType, project: Path) -> None:
    # A chain of functions one call deeper than MAX_NESTING used to run its last call as an
    # unknown command: `cat .env` at the bottom went unseen.
    chain = "f0() { cat .env; }; " + "".join(f"f{i}() {{ f{i - 1}; }}; " for i in range(1, 60))
    assert guard.check_command(chain + "f59", str(project)) == (
        "too complex: it is nested too deeply to check"
    )
    assert guard.check_command(chain + "f5", str(project)) == "reading .env"


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("limits-hook")
    shutil.copytree(HOOKS_DIR, base / "hooks")
    (base / "tmp").mkdir()
    return base / "hooks" / HOOK, base / "tmp"


def call(hook: tuple[Path, Path], stdin: bytes) -> tuple[subprocess.CompletedProcess[bytes], float]:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(hook[0])],
        input=stdin,
        capture_output=True,
        timeout=30,
        env=base_env(hook[1]),
    )
    return proc, time.perf_counter() - started


def bash(project: Path, command: str) -> bytes:
    return json.dumps(tool_event("PreToolUse", "Bash", {"command": command}, project)).encode()


def test_80kb_of_heredoc_openers_is_answered_at_once(
    hook: tuple[Path, Path], project: Path
) -> None:
    # Was quadratic (10 s, killed by the runtime: the call then ran unchecked). Now: blocked
    # well within the deadline, as a read when it fits the budget, else as too complex.
    for count, reason in ((2_000, b"reading .env is blocked"), (20_000, b"too complex")):
        openers = "cat " + "<<A " * count + "\n" + "A\n" * count + "cat .env\n"
        proc, elapsed = call(hook, bash(project, openers))
        assert proc.returncode == 2 and reason in proc.stderr, proc.stderr
        assert elapsed < 5.0, elapsed


@pytest.mark.parametrize("size", [2 * MB, 17 * 1024 * 1024])
def test_too_large_commands_are_refused_with_the_reason(
    hook: tuple[Path, Path], project: Path, size: int
) -> None:
    # 17 MiB: more than the stdin reader takes (16 MiB), which used to mean "not checked".
    proc, elapsed = call(hook, bash(project, "cat README.md " + "x" * size))
    assert (proc.returncode, proc.stdout) == (2, b"")
    message = proc.stderr.decode()
    assert message.startswith("msd-secret-read-guard: this call is blocked because it is too large")
    assert message.count("\n") == 1
    assert elapsed < 5.0, elapsed


def test_oversized_gemini_input_is_denied_in_the_gemini_dialect(
    hook: tuple[Path, Path], project: Path
) -> None:
    event = tool_event("BeforeTool", "run_shell_command", {"command": "x" * 17_000_000}, project)
    proc, _ = call(hook, json.dumps(event).encode())
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["decision"] == "deny"


NESTED = '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "%s", "tool_input": '


@pytest.mark.parametrize(
    "stdin",
    [
        NESTED + '{"command": "cat .env", "x": ' + "[" * 3000 + "]" * 3000 + "}}",
        NESTED + '{"command": "cat .env", "timeout": ' + "9" * 5000 + "}}",
    ],
    ids=["nested 3,000 deep", "5,000-digit number"],
)
def test_input_the_hook_cannot_read_is_refused(
    hook: tuple[Path, Path], project: Path, stdin: str
) -> None:
    # Valid JSON that json.loads refuses (RecursionError, the int digit limit) used to exit 0
    # without a verdict: the call went through unchecked. (Garbage still exits 0 quietly.)
    proc, _ = call(hook, (stdin % project).encode())
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert b"not JSON the hook can read" in proc.stderr


def test_copilot_arguments_it_cannot_read_are_refused(
    hook: tuple[Path, Path], project: Path
) -> None:
    args = '{"command": "cat .env", "x": ' + "[" * 3000 + "]" * 3000 + "}"
    event = {"toolName": "bash", "toolArgs": args, "cwd": str(project), "sessionId": "s"}
    proc, _ = call(hook, json.dumps(event).encode())
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["permissionDecision"] == "deny"


def test_a_broken_helper_fails_closed(tmp_path: Path, project: Path) -> None:
    shutil.copytree(HOOKS_DIR, tmp_path / "hooks")
    (tmp_path / "hooks" / "msd-secret-read-guard-shell.py").write_text("this is not python\n")
    shutil.rmtree(tmp_path / "hooks" / "__pycache__", ignore_errors=True)
    proc, _ = call((tmp_path / "hooks" / HOOK, tmp_path), bash(project, "git status"))
    assert proc.returncode == 2
    assert b"cannot check this call" in proc.stderr and b"Reinstall" in proc.stderr


def test_an_analysis_that_hangs_is_refused_before_the_runtime_timeout(
    tmp_path: Path, project: Path
) -> None:
    # A helper stuck in a system call (here: sleeping, as on a stalled network file system)
    # used to run into the runtime's 10 s timeout, which lets the call run unchecked.
    shutil.copytree(HOOKS_DIR, tmp_path / "hooks")
    helper = tmp_path / "hooks" / "msd-secret-read-guard-shell.py"
    helper.write_text(
        helper.read_text() + "\n\ndef check_tool(*_: object) -> None:\n    time.sleep(60)\n"
    )
    shutil.rmtree(tmp_path / "hooks" / "__pycache__", ignore_errors=True)
    proc, elapsed = call((tmp_path / "hooks" / HOOK, tmp_path), bash(project, "git status"))
    assert proc.returncode == 2
    assert b"too complex: it takes too long to check" in proc.stderr
    assert elapsed < 9.0, elapsed


def test_the_helper_compiles_once_and_caches_its_bytecode(tmp_path: Path, project: Path) -> None:
    shutil.copytree(HOOKS_DIR, tmp_path / "hooks")
    shutil.rmtree(tmp_path / "hooks" / "__pycache__", ignore_errors=True)
    hook = (tmp_path / "hooks" / HOOK, tmp_path)
    first, _ = call(hook, bash(project, "cat .env"))
    assert first.returncode == 2
    cached = list((tmp_path / "hooks" / "__pycache__").glob("msd-secret-read-guard-shell.*.pyc"))
    assert len(cached) == 1
    again, _ = call(hook, bash(project, "cat .env"))
    assert again.returncode == 2


SHELL_TEXT = st.text(
    alphabet=st.sampled_from(list(" \t\n;&|<>()'\"\\$`{}[]*?!#=~,.-_/:@%+^0123aEnvx")),
    max_size=60,
)
TOKENS = st.lists(
    st.sampled_from(
        ["cat", ".env", "<<", "EOF", "$(", ")", "${", "}", "`", "'", '"', "|", ";", "&&", "xargs",
         "sh", "-c", "find", "-exec", "{}", "\\;", "cd", "..", "for", "in", "do", "done", "eval",
         "python3", "<<<", "<(", "$'", "\\x2e", "*", "**", "f()", "{ ", " }", "read", "while",
         "export", "F=", "$F", "\n", " ", "grep", "-r", ".", "tar", "czf", "x"]
    ),
    max_size=30,
).map("".join)  # fmt: skip


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(SHELL_TEXT, TOKENS))
def test_any_text_gets_a_verdict_and_never_crashes(
    guard: ModuleType, project: Path, text: str
) -> None:
    verdict = guard.check_command(text, str(project))
    assert verdict is None or verdict.startswith(("reading ", "too complex: ", "too large: "))


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with ordinary files only: nothing in it is a secret."""
    root = tmp_path_factory.mktemp("clean")
    for rel in ("README.md", "src/main.py", ".gitignore", "docs/a.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    return root


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(SHELL_TEXT, TOKENS))
def test_without_secrets_in_reach_nothing_is_a_read_of_one(
    guard: ModuleType, clean: Path, text: str
) -> None:
    text = text.replace(".env", "x.txt").replace("..", "x")  # no secret names, no way out
    verdict = guard.check_command(text, str(clean))
    assert verdict is None or not verdict.startswith("reading "), (text, verdict)


WRAPS = [
    "sh -c {q}",
    "bash -c {q}",
    "eval {q}",
    "bash <<< {q}",
    "timeout 5 sh -c {q}",
    "( {c} )",
    "{{ {c}; }}",
    "true && {c}",
    "cd sub && cd .. && {c}",
    "f() {{ {c}; }}; f",
]
BLOCKED = [c for c in CASES["readers"][0] + CASES["variables"][0] if "'" not in c]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(BLOCKED), st.sampled_from(WRAPS))
def test_a_read_stays_a_read_inside_any_wrapper(
    guard: ModuleType, project: Path, command: str, wrap: str
) -> None:
    wrapped = wrap.format(c=command, q="'" + command + "'")
    verdict = guard.check_command(wrapped, str(project))
    assert verdict is not None and verdict.startswith("reading "), wrapped
