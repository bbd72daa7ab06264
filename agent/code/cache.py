"""Tags of files kept between sessions: one SQLite database in the user's cache directory
(`<cache dir>/code-tags.sqlite`, never inside a repository), a row per file keyed by its
absolute path and checked against its mtime, size and the grammar's version.

SQLite in WAL mode makes concurrent sessions safe (readers never block, writers take turns
with a timeout). A cache that cannot be opened, is locked too long or is corrupt only costs
speed: it is set aside (a corrupt file is replaced) and the tags are made again in memory.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from agent.config.statedir import cache_home

FILE = "code-tags.sqlite"
SCHEMA = 1  # bump when the stored form or the queries change
MAX_AGE = 60 * 86400  # rows not rewritten for this long go (a file deleted or moved away)
Row = tuple[int, int, str, str]  # mtime_ns, size, version, data (JSON)


class TagCache:
    """The database; `path` None keeps nothing (tests, or a cache that failed)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.problem = ""

    @classmethod
    def default(cls) -> TagCache:
        return cls(cache_home() / FILE)

    def _connect(self) -> sqlite3.Connection | None:
        if self.path is None:
            return None
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            return self._open()
        except sqlite3.DatabaseError as exc:
            if "not a database" in str(exc) or "malformed" in str(exc):
                try:  # corrupt: start again (it only holds what can be made again)
                    self.path.unlink()
                    return self._open()
                except (OSError, sqlite3.Error) as again:
                    exc = again  # type: ignore[assignment]
            self._give_up(exc)
        except (OSError, sqlite3.Error) as exc:
            self._give_up(exc)
        return None

    def _open(self) -> sqlite3.Connection:
        assert self.path is not None
        fresh = not self.path.exists()
        db = sqlite3.connect(self.path, timeout=5.0)
        if fresh:
            os.chmod(self.path, 0o600)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS tags (path TEXT PRIMARY KEY, mtime INTEGER, "
            "size INTEGER, ver TEXT, stored INTEGER, data TEXT)"
        )
        return db

    def _give_up(self, exc: BaseException) -> None:
        self.problem = f"code cache {self.path}: {exc}"
        self.path = None

    def load(self, folder: str) -> dict[str, Row]:
        """Every stored row below `folder` (an absolute path), or of that one file."""
        db = self._connect()
        if db is None:
            return {}
        below = folder.rstrip("/") + "/"
        try:
            with db:
                rows = db.execute(
                    "SELECT path, mtime, size, ver, data FROM tags "
                    "WHERE (path >= ? AND path < ?) OR path = ?",
                    (below, below[:-1] + "0", folder),
                ).fetchall()
        except sqlite3.Error as exc:
            self._give_up(exc)
            return {}
        finally:
            db.close()
        return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}

    def store(self, rows: list[tuple[str, Row]]) -> None:
        """Write rows in one transaction (and drop rows nobody rewrote for MAX_AGE)."""
        if not rows:
            return
        db = self._connect()
        if db is None:
            return
        now = int(time.time())
        try:
            with db:
                db.executemany(
                    "INSERT OR REPLACE INTO tags VALUES (?, ?, ?, ?, ?, ?)",
                    [(p, m, s, v, now, d) for p, (m, s, v, d) in rows],
                )
                if now % 16 == 0:  # now and then: a full scan, cheap next to a parse
                    db.execute("DELETE FROM tags WHERE stored < ?", (now - MAX_AGE,))
        except sqlite3.Error as exc:
            self._give_up(exc)
        finally:
            db.close()
