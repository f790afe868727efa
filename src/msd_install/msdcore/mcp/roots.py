"""Which directories may never be a workspace: checked once at start-up, fail closed.

The file tools may rewrite anything below the workspace, so the workspace must not hold what
guards the agent or the system:

* the filesystem root and system trees: ``/etc``, ``/proc`` (``/proc/self/...`` included),
  ``/sys``, ``/dev``, ``/boot``, ``/run`` and ``/usr``, ``/bin``, ``/sbin``, ``/lib*`` with
  everything below them, plus the bare shared parents (``/var``, ``/tmp``, ``/home``, ...);
* the home directory and every directory above it (they contain it);
* a runtime's configuration root, or anything inside one: the known per-user directories
  (``~/.claude``, ``~/.codex``, ``~/.gemini``, ``~/.config/opencode``, ...), the ones their
  environment variables point to (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``...), any directory
  that holds an ``msd-file-manifest.json`` (msd-install put a runtime there), and the tree
  this server itself runs from, so the tools can never rewrite the server's own code or the
  user's settings. A project *containing* a runtime root (a local ``.claude/``) is fine.

Only ``os.path`` string work and a few ``stat`` calls: this runs before the first response.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

MANIFEST = "msd-file-manifest.json"
SYSTEM_TREES = (
    "/etc", "/proc", "/sys", "/dev", "/boot", "/run", "/usr", "/bin", "/sbin",
    "/lib", "/lib32", "/lib64", "/libx32", "/private/etc", "/private/var/run", "/System",
)  # fmt: skip
SHARED_PARENTS = (
    "/var", "/tmp", "/opt", "/home", "/Users", "/root", "/mnt", "/media", "/srv", "/snap",
    "/private", "/private/tmp", "/private/var", "/Volumes", "/Library",
)  # fmt: skip
HOME_CONFIG_DIRS = (
    ".claude", ".codex", ".gemini", ".qwen", ".copilot", ".cursor", ".codeium", ".windsurf",
    ".kimi", ".kilo", ".kilocode", ".augment", ".hermes", ".trae", ".codebuddy", ".cline",
    ".kimi-code", ".agents", ".agent", ".config", ".local", ".ssh", ".gnupg", ".aws", ".kube",
    ".docker", "AppData", "Library",
)  # fmt: skip
# Every environment variable a runtime adapter reads for where it keeps its configuration
# (tests/mcp/test_mcp_roots.py proves the list covers the adapters: this module may not import
# them), with the part below it that is the configuration: "" the directory itself, a name a
# folder inside it, None the folder holding the file the variable names.
CONFIG_ENV: tuple[tuple[str, str | None], ...] = (
    ("CLAUDE_CONFIG_DIR", ""), ("CODEX_HOME", ""), ("QWEN_HOME", ""), ("COPILOT_HOME", ""),
    ("OPENCODE_CONFIG_DIR", ""), ("KILO_CONFIG_DIR", ""), ("XDG_CONFIG_HOME", ""),
    ("GEMINI_CLI_HOME", ".gemini"), ("HERMES_HOME", ""), ("KIMI_CODE_HOME", ""),
    ("CODEBUDDY_CONFIG_DIR", ""), ("CLINE_DIR", ""), ("CLINE_DATA_DIR", ""),
    ("CLINE_MCP_SETTINGS_PATH", None), ("APPDATA", ""),
)  # fmt: skip


def _within(path: str, top: str) -> bool:
    """``path`` is ``top`` or below it (component-wise; both real and absolute)."""
    top = top.rstrip("/") or "/"
    return path == top or path.startswith(top + "/") or top == "/"


def _real(path: str) -> str:
    return os.path.realpath(path)


def _own_tree() -> str:
    """The tree this server's code runs from: ``<root>`` of ``<root>/msd-core/lib/msdcore``
    when installed, else the ``msdcore`` package directory."""
    package = _real(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # noqa: PTH100,PTH120
    lib = os.path.dirname(package)  # noqa: PTH120
    core = os.path.dirname(lib)  # noqa: PTH120
    if os.path.basename(lib) == "lib" and os.path.basename(core) == "msd-core":  # noqa: PTH119
        return os.path.dirname(core)  # noqa: PTH120
    return package


def refusal(real: str, env: Mapping[str, str], home: str | None) -> str | None:
    """Why the real directory ``real`` may not be the workspace, or None if it may."""
    if real == "/":
        return "is the filesystem root"
    for top in SYSTEM_TREES:
        if _within(real, _real(top)) or _within(real, top):
            return f"is a system directory ({top})"
    if real in SHARED_PARENTS or real in {_real(p) for p in SHARED_PARENTS}:
        return "is a shared system directory"
    if home:
        real_home = _real(home)
        if _within(real_home, real):
            return "is the home directory or contains it"
        for name in HOME_CONFIG_DIRS:
            if _within(real, _real(os.path.join(real_home, name))):  # noqa: PTH118
                return f"is a configuration directory (~/{name})"
    for var, below in CONFIG_ENV:
        value = env.get(var)
        if not (value and os.path.isabs(value)):  # noqa: PTH117
            continue
        top = os.path.dirname(value) if below is None else os.path.join(value, below)  # noqa: PTH118,PTH120
        if _within(real, _real(top)):
            return f"is a runtime configuration directory (${var})"
    if _within(real, _own_tree()):
        return "holds this server's own code"
    probe = real
    while True:
        if os.path.isfile(os.path.join(probe, MANIFEST)):  # noqa: PTH113,PTH118
            return f"is inside a runtime root ({probe} holds {MANIFEST})"
        parent = os.path.dirname(probe)  # noqa: PTH120
        if parent == probe:
            return None
        probe = parent
