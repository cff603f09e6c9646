"""The package's own PEP 517 build backend, standard library only.

``pip install .`` (from a checkout) and ``npm run clients:pack`` (which calls build_wheel and
build_sdist) need neither setuptools nor a network. Wheels follow PEP 427, sdists PEP 517/625; both
are reproducible (fixed timestamps and modes, sorted entries), so a rebuild gives the same bytes and
the same SHA-256.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import os
import re
import tarfile
import zipfile
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "invoicing_partner_api"
NAME = "invoicing-partner-api"
SUMMARY = (
    "Official Python client of the Partner API v1 of the invoicing service (Mozambique): retries, "
    "idempotency, pacing, pagination, exact money, webhook verification"
)
REQUIRES_PYTHON = ">=3.9"
CLASSIFIERS = (
    "Programming Language :: Python :: 3",
    "Operating System :: OS Independent",
    "Typing :: Typed",
)
TAG = "py3-none-any"
# 1980-01-01, the earliest time a zip entry can carry.
FIXED_TIME = (1980, 1, 1, 0, 0, 0)
FIXED_EPOCH = 315532800
SDIST_FILES = ("README.md", "pyproject.toml", "_build/partner_api_build.py")


def version() -> str:
    with open(os.path.join(ROOT, PACKAGE, "client.py"), encoding="utf-8") as source:
        match = re.search(r'^__version__ = "([^"]+)"$', source.read(), re.MULTILINE)
    if not match:
        raise RuntimeError(f"no __version__ in {PACKAGE}/client.py")
    return match.group(1)


def _dist_name() -> str:
    return f"{PACKAGE}-{version()}"


def _package_files() -> List[str]:
    """The package's files, relative to ROOT, sorted: its .py files, py.typed and the offline queue's
    schema (a link to the PHP client's: both read one file, and the wheel holds its text)."""
    found = []
    for folder, dirs, files in os.walk(os.path.join(ROOT, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in files:
            if name.endswith((".py", ".sql")) or name == "py.typed":
                found.append(os.path.relpath(os.path.join(folder, name), ROOT).replace(os.sep, "/"))
    return sorted(found)


def _read(relative: str) -> bytes:
    with open(os.path.join(ROOT, relative), "rb") as source:
        return source.read()


def metadata() -> str:
    """Core metadata 2.1 (METADATA in a wheel, PKG-INFO in an sdist), with the README as description."""
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {version()}",
        f"Summary: {SUMMARY}",
        f"Requires-Python: {REQUIRES_PYTHON}",
        "License: Proprietary",
        *(f"Classifier: {classifier}" for classifier in CLASSIFIERS),
        "Description-Content-Type: text/markdown",
        "",
        _read("README.md").decode("utf-8"),
    ]
    return "\n".join(lines)


def _wheel_file() -> str:
    return "\n".join(
        ["Wheel-Version: 1.0", "Generator: partner_api_build", "Root-Is-Purelib: true", f"Tag: {TAG}", ""]
    )


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{path},sha256={digest},{len(data)}"


def _write_zip(target: str, entries: List[Tuple[str, bytes]]) -> None:
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, data in entries:
            info = zipfile.ZipInfo(path, date_time=FIXED_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)


def _wheel(wheel_directory: str, files: List[Tuple[str, bytes]]) -> str:
    dist_info = f"{_dist_name()}.dist-info"
    entries = list(files)
    entries.append((f"{dist_info}/METADATA", metadata().encode("utf-8")))
    entries.append((f"{dist_info}/WHEEL", _wheel_file().encode("utf-8")))
    record = [_record_line(path, data) for path, data in entries]
    record.append(f"{dist_info}/RECORD,,")
    entries.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode("utf-8")))
    basename = f"{_dist_name()}-{TAG}.whl"
    os.makedirs(wheel_directory, exist_ok=True)
    _write_zip(os.path.join(wheel_directory, basename), entries)
    return basename


# PEP 517 hooks.


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, object]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, object]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, object]] = None) -> List[str]:
    return []


def build_wheel(
    wheel_directory: str,
    config_settings: Optional[Dict[str, object]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    return _wheel(wheel_directory, [(path, _read(path)) for path in _package_files()])


def build_editable(
    wheel_directory: str,
    config_settings: Optional[Dict[str, object]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    """PEP 660: a wheel whose .pth file puts this checkout on sys.path (``pip install -e .``)."""
    return _wheel(wheel_directory, [(f"{PACKAGE}.pth", (ROOT + "\n").encode("utf-8"))])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, object]] = None) -> str:
    top = _dist_name()
    members = [(f"{top}/PKG-INFO", metadata().encode("utf-8"))]
    for path in sorted(set(SDIST_FILES) | set(_package_files())):
        members.append((f"{top}/{path}", _read(path)))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for path, data in sorted(members):
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mtime = FIXED_EPOCH
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            archive.addfile(info, io.BytesIO(data))
    basename = f"{top}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    with open(os.path.join(sdist_directory, basename), "wb") as target:
        with gzip.GzipFile(filename="", mode="wb", fileobj=target, mtime=0) as compressed:
            compressed.write(buffer.getvalue())
    return basename


if __name__ == "__main__":
    # python3 _build/partner_api_build.py OUT_DIR: the wheel and the sdist into OUT_DIR.
    import sys

    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "dist")
    print(os.path.join(out, build_wheel(out)))
    print(os.path.join(out, build_sdist(out)))
