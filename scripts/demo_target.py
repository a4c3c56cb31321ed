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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "targets" / "openai-toy.yaml"
TARGET = ROOT / "build" / "demo" / EXAMPLE.name
"""The example, pointed at this run's port; kept, so the results name a file that exists."""
READY = re.compile(r"serving .* on (?P<url>http://127\.0\.0\.1:\d+/v1) ")
GAUNTLET = [sys.executable, "-m", "gauntlet"]


def _gauntlet(*args: str) -> int:
    print("$ gauntlet " + " ".join(args), flush=True)
    return subprocess.run([*GAUNTLET, *args], cwd=ROOT, check=False).returncode


def main(defects: list[str]) -> int:
    """Serve the toy (with `defects`, gauntlet's `--toy-defect` flags), run, report; the code."""
    serve = [*GAUNTLET, "toy", "serve", "--api", "openai", "--port", "0", *defects]
    server = subprocess.Popen(serve, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        banner = server.stderr.readline()  # printed once the port is bound
        ready = READY.search(banner)
        if ready is None:
            print(f"the toy server did not start: {banner or 'no output'}", file=sys.stderr)
            return 2
        # Keep reading what the server says, so a full pipe never stalls it.
        threading.Thread(target=server.stderr.read, daemon=True).start()
        text, found = re.subn(
            r"(?m)^base_url: .*$", f"base_url: {ready['url']}", EXAMPLE.read_text("utf-8")
        )
        if found != 1:
            print(f"{EXAMPLE}: expected one base_url line, found {found}", file=sys.stderr)
            return 2
        TARGET.parent.mkdir(parents=True, exist_ok=True)
        TARGET.write_text(text, encoding="utf-8")
        code = _gauntlet(
            "run", "--target", str(TARGET.relative_to(ROOT)), "--cases", "suites/", "--quiet",
            "--out", "results-openai.json",
        )  # fmt: skip
        if code in (0, 1, 4):  # a results file was written
            reported = _gauntlet("report", "results-openai.json", "--out", "evidence-openai.md")
            code = code or reported
        return code
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
