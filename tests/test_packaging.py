"""The package as users meet it: the version, the CLI's exit codes and streams, and
imports that work on systems without POSIX-only modules (Windows has no ``resource``)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from importlib import metadata

import pytest

import memory
import venus
from venus.cli import EXIT_BAD_INPUT, EXIT_USAGE, main


def test_version_comes_from_the_package_metadata(capsys):
    assert venus.__version__ == memory.__version__ == metadata.version("realtime-venus")
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"realtime-venus {venus.__version__}"


def test_usage_errors_exit_2_and_bad_input_exits_3_on_stderr(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "decode", "--no-such-flag"])
    assert exc.value.code == EXIT_USAGE
    assert "arguments are required: file" in capsys.readouterr().err
    assert main(["bench", "decode", str(tmp_path / "missing.mp4")]) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("venus: error:") and "Traceback" not in err


def test_help_lists_the_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "3 bad input" in capsys.readouterr().out


_NO_RESOURCE = textwrap.dedent("""
    import importlib, importlib.abc, pkgutil, sys

    class NoPosixOnly(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "resource":
                raise ImportError("No module named 'resource' (as on Windows)")
            return None

    sys.modules.pop("resource", None)
    sys.meta_path.insert(0, NoPosixOnly())
    failed = []
    for package in ("memory", "venus", "demos"):
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, package + "."):
            if info.name.endswith("__main__"):
                continue
            try:
                importlib.import_module(info.name)
            except ImportError as exc:
                if "resource" in str(exc):
                    failed.append(info.name)
    from venus.cli import build_parser
    build_parser().format_help()
    from venus.bench.report import machine_info, peak_rss_mb
    machine_info(), peak_rss_mb()
    print(failed)
""")


def test_every_module_imports_without_the_resource_module():
    """CI runs on Linux; this stands in for Windows, where ``import resource`` fails."""
    proc = subprocess.run([sys.executable, "-c", _NO_RESOURCE], capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1].replace("'", '"')) == []


def test_doctor_names_every_seam_and_writes_json(tmp_path, capsys):
    code = main(["doctor", "--json", str(tmp_path / "doctor.json")])
    out = capsys.readouterr().out
    doc = json.loads((tmp_path / "doctor.json").read_text())
    names = [s["name"] for s in doc["seams"]]
    assert names == ["torch", "vector index (FAISS)", "speech recognition (Whisper)",
                     "text embedding", "voice activity (Silero VAD)", "OCR (RapidOCR, PP-OCR)",
                     "text to speech (eSpeak NG)", "the assistant's voice",
                     "end of turn (Smart Turn v3.2)", "video decoding"]
    for seam in doc["seams"]:
        assert seam["runs_on"] in out and seam["why"]
    assert code == (1 if doc["problems"] else 0)


def test_doctor_reports_two_faiss_copies_as_a_problem(monkeypatch):
    from venus.cli import doctor

    real = doctor._dist
    monkeypatch.setattr(doctor, "_dist", lambda name: "1.8.0" if name in (
        "faiss-cpu", "faiss-gpu-cu12") else real(name))
    seam = doctor._faiss()
    assert any("both installed" in p for p in seam.problems)


def test_notebooks_are_copied_out_and_never_overwritten(tmp_path, capsys):
    assert main(["notebooks", str(tmp_path / "nb")]) == 0
    copied = sorted(p.name for p in (tmp_path / "nb").glob("*.ipynb"))
    assert copied[0] == "01_quickstart.ipynb" and len(copied) == 5
    assert main(["notebooks", str(tmp_path / "nb")]) == EXIT_BAD_INPUT
    assert "--force" in capsys.readouterr().err
    assert main(["notebooks", str(tmp_path / "nb"), "--force"]) == 0


def test_the_executed_previews_are_copied_out_with_their_outputs(tmp_path):
    import nbformat

    assert main(["notebooks", str(tmp_path / "run"), "--executed"]) == 0
    copied = sorted((tmp_path / "run").glob("*.ipynb"))
    assert copied[0].name == "01_quickstart.ipynb" and len(copied) == 5
    nb = nbformat.read(copied[0], as_version=4)
    assert any(c.outputs for c in nb.cells if c.cell_type == "code")


def test_every_data_file_inside_the_packages_is_declared_package_data():
    """A data file a module reads (the answer benchmark's splits) ships in the wheel only
    when pyproject's package-data names it."""
    import fnmatch
    import tomllib
    from pathlib import Path

    root = Path(memory.__file__).parent.parent
    declared = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]
    missing = []
    for package, globs in declared.items():
        for path in (root / package).rglob("*"):
            rel = path.relative_to(root / package).as_posix()
            if path.is_file() and path.suffix not in (".py", ".pyc") and \
                    "__pycache__" not in rel and \
                    not any(fnmatch.fnmatch(rel, g) for g in globs):
                missing.append(f"{package}/{rel}")
    assert missing == [], "add these to [tool.setuptools.package-data]"
