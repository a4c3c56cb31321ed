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

from collections.abc import Callable, Iterator
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
    return _loops_in_place(schema, lambda ref: resolver.lookup(ref).contents)


_APPLIED_IN_PLACE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas")
"""Keywords whose schemas apply to the value at hand, not to a part of it."""

_APPLIED_TO_A_PART = (
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "items",
    "prefixItems",
    "contains",
    "unevaluatedItems",
)
"""Keywords whose schemas apply to a property or an item: each step down reads the arguments."""

_HOLDING = ("$defs", "definitions")
"""Keywords holding schemas that apply only where a ref names them."""


def _subschemas(node: Any, keywords: tuple[str, ...], pointer: str) -> Iterator[tuple[str, Any]]:
    """The schemas under `keywords` of the schema `node`, each with its pointer."""
    if not isinstance(node, dict):
        return
    for keyword in keywords:
        held, at = node.get(keyword), f"{pointer}/{_escaped(keyword)}"
        if isinstance(held, list):
            yield from ((f"{at}/{index}", each) for index, each in enumerate(held))
        elif isinstance(held, dict) and keyword in _MAPS_OF_SCHEMAS:
            yield from ((f"{at}/{_escaped(str(key))}", each) for key, each in held.items())
        elif isinstance(held, dict):
            yield at, held


_MAPS_OF_SCHEMAS = ("properties", "patternProperties", "dependentSchemas", *_HOLDING)
"""Keywords whose value maps names to schemas, rather than being one."""


def _loops_in_place(schema: dict[str, Any], lookup: Callable[[str], Any]) -> str | None:
    """Why a ref of `schema` leads back to where it stands before reading any argument.

    Validating a value applies its schema's refs and in-place keywords (`allOf`, `not`,
    `if`, ...) to the same value; only `properties`, `items` and their kind step down into
    it. A ring of refs and in-place keywords therefore never ends (jsonschema recurses until
    Python's stack runs out), while a ref reached through `properties` (a tree of nodes) ends
    with the arguments. Every schema of the document is a starting point; the ref named is
    the one that closes the ring.
    """
    nodes: dict[int, tuple[str, dict[str, Any]]] = {}
    pending: list[tuple[str, Any]] = [("", schema)]
    while pending:
        pointer, node = pending.pop()
        if isinstance(node, dict) and id(node) not in nodes:
            nodes[id(node)] = (pointer, node)
            for keywords in (_APPLIED_IN_PLACE, _APPLIED_TO_A_PART, _HOLDING):
                pending.extend(_subschemas(node, keywords, pointer))
    done: set[int] = set()
    for identity in sorted(nodes, key=lambda each: nodes[each][0]):
        try:
            why = _ring(identity, nodes, lookup, done, on_path=[])
        except RecursionError:  # a chain of refs longer than Python's stack: jsonschema's too
            return (
                "its refs lead through more schemas in a row than can be checked; "
                "a tool's arguments need far fewer"
            )
        if why is not None:
            return (
                f"{why}, which leads back to itself before it reads any argument: "
                "no call could be checked"
            )
    return None


def _ring(
    identity: int,
    nodes: dict[int, tuple[str, dict[str, Any]]],
    lookup: Callable[[str], Any],
    done: set[int],
    on_path: list[tuple[int, str | None]],
    by: str | None = None,
) -> str | None:
    """Depth first along refs and in-place keywords: the last ref of a ring, if one closes.

    `on_path` holds the schemas on the way here, each with the ref that led to it (None for
    an in-place keyword); `by` is the one that led to `identity`.
    """
    if identity in done:
        return None
    on_path.append((identity, by))
    pointer, node = nodes[identity]
    steps: list[tuple[Any, str | None]] = [
        (child, None) for _at, child in _subschemas(node, _APPLIED_IN_PLACE, pointer)
    ]
    for keyword in _REF_KEYWORDS:
        ref = node.get(keyword)
        if isinstance(ref, str) and ref.startswith("#"):
            where = f"at {pointer}" if pointer else "at the root"
            steps.append((lookup(ref), f"{keyword} {where} is {ref!r}"))
    for target, step in steps:
        if not isinstance(target, dict) or id(target) not in nodes:
            continue  # true, false, or a value a ref names outside a schema position
        path = [each for each, _by in on_path]
        if id(target) in path:
            ring = [ref for _each, ref in on_path[path.index(id(target)) + 1 :]]
            return next(ref for ref in reversed([*ring, step]) if ref is not None)
        found = _ring(id(target), nodes, lookup, done, on_path, step)
        if found is not None:
            return found
    on_path.pop()
    done.add(identity)
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
