"""`make demo-history`: a run history of the toy getting worse, built through the real CLI.

Thirteen runs of the built-in suites as written (`--no-transforms`: the history shows answers
drifting, which their transformed variants would only repeat at six times the cost), each asked
three times (`--repeat 3`), each appended to build/history/history.sqlite (made afresh) with
`--label commit=... --label run=N`:

1. five healthy runs;
2. seven runs in which `answer_drift` creeps in (scripts/flaky_toy.py): a growing share of
   asks answered by the drifting toy, flaky at first (some asks of a golden case pass, some
   fail), then failing golden cases outright;
3. one run of the toy with a defect of another gate (`--toy-defect drop_citations`).

Every run's clock is real. Then it prints `gauntlet history list` and two trends (the golden
gate; grounding in Spanish), each run judged against the runs before it, writes the last
run's evidence pack with its Trends section (`gauntlet report --history`) and prints that
section, and builds the dashboard in build/history/site. It exits 0 when every run exited 0 or 1 and the history holds all thirteen.

Run with the project's Python (`.venv/bin/python scripts/demo_history.py`). `--no-dashboard`
leaves the dashboard out: `make pages` builds the site from this history itself, so building it
here too would only repeat a site build (the toy run twice) in every CI run.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "history"
HISTORY = OUT / "history.sqlite"
GAUNTLET = [sys.executable, "-m", "gauntlet"]
HEALTHY = 5
DRIFT = (0.04, 0.08, 0.12, 0.18, 0.25, 0.35, 0.5)
"""The share of asks answered with `answer_drift` in each drifting run, growing."""


def gauntlet(*args: str, env: dict[str, str] | None = None, show: bool = True) -> int:
    """Run one gauntlet command in the project's root, echoed first; its exit code."""
    if show:
        print("$ gauntlet " + " ".join(args), flush=True)
    done = subprocess.run(
        [*GAUNTLET, *args],
        cwd=ROOT,
        check=False,
        env={**os.environ, **(env or {})},
        capture_output=not show,
        text=True,
    )
    return done.returncode


def commit(number: int) -> str:
    """A made-up commit id for run `number`, so the runs are told apart in the history."""
    return hashlib.sha1(f"demo-history-{number}".encode(), usedforsecurity=False).hexdigest()[:7]


def main(argv: list[str] | None = None) -> int:
    """Build the history, print it; 0 when every run landed as described."""
    parser = argparse.ArgumentParser(description="Build the demo run history of the toy.")
    parser.add_argument(
        "--no-dashboard",
        action="store_true",
        help="do not build the dashboard into build/history/site (make pages builds its own)",
    )
    dashboard = not parser.parse_args(argv).no_dashboard
    OUT.mkdir(parents=True, exist_ok=True)
    for stale in OUT.glob("history.sqlite*"):
        stale.unlink()
    flaky = ["--callable", "scripts.flaky_toy:make_target"]
    plan: list[tuple[str, list[str], dict[str, str]]] = [
        *(("healthy", flaky, {"GAUNTLET_DEMO_DRIFT": "0"}) for _ in range(HEALTHY)),
        *((f"drift {share:.0%}", flaky, {"GAUNTLET_DEMO_DRIFT": str(share)}) for share in DRIFT),
    ]
    plan.append(("defect drop_citations", ["--toy-defect", "drop_citations"], {}))
    codes = []
    for number, (what, target, env) in enumerate(plan, start=1):
        env = {**env, "GAUNTLET_DEMO_SEED": str(number)}
        print(f"-- run {number}: {what}", flush=True)
        code = gauntlet(
            "run", *target, "--no-transforms", "--repeat", "3", "--quiet",
            "--out", str((OUT / f"results-{number:02d}.json").relative_to(ROOT)),
            "--history", str(HISTORY.relative_to(ROOT)),
            "--label", f"commit={commit(number)}", "--label", f"run={number}",
            env=env, show=False,
        )  # fmt: skip
        print(f"   exit {code}", flush=True)
        codes.append(code)
    history = str(HISTORY.relative_to(ROOT))
    gauntlet("history", "list", "--history", history)
    gauntlet("history", "trend", "--gate", "golden", "--history", history)
    gauntlet("history", "trend", "--gate", "grounding", "--language", "es", "--history", history)
    last = str((OUT / f"results-{len(plan):02d}.json").relative_to(ROOT))
    evidence = OUT / "evidence-trends.md"
    if gauntlet("report", last, "--history", history, "--out", str(evidence.relative_to(ROOT))):
        print("the last run's report could not be written")
        return 1
    markdown = evidence.read_text(encoding="utf-8").splitlines()
    start = markdown.index("## Trends")
    end = next(
        (n for n in range(start + 1, len(markdown)) if markdown[n].startswith(("## ", "### Not"))),
        None,
    )
    print("\n".join(line for line in markdown[start:end] if line.strip()), flush=True)
    print(f"(the trends not flagged follow in {evidence.relative_to(ROOT)})", flush=True)
    site = str((OUT / "site").relative_to(ROOT))
    if dashboard and gauntlet("site", "--history", history, "--out", site):
        print("the dashboard could not be built")
        return 1
    if any(code not in (0, 1) for code in codes):
        print(f"expected every run to exit 0 or 1, got {codes}")
        return 1
    stored = subprocess.run(
        [*GAUNTLET, "history", "list", "--history", history],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if len(stored.stdout.splitlines()) != len(plan) + 1:
        print(f"expected {len(plan)} runs in {history}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
