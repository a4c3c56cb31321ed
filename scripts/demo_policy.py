"""`make demo`, last part: language parity and a waiver, on a toy that fails in Spanish only.

The toy is built with `spanish_uncited`: its Spanish grounded answers cite nothing, so six
grounding pairs differ (English passes, Spanish fails) and the grounding suite, which requires
parity, fails. A waivers file written here (dated from today, so the demo never goes stale)
waives two of the six Spanish failures, as a team shipping with two known gaps would. The run
is expected to FAIL (exit 1): four failures are not waived. The script prints the verdict, the
grounding parity table and the Waivers section of the evidence pack it writes
(`evidence-policy.md`), and exits 0 only when the run came out as described.

Run with the project's Python (`.venv/bin/python scripts/demo_policy.py`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WAIVERS = ROOT / "build" / "demo" / "waivers.yaml"
RESULTS = "results-policy.json"
EVIDENCE = "evidence-policy.md"
GAUNTLET = [sys.executable, "-m", "gauntlet"]
WAIVED = ("gnd-es-pool-hours", "gnd-es-housing-apply")
"""The Spanish grounding failures the demo's team has decided to ship with for now."""


def gauntlet(*args: str) -> int:
    """Run one gauntlet command in the project's root, echoed first; its exit code."""
    print("$ gauntlet " + " ".join(args), flush=True)
    return subprocess.run([*GAUNTLET, *args], cwd=ROOT, check=False).returncode


def write_waivers(path: Path) -> None:
    """The demo's waivers, created a week ago and expiring in thirty days."""
    today = datetime.now(UTC).date()
    created, expires = today - timedelta(days=7), today + timedelta(days=30)
    entries = "".join(
        f"  - case: {case}\n"
        "    reason: the Spanish page's citation markup is being rebuilt by the web team\n"
        "    owner: maria.lopez\n"
        f"    ticket: https://tracker.example/GOV-{number}\n"
        f"    created: {created.isoformat()}\n"
        f"    expires: {expires.isoformat()}\n"
        "    gates: [grounding]\n"
        for number, case in enumerate(WAIVED, start=123)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("max_days: 90\nwaivers:\n" + entries, encoding="utf-8")


def section(markdown: str, title: str, level: str = "## ") -> str:
    """The section of `markdown` that starts with the heading `level + title`, to the next."""
    lines = markdown.splitlines()
    start = lines.index(level + title)
    end = next(
        (n for n in range(start + 1, len(lines)) if lines[n].startswith(("# ", level))),
        len(lines),
    )
    return "\n".join(lines[start:end]).strip()


def main() -> int:
    """Run, report and print; 0 when the run failed as described, with its waivers applied."""
    write_waivers(WAIVERS)
    code = gauntlet(
        "run", "--toy-defect", "spanish_uncited", "--waivers", str(WAIVERS.relative_to(ROOT)),
        "--quiet", "--out", RESULTS,
    )  # fmt: skip
    if code != 1:
        print(f"expected exit 1 (four Spanish failures are not waived), got {code}")
        return 1
    if gauntlet("report", RESULTS, "--out", EVIDENCE) != 0:
        return 1
    results = json.loads((ROOT / RESULTS).read_text(encoding="utf-8"))
    waived = sorted(c["case_id"] for c in results["cases"] if c["outcome"] == "waived")
    if waived != sorted(WAIVED):
        print(f"expected {', '.join(WAIVED)} waived, found {', '.join(waived) or 'none'}")
        return 1
    markdown = (ROOT / EVIDENCE).read_text(encoding="utf-8")
    print()
    print(f"From {EVIDENCE}:")
    print()
    for text in (
        section(markdown, "Verdict"),
        section(markdown, "Parity: grounding", "### "),
        section(markdown, "Waivers"),
    ):
        print(text)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
