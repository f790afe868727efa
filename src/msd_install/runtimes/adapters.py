"""Every adapter that exists, by runtime name (the names and labels are in
``msd_install.runtimes``). Each runtime module ``runtimes/<name>.py`` exports ``ADAPTER``; it is
imported when that runtime is first asked for, so that a one-runtime run does not import the
other fifteen (``--all``, ``doctor`` and iteration import them all)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module

from ._base import Adapter

# one line per runtime, in the order --all installs them
ORDER = (
    "claude",
    "codex",
    "copilot",
    "opencode",
    "kilo",
    "gemini",
    "hermes",
    "augment",
    "qwen",
    "codebuddy",
    "kimi",
    "cline",
    "cursor",
    "windsurf",
    "antigravity",
    "trae",
)


class _Adapters(Mapping[str, Adapter]):
    """A read-only mapping name -> adapter that imports a runtime's module on first use."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self._names = names
        self._loaded: dict[str, Adapter] = {}

    def __getitem__(self, name: str) -> Adapter:
        if name not in self._loaded:
            if name not in self._names:
                raise KeyError(name)
            adapter: Adapter = import_module(f"{__package__}.{name}").ADAPTER
            if adapter.name != name:
                raise RuntimeError(f"runtimes/{name}.py exports the adapter of {adapter.name}")
            self._loaded[name] = adapter
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._names


ADAPTERS: Mapping[str, Adapter] = _Adapters(ORDER)
