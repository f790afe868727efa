"""``--reapply``: merge the saved patch sets back into msd's files, three ways.

For each file of each patch set (oldest first): base = the bytes msd had installed when you
edited it (``base/<path>``), yours = your copy (``user/<path>``), new = what the upgrade
installed (the file as it is, which must still hash as the manifest says, or, for a file
merged before, its bytes from the pristine store). A clean merge is written (``update``);
one with conflicts is written with markers (``conflict``, exit 1): into the file itself only
when it is Markdown, else beside the set (``conflicted``), the new version staying live until
you settle it there. The manifest then records
the merged bytes (``patched``): your file, kept by reinstall, uninstall and ``--check``. A file
that changed since the upgrade is left alone (``conflict``: merge it by hand). A later set of
the same file merges into what the earlier one made; while the earlier merge waits beside its
set, the later one waits too (never merged against the live file). The sets stay
until ``--done``, which removes each set whose every file is merged (nothing else) and takes
a merged file you edited since (settling its conflict markers) as the merge. A set whose
``conflicts/`` holds something that cannot be read (a link, a FIFO, a file over 8 MiB) is
named and left as it is (``conflict``: exit 1), while the other sets go on as usual.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__
from ..errors import PatchError
from .confine import read_plain
from .conflicted import aside, has_markers, markers_live
from .fs import sha256_bytes
from .manifest import Manifest
from .manifestcheck import PATCHES_DIR
from .merge import merge
from .patches import (
    MAX_COPY,
    PatchEntry,
    PatchSet,
    listing,
    load,
    read_bounded,
    unusable,
    vouched,
)
from .patchfiles import damaged, linked, removal, saved_base
from .pristine import STORE_NAME, blobs, unpack
from .report import Result
from .steps import MakeDir, RemoveDirIfEmpty, Step, Write, missing_dirs


@dataclass
class Reapply:
    manifest: Manifest
    result: Result
    store: dict[str, bytes]
    done: bool
    merged: dict[str, bytes] = field(default_factory=dict)  # what this run writes, per file
    settled: dict[str, str] = field(default_factory=dict)  # --done: your edits since a merge
    edited: dict[str, str] = field(default_factory=dict)  # set -> a saved copy you changed
    steps: list[Step] = field(default_factory=list)
    planned: set[Path] = field(default_factory=set)  # folders this run makes (conflicts/)
    # a file whose merge from an earlier set waits in that set's conflicts/ (shown): a later
    # set's merge of it waits too, never computed against the live file nor installed over it
    waiting: dict[str, str] = field(default_factory=dict)
    # a file of a set held up whole (a conflicted merge in it cannot be read): every other
    # set's merge of it waits for that set, shown
    held: dict[str, str] = field(default_factory=dict)
    sets: list[PatchSet] = field(default_factory=list)  # every set merged, oldest first


def resolve_reapply(manifest: Manifest, result: Result, *, done: bool) -> list[Step]:
    """The steps of a ``--reapply`` (``--done``: and of removing the merged sets)."""
    root = manifest.root
    if not manifest.trusted:
        raise PatchError(
            "local patches are merged only under a manifest your msd-install wrote",
            path=manifest.path,
            hint="nothing was changed; run msd-install for this root first",
        )
    directories, other = listing(root)
    why = unusable(root)  # the same rule an upgrade saves by: nothing through a link
    for path in other:
        text = why if path == root / PATCHES_DIR and why else "not a patch set msd-install saved"
        result.add("skip", path, f"{text}: merge it by hand")
    every = _vouched(manifest, result, directories)
    broken = _damaged(result, every)
    sets = [s for s in every if s.name not in broken]
    if not sets:
        if not broken:
            result.notes.append(f"no local patches to reapply in {root / PATCHES_DIR}")
        return []
    # msd's files are read as uninstall reads them: under your manifest, through your links
    run = Reapply(manifest, result, blobs(unpack(read_plain(root / STORE_NAME))), done)
    run.sets = sets
    # a held-up set holds up every set's merge of its files, earlier and later ones: a file
    # is merged with all of its sets in order or not at all (merged with only the earlier
    # ones, it would later pass for merged with the held one too, whose --done would then
    # remove the only copy of its edits)
    for patch_set in every:
        if patch_set.name in broken:
            for entry in patch_set.doc["files"]:
                run.held.setdefault(entry["path"], f"{PATCHES_DIR}/{patch_set.name}")
    complete = {s.name: all([_file(run, s, e) for e in s.doc["files"]]) for s in sets}
    for rel, content in run.merged.items():
        run.steps.append(Write(manifest.abs(rel), content, None))
        manifest.files[rel] = {**manifest.files[rel], "patched": sha256_bytes(content)}
    for rel, digest in run.settled.items():
        manifest.files[rel] = {**manifest.files[rel], "patched": digest}
    removals: list[Step] = []
    for patch_set in sets:
        shown = f"{PATCHES_DIR}/{patch_set.name}"
        links = [
            link
            for e in patch_set.doc["files"]
            if (link := linked(patch_set, e["user"], e["base"], aside(e["path"])))
        ]
        if done and links:
            result.add("skip", patch_set.directory, f"kept: {links[0]}, not followed")
        elif done and patch_set.name in run.edited:
            result.add(
                "skip",
                patch_set.directory,
                f"kept: your saved copy {run.edited[patch_set.name]} changed since the upgrade "
                "saved it; merge what you added to it, then remove the set by hand",
            )
        elif done and complete[patch_set.name]:
            removals.extend(removal(patch_set))
            manifest.patches = [p for p in manifest.patches if p["set"] != patch_set.name]
            result.add("remove", patch_set.directory, "merged; removed as you confirmed (--done)")
        elif done:
            result.add("skip", patch_set.directory, "kept: not every file of it is merged")
        else:
            result.notes.append(
                f"your saved copies stay in {shown}; once the merge is right, remove them "
                "with msd-install --reapply --done"
            )
    if run.merged or run.settled or removals:
        run.steps.append(Write(manifest.path, manifest.to_bytes(), 0o644, barrier=True))
    if removals:
        run.steps.extend(removals)
        run.steps.append(RemoveDirIfEmpty(root / PATCHES_DIR))
    return run.steps


def _damaged(result: Result, sets: list[PatchSet]) -> set[str]:
    """The names of the sets with a conflicted merge ``--reapply`` cannot read
    (``patchfiles.damaged``): each named with that file and its problem (``conflict``: exit
    1) and left as it is, not merged nor removed, while the other sets are merged and settled
    as usual."""
    out: set[str] = set()
    for patch_set in sets:
        found = damaged(patch_set)
        if found is None:
            continue
        path, why = found
        out.add(patch_set.name)
        shown = _shown(patch_set, path)
        result.add("conflict", path, f"{why}; this set is left as it is, not merged or removed")
        result.notes.append(
            f"{shown} {why}; the set {PATCHES_DIR}/{patch_set.name} is left as it is (not "
            "merged, not removed): move that file away, then run msd-install --reapply again"
        )
    return out


def _shown(patch_set: PatchSet, path: Path) -> str:
    return f"{PATCHES_DIR}/{patch_set.name}/{path.relative_to(patch_set.directory).as_posix()}"


def _vouched(manifest: Manifest, result: Result, directories: list[Path]) -> list[PatchSet]:
    """The patch sets the trusted manifest records, each validated up front (``PatchError``
    on the first problem); any other set is named and left alone, never read or merged: one
    that came with a cloned project must not put its bytes into msd's files (a hook)."""
    sets: list[PatchSet] = []
    for directory in directories:
        if not any(r["set"] == directory.name for r in manifest.patches):
            result.add(
                "skip",
                directory,
                "not saved by an upgrade of yours (your manifest does not record it): "
                "not merged; merge it by hand if it is yours",
            )
            continue
        patch_set = load(manifest.root, directory, manifest.runtime)
        if not vouched(patch_set, manifest.patches):
            result.add(
                "skip",
                directory,
                "its patch.json changed since the upgrade saved it (it no longer hashes as "
                "your manifest records): not merged",
            )
            continue
        sets.append(patch_set)
    return sets


def _file(run: Reapply, patch_set: PatchSet, entry: PatchEntry) -> bool:
    """Merge one saved file; True when it is in place (merged now or before, or already in
    this version), False when it is left for you (reported as ``conflict`` or ``skip``)."""
    manifest, result = run.manifest, run.result
    rel = entry["path"]
    path = manifest.abs(rel)
    user = patch_set.directory / entry["user"]
    shown = f"{PATCHES_DIR}/{patch_set.name}/{entry['user']}"
    record = manifest.files.get(rel)
    if record is None or record.get("adopted"):
        result.add("skip", path, f"no longer one of msd's files; your copy stays in {shown}")
        return False
    link = linked(patch_set, entry["user"], entry["base"])
    if link is not None:
        result.add("conflict", path, f"not read: {link} on the way to your saved copy {shown}")
        return False
    if not os.path.lexists(user):
        result.add("conflict", path, f"your saved copy {shown} is gone: nothing to merge")
        return False
    yours = read_bounded(manifest.root, user, MAX_COPY)
    if sha256_bytes(yours) != entry["user_sha256"]:  # edited since it was saved: --done keeps it
        run.edited.setdefault(patch_set.name, shown)
    base = saved_base(manifest.root, patch_set, entry)
    if rel in run.held:
        result.add(
            "skip",
            path,
            f"waiting: the set {run.held[rel]} of this file is held up (a conflicted merge in "
            f"it cannot be read); once it is settled, --reapply merges yours from {shown} with "
            "it (your copy stays there)",
        )
        return False
    if rel in run.waiting:
        result.add(
            "skip",
            path,
            f"waiting: the merge of an earlier set's edits is in {run.waiting[rel]}, to settle "
            f"first; then --reapply merges yours from {shown} into it (your copy stays there)",
        )
        return False
    if base is None:
        result.add(
            "conflict",
            path,
            f"no pristine base was saved (installed by an older msd-install, or a project's "
            f"base msd did not ship): merge {shown} by hand or with /msd-reapply-patches",
        )
        return False
    if rel in run.merged:  # a later set for the same file: merge into the earlier merge
        new = run.merged[rel]
    else:
        current = read_plain(path)
        if current is None:
            result.add("conflict", path, "missing: run msd-install to put it back, then --reapply")
            return False
        if sha256_bytes(current) != record["sha256"]:
            if record.get("patched") is None and _copied_in(run, patch_set, rel, current):
                return True
            if os.path.lexists(patch_set.directory / aside(rel)):
                return _aside_before(run, patch_set, rel, current)
            return _merged_before(run, path, record.get("patched"), current, (base, yours))
        new = current
    label = f"{manifest.runtime} {__version__}"
    outcome = merge(base, yours, new, label=label)
    if outcome.content == new:
        result.add("identical", path, "your edits are in this version already")
        return True
    if outcome.conflicts and not markers_live(rel, record.get("mode", 0o644), outcome.content):
        return _set_aside(run, patch_set, rel, outcome.conflicts, (outcome.content, new))
    run.merged[rel] = outcome.content
    if outcome.conflicts:
        result.add(
            "conflict",
            path,
            f"{outcome.conflicts} conflict(s) written between <<<<<<< and >>>>>>> lines: "
            f"edit the file to settle them (your copy stays in {shown})",
        )
        return False
    result.add("update", path, f"your edits from {shown} merged")
    return True


def _merged_before(
    run: Reapply, path: Path, patched: str | None, current: bytes, sides: tuple[bytes, bytes]
) -> bool:
    """The file is not the one the upgrade installed: merged by an earlier --reapply (then
    in place, unless its conflict markers are still there), or changed by you since."""
    result = run.result
    record = run.manifest.files[run.manifest.rel(path)]
    if patched is None:
        result.add(
            "conflict",
            path,
            "changed since the upgrade installed it: nothing written; merge your saved copy "
            "by hand",
        )
        return False
    if patched != sha256_bytes(current):
        if run.done:  # you confirm your version: it is the merged file from now on
            run.settled[run.manifest.rel(path)] = sha256_bytes(current)
        result.add("skip", path, "merged before, and changed by you since: kept")
        return True
    new = run.store.get(record["sha256"])
    again = merge(*sides, new) if new is not None else None
    if again is not None and again.conflicts and has_markers(current):
        result.add("conflict", path, "merged before; its conflict markers are still there")
        return False
    result.add("identical", path, "your edits are merged already")
    return True


def _aside_before(run: Reapply, patch_set: PatchSet, rel: str, current: bytes) -> bool:
    """The file is not the one the upgrade installed, and this set's merge of it was set
    aside by an earlier --reapply: in place when the file is that merge, or what the later
    sets made of it; else (settled, the file still what msd-install last wrote: the earlier
    sets' merge it was made against) installed now. True when it is in place."""
    result, path = run.result, run.manifest.abs(rel)
    copy = patch_set.directory / aside(rel)
    shown = f"{PATCHES_DIR}/{patch_set.name}/{aside(rel)}"
    link = linked(patch_set, aside(rel))
    settled = read_bounded(run.manifest.root, copy, MAX_COPY) if link is None else None
    if settled is not None and _reaches(run, patch_set, rel, settled, current):
        result.add("identical", path, "your edits are merged already")
        return True
    if settled is None or has_markers(settled):
        run.waiting[rel] = shown
        why = link or f"its conflict markers are still there: settle them in {shown}"
        result.add("conflict", path, f"your merge is not installed: {why}")
        return False
    if run.manifest.files[rel].get("patched") != sha256_bytes(current):
        run.waiting[rel] = shown
        result.add(
            "conflict",
            path,
            f"changed since msd-install wrote it, and your settled merge in {shown} is not "
            "installed: nothing written; merge it by hand",
        )
        return False
    run.merged[rel] = settled
    result.add("update", path, f"your settled merge from {shown} installed")
    return True


def _reaches(run: Reapply, patch_set: PatchSet, rel: str, merged: bytes, current: bytes) -> bool:
    """Is ``current`` the merge ``merged``, or what the later sets' merges of ``rel`` (clean,
    or settled in their conflicts/) made of it?"""
    root = run.manifest.root
    for later in run.sets[run.sets.index(patch_set) + 1 :]:
        if merged == current:
            return True
        entry = next((e for e in later.doc["files"] if e["path"] == rel), None)
        if entry is None:
            continue
        base, user = saved_base(root, later, entry), later.directory / entry["user"]
        if base is None or linked(later, entry["user"], aside(rel)) or not os.path.lexists(user):
            return False
        outcome = merge(base, read_bounded(root, user, MAX_COPY), merged)
        copy = later.directory / aside(rel)
        if not outcome.conflicts:
            merged = outcome.content
        elif os.path.lexists(copy):
            merged = read_bounded(root, copy, MAX_COPY)
        else:
            return False
    return merged == current


def _copied_in(run: Reapply, patch_set: PatchSet, rel: str, current: bytes) -> bool:
    """Did you copy your settled merge from ``conflicts/<rel>`` over the file yourself?
    Then it is the merge: recorded as yours, the set done with it."""
    copy = patch_set.directory / aside(rel)
    if linked(patch_set, aside(rel)) is not None or not os.path.lexists(copy):
        return False
    if read_bounded(run.manifest.root, copy, MAX_COPY) != current or has_markers(current):
        return False
    run.settled[rel] = sha256_bytes(current)
    run.result.add("identical", run.manifest.abs(rel), "your settled merge is in place")
    return True


def _set_aside(
    run: Reapply, patch_set: PatchSet, rel: str, count: int, merged: tuple[bytes, bytes]
) -> bool:
    """A conflicted merge of a file the runtime runs or parses (``conflicted``): the new
    version stays live, the merge goes to ``conflicts/<rel>`` in the set; once you have
    settled it there (no marker line left), it is installed. True when it is."""
    result, path = run.result, run.manifest.abs(rel)
    content, new = merged
    copy = patch_set.directory / aside(rel)
    shown = f"{PATCHES_DIR}/{patch_set.name}/{aside(rel)}"
    link = linked(patch_set, aside(rel))
    if link is not None:
        run.waiting[rel] = shown
        result.add("conflict", path, f"not written: {link} on the way to {shown}")
        return False
    settled = None
    if os.path.lexists(copy):  # yours from now on: never overwritten
        settled = read_bounded(run.manifest.root, copy, MAX_COPY)
    if settled is not None and not has_markers(settled):
        if settled == new:
            result.add("identical", path, f"you settled {shown} as this version")
        else:
            run.merged[rel] = settled
            result.add("update", path, f"your settled merge from {shown} installed")
        return True
    if settled is None:
        for directory in missing_dirs(copy, run.planned):
            run.planned.add(directory)
            run.steps.append(MakeDir(directory))
        run.steps.append(Write(copy, content, 0o600))
    run.waiting[rel] = shown
    result.add(
        "conflict",
        path,
        f"{count} conflict(s) between your edits and this version, which stays live (a file "
        f"the runtime runs or parses never gets conflict markers); the merge is in {shown}: "
        "settle the <<<<<<< ... >>>>>>> lines there, then run msd-install --reapply --done",
    )
    return False
