"""`make dist`: build the sdist, build the wheel from it, check both, install the wheel by name.

The wheel is built from the unpacked sdist, as an installer building from source would, so an
sdist missing a file fails here. The checks stand in for `twine check` and go further: the
metadata a package index shows (name, version, a Markdown README whose links all work off the
repository, project URLs), the `gauntlet` command, and the files the wheel must carry (every
built-in suite, label file, example target file and action.yml, byte for byte). Last, a fresh
venv installs the locked dependencies (action.lock, hashes required) and then the wheel by its
distribution name from dist/ alone, and runs `gauntlet --version` outside the checkout.
"""

from __future__ import annotations

import email.parser
import email.policy
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTION = "gauntlet-gate"
STEM = DISTRIBUTION.replace("-", "_")
LINK = re.compile(
    r"\]\((?P<inline>[^)\s]+)|^ {0,3}\[[^\]]+\]:\s*(?P<ref>\S+)|(?:href|src)=\"(?P<html>[^\"]+)\"",
    re.M,
)
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
FENCED = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CARRIED = {"suites": "*.yaml", "labels": "**/*", "examples/targets": "*.yaml"}
"""What the wheel must carry, byte for byte, wherever inside it the build puts it."""


def version() -> str:
    """The version the sources declare."""
    text = (ROOT / "src" / "gauntlet" / "version.py").read_text(encoding="utf-8")
    found = re.search(r'__version__ = "([^"]+)"', text)
    if found is None:
        raise SystemExit("src/gauntlet/version.py declares no __version__")
    return found[1]


def relative_links(markdown: str) -> list[str]:
    """Every link target in `markdown`, outside code blocks, that has no scheme."""
    prose = FENCED.sub("", markdown)
    targets = (m["inline"] or m["ref"] or m["html"] for m in LINK.finditer(prose))
    return [target for target in targets if not SCHEME.match(target)]


def metadata_problems(raw: str, expected_version: str) -> list[str]:
    """What is wrong with a METADATA or PKG-INFO file, for a package index and its readers."""
    message = email.parser.Parser(policy=email.policy.compat32).parsestr(raw)
    problems = []
    if message["Name"] != DISTRIBUTION:
        problems.append(f"Name is {message['Name']!r}, not {DISTRIBUTION!r}")
    if message["Version"] != expected_version:
        problems.append(f"Version is {message['Version']!r}, not {expected_version!r}")
    fields = ("Summary", "License-Expression", "Requires-Python")
    problems += [f"no {field}" for field in fields if not message[field]]
    if message["Description-Content-Type"] != "text/markdown":
        problems.append("the description is not declared as text/markdown")
    body = message.get_payload()
    if not isinstance(body, str) or not body.startswith("# gauntlet"):
        problems.append("the description is not the README")
    elif relative := relative_links(body):
        problems.append(f"the README has links that lead nowhere off the repository: {relative}")
    entries = (entry.partition(",") for entry in message.get_all("Project-URL", []))
    urls = {label.strip(): url.strip() for label, _, url in entries}
    if not urls.get("Source", "").startswith("https://"):
        problems.append(f"no https Source among the project URLs: {urls}")
    return problems


def wheel_problems(wheel: Path, expected_version: str) -> list[str]:
    """What is wrong with the wheel: its metadata, its command, the files it must carry."""
    problems = []
    if not wheel.name.startswith(f"{STEM}-{expected_version}-"):
        problems.append(f"{wheel.name}: not a {DISTRIBUTION} {expected_version} wheel")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = f"{STEM}-{expected_version}.dist-info"
        if f"{info}/METADATA" not in names:
            return [*problems, f"{wheel.name} has no {info}/METADATA"]
        problems += metadata_problems(archive.read(f"{info}/METADATA").decode(), expected_version)
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
        if not re.search(r"^gauntlet = gauntlet\.cli:main$", entry_points, re.M):
            problems.append("the wheel installs no `gauntlet` command")
        contents = {archive.read(name) for name in names if not name.endswith("/")}
    wanted = [ROOT / "action.yml"]
    for folder, pattern in CARRIED.items():
        found = sorted(path for path in (ROOT / folder).glob(pattern) if path.is_file())
        if not found:
            problems.append(f"{folder}/ holds nothing: this check checks nothing")
        wanted += found
    for path in wanted:
        if path.read_bytes() not in contents:
            problems.append(f"the wheel does not carry {path.relative_to(ROOT)} as it is")
    return problems


def sdist_problems(sdist: Path, expected_version: str) -> list[str]:
    """What is wrong with the sdist's PKG-INFO."""
    top = f"{STEM}-{expected_version}"
    if sdist.name != f"{top}.tar.gz":
        return [f"{sdist.name}: not the {DISTRIBUTION} {expected_version} sdist"]
    with tarfile.open(sdist) as archive:
        member = archive.extractfile(f"{top}/PKG-INFO")
        if member is None:
            return [f"{sdist.name} has no PKG-INFO"]
        return metadata_problems(member.read().decode(), expected_version)


def build(out: Path) -> tuple[Path, Path]:
    """The sdist, and the wheel built from the unpacked sdist, in `out`."""
    hatchling = [sys.executable, "-m", "hatchling", "build", "--directory", str(out)]
    subprocess.run([*hatchling, "--target", "sdist"], cwd=ROOT, check=True)
    [sdist] = out.glob(f"{STEM}-*.tar.gz")
    with tempfile.TemporaryDirectory() as unpacked, tarfile.open(sdist) as archive:
        archive.extractall(unpacked, filter="data")
        [source] = Path(unpacked).iterdir()
        subprocess.run([*hatchling, "--target", "wheel"], cwd=source, check=True)
    [wheel] = out.glob(f"{STEM}-*.whl")
    return sdist, wheel


def install_by_name(dist: Path, expected_version: str) -> None:
    """A fresh venv: the locked dependencies, then gauntlet-gate from `dist` alone; run it."""
    uv = [shutil.which("uv") or sys.executable, *([] if shutil.which("uv") else ["-m", "uv"])]
    with tempfile.TemporaryDirectory() as home:
        venv = Path(home) / "venv"
        subprocess.run([*uv, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
        python = ["--python", str(venv / "bin" / "python")]
        subprocess.run(
            [
                *uv,
                "pip",
                "install",
                "--quiet",
                *python,
                "--require-hashes",
                "--only-binary=:all:",
                "--requirement",
                str(ROOT / "action.lock"),
            ],
            check=True,
        )
        subprocess.run(
            [
                *uv,
                "pip",
                "install",
                "--quiet",
                *python,
                "--no-deps",
                "--no-index",
                "--find-links",
                str(dist),
                f"{DISTRIBUTION}=={expected_version}",
            ],
            check=True,
        )
        shown = subprocess.run(
            [str(venv / "bin" / "gauntlet"), "--version"],
            cwd=home,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        if expected_version not in shown:
            raise SystemExit(f"the installed gauntlet says {shown!r}, not {expected_version}")
        print(f"a fresh venv installed {DISTRIBUTION}=={expected_version}: {shown}")
        # The README's example comes out of the wheel as the file the repository holds.
        example = subprocess.run(
            [str(venv / "bin" / "gauntlet"), "example", "target", "llama-cpp"],
            cwd=home,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home},
            capture_output=True,
            check=True,
        ).stdout
        shipped = ROOT / "examples" / "targets" / "llama-cpp.yaml"
        if example != shipped.read_bytes():
            raise SystemExit(f"`gauntlet example target llama-cpp` from the wheel is not {shipped}")
        print(f"`gauntlet example target llama-cpp` from the wheel prints {shipped.name} as is")


def main() -> int:
    """Build into dist/, check, install; exit 1 with every problem found."""
    expected = version()
    dist = ROOT / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    dist.mkdir()
    sdist, wheel = build(dist)
    problems = sdist_problems(sdist, expected) + wheel_problems(wheel, expected)
    for problem in problems:
        print(f"dist: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"checked {sdist.name} and {wheel.name}")
    install_by_name(dist, expected)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
