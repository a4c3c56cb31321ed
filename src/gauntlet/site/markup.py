"""Small, escaping text helpers the site's templates use: inline code, docstrings, shapes."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
import unicodedata

from markupsafe import Markup, escape

from gauntlet.invisible import escape_invisible

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
"""A Markdown code span, as docstrings and descriptions write identifiers."""


def inline_code(text: str) -> Markup:
    """`text` escaped, with each `code span` shown as `<code>`; nothing else is markup."""
    pieces: list[str] = []
    last = 0
    for found in _CODE_SPAN.finditer(text):
        pieces.append(str(escape(text[last : found.start()])))
        pieces.append(f"<code>{escape(found.group(1))}</code>")
        last = found.end()
    pieces.append(str(escape(text[last:])))
    return Markup("".join(pieces))  # noqa: S704 - every piece was escaped above


def one_paragraph(text: str) -> str:
    """A docstring or a wrapped description as one line of prose."""
    return " ".join(inspect.cleandoc(text).split())


def first_sentence(doc: str | None) -> str:
    """The first line of a module or class docstring, or an empty string."""
    return inspect.cleandoc(doc or "").split("\n\n", 1)[0].replace("\n", " ").strip()


def attribute_docstrings(cls: type) -> dict[str, str]:
    """The docstrings written under a class's attributes (or enum members), by name.

    Python keeps no such docstring at run time, so they are read from the class's source,
    the way pydantic's `use_attribute_docstrings` does; an installed wheel carries the source.
    """
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    [node] = tree.body
    assert isinstance(node, ast.ClassDef)  # noqa: S101 - getsource of a class is one class
    found: dict[str, str] = {}
    for statement, following in zip(node.body, node.body[1:], strict=False):
        names: list[str] = []
        if isinstance(statement, ast.Assign):
            names = [t.id for t in statement.targets if isinstance(t, ast.Name)]
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names = [statement.target.id]
        if (
            names
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            for name in names:
                found[name] = one_paragraph(following.value.value)
    return found


def visible_shape(text: str) -> str:
    """A string as a quoted literal in which every invisible character is written as an escape.

    Spaces other than U+0020, characters Python deems unprintable, and those that print as
    nothing although Python deems them printable (see `escape_invisible`) are escaped.
    """
    shown = "".join(
        char if char == " " or (char.isprintable() and not char.isspace()) else _escape(char)
        for char in text
    )
    return f'"{escape_invisible(shown)}"'


def describe_shape(text: str) -> str:
    """The Unicode names of the characters in `text` that are spaces or not ASCII, in order.

    Repeats are counted (`space ×3`); a string of visible ASCII alone gives an empty string.
    """
    names: list[tuple[str, int]] = []
    for char in text:
        if char.isascii() and char != " ":
            continue
        name = unicodedata.name(char, f"U+{ord(char):04X}").lower()
        if names and names[-1][0] == name:
            names[-1] = (name, names[-1][1] + 1)
        else:
            names.append((name, 1))
    return ", ".join(name if count == 1 else f"{name} ×{count}" for name, count in names)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
