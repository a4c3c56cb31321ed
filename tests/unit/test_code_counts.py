"""scripts/code_counts.py: the counts issue 30 is measured by, on small trees written here."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


COUNTS = _load(ROOT / "scripts" / "code_counts.py")


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    src = tmp_path / "src"
    for name, text in files.items():
        path = src / "gauntlet" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return src


def _params(n: int, *, method: bool = False) -> str:
    names = ", ".join(f"p{i}" for i in range(n))
    return f"self, {names}" if method else names


def test_a_function_over_six_parameters_is_counted_and_self_args_and_kwargs_are_not(
    tmp_path: Path,
) -> None:
    # Trap: counting `self`, `*args` or `**kwargs` flags a method of six real parameters, and
    # forgetting keyword-only or positional-only ones misses `def f(a, /, b, *, c, ...)`.
    src = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": (
                f"def six({_params(6)}, *args, **kwargs): pass\n"
                f"def seven({_params(6)}, *, k): pass\n"
                "def split(a, b, /, c, d, *, e, f, g): pass\n"
                f"class C:\n    def method({_params(6, method=True)}): pass\n"
                f"    @classmethod\n    def made(cls, {_params(7)}): pass\n"
                f"async def later({_params(7)}): pass\n"
            ),
        },
    )
    counts = COUNTS.count_tree(src, "t")
    assert [(p.where, p.figure) for p in counts.many_parameters] == [
        ("src/gauntlet/a.py:2 seven", 7),
        ("src/gauntlet/a.py:3 split", 7),
        ("src/gauntlet/a.py:7 C.made", 7),
        ("src/gauntlet/a.py:8 later", 7),
    ]


def test_a_function_over_sixty_lines_is_counted_nested_ones_on_their_own(tmp_path: Path) -> None:
    # Trap: a 60-line function counted as over the limit (off by one), or a long function
    # nested in another one missed because only the module's top level is read.
    body = "    x = 1\n"
    src = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "b.py": (
                "def sixty():\n"
                + body * 59
                + "def outer():\n    def inner():\n"
                + ("    " + body) * 61
                + "    return inner\n"
            ),
        },
    )
    counts = COUNTS.count_tree(src, "t")
    assert [(p.where, p.figure) for p in counts.long_functions] == [
        ("src/gauntlet/b.py:61 outer", 64),
        ("src/gauntlet/b.py:62 outer.inner", 62),
    ]


def test_a_module_importing_over_eight_gauntlet_modules_is_counted_relative_ones_resolved(
    tmp_path: Path,
) -> None:
    # Trap: counting names instead of modules (`from gauntlet.m import a, b` is one module),
    # missing relative and function-local imports, or counting other packages.
    modules = {f"m{i}.py": "" for i in range(10)}
    many = (
        "from gauntlet.m0 import a, b\nimport gauntlet.m1\nfrom gauntlet import m2, m3\n"
        "from . import m4\nfrom .m5 import c\nimport os, json\n"
        "def f():\n    from gauntlet.m6 import d\n"
        "from gauntlet.pkg import m7\n"
    )
    eight = "".join(f"from gauntlet.m{i} import x\n" for i in range(8))
    src = _tree(
        tmp_path,
        {
            "__init__.py": "",
            **modules,
            "pkg/__init__.py": "",
            "pkg/m7.py": "",
            "many.py": many + "from gauntlet.m8 import y\n",
            "eight.py": eight + "from gauntlet.m0 import z\nfrom gauntlet import eight\n",
        },
    )
    counts = COUNTS.count_tree(src, "t")
    assert [(p.where, p.figure) for p in counts.many_imports] == [("src/gauntlet/many.py", 9)]
    assert COUNTS.imported_modules(
        __import__("ast").parse("from . import m0\nfrom .. import up\n"),
        "gauntlet.pkg.inner",
        False,
        {"gauntlet.pkg.m0"},
    ) == {"gauntlet.pkg.m0", "gauntlet"}


def test_a_revision_is_counted_beside_the_working_tree_in_one_command() -> None:
    # Trap: the before and after counts taken by two commands on two trees that drifted.
    completed = subprocess.run(  # our interpreter, the repository's script
        [sys.executable, str(ROOT / "scripts" / "code_counts.py"), "--rev", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    summary = completed.stdout.split("== summary\n", 1)[1].splitlines()
    assert summary[0].split() == ["HEAD", "working", "tree"]
    assert [line.rsplit(maxsplit=2)[0] for line in summary[1:]] == [
        "functions > 6 parameters",
        "functions > 60 lines",
        "modules importing > 8 gauntlet modules",
    ]


@pytest.mark.parametrize("rev", ["no-such-revision-here", "--upload-pack=x"])
def test_a_revision_git_does_not_know_is_refused_with_exit_2(rev: str) -> None:
    completed = subprocess.run(  # our interpreter, the repository's script
        [sys.executable, str(ROOT / "scripts" / "code_counts.py"), f"--rev={rev}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 2
    assert completed.stderr.startswith(f"code_counts: --rev {rev}: ")
    assert "Traceback" not in completed.stderr


def test_a_file_that_does_not_parse_is_refused_by_name(tmp_path: Path) -> None:
    src = _tree(tmp_path, {"__init__.py": "", "bad.py": "def f(:\n"})
    with pytest.raises(COUNTS.CountError, match=r"src/gauntlet/bad.py: cannot parse it"):
        COUNTS.count_tree(src, "t")
