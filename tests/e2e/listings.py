"""What each runtime's own CLI lists of msd, in one shape, for the side-by-side test.

``probes(copilot_cache)[runtime]`` are that CLI's offline views (the same ones its own e2e
module checks), each a function of (home, cwd) returning ``{kind: Counter of msd names}``:
``mcp`` counts the ``msd`` server (``msd[<status>]`` when the CLI shows it but not connected
or enabled), ``skills`` the skills and commands it lists, ``agents`` its subagents. A name
counted twice is a duplicate the user would see. ``listings`` runs the views of several
runtimes at once: each one spends seconds starting its CLI.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from auggie_views import agents_listed, commands_listed, servers_listed
from claude_views import claude_print, init_event
from codex_views import mcp_servers, prompt_view
from copilot_cli import Copilot, loaded
from gemini_kit import gemini, gemini_subagents, msd, output, qwen, server_lines
from model_stub import ModelStub
from model_stub_apis import GeminiStub, OpenAIStub
from opencode_family import served
from stub_turns import GEMINI_TRUSTED, QwenTurn, gemini_loader_errors, gemini_turn

from msd_install.payload import load

Seen = dict[str, Counter[str]]
Probe = Callable[[Path, Path], Seen]

PAYLOAD = load()
NAMES = {
    "mcp": ["msd"],
    "skills": sorted([c.name for c in PAYLOAD.commands] + [s.name for s in PAYLOAD.skills]),
    "routers": sorted(s.name for s in PAYLOAD.skills),  # Gemini: commands are TOML, unlisted
    "agents": sorted(a.name for a in PAYLOAD.agents),
}


def _server(statuses: list[str], ok: str) -> Counter[str]:
    return Counter("msd" if s == ok else f"msd[{s}]" for s in statuses)


def _names(names: list[str]) -> Counter[str]:
    return Counter(msd(names))


def claude(home: Path, cwd: Path) -> Seen:
    with ModelStub("never", "Read", {}) as stub:
        init = init_event(claude_print(home, cwd, stub, "hello"))
    statuses = [s["status"] for s in init["mcp_servers"] if s["name"] == "msd"]
    return {
        "mcp": _server(statuses, "connected"),
        "skills": _names(init["skills"]),
        "agents": _names(init["agents"]),
    }


def codex_mcp(home: Path, cwd: Path) -> Seen:
    server = mcp_servers(home, cwd).get("msd")
    if server is None:
        return {"mcp": Counter()}
    on = server["enabled"] and server["disabled_reason"] is None
    return {"mcp": _server(["enabled" if on else "disabled"], "enabled")}


def codex_prompt(home: Path, cwd: Path) -> Seen:
    view = prompt_view(home, cwd)
    return {"skills": _names(view.skills), "agents": _names(view.roles)}


def opencode_family(rt: str) -> Probe:
    """What ``<rt> serve`` holds, which ``<rt> mcp list``, ``agent list`` and ``debug skill``
    print: one server start instead of three."""

    def view(home: Path, cwd: Path) -> Seen:
        servers, agents, skills = served(rt, home, cwd, "mcp", "agent", "skill")
        kinds: Counter[str] = Counter()
        for agent in agents:
            if agent["name"].startswith("msd-"):
                mode = agent["mode"]
                kinds[agent["name"] if mode == "subagent" else f"{agent['name']}[{mode}]"] += 1
        return {
            "mcp": _server([v["status"] for k, v in servers.items() if k == "msd"], "connected"),
            "agents": kinds,
            "skills": _names([s["name"] for s in skills]),
        }

    return view


def gemini_mcp(home: Path, cwd: Path) -> Seen:
    proc = gemini(home, cwd, "mcp", "list", **GEMINI_TRUSTED)
    assert proc.returncode == 0 and not gemini_loader_errors(output(proc)), output(proc)
    statuses = [ln.rsplit(" - ", 1)[-1] for ln in server_lines(output(proc))]
    return {"mcp": _server(statuses, "Connected")}


def gemini_skills(home: Path, cwd: Path) -> Seen:
    proc = gemini(home, cwd, "skills", "list", **GEMINI_TRUSTED)
    assert proc.returncode == 0 and not gemini_loader_errors(output(proc)), output(proc)
    found = re.findall(r"^(msd-[\w.-]+) \[(\w+)\]$", output(proc), re.M)
    return {"routers": Counter(n if s == "Enabled" else f"{n}[{s}]" for n, s in found)}


def gemini_agents(home: Path, cwd: Path) -> Seen:
    with GeminiStub() as stub:
        system, _user, out = gemini_turn(home, cwd, "hi", stub)
    assert not gemini_loader_errors(out), out
    return {"agents": _names(gemini_subagents(system))}


def qwen_mcp(home: Path, cwd: Path) -> Seen:
    """A project server waits for the user's ``qwen mcp approve``: the user gives it here."""
    lines = server_lines(output(qwen(home, cwd, "mcp", "list")))
    if any(ln.endswith("- Pending approval") for ln in lines):
        approve = qwen(home, cwd, "mcp", "approve", "msd")
        assert approve.returncode == 0, output(approve)
        lines = server_lines(output(qwen(home, cwd, "mcp", "list")))
    return {"mcp": _server([ln.rsplit(" - ", 1)[-1] for ln in lines], "Connected")}


def qwen_turn(home: Path, cwd: Path) -> Seen:
    with OpenAIStub() as stub:
        turn = QwenTurn(home, cwd, "hi", stub)
    assert turn.loader_errors() == [], turn.loader_errors()
    return {"skills": Counter(turn.offered()), "agents": Counter(turn.agents())}


def copilot(cache: Path) -> list[Probe]:
    def servers(home: Path, cwd: Path) -> Seen:
        server = Copilot(home, cache).servers(cwd).get("msd")
        on = server is not None and server["enabled"] is True
        return {"mcp": Counter() if server is None else _server(["on" if on else "off"], "on")}

    def skills(home: Path, cwd: Path) -> Seen:
        return {"skills": Copilot(home, cache).skills(cwd)}

    def agents(home: Path, cwd: Path) -> Seen:
        return {"agents": loaded(Copilot(home, cache).session(cwd))[0]}

    return [servers, skills, agents]


def augment_mcp(home: Path, cwd: Path) -> Seen:
    ours = [s for s in servers_listed(home, cwd) if s["name"] == "msd"]
    statuses = ["on" if s["enabled"] else "off" for s in ours]
    return {"mcp": _server(statuses, "on")}


def augment_items(home: Path, cwd: Path) -> Seen:
    commands = commands_listed(home, cwd)
    return {"skills": Counter({n: len(d) for n, d in commands.items() if n.startswith("msd-")})}


def augment_agents(home: Path, cwd: Path) -> Seen:
    return {"agents": Counter({n: len(lines) for n, lines in agents_listed(home, cwd).items()})}


def probes(copilot_cache: Path) -> dict[str, list[Probe]]:
    return {
        "claude": [claude],
        "codex": [codex_mcp, codex_prompt],
        "opencode": [opencode_family("opencode")],
        "kilo": [opencode_family("kilo")],
        "gemini": [gemini_mcp, gemini_skills, gemini_agents],
        "qwen": [qwen_mcp, qwen_turn],
        "copilot": copilot(copilot_cache),
        "augment": [augment_mcp, augment_items, augment_agents],
    }


def listings(runtimes: list[str], home: Path, cwd: Path, copilot_cache: Path) -> dict[str, Seen]:
    """Every view of each runtime in ``runtimes``. Runtimes run side by side, the views of one
    runtime one after the other (two first runs of OpenCode in one fresh home race to create
    its database); Kilo's take longest, so they start first."""
    table = probes(copilot_cache)

    def views(rt: str) -> Seen:
        seen: Seen = {}
        for probe in table[rt]:
            for kind, names in probe(home, cwd).items():
                seen.setdefault(kind, Counter()).update(names)
        return seen

    slow_first = sorted(runtimes, key=lambda rt: rt != "kilo")
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {rt: pool.submit(views, rt) for rt in slow_first}
        return {rt: futures[rt].result() for rt in runtimes}
