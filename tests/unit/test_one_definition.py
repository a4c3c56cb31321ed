"""A concept is defined once: a constant's name and value live in one module."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import gauntlet

SOURCE = Path(gauntlet.__file__).parent
IDIOMS = frozenset({"TYPE_CHECKING"})
"""Names Python's own idioms define in every module that needs them (`TYPE_CHECKING = False`)."""


def _public_constants(tree: ast.Module) -> list[tuple[str, object]]:
    """Each module-level `NAME = literal` (upper case, not private) with its value."""
    found: list[tuple[str, object]] = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        try:
            literal = ast.literal_eval(value)
        except ValueError:
            continue  # built from other names: not a second spelling of a literal
        found.extend(
            (target.id, literal)
            for target in targets
            if isinstance(target, ast.Name)
            and target.id.isupper()
            and not target.id.startswith("_")
            and target.id not in IDIOMS
        )
    return found


def test_a_constant_of_one_name_and_value_is_defined_in_one_module() -> None:
    # Trap: a constant copied into a second module (`BUILTIN_PREFIX` in `cases/select.py` and
    # `cases/builtin.py`), so a change to one leaves the other spelling what the first no
    # longer means; the same name with another value is another concept and is allowed.
    where: defaultdict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(SOURCE.rglob("*.py")):
        for name, value in _public_constants(ast.parse(path.read_text(encoding="utf-8"))):
            where[name, repr(value)].append(path.relative_to(SOURCE).as_posix())
    twice = {name: modules for (name, _), modules in where.items() if len(modules) > 1}
    assert twice == {}
