"""A PostgreSQL server of the tests' own: a cluster made by Debian's initdb in a temporary folder,
listening only on a unix socket there, started with ``pg_ctl -w`` (which returns once it accepts
connections) and stopped fast at the end. As root, it runs as the ``postgres`` user."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path


def binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


class Cluster:
    def __init__(self):
        self.bin = binaries()
        if self.bin is None:
            raise RuntimeError("PostgreSQL is not installed (make install puts Debian's postgresql package in)")
        self.top = Path(tempfile.mkdtemp(prefix="ellibir-pg-"))
        self.data, self.socket = self.top / "data", self.top / "socket"
        self.socket.mkdir()
        self.user = None
        if os.geteuid() == 0:  # initdb refuses root
            self.user = pwd.getpwnam("postgres")
            os.chmod(self.top, 0o755)
            os.chown(self.socket, self.user.pw_uid, self.user.pw_gid)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "ellibir", "-E", "UTF8", "--no-sync",
                  "--no-instructions", cwd_owned=True)
        options = f"-k {self.socket} -c listen_addresses='' -c fsync=off -c full_page_writes=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.top / "log"), "-w", "start")

    def _run(self, tool: str, *args: str, cwd_owned: bool = False) -> None:
        command = [str(self.bin / tool), *args]
        if self.user is not None:
            if cwd_owned:
                self.data.mkdir()
                os.chown(self.data, self.user.pw_uid, self.user.pw_gid)
                os.chown(self.top, self.user.pw_uid, self.user.pw_gid)
            command = ["setpriv", f"--reuid={self.user.pw_uid}", f"--regid={self.user.pw_gid}", "--clear-groups",
                       *command]
        subprocess.run(command, check=True, capture_output=True, cwd=self.top, timeout=120)

    def new_database(self) -> str:
        """A fresh database; its SQLAlchemy URL."""
        import psycopg

        name = f"t{uuid.uuid4().hex[:12]}"
        with psycopg.connect(f"host={self.socket} user=ellibir dbname=postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://ellibir@/{name}?host={self.socket}"

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.top, ignore_errors=True)
