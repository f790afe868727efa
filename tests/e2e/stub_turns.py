"""One offline turn of ``gemini`` or ``qwen`` against a loopback stub model
(``model_stub_apis``), and what it shows of the CLI's own loaders: the subagents, skills and
expanded command prompt of the first request, and what the loaders logged."""

from __future__ import annotations

import re
from pathlib import Path

from gemini_kit import STUB_MODEL, gemini, msd, output, qwen, xml_names
from model_stub_apis import GeminiStub, OpenAIStub

GEMINI_TRUSTED = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
# what gemini prints when it skips an agent or a command it cannot load
GEMINI_LOADER_ERRORS = (
    "Agent loading error",
    "FileCommandLoader",
    "Skipping invalid command",
    "Failed to inject",
    "Error in ",
)
# what qwen --debug logs when it skips an agent, a command or a skill it cannot load
QWEN_LOADER_ERRORS = (
    "Failed to parse",
    "Skipping invalid",
    "must be at least",
    "Validation failed",
    "Failed to load",
)


def gemini_turn(
    home: Path, cwd: Path, prompt: str, stub: GeminiStub, **env: str
) -> tuple[str, str, str]:
    """One ``gemini -p`` turn in a trusted folder: (system instruction, user text, output)."""
    proc = gemini(
        home, cwd, "-m", STUB_MODEL, "-p", prompt,
        GEMINI_API_KEY="dummy", GOOGLE_GEMINI_BASE_URL=stub.url, **{**GEMINI_TRUSTED, **env},
    )  # fmt: skip
    assert proc.returncode == 0, output(proc)
    first = stub.main_requests()[0]
    return texts(first.get("systemInstruction")), texts(first["contents"]), output(proc)


def texts(value: object) -> str:
    """Every ``text`` of a Gemini request part tree, joined."""
    if isinstance(value, dict):
        own = value.get("text")
        return (own if isinstance(own, str) else "") + "".join(
            texts(v) for k, v in value.items() if k != "text"
        )
    if isinstance(value, list):
        return "".join(texts(v) for v in value)
    return value if isinstance(value, str) else ""


def gemini_loader_errors(text: str) -> list[str]:
    return [marker for marker in GEMINI_LOADER_ERRORS if marker in text]


class QwenTurn:
    """One ``qwen -p`` turn against the stub, and what its loaders logged."""

    def __init__(self, home: Path, cwd: Path, prompt: str, stub: OpenAIStub) -> None:
        proc = qwen(
            home, cwd, "--debug", "--auth-type", "openai", "-p", prompt,
            OPENAI_API_KEY="dummy", OPENAI_BASE_URL=f"{stub.url}/v1", OPENAI_MODEL="stub-model",
        )  # fmt: skip
        assert proc.returncode == 0, output(proc)
        first = stub.main_requests()[0]
        messages = first["messages"]
        self.system = str(messages[0]["content"])
        user = messages[1]["content"]
        self.user = user if isinstance(user, str) else "".join(p.get("text", "") for p in user)
        tools = {t["function"]["name"]: t["function"] for t in first["tools"]}
        self.agent_tool = str(tools["agent"]["description"])
        debug = home / ".qwen/debug/latest"
        self.log = debug.read_text() if debug.exists() else ""
        self.out = output(proc)

    def agents(self) -> list[str]:
        """msd agent types the ``agent`` tool offers (``- **name**: …``), as often as listed."""
        return msd(re.findall(r"^- \*\*([\w.-]+)\*\*:", self.agent_tool, re.M))

    def offered(self) -> list[str]:
        """msd names the first user message offers as skills (Qwen lists commands there too)."""
        return msd(xml_names(self.user, "available_skills"))

    def loader_errors(self) -> list[str]:
        return [ln for ln in self.log.splitlines() if any(m in ln for m in QWEN_LOADER_ERRORS)]
