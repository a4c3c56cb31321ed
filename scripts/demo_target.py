"""`make demo`, second half: the built-in suites through a target file, end to end.

Starts the Riverbend toy as an OpenAI-compatible chat completions server
(`gauntlet toy serve --api openai`) on a free port, points a copy of
examples/targets/openai-toy.yaml at it, runs `gauntlet run --target` and `gauntlet report`
on the answers, and stops the server whatever happens. Exits with the run's exit code.

Run with the project's Python (`.venv/bin/python scripts/demo_target.py [--toy-defect NAME]`).
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "targets" / "openai-toy.yaml"
BUILD = ROOT / "build" / "demo"
"""Where the examples, pointed at this run's port, are kept, so the results name files that
exist."""
READY = re.compile(r"serving .* on (?P<url>http://127\.0\.0\.1:\d+/v1) ")
GAUNTLET = [sys.executable, "-m", "gauntlet"]


class NotServing(Exception):
    """The toy server did not start, or the example could not be pointed at it."""


def gauntlet(*args: str) -> int:
    """Run one gauntlet command in the project's root, echoed first; its exit code."""
    print("$ gauntlet " + " ".join(args), flush=True)
    return subprocess.run([*GAUNTLET, *args], cwd=ROOT, check=False).returncode


@contextmanager
def served(example: Path, *serve_args: str) -> Iterator[Path]:
    """`gauntlet toy serve --api openai SERVE_ARGS` on a free port, and `example` pointed at it.

    Yields the pointed copy, relative to the root; stops the server whatever happens.

    Raises:
        NotServing: the server printed no banner, or `example` has not one base_url line.
    """
    serve = [*GAUNTLET, "toy", "serve", "--api", "openai", "--port", "0", *serve_args]
    server = subprocess.Popen(serve, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        banner = server.stderr.readline()  # printed once the port is bound
        ready = READY.search(banner)
        if ready is None:
            raise NotServing(f"the toy server did not start: {banner or 'no output'}")
        # Keep reading what the server says, so a full pipe never stalls it.
        threading.Thread(target=server.stderr.read, daemon=True).start()
        text, found = re.subn(
            r"(?m)^base_url: .*$", f"base_url: {ready['url']}", example.read_text("utf-8")
        )
        if found != 1:
            raise NotServing(f"{example}: expected one base_url line, found {found}")
        pointed = BUILD / example.name
        pointed.parent.mkdir(parents=True, exist_ok=True)
        pointed.write_text(text, encoding="utf-8")
        yield pointed.relative_to(ROOT)
    finally:
        server.terminate()
        server.wait(timeout=10)


def main(defects: list[str]) -> int:
    """Serve the toy (with `defects`, gauntlet's `--toy-defect` flags), run, report; the code."""
    try:
        with served(EXAMPLE, *defects) as target:
            code = gauntlet(
                "run", "--target", str(target), "--cases", "suites/", "--quiet",
                "--out", "results-openai.json",
            )  # fmt: skip
            if code in (0, 1, 4):  # a results file was written
                reported = gauntlet("report", "results-openai.json", "--out", "evidence-openai.md")
                code = code or reported
            return code
    except NotServing as exc:
        print(exc, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
