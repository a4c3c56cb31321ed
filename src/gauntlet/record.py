"""The base of gauntlet's records, and the one-line text they hold.

A record is a frozen pydantic model that refuses unknown keys and whose JSON Schema describes
each field by its docstring; a strict record also refuses to convert a value to the type a
field wants. A leaf: every layer's records derive from one of the two.

The docstrings are read from the source when a schema asks for them (`FieldDocstrings`),
never while a record class is made: pydantic's `use_attribute_docstrings` would read and
parse the source of every record at import, which every run would pay for.
"""

from __future__ import annotations

import ast
import inspect
import sys
from functools import cache
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict
from pydantic.json_schema import DEFAULT_REF_TEMPLATE, GenerateJsonSchema, JsonSchemaMode

from gauntlet.display import printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pydantic.json_schema import JsonSchemaValue
    from pydantic_core import core_schema


class FieldDocstrings(GenerateJsonSchema):
    """pydantic's JSON Schema, each record field without a description described by its docstring.

    What `use_attribute_docstrings` gives, read only when a schema is made.
    """

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        """The model's schema, its undescribed fields described by their docstrings."""
        json_schema = super().model_schema(schema)
        model = schema["cls"]
        properties = json_schema.get("properties", {})
        for name, doc in field_docstrings(model).items():
            field = model.model_fields[name]
            key = field.alias or name
            if field.description is None and key in properties:
                properties[key]["description"] = doc
        return json_schema


class Record(BaseModel):
    """A frozen record that refuses unknown keys."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    @classmethod
    def model_json_schema(
        cls,
        by_alias: bool | None = None,
        ref_template: str = DEFAULT_REF_TEMPLATE,
        schema_generator: type[GenerateJsonSchema] = FieldDocstrings,
        mode: JsonSchemaMode = "validation",
        **options: Any,
    ) -> dict[str, Any]:
        """The record's JSON Schema, each field described by its docstring (`FieldDocstrings`)."""
        return super().model_json_schema(by_alias, ref_template, schema_generator, mode, **options)


class StrictRecord(Record):
    """A record that also refuses to convert: `"1"` is no int here, nor `1` a string.

    For what people write by hand (case files, waivers, labels), where a converted value
    would hide a typo; records gauntlet writes and reads back derive from `Record`.
    """

    model_config = ConfigDict(strict=True)


def field_docstrings(model: type[BaseModel]) -> dict[str, str]:
    """The docstring written under each of `model`'s fields, by name, as pydantic reads them.

    A field takes the docstring of the class that declares it last: one a subclass declares
    again without a docstring has none, as with `use_attribute_docstrings`.
    """
    found: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if not issubclass(cls, BaseModel) or cls is BaseModel:
            continue
        written = _written_docstrings(cls.__module__, cls.__qualname__)
        for name in cls.__dict__.get("__annotations__", {}):
            found.pop(name, None)
            if name in written:
                found[name] = written[name]
    return {name: doc for name, doc in found.items() if name in model.model_fields}


def _written_docstrings(module: str, qualname: str) -> dict[str, str]:
    """The string under each annotated name in the body of class `qualname` of `module`."""
    body = _class_bodies(module).get(qualname, [])
    found: dict[str, str] = {}
    for statement, following in zip(body, body[1:], strict=False):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            found[statement.target.id] = inspect.cleandoc(following.value.value)
    return found


@cache
def _class_bodies(module: str) -> dict[str, list[ast.stmt]]:
    """The body of every class written in `module`, by qualified name; parsed once a module."""
    try:
        source = inspect.getsource(sys.modules[module])
    except (KeyError, OSError, TypeError):
        return {}  # no source (a class made at run time, a module without a file): no docs
    bodies: dict[str, list[ast.stmt]] = {}

    def visit(statements: list[ast.stmt], prefix: str) -> None:
        for statement in statements:
            if isinstance(statement, ast.ClassDef):
                bodies[prefix + statement.name] = statement.body
                visit(statement.body, f"{prefix}{statement.name}.")

    visit(ast.parse(source).body, "")
    return bodies


def _one_line(text: str) -> str:
    if printable(text) != text:
        raise ValueError(
            "holds a line break or control character; gauntlet writes reasons on one line"
        )
    return text


Reason = Annotated[str, AfterValidator(_one_line)]
"""A reason as gauntlet writes it: one line, every control character escaped."""
