"""A tool's JSON Schema reaches nothing outside itself: checked at load, closed at run time.

jsonschema follows a `$ref` wherever it points unless told otherwise: to a file, whose text
would reach the model in a tool error and the results, or to a URL, fetched. A tool's
schema is the case file's own text, so only refs inside it (`#`, `#/...`, `#anchor`) are
followed: `outside_the_schema` says why one is not, for the loader to refuse the suite, and
`tool_validator` builds the validator on a registry that retrieves nothing, whatever got
past the loader.

jsonschema and referencing are imported inside the functions: only suites with tools pay.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from referencing import Registry

_REF_KEYWORDS = ("$ref", "$dynamicRef")
DIALECT = "https://json-schema.org/draft/2020-12/schema"
"""The only `$schema` a tool's schema may name: the dialect it is checked in."""


def outside_the_schema(schema: dict[str, Any]) -> str | None:
    """Why `schema` may reach outside itself, or None when every ref stays inside it.

    Refused: a `$ref` or `$dynamicRef` that does not start with `#`, one starting with `#`
    that names nothing in the schema, any `$id` (it would re-base every `#` ref onto another
    document), and a `$schema` other than draft 2020-12's. The message locates the keyword
    by JSON Pointer and never quotes more of the schema than the ref.
    """
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    resolver = closed_registry().resolver_with_root(DRAFT202012.create_resource(schema))
    for pointer, keyword, value in _keywords(schema, ""):
        where = f"at {pointer}" if pointer else "at the root"
        if keyword == "$id":
            return f"$id {where} would make every '#' ref point elsewhere; a tool's schema has none"
        if keyword == "$schema":
            if value.rstrip("#") != DIALECT:
                return f"$schema {where} is {value!r}; a tool's schema is draft 2020-12"
            continue
        if not value.startswith("#"):
            return (
                f"{keyword} {where} is {value!r}; only a ref inside the schema itself "
                "('#/...') is followed"
            )
        try:
            resolver.lookup(value)
        except Unresolvable:
            return f"{keyword} {where} is {value!r}, which names nothing in the schema"
    return None


def _keywords(value: Any, pointer: str) -> Iterator[tuple[str, str, str]]:
    """Each `$ref`, `$dynamicRef`, `$id` and `$schema` with a text value, with its pointer.

    Every mapping is searched, keyword position or not: a `const` holding `{"$ref": ...}`
    is refused too, which costs nothing a tool needs.
    """
    if isinstance(value, dict):
        for key, item in value.items():
            if key in (*_REF_KEYWORDS, "$id", "$schema") and isinstance(item, str):
                yield pointer, key, item
            yield from _keywords(item, f"{pointer}/{_escaped(str(key))}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _keywords(item, f"{pointer}/{index}")


def _escaped(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _refuse(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # an attrs class mypy cannot see into


def closed_registry() -> Registry[Any]:
    """A registry that retrieves nothing: a ref it does not hold is refused, never fetched."""
    from referencing import Registry

    return Registry(retrieve=_refuse)  # type: ignore[call-arg]


def tool_validator(schema: dict[str, Any]) -> Draft202012Validator:
    """The validator of a tool's arguments, on `closed_registry`: it can reach nothing."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema, registry=closed_registry())
