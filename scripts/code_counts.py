"""Count what makes gauntlet's code costly to change (issue 30), for this tree and for others.

Three counts over every module under a tree's `src/gauntlet`, read with `ast` only (nothing is
imported or run):

- functions with more than 6 parameters: positional-only, positional and keyword-only ones,
  not `*args` or `**kwargs`, and not a method's first parameter when it is named `self` or
  `cls`;
- functions over 60 lines: from the `def` line to the last line of the body (decorators not
  counted); a nested function is counted on its own, and also inside the one that holds it;
- modules importing more than 8 gauntlet modules: the distinct `gauntlet.*` modules a module
  imports anywhere in it (at the top, inside a function, under `TYPE_CHECKING`), relative
  imports resolved; `from gauntlet.x import y` counts `gauntlet.x.y` when that is a module of
  the tree, else `gauntlet.x`; the module itself is not counted.

    python3 scripts/code_counts.py                 # this working tree
    python3 scripts/code_counts.py --rev 322cfeb   # that revision, then this working tree

A revision is read from `git archive REV src` unpacked into a temporary directory, so the
counts of two trees come from one command. It exits 0 when it has counted, 2 when it cannot
read a tree (a revision git does not know, a file that does not parse).
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "gauntlet"
MAX_PARAMETERS = 6
MAX_LINES = 60
MAX_IMPORTS = 8

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class CountError(Exception):
    """A tree that cannot be counted; the message says where and why."""


@dataclass(frozen=True)
class Place:
    """One function or module over a limit: where it is and its figure."""

    where: str
    figure: int


@dataclass(frozen=True)
class Counts:
    """The three lists of one tree, each sorted by figure, largest first."""

    label: str
    modules: int
    functions: int
    many_parameters: list[Place]
    long_functions: list[Place]
    many_imports: list[Place]


def parameter_count(node: ast.FunctionDef | ast.AsyncFunctionDef, in_class: bool) -> int:
    """Positional and keyword-only parameters, less a method's `self` or `cls`."""
    arguments = node.args
    named = [*arguments.posonlyargs, *arguments.args]
    if in_class and named and named[0].arg in {"self", "cls"}:
        named = named[1:]
    return len(named) + len(arguments.kwonlyargs)


def line_count(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from the `def` to the end of the body."""
    return (node.end_lineno or node.lineno) - node.lineno + 1


def _functions(
    tree: ast.AST, qualname: str = ""
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, bool]]:
    """Every function with its dotted name inside the module and whether a class holds it."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, _FUNCTIONS):
            name = f"{qualname}{child.name}"
            yield name, child, isinstance(tree, ast.ClassDef)
            yield from _functions(child, f"{name}.")
        elif isinstance(child, ast.ClassDef):
            yield from _functions(child, f"{qualname}{child.name}.")
        else:
            yield from _functions(child, qualname)


def module_name(path: Path, src: Path) -> str:
    """`src/gauntlet/run/engine.py` -> `gauntlet.run.engine`; a package's `__init__` is it."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(tree: ast.Module, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The distinct gauntlet modules `tree` (module `name`) imports, itself left out."""
    found: set[str] = set()
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(part for part in (*anchor, base) if part)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else base)
    return {
        module
        for module in found
        if (module == PACKAGE or module.startswith(f"{PACKAGE}.")) and module != name
    }


def count_tree(src: Path, label: str) -> Counts:
    """The counts of the modules under `src/gauntlet`."""
    paths = sorted((src / PACKAGE).rglob("*.py"))
    if not paths:
        raise CountError(f"{label}: no Python modules under {src / PACKAGE}")
    known = {module_name(path, src) for path in paths}
    many_parameters: list[Place] = []
    long_functions: list[Place] = []
    many_imports: list[Place] = []
    functions = 0
    for path in paths:
        relative = path.relative_to(src.parent).as_posix()
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=relative)
        except (SyntaxError, UnicodeDecodeError, OSError) as error:
            raise CountError(f"{label}: {relative}: cannot parse it: {error}") from None
        for qualname, node, in_class in _functions(tree):
            functions += 1
            where = f"{relative}:{node.lineno} {qualname}"
            parameters = parameter_count(node, in_class)
            if parameters > MAX_PARAMETERS:
                many_parameters.append(Place(where, parameters))
            lines = line_count(node)
            if lines > MAX_LINES:
                long_functions.append(Place(where, lines))
        name = module_name(path, src)
        imports = imported_modules(tree, name, path.name == "__init__.py", known)
        if len(imports) > MAX_IMPORTS:
            many_imports.append(Place(relative, len(imports)))
    return Counts(
        label,
        len(paths),
        functions,
        *(
            sorted(places, key=lambda place: (-place.figure, place.where))
            for places in (many_parameters, long_functions, many_imports)
        ),
    )


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(  # noqa: S603 - a fixed git argv, no shell
            ["git", "-C", str(ROOT), *args],  # noqa: S607 - git from PATH, as make runs it
            capture_output=True,
            check=False,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise CountError(f"git {args[0]} did not run: {error}") from None


def archived_src(rev: str, into: Path) -> Path:
    """`src/` of `rev`, unpacked from `git archive` into `into`; its path.

    The revision is resolved to a commit first, after `--end-of-options`, so a `rev` that
    looks like an option is refused as an unknown revision rather than read as an option.
    """
    resolved = _git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    commit = resolved.stdout.decode(errors="replace").strip()
    if resolved.returncode != 0 or not commit:
        raise CountError(f"--rev {rev}: not a commit of this repository")
    archive = _git("archive", "--format=tar", commit, "src")
    if archive.returncode != 0:
        message = archive.stderr.decode(errors="replace").strip()
        raise CountError(f"--rev {rev}: git archive refused it: {message}")
    tar = into / "src.tar"
    tar.write_bytes(archive.stdout)
    with tarfile.open(tar) as opened:
        opened.extractall(into, filter="data")
    return into / "src"


def report(counts: Counts) -> list[str]:
    """The counts and the three lists of one tree, as text."""
    sections = (
        (
            f"functions with more than {MAX_PARAMETERS} parameters",
            "parameters",
            counts.many_parameters,
        ),
        (f"functions over {MAX_LINES} lines", "lines", counts.long_functions),
        (
            f"modules importing more than {MAX_IMPORTS} gauntlet modules",
            "gauntlet modules",
            counts.many_imports,
        ),
    )
    lines = [f"== {counts.label}: {counts.modules} modules, {counts.functions} functions"]
    for title, unit, places in sections:
        lines.append(f"{title}: {len(places)}")
        lines += [f"  {place.figure:4d} {unit:<16} {place.where}" for place in places]
    return lines


def summary(all_counts: Sequence[Counts]) -> list[str]:
    """One line per count, a column per tree."""
    width = max(len(counts.label) for counts in all_counts)
    rows = [
        (f"functions > {MAX_PARAMETERS} parameters", "many_parameters"),
        (f"functions > {MAX_LINES} lines", "long_functions"),
        (f"modules importing > {MAX_IMPORTS} gauntlet modules", "many_imports"),
    ]
    lines = ["== summary", f"{'':<42} " + " ".join(f"{c.label:>{width}}" for c in all_counts)]
    for title, attribute in rows:
        figures = " ".join(f"{len(getattr(c, attribute)):>{width}}" for c in all_counts)
        lines.append(f"{title:<42} {figures}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Count each `--rev`, then the working tree; print the lists, then the summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--rev",
        action="append",
        default=[],
        metavar="REV",
        help="also count this git revision's src/ (repeatable), before the working tree",
    )
    options = parser.parse_args(argv)
    all_counts: list[Counts] = []
    try:
        with tempfile.TemporaryDirectory(prefix="gauntlet-counts-") as temp:
            for index, rev in enumerate(options.rev):
                into = Path(temp) / str(index)
                into.mkdir()
                all_counts.append(count_tree(archived_src(rev, into), rev))
        all_counts.append(count_tree(ROOT / "src", "working tree"))
    except CountError as error:
        sys.stderr.write(f"code_counts: {error}\n")
        return 2
    lines = [line for counts in all_counts for line in (*report(counts), "")]
    sys.stdout.write("\n".join([*lines, *summary(all_counts)]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
