"""Every command in the docs is run: README.md and docs/**/*.md, page by page.

The rules of what counts as a command, the substitution table and the skip marker are in
``doccommands.py``. Each page runs as one shell session (``bash``, so a ``cd`` or a variable
carries over to its next command, as for a reader following it), in a fresh temp ``HOME``
and a fresh git project as the working directory, with no terminal, and with this checkout's
``msd-install`` first on the PATH. Each command must exit with the code it states
(``# exit N``), 0 otherwise.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from doccommands import Command, Skipped, page_commands, pages, substitute

from helpers import REPO, cli_env

MAX_SKIPPED = 12


def _read_all() -> tuple[dict[str, tuple[list[Command], list[Skipped]]], list[str]]:
    found, broken = {}, []
    for path in pages(REPO):
        try:
            found[path.relative_to(REPO).as_posix()] = page_commands(REPO, path)
        except ValueError as exc:  # a YAML or JSON block that does not parse
            broken.append(str(exc))
    return found, broken


_ALL, _BROKEN = _read_all()
RUNNABLE = sorted(name for name, (runs, _) in _ALL.items() if runs)


def _script(runs: list[Command]) -> str:
    parts = ["set +e -o pipefail"]
    for n, command in enumerate(runs):
        parts += [
            f"printf '\\n@@docs-test {n}@@\\n'",
            command.run,
            'printf "%s\\n" "$?" >> "$DOCS_TEST_RC"',
        ]
    return "\n".join(parts) + "\n"


def _session(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    home, project, bin_dir = tmp_path / "home", tmp_path / "project", tmp_path / "bin"
    for folder in (home, project, bin_dir):
        folder.mkdir()
    # this checkout's msd-install, run by the test's interpreter, and nothing else of its venv
    shim = bin_dir / "msd-install"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m msd_install "$@"\n')
    shim.chmod(0o755)
    env = cli_env(
        home,
        PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        DOCS_TEST_RC=str(tmp_path / "rc"),
        GIT_AUTHOR_NAME="Docs Test",
        GIT_AUTHOR_EMAIL="docs@example.invalid",
        GIT_COMMITTER_NAME="Docs Test",
        GIT_COMMITTER_EMAIL="docs@example.invalid",
        GIT_CONFIG_GLOBAL=str(home / ".gitconfig"),
        GIT_CONFIG_NOSYSTEM="1",
    )
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, env=env, check=True)
    return project, env


def run_page(runs: list[Command], tmp_path: Path) -> list[str]:
    """Run a page's commands as one session; one message per command whose exit code is not
    the one the doc states."""
    project, env = _session(tmp_path)
    proc = subprocess.run(
        ["bash", "-c", _script(runs)],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
        check=False,
    )
    codes = (tmp_path / "rc").read_text().split() if (tmp_path / "rc").exists() else []
    outputs = proc.stdout.split("\n@@docs-test ")
    failures = []
    for n, command in enumerate(runs):
        output = next((o for o in outputs if o.startswith(f"{n}@@")), "(no output)")
        got = int(codes[n]) if n < len(codes) else None
        if got != command.expect:
            failures.append(
                f"{command.page} (block at line {command.line}): `{command.text}`\n"
                f"ran as `{command.run}`: exit {got}, the doc says {command.expect}\n"
                f"{output[:4000]}"
            )
    return failures


@pytest.mark.parametrize("page", RUNNABLE)
def test_every_command_of_the_page_runs(page: str, tmp_path: Path) -> None:
    failures = run_page(_ALL[page][0], tmp_path)
    assert not failures, "\n".join(failures)


def test_a_command_that_fails_or_stops_the_session_is_reported(tmp_path: Path) -> None:
    lines = [
        ("mkdir sub && cd sub", 0),
        ('test "$(basename "$PWD")" = sub && test "$HOME" != ~root', 0),
        ("pipx run msd-install --no-such-flag", 0),
        ("msd-install --claude --global --check   # exit 1", 1),
        ("msd-install --claude --global --yes", 0),
        ("msd-install --claude --global --check   # exit 1", 1),
        ("exit 7", 0),
        ("true", 0),
    ]
    runs = [Command("page.md", 1, text, substitute(text), code) for text, code in lines]
    failures = run_page(runs, tmp_path)
    assert [f.split("\n")[0] for f in failures] == [
        "page.md (block at line 1): `pipx run msd-install --no-such-flag`",
        "page.md (block at line 1): `msd-install --claude --global --check   # exit 1`",
        "page.md (block at line 1): `exit 7`",
        "page.md (block at line 1): `true`",
    ]
    assert "exit 2, the doc says 0" in failures[0] and "No such option" in failures[0]
    assert "exit 0, the doc says 1" in failures[1]
    assert "exit None" in failures[2]  # the session ended: nothing after it ran


def test_exemptions_are_few_reasoned_and_listed() -> None:
    skipped = [s for _, (_, skips) in sorted(_ALL.items()) for s in skips]
    runs = sum(len(r) for r, _ in _ALL.values())
    lines = [f"  {s.page}:{s.line} ({s.lang}): {s.why}" for s in skipped]
    head = f"\ndocs commands run: {runs} on {len(RUNNABLE)} pages; "
    head += f"not run: {len(skipped)} block(s)\n"
    sys.stderr.write(head + "\n".join(lines))
    sys.stderr.write("\n")
    assert len(skipped) <= MAX_SKIPPED, "\n".join(lines)
    for s in skipped:
        assert len(s.why.split()) >= 3, f"{s.page}:{s.line}: say why it cannot run"
    assert runs >= 30, f"only {runs} commands found in the docs"


def test_every_page_is_read_and_every_config_block_parses() -> None:
    assert not _BROKEN, "\n".join(_BROKEN)
    assert "docs/tutorial/first-install.md" in RUNNABLE


SAMPLE = """\
Text.

```bash
msd-install --claude --global --yes
# a comment
pipx run --spec dist/msd_install-0.1.0-py3-none-any.whl msd-install --claude \\
  --global --check   # exit 1 when it drifted
cat > x.txt <<'EOF'
a line
EOF
```

```console
$ uvx msd-install doctor
claude global ~/.claude: healthy
```

<!-- docs-test: skip (needs a Docker engine to build) -->

```dockerfile
RUN pipx install msd-install && msd-install --all --global --yes
```

```dockerfile
FROM python:3.12-slim
RUN apt-get update && pipx run msd-install --codex --global --yes --json > /tmp/x.json
```

```yaml
steps:
  - run: |
      echo hello
      pipx run msd-install --all --global --yes --json > msd.json
  - ansible.builtin.command:
      argv: [msd-install, --all, --global, --check]
```

```json
{"postCreateCommand": "pipx run msd-install --claude --global --yes"}
```
"""


def test_the_extractor_reads_each_kind_of_block(tmp_path: Path) -> None:
    page = tmp_path / "docs/page.md"
    page.parent.mkdir()
    page.write_text(SAMPLE)
    runs, skipped = page_commands(tmp_path, page)
    assert [(c.run, c.expect) for c in runs] == [
        ("msd-install --claude --global --yes", 0),
        ("msd-install --claude --global --check   # exit 1 when it drifted", 1),
        ("cat > x.txt <<'EOF'\na line\nEOF", 0),
        ("msd-install doctor", 0),
        ("msd-install --codex --global --yes --json > /tmp/x.json", 0),
        ("msd-install --all --global --yes --json > msd.json", 0),
        ("msd-install --all --global --check", 0),
        ("msd-install --claude --global --yes", 0),
    ]
    assert [(s.line, s.lang, s.why) for s in skipped] == [
        (20, "dockerfile", "needs a Docker engine to build")
    ]
    assert substitute("pipx install dist/msd_install-0.1.0-py3-none-any.whl") == "true"
