"""The generated case files: a false_positive suite the stub passes, in files of at most 500."""

from __future__ import annotations

from pathlib import Path

from gauntlet.cases.loader import SuiteSet
from gauntlet_bench.config import CASES_PER_FILE
from stub_server import MARKER


def write_case_files(directory: Path, total: int) -> Path:
    """Write `total` false_positive cases, in files of at most 500, that the stub passes."""
    directory.mkdir(parents=True, exist_ok=True)
    for number, start in enumerate(range(0, total, CASES_PER_FILE), start=1):
        count = min(CASES_PER_FILE, total - start)
        lines = [
            f"suite: bench-{number:03d}",
            "gate: false_positive",
            "version: 1",
            "threshold: 1.0",
            "cases:",
        ]
        for index in range(start, start + count):
            lines += [
                f"  - id: bench-{index:06d}",
                "    language: en",
                f"    prompt: Benchmark question {index}, when is the library open?",
                f'    must_contain: ["{MARKER}"]',
            ]
        (directory / f"bench-{number:03d}.yaml").write_text("\n".join(lines) + "\n")
    return directory


def prompts_of(suites: SuiteSet) -> list[str]:
    """Every case's prompt, in plan order: what the raw loop asks (the cases have no turns)."""
    return [
        case.prompt for loaded in suites.suites for case in loaded.cases if case.prompt is not None
    ]
