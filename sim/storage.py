"""What a command does to the place it writes besides the run format (``sim.runformat``): a run's
driver proves its --out writable, claims it with a lock file (local paths) and sweeps up the
temporary files an interrupted write left behind; every command that writes an output folder (a
report, a comparison, a sweep's report, a frontier, a skill study) claims it and writes it whole
through ``write_whole`` (``claim_output``), the one rule for what may be replaced and how.
"""
from __future__ import annotations

import contextlib
import json
import os
import posixpath
import shutil
import socket
import time
import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import pyarrow as pa
import pyarrow.fs as pafs

from .errors import UserError
from .runformat import SHARD_DIRS, TEMP_PREFIX, RunLocation, list_root

LOCK_NAME = ".lock"  # a local run's lock file while a driver writes it (see acquire_lock)


def reason_of(e: BaseException) -> str:
    """The operating system's words for a failed write ("Read-only file system"), from an OSError or
    pyarrow's wording of one."""
    text = getattr(e, "strerror", None) or str(e)
    if "] " in text and "[errno" in text:
        text = text.rsplit("] ", 1)[1]
    return text.strip() or type(e).__name__


def ensure_writable(loc: RunLocation, flag: str = "--out") -> None:
    """Create the output directory and prove a file can be written there; UserError (naming ``flag``)
    if not."""
    fs, out = loc.fs, loc.uri
    probe = loc.path(f"{TEMP_PREFIX}probe.{uuid.uuid4().hex[:12]}")
    try:
        fs.create_dir(loc.root, recursive=True)
        with fs.open_output_stream(probe) as f:
            f.write(b"kalooki-lab write probe\n")
        fs.delete_file(probe)
    except (OSError, pa.ArrowException) as e:
        raise UserError(f"{flag} {out!r} is not writable ({reason_of(e)}); choose a directory you can write to") from None


def refuse_unwritable(loc: RunLocation, flag: str = "--out") -> None:
    """``ensure_writable`` for a local --out that leaves nothing behind (the directories it made are
    removed again, each only while empty): a run refuses an unwritable --out before it loads kernels or
    starts Ray.  Other filesystems are proved writable once Ray has started (``ensure_writable``)."""
    if not isinstance(loc.fs, pafs.LocalFileSystem):
        return
    made, path = [], loc.root
    while not os.path.exists(path) and os.path.dirname(path) != path:
        made.append(path)
        path = os.path.dirname(path)
    ensure_writable(loc, flag)
    for path in made:  # deepest first
        with contextlib.suppress(OSError):
            os.rmdir(path)


def is_dir_empty_or_missing(loc: RunLocation) -> bool:
    """No directory, or one holding nothing but a lock file left by an interrupted driver and the
    run's studies (``STUDY_DIRS``, and their hidden staging folders): a run may be played into a
    folder whose frontier, skill or ladder study was written first."""
    info = loc.fs.get_file_info(loc.root)
    if info.type == pafs.FileType.NotFound:
        return True
    if info.type != pafs.FileType.Directory:
        return False
    studies = set(STUDY_DIRS) | {f".{d}.partial" for d in STUDY_DIRS}
    return all(i.base_name == LOCK_NAME or i.type == pafs.FileType.Directory and
               (i.base_name in studies or any(i.base_name.startswith(f".{d}.") for d in STUDY_DIRS))
               for i in list_root(loc))


def acquire_lock(loc: RunLocation, flag: str = "--out") -> str | None:
    """Claim a local --out for this driver with a lock file naming it, so that two drivers never
    write one run at once; the lock's path, or None for a URI (its filesystem gives no atomic
    create-if-absent).  A lock whose process no longer runs on this machine is taken over; one held
    by a live process, or by another machine, is a UserError."""
    if not loc.is_local:
        return None
    out = loc.uri
    path = os.path.join(loc.root, LOCK_NAME)
    mine = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    for _ in range(3):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            holder = _lock_holder(path)
            if holder is None:
                continue  # gone or stale (removed): try again
            raise UserError(f"{flag} {out!r} is being written by another kalooki simulate (pid {holder.get('pid')} "
                            f"on {holder.get('host')} since {holder.get('since')}); wait for it to finish or choose "
                            f"another --out. If that process is gone, delete {path}") from None
        except OSError as e:
            raise UserError(f"{flag} {out!r}: cannot create the lock file {path}: {e}") from None
        with os.fdopen(fd, "w") as f:
            json.dump(mine, f)
        return path
    raise UserError(f"{flag} {out!r}: could not take the lock file {path}; is another driver starting there?")


def _lock_holder(path: str) -> dict | None:
    """Who holds the lock at path, or None after removing a stale one (or if it is gone)."""
    try:
        with open(path) as f:
            text = f.read()
        age = time.time() - os.path.getmtime(path)
    except FileNotFoundError:
        return None
    try:
        holder = json.loads(text)
        pid, host = int(holder["pid"]), str(holder["host"])
    except (ValueError, KeyError, TypeError):
        if age < 30:
            return {"pid": "?", "host": "?", "since": "just now"}  # being written by a driver starting now
        holder, pid, host = None, None, None  # unreadable and old: stale
    if holder is not None and (host != socket.gethostname() or _alive(pid)):
        return holder
    try:
        os.remove(path)
    except FileNotFoundError:
        pass
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, owned by someone else
    return True


def release_lock(path: str | None) -> None:
    """Remove this driver's lock file (if it is still ours)."""
    if path is None:
        return
    try:
        with open(path) as f:
            if json.load(f).get("pid") != os.getpid():
                return
        os.remove(path)
    except (OSError, ValueError):
        pass


def remove_temp_files(loc: RunLocation, dirs=SHARD_DIRS) -> int:
    """Delete every leftover temporary file of an interrupted write; how many were deleted."""
    fs = loc.fs
    removed = 0
    candidates = []
    try:
        candidates += list_root(loc)
        for d in dirs:
            candidates += fs.get_file_info(pafs.FileSelector(loc.path(d), recursive=True, allow_not_found=True))
    except (OSError, pa.ArrowException):
        return 0
    for info in candidates:
        if info.type == pafs.FileType.File and info.base_name.startswith(TEMP_PREFIX):
            try:
                fs.delete_file(info.path)
                removed += 1
            except (OSError, pa.ArrowException):
                pass
    return removed


# ----------------------------------------------------------------------------------------------
# a folder written whole: the one rule of every command that writes an output folder

NEW, SAME, REPLACE = "new", "same", "replace"  # what claim_output found at --out
STUDY_DIRS = ("frontier", "skill", "ladder")  # a run's studies, kept in these subfolders of its folder
DIFFERENCES_SHOWN = 4  # settings named in a refusal, then "and N more"
VALUE_SHOWN = 24  # a setting's value is shown when its JSON is this short, else only its name


def differences(found: dict, mine: dict) -> list[str]:
    """The settings that differ between ``found`` and ``mine``, each "key: A there, B now" (only
    "key" where a value is long), in ``mine``'s order."""
    out = []
    for key in list(mine) + [k for k in found if k not in mine]:
        a, b = found.get(key), mine.get(key)
        if a == b:
            continue
        ja, jb = json.dumps(a), json.dumps(b)
        out.append(f"{key}: {ja} there, {jb} now" if len(ja) + len(jb) <= 2 * VALUE_SHOWN else str(key))
    return out


def differences_text(diffs: list[str]) -> str:
    """At most DIFFERENCES_SHOWN settings, "; "-separated, then how many more differ."""
    shown = "; ".join(diffs[:DIFFERENCES_SHOWN])
    return shown + (f"; and {len(diffs) - DIFFERENCES_SHOWN} more" if len(diffs) > DIFFERENCES_SHOWN else "")


def sibling(loc: RunLocation, label: str) -> RunLocation:
    """The hidden folder ``.NAME.LABEL`` beside ``loc`` (NAME its last component), on its filesystem."""
    name = posixpath.basename(loc.root.rstrip("/"))
    root = posixpath.join(posixpath.dirname(loc.root.rstrip("/")), f".{name}.{label}")
    if "://" in loc.uri:
        parts = urlsplit(loc.uri)
        path = parts.path.rstrip("/")
        uri = urlunsplit(parts._replace(path=posixpath.join(posixpath.dirname(path), f".{name}.{label}")))
    else:
        uri = os.path.join(os.path.dirname(os.path.abspath(loc.uri)), f".{name}.{label}")
    return RunLocation(uri, loc.fs, root)


def _tree_files(loc: RunLocation) -> list[str]:
    """Every file under ``loc``, as paths relative to it."""
    infos = loc.fs.get_file_info(pafs.FileSelector(loc.root, recursive=True, allow_not_found=True))
    return sorted(i.path[len(loc.root.rstrip("/")) + 1:] for i in infos if i.type == pafs.FileType.File)


def _is_empty(loc: RunLocation) -> bool:
    return not [i for i in list_root(loc) if i.base_name != LOCK_NAME]


@dataclass
class Output:
    """An output folder claimed by ``claim_output``: ``final`` the folder the user named, ``staging`` the
    hidden sibling it is written in, ``path`` where the command writes (the staging folder, or
    ``final`` itself when a study is updated in place), ``state`` NEW, SAME or REPLACE, ``found`` the
    mark found there and ``changes`` its settings (or, replaced, its identity) that differ."""
    final: RunLocation
    staging: RunLocation
    kind: str
    state: str
    found: dict | None
    changes: list
    flag: str
    in_place: bool = False

    @property
    def path(self) -> str:
        return self.final.uri if self.in_place else self.staging.uri

    def replacing_line(self) -> str | None:
        """The line that says an existing output is being replaced (None when nothing is)."""
        if self.in_place or self.state == NEW:
            return None
        about = (self.found or {}).get("about") or f"the {self.kind}"
        if self.state == REPLACE:
            why = "--force" + (f": {differences_text(self.changes)}" if self.changes else "")
            return f"replacing {about} in {self.final.uri} ({why})"
        return f"replacing {about} in {self.final.uri} ({differences_text(self.changes)})" if self.changes else None

    def prepare(self, keep: bool) -> None:
        """Create the staging folder (``keep``: an earlier one of a stopped run is resumed, else it is
        removed first); UserError when the place cannot be written."""
        if self.in_place:
            return
        if not keep:
            remove_tree(self.staging)
        fs, probe = self.staging.fs, self.staging.path(f"{TEMP_PREFIX}probe.{uuid.uuid4().hex[:12]}")
        try:
            fs.create_dir(self.staging.root, recursive=True)
            with fs.open_output_stream(probe) as f:
                f.write(b"")
            fs.delete_file(probe)
        except (OSError, pa.ArrowException) as e:
            raise UserError(f"{self.flag} {self.final.uri}: cannot write there ({reason_of(e)}); choose a folder "
                            "you can write to") from None

    def publish(self) -> None:
        """Move the staging folder into place.  On a local filesystem the old folder is renamed aside,
        the new one renamed in and the old one deleted, so a stop leaves the old or the new whole.  On an
        object store, which cannot rename a folder, the old files are deleted and the new ones moved in
        one by one with the marks (``LAST_NAMES``) last, so a reader never takes a mix for a study."""
        if self.in_place:
            return
        fs, final, staging = self.final.fs, self.final, self.staging
        if final.is_local:
            aside = sibling(final, f"replaced-{uuid.uuid4().hex[:12]}")
            had_old = os.path.lexists(final.root)
            if had_old:
                os.rename(final.root, aside.root)
            try:
                os.makedirs(os.path.dirname(final.root), exist_ok=True)
                os.rename(staging.root, final.root)
            except BaseException:
                if had_old and not os.path.lexists(final.root):
                    os.rename(aside.root, final.root)
                raise
            if had_old:
                shutil.rmtree(aside.root, ignore_errors=True)
            return
        files = _tree_files(staging)
        files.sort(key=lambda rel: (_base_name(rel) in LAST_NAMES, rel.count("/") == 0, rel))
        if self.final.fs.get_file_info(final.root).type == pafs.FileType.Directory:
            fs.delete_dir_contents(final.root, missing_dir_ok=True)
        for rel in files:
            dest = final.path(rel)
            fs.create_dir(dest.rsplit("/", 1)[0], recursive=True)
            fs.move(staging.path(rel), dest)
        remove_tree(staging)

    def discard(self) -> None:
        if not self.in_place:
            remove_tree(self.staging)


# The files that mark a folder as an output of this tool: moved last on an object store.
LAST_NAMES = ("manifest.json", "frontier.json", "skill.json", ".kalooki-report.json")


def _base_name(rel: str) -> str:
    return rel.rsplit("/", 1)[-1]


def remove_tree(loc: RunLocation) -> None:
    """Delete the folder ``loc`` and everything under it (nothing when it is not there)."""
    try:
        if loc.fs.get_file_info(loc.root).type == pafs.FileType.Directory:
            loc.fs.delete_dir(loc.root)
    except (OSError, pa.ArrowException):
        pass  # what cannot be deleted stays in a hidden folder (.NAME.partial...), apart from any output


def claim_output(out, kind: str, identity: dict, *, read_mark, about: str | None = None, settings: dict | None = None,
                 force: bool = False, flag: str = "--out", update_in_place: bool = False,
                 staging_label: str | None = None, mark_name: str | None = None) -> Output:
    """Decide what a command that writes the folder ``out`` (a local path or a URI) may do there:
    the one rule of every command that writes a report, a comparison, a sweep's report or a study.

    ``read_mark(loc)`` says what a folder holds: None when no output of this tool marked it, else a
    dict with ``kind``, ``identity`` (what makes two outputs the same: their runs, a study's
    profiles, games and seed), ``settings`` (what may change when it is written again, e.g. the
    bootstrap's replicates) and ``about`` (words for it: "the report of run(s) 1a2b").  Found there:

    - nothing, or an empty folder: NEW;
    - a mark of this ``kind`` and ``identity``: SAME (``changes``: the ``settings`` that differ);
    - anything else (another kind, another identity, files no output of this tool marked): a
      UserError of one line naming what is there and what differs, unless ``force``: REPLACE;
    - a run (manifest.json) that ``read_mark`` does not take for this kind: a UserError even with
      ``force``, since a run's data are never replaced by an output.

    The command writes the whole folder in ``Output.path``: a hidden sibling (``.NAME.LABEL``,
    ``staging_label`` or a fresh one; a fixed label lets a stopped study resume there) that
    ``Output.publish`` moves into place when it is complete, so a stop never leaves half an output
    and never loses the old one.  With ``update_in_place`` a SAME study is updated where it is
    (it resumes or adds to itself: the command writes its document last).  ``write_whole`` wraps this
    for a command."""
    from .runformat import MANIFEST_NAME, check_reachable, kind as kind_of, locate, read_bytes
    loc = locate(out, flag)
    check_reachable(loc, flag)
    found_type = kind_of(loc, flag)
    mine_about = about or f"the {kind}"
    label = staging_label or f"partial-{uuid.uuid4().hex[:12]}"
    output = lambda state, found=None, changes=(): Output(loc, sibling(loc, label), kind, state, found, list(changes),
                                                          flag, in_place=update_in_place and state == SAME)
    if found_type == pafs.FileType.File:
        raise UserError(f"{flag} {out} is a file; give a folder for the {kind}")
    if found_type == pafs.FileType.Unknown:
        raise UserError(f"{flag} {out} cannot be read; give a folder you can read and write")
    if found_type == pafs.FileType.NotFound or _is_empty(loc):
        return output(NEW)
    try:
        found = read_mark(loc)
    except (OSError, pa.ArrowException, ValueError):
        found = None
    if found is None:
        try:
            is_run = read_bytes(loc.fs, loc.path(MANIFEST_NAME)) is not None
        except (OSError, pa.ArrowException):
            is_run = False
        if is_run:
            raise UserError(f"{flag} {out} holds a run (manifest.json); a {kind} never replaces a run's data: "
                            f"choose another {flag}")
        held = f"files no kalooki {kind} marked as its own" + (f" ({mark_name})" if mark_name else "")
        changes = []
    else:
        changes = differences(found.get("identity") or {}, identity) if found.get("kind") == kind else []
        if found.get("kind") == kind and not changes:
            return output(SAME, found, differences(found.get("settings") or {}, settings or {}))
        held = found.get("about") or f"a {found.get('kind')}"
    changes = [c for c in changes if not c.startswith("run_id")] or changes  # the settings say more than a hash
    if not force:
        if changes and held == mine_about:
            held += f" of other settings ({differences_text(changes)})"
        else:
            held += f", not {mine_about}"
        raise UserError(f"{flag} {out} already holds {held}; choose another {flag}, or add --force to replace it")
    return output(REPLACE, found if found is not None else {"about": held}, changes)


@contextlib.contextmanager
def write_whole(out, kind: str, identity: dict, *, read_mark, about: str | None = None, settings=None,
                force: bool = False, flag: str = "--out", log=None, resumable: bool = False,
                update_in_place: bool = False, mark_name: str | None = None):
    """``claim_output`` for a command: yields the ``Output`` whose ``path`` the command writes; when the
    block ends the staging folder is published (with a line to ``log`` when an output is replaced).
    A stop or an error removes the staging folder (kept with ``resumable``, under a fixed name, for the
    same command to resume) and leaves ``out`` as it was; an OSError of the block is a UserError."""
    output = claim_output(out, kind, identity, read_mark=read_mark, about=about, settings=settings, force=force,
                          flag=flag, update_in_place=update_in_place, mark_name=mark_name,
                          staging_label="partial" if resumable else None)
    output.prepare(keep=resumable)
    try:
        yield output
        line = output.replacing_line()
        output.publish()
        if line and log is not None:
            log(line)
    except OSError as e:
        if not resumable:
            output.discard()
        raise UserError(f"writing the {kind} to {flag} {out} failed ({reason_of(e)}); {out} is as it was") from None
    except BaseException:
        if not resumable:
            output.discard()
        raise


def claim_study(out, kind: str, identity: dict, *, read_mark, about: str, force: bool = False,
                flag: str = "--out") -> Output:
    """``claim_output`` for a study that is played before it is written (a frontier, a skill study):
    one of the same ``identity`` is updated in place (``Output.in_place``: the command resumes or adds
    to it and writes its document last); a new one, or one replacing another with ``force``, is played
    in the hidden ``.NAME.partial`` beside ``out``, which the same command resumes after a stop (an
    unfinished study of other settings there is refused unless ``force``), and ``Output.publish``
    moves it into place once complete.  The staging folder is created here (UserError when it cannot
    be written)."""
    output = claim_output(out, kind, identity, read_mark=read_mark, about=about, force=force, flag=flag,
                          update_in_place=True, staging_label="partial")
    if not output.in_place:
        partial = claim_output(output.staging.uri, kind, identity, read_mark=read_mark, flag=flag,
                               about=about, force=force, update_in_place=True)
        if partial.state == REPLACE:
            remove_tree(partial.final)
        output.prepare(keep=True)
    return output
