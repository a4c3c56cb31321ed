"""The wheel carries the built-in suites, and an installed gauntlet finds them there."""

from __future__ import annotations

import email.parser
import email.policy
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from email.message import Message
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_carries_every_built_in_suite(unpacked_wheel: Path) -> None:
    bundled = unpacked_wheel / "gauntlet" / "_builtin_suites"
    source = sorted(p.name for p in (ROOT / "suites").glob("*.yaml"))
    assert source
    assert sorted(p.name for p in bundled.glob("*.yaml")) == source
    for name in source:
        assert (bundled / name).read_bytes() == (ROOT / "suites" / name).read_bytes()
    assert (unpacked_wheel / "gauntlet" / "py.typed").exists()


def test_an_installed_gauntlet_reads_its_bundled_personas(unpacked_wheel: Path) -> None:
    # Trap: a library found only beside the source: `gauntlet explore` installed from the
    # wheel would have no personas to play without `--personas`.
    source = sorted(p.name for p in (ROOT / "personas").glob("*.yaml"))
    assert source
    bundled = unpacked_wheel / "gauntlet" / "_builtin_personas"
    assert sorted(p.name for p in bundled.glob("*.yaml")) == source
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from gauntlet.cases.persona import builtin_personas_dir as d, builtin_personas as b;"
            " print(d()); print(len(b()))",
        ],
        env={"PYTHONPATH": str(unpacked_wheel)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == [str(bundled), str(len(source))]


def test_an_installed_gauntlet_reads_its_bundled_suites(unpacked_wheel: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from gauntlet.cases.builtin import builtin_suites_dir as d; print(d())",
        ],
        env={"PYTHONPATH": str(unpacked_wheel)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == str(unpacked_wheel / "gauntlet" / "_builtin_suites")


def test_the_sdist_holds_everything_the_tests_read() -> None:
    """Its tests run from an unpacked sdist only if what they read beside them is there too."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    included = set(config["tool"]["hatch"]["build"]["targets"]["sdist"]["include"])
    included.add("pyproject.toml")  # every sdist has it
    read = {
        match
        for path in (ROOT / "tests").rglob("*.py")
        for match in re.findall(r'ROOT / "([\w.-]+)"', path.read_text(encoding="utf-8"))
    }
    assert read, "no test reads a file beside the tests any more: this check checks nothing"
    assert read - included == set()


# ---------------------------------------------------------------- the distribution (issue 29)


def _load(path: Path) -> ModuleType:
    """A module of the checkout that is not in the package: hatch_build.py, scripts/dist.py."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DIST = _load(ROOT / "scripts" / "dist.py")
HOOK = _load(ROOT / "hatch_build.py")
VERSION = DIST.version()
REPOSITORY = "https://github.com/example-owner/gauntlet"  # a test address, never fetched


def _wheel(out: Path, **env: str) -> Path:
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "--target", "wheel", "--directory", out],
        cwd=ROOT,
        env={**os.environ, **env},
        check=True,
        capture_output=True,
    )
    [wheel] = out.glob("gauntlet_gate-*.whl")
    return wheel


def _metadata(wheel: Path) -> Message:
    with zipfile.ZipFile(wheel) as archive:
        raw = archive.read(f"gauntlet_gate-{VERSION}.dist-info/METADATA").decode()
    return email.parser.Parser(policy=email.policy.compat32).parsestr(raw)


@pytest.fixture(scope="module")
def released_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel as the release workflow builds it: told the repository's address."""
    return _wheel(tmp_path_factory.mktemp("release"), GAUNTLET_REPOSITORY_URL=REPOSITORY)


def test_the_distribution_has_a_name_of_its_own_and_the_gauntlet_command(
    unpacked_wheel: Path,
) -> None:
    # Trap: `pip install gauntlet` installs an unrelated project: the distribution must not
    # be named `gauntlet`, while the command and the import stay `gauntlet`.
    [info] = unpacked_wheel.glob("*.dist-info")
    assert info.name == f"gauntlet_gate-{VERSION}.dist-info"
    metadata = (info / "METADATA").read_text(encoding="utf-8")
    assert "\nName: gauntlet-gate\n" in metadata
    entry_points = (info / "entry_points.txt").read_text(encoding="utf-8")
    assert "gauntlet = gauntlet.cli:main" in entry_points.splitlines()
    assert (unpacked_wheel / "gauntlet" / "__init__.py").is_file()


def test_a_released_wheel_has_project_urls_and_a_readme_with_no_relative_link(
    released_wheel: Path,
) -> None:
    # Trap: PyPI shows the README off the repository, where `docs/x.md` and `#anchor` lead
    # nowhere, and a wheel with no project URLs gives a reader no way back to the source.
    assert DIST.metadata_problems(_raw(released_wheel), VERSION) == []
    metadata = _metadata(released_wheel)
    urls = dict(entry.split(", ", 1) for entry in metadata.get_all("Project-URL", []))
    assert urls["Source"] == REPOSITORY
    assert urls["Issues"] == f"{REPOSITORY}/issues"
    body = metadata.get_payload()
    assert isinstance(body, str)
    assert DIST.relative_links(body) == []
    prefix = f"{REPOSITORY}/blob/v{VERSION}/"
    linked = re.findall(re.escape(prefix) + r"([^)#\s]+)", body)
    assert "docs/target-files.md" in linked
    assert "README.md" in linked  # a heading anchor, off GitHub, is the README's on GitHub
    assert [path for path in linked if not (ROOT / path).exists()] == []


def _raw(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(f"gauntlet_gate-{VERSION}.dist-info/METADATA").decode()


def test_a_build_not_told_the_repository_invents_no_url_and_make_dist_refuses_it(
    unpacked_wheel: Path,
) -> None:
    # Trap: a guessed address would send readers to someone else's repository.
    [info] = unpacked_wheel.glob("*.dist-info")
    raw = (info / "METADATA").read_text(encoding="utf-8")
    assert "\nProject-URL:" not in raw
    problems = DIST.metadata_problems(raw, VERSION)
    assert any("links that lead nowhere" in problem for problem in problems)
    assert any("no https Source" in problem for problem in problems)


def test_the_released_wheel_carries_suites_labels_example_targets_and_the_action(
    released_wheel: Path,
) -> None:
    # Trap: a wheel user told to start from an example target file finds none installed.
    assert DIST.wheel_problems(released_wheel, VERSION) == []
    examples = sorted((ROOT / "examples" / "targets").glob("*.yaml"))
    assert examples
    with zipfile.ZipFile(released_wheel) as archive:
        carried = {archive.read(name) for name in archive.namelist()}
    assert all(path.read_bytes() in carried for path in examples)


@pytest.mark.parametrize(
    ("target", "absolute"),
    [
        ("docs/judge.md#what", f"{REPOSITORY}/blob/v9/docs/judge.md#what"),
        ("./LICENSE", f"{REPOSITORY}/blob/v9/LICENSE"),
        ("#run-history", f"{REPOSITORY}/blob/v9/README.md#run-history"),
        ("https://example.org/x", "https://example.org/x"),
        ("mailto:someone@example.org", "mailto:someone@example.org"),
    ],
)
def test_every_relative_link_is_made_absolute_at_the_release_tag(
    target: str, absolute: str
) -> None:
    assert HOOK.absolute_link(target, REPOSITORY, "v9") == absolute


def test_links_in_code_blocks_and_every_link_form_are_rewritten_or_left_as_they_are() -> None:
    text = (
        'See [a](docs/a.md) and [b][b].\n\n[b]: docs/b.md\n\n<img src="docs/c.png">\n\n'
        "```yaml\nx: [y](docs/not-a-link.md)\n```\n"
    )
    done = HOOK.absolute_readme(text, REPOSITORY, "v9")
    assert f"[a]({REPOSITORY}/blob/v9/docs/a.md)" in done
    assert f"[b]: {REPOSITORY}/blob/v9/docs/b.md" in done
    assert f'src="{REPOSITORY}/blob/v9/docs/c.png"' in done
    assert "x: [y](docs/not-a-link.md)" in done
    assert DIST.relative_links(done) == []


@pytest.mark.parametrize(
    "address",
    ["http://github.com/a/b", "https://github.com/a", "https://h/a/b/c", "https://h/a/b?x"],
)
def test_a_repository_address_that_is_not_https_owner_name_fails_the_build(
    address: str, tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "--target", "wheel", "--directory", tmp_path],
        cwd=ROOT,
        env={**os.environ, "GAUNTLET_REPOSITORY_URL": address},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert "expected https://HOST/OWNER/NAME" in done.stderr
    assert list(tmp_path.glob("*.whl")) == []


def test_a_fresh_venv_installs_the_wheel_by_its_new_name_and_runs_gauntlet(
    released_wheel: Path, tmp_path: Path
) -> None:
    # Trap: a wheel that builds but does not install by its name, or whose command imports
    # the checkout rather than itself, passes every check of the archive.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    [site_packages] = venv.glob("lib/python*/site-packages")
    # The dependencies, without a network: this environment's site-packages, after the venv's
    # own (a .pth in it is not read there, so the checkout's editable gauntlet is not seen).
    (site_packages / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    uv = shutil.which("uv")
    installer = [uv] if uv else [sys.executable, "-m", "uv"]
    subprocess.run(
        [
            *installer,
            "pip",
            "install",
            "--quiet",
            "--python",
            venv / "bin" / "python",
            "--no-deps",
            "--no-index",
            "--find-links",
            released_wheel.parent,
            "gauntlet-gate",
        ],
        check=True,
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    shown = subprocess.run(
        [venv / "bin" / "gauntlet", "--version"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.strip() == f"gauntlet {VERSION}"
    where = subprocess.run(
        [
            venv / "bin" / "python",
            "-c",
            "import gauntlet, importlib.metadata as m; print(gauntlet.__file__);"
            "print(m.distribution('gauntlet-gate').locate_file(''))",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert all(Path(line).is_relative_to(site_packages) for line in where), where
