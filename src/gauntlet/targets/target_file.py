"""Loading a target file: `parse_target_file` for content, `load_target_file` for a path.

A target file is read as strictly as a case file (the same YAML reader: no anchors, aliases,
tags or duplicate keys, located errors) and validated against `TARGET_FILE_ADAPTER`. Then
the rules no JSON Schema can say are checked, each at the line that breaks it: every
environment variable the file names is set (its value is never shown), `system_file` is a
regular UTF-8 file beside the target file, and every placeholder in a request body is one
gauntlet fills. Every problem found is reported at once, as `ConfigErrors`.

What the file read from the world (the environment's values, the system prompt's text) is
kept on the `LoadedTarget`, so the target built from it never reads the environment again,
and every value read from the environment is a secret to mask.
"""

from __future__ import annotations

import os
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path as FsPath
from pathlib import PurePath
from typing import Any, Literal, NamedTuple, get_args, get_origin
from urllib.parse import urlsplit

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from gauntlet.cases.file_words import (
    FileWords,
    by_position,
    describe_common,
    did_you_mean,
    dotted,
    kind_of,
)
from gauntlet.cases.model import LANGUAGE_PATTERN, NOT_BLANK_PATTERN
from gauntlet.cases.strict_file import StrictFile
from gauntlet.cases.yaml_nodes import Document, NodePath
from gauntlet.errors import ConfigError, ConfigErrors, ConfigSchemaError
from gauntlet.files import RefusedFileError, read_regular_file
from gauntlet.redact import Secret
from gauntlet.targets.spec import (
    ENV_NAME_PATTERN,
    ENV_REFERENCE,
    HEADER_NAME_PATTERN,
    KEY_AS_TEXT,
    PLACEHOLDER,
    TARGET_FILE_ADAPTER,
    TARGET_FILE_VERSION,
    URL_PATTERN,
    GauntletSpec,
    HttpSpec,
    OpenAIChatSpec,
    OpenAIEmbeddingsSpec,
    Placeholder,
    TargetFileSpec,
    TargetSpec,
)

MAX_TARGET_FILE_BYTES = 256 * 1024
"""Target files larger than this are refused before any parsing (256 KiB)."""

MAX_SYSTEM_FILE_BYTES = 256 * 1024
"""A `system_file` larger than this is refused before it is read (256 KiB)."""

_KINDS: dict[str, type[BaseModel]] = {
    "gauntlet": GauntletSpec,
    "openai-chat": OpenAIChatSpec,
    "http": HttpSpec,
    "openai-embeddings": OpenAIEmbeddingsSpec,
}
_PLACEHOLDERS = [placeholder.value for placeholder in Placeholder]


@dataclass(frozen=True)
class LoadedTarget:
    """A validated target file and what it read from the world while it was loaded."""

    spec: TargetSpec
    """The file as the models validated it (`system_file` stays a file name)."""
    source: str
    """The target file, as the user named it."""
    system_text: str | None
    """The system prompt to send: `system` as written, or `system_file`'s text; None without."""
    secrets: tuple[Secret, ...]
    """The value of every environment variable the file reads, each once, to be masked."""
    environ_values: Mapping[str, str]
    """Those values by variable name: what the target is built from, not the environment."""


@dataclass(frozen=True)
class LoadedEmbedder:
    """A validated target file of kind `openai-embeddings`, and what it read from the world."""

    spec: OpenAIEmbeddingsSpec
    source: str
    """The file, as the user named it."""
    secrets: tuple[Secret, ...]
    """The value of every environment variable the file reads, each once, to be masked."""
    environ_values: Mapping[str, str]
    """Those values by variable name: what the embedder is built from."""


Wanted = Literal["target", "embedder", "either", "attacker"]
"""What a command reads a target file for: a target to ask, an embedder, either (probe), or
an attacker (a chat model only)."""


Loaded = typing.TypeVar("Loaded")


def load_named_file(load: Callable[[FsPath], Loaded], path: FsPath, *, hint: str) -> Loaded:
    """`load(path)`, for a flag that takes a word or a file.

    A file that is not there gets `hint`, which says what else the flag's value could be.

    Raises:
        ConfigErrors: as `load` raises them, the one error of a missing file with `hint`.
    """
    try:
        return load(path)
    except ConfigErrors as refused:
        if path.exists() or path.is_symlink():
            raise
        (error,) = refused.errors  # one file, not there: say what else the value could be
        raise ConfigErrors([ConfigError(error.path, error.message, hint=hint)]) from None


def load_embedder_file(path: FsPath, *, environ: Mapping[str, str] = os.environ) -> LoadedEmbedder:
    """Read and load one target file of kind `openai-embeddings` (`--embedder FILE`).

    Raises:
        ConfigErrors: as `load_target_file`, or the file is of a kind that describes a
            target (located at its `kind`).
    """
    raw = TARGET_FILE.read(path)
    spec, checks = _parse(raw, str(path), environ, path.parent, "embedder")
    if not isinstance(spec, OpenAIEmbeddingsSpec):  # pragma: no cover - refused by the checks
        raise AssertionError(spec.kind)
    return LoadedEmbedder(
        spec=spec,
        source=str(path),
        secrets=checks.secrets(),
        environ_values=types.MappingProxyType(dict(checks.read)),
    )


def load_attacker_file(path: FsPath, *, environ: Mapping[str, str] = os.environ) -> LoadedTarget:
    """Read and load one target file of a chat model (`explore --attacker FILE`).

    Raises:
        ConfigErrors: as `load_target_file`, or the file is of any kind but `openai-chat`
            (located at its `kind`).
    """
    raw = TARGET_FILE.read(path)
    spec, checks = _parse(raw, str(path), environ, path.parent, "attacker")
    if not isinstance(spec, OpenAIChatSpec):  # pragma: no cover - refused by the checks
        raise AssertionError(spec.kind)
    return LoadedTarget(
        spec=spec,
        source=str(path),
        system_text=checks.system_text,
        secrets=checks.secrets(),
        environ_values=types.MappingProxyType(dict(checks.read)),
    )


def load_target_or_embedder_file(
    path: FsPath, *, environ: Mapping[str, str] = os.environ
) -> LoadedTarget | LoadedEmbedder:
    """Read and load one target file of any kind: `gauntlet probe` tries either.

    Raises:
        ConfigErrors: as `load_target_file`, but a file of kind `openai-embeddings` loads.
    """
    raw = TARGET_FILE.read(path)
    source = str(path)
    spec, checks = _parse(raw, source, environ, path.parent, "either")
    read = types.MappingProxyType(dict(checks.read))
    if isinstance(spec, OpenAIEmbeddingsSpec):
        return LoadedEmbedder(
            spec=spec, source=source, secrets=checks.secrets(), environ_values=read
        )
    return LoadedTarget(
        spec=spec,
        source=source,
        system_text=checks.system_text,
        secrets=checks.secrets(),
        environ_values=read,
    )


def load_target_file(path: FsPath, *, environ: Mapping[str, str] = os.environ) -> LoadedTarget:
    """Read and load one target file; a `system_file` is read from the same directory.

    Args:
        path: The file, as the user named it (every error is located in it).
        environ: Where `${VAR}`s and `*_env` names are read from.

    Raises:
        ConfigErrors: the file is not a regular file, is over `MAX_TARGET_FILE_BYTES`, cannot
            be read, or `parse_target_file` refuses it.
    """
    raw = TARGET_FILE.read(path)
    return parse_target_file(raw, str(path), environ=environ, base_dir=path.parent)


def parse_target_file(
    raw: bytes | str, source: str, *, environ: Mapping[str, str], base_dir: FsPath
) -> LoadedTarget:
    """Parse, validate and check one target file's content.

    Args:
        raw: The file's bytes (checked for size, BOM, UTF-8 and NUL) or already-decoded text.
        source: The name to put in every error location.
        environ: Where `${VAR}`s and `*_env` names are read from; only what the file names is
            read, and no value is ever put in a message.
        base_dir: The directory a relative `system_file` is read from: the target file's.

    Raises:
        ConfigErrors: every problem found, each located; a file of kind
            `openai-embeddings` (an embedder, not a target) among them.
    """
    spec, checks = _parse(raw, source, environ, base_dir, "target")
    if isinstance(spec, OpenAIEmbeddingsSpec):  # pragma: no cover - refused by the checks
        raise AssertionError(spec.kind)
    return LoadedTarget(
        spec=spec,
        source=source,
        system_text=checks.system_text,
        secrets=checks.secrets(),
        environ_values=types.MappingProxyType(dict(checks.read)),
    )


def _parse(
    raw: bytes | str, source: str, environ: Mapping[str, str], base_dir: FsPath, wanted: Wanted
) -> tuple[TargetFileSpec, _Checks]:
    if isinstance(raw, str):  # bytes are measured as they are decoded
        size = len(raw.encode("utf-8", "surrogatepass"))
        if size > MAX_TARGET_FILE_BYTES:
            raise TARGET_FILE.words.too_large_error(source, size, MAX_TARGET_FILE_BYTES)
    spec, document = TARGET_FILE.parse(raw, source)
    checks = _Checks(spec, document, source, environ, base_dir, wanted)
    checks.run()
    if checks.errors:
        raise ConfigErrors(sorted(checks.errors, key=by_position))
    return spec, checks


# ------------------------------------------------------------------ schema error messages


class _Where(NamedTuple):
    """Where a pydantic error is in the file, its union tags taken out of the location."""

    path: NodePath
    """Keys and indexes from the document's root."""
    at_key: bool
    """The error is about the last key itself (a header name), not its value."""
    holders: tuple[type[BaseModel], ...]
    """The model that holds the last key (the branch a union chose), if it is a model's."""
    offered: tuple[type[BaseModel], ...]
    """Every branch that could have held it, for suggestions."""
    branches: tuple[type[BaseModel], ...]
    """The models a tag would choose between at `path` (for `auth`: its two kinds)."""


class _Problem(NamedTuple):
    error: ConfigSchemaError
    path: NodePath
    missing: bool
    suggested: str | None
    """The key an unknown key most likely meant, so its `missing` twin can be left out."""


def _schema_errors(
    errors: list[ErrorDetails], document: Document, source: str
) -> list[ConfigError]:
    data = document.data
    kind = data.get("kind") if isinstance(data, dict) else None
    root = _KINDS.get(kind) if isinstance(kind, str) else None
    problems = [_problem(error, root, document, source) for error in errors]
    # `base_ur: ...` is also a missing `base_url`; the unknown key's hint already says so.
    meant = {(*p.path[:-1], p.suggested) for p in problems if p.suggested}
    return [p.error for p in problems if not (p.missing and p.path in meant)]


TARGET_FILE = StrictFile(
    FileWords(
        "target file",
        one_per_file="one target per file",
        too_large="a target file describes one target; keep long prompts in system_file",
    ),
    TARGET_FILE_ADAPTER,
    _schema_errors,
    limit=MAX_TARGET_FILE_BYTES,
)
"""A target file (or a judge's, which is one): one target, up to `MAX_TARGET_FILE_BYTES`."""

_MISSING = "missing required key"


def _problem(
    error: ErrorDetails, root: type[BaseModel] | None, document: Document, source: str
) -> _Problem:
    loc: NodePath = tuple(error["loc"])
    if root is not None and loc:
        loc = loc[1:]  # the discriminated union puts the kind's tag first
    where = _walk(loc, (root,) if root else tuple(_KINDS.values()))
    ctx = error.get("ctx") or {}
    if "key_path" in ctx:  # a rule across keys, reported at the key that breaks it
        where = where._replace(path=(*where.path, *ctx["key_path"]))
    path = where.path
    message, hint, suggested = _describe(error, where, document, root)
    missing = error["type"] == "missing"
    if missing:  # the missing key is named in full and located at the mapping that lacks it
        mark = document.mark_for(path[:-1])
    elif where.at_key or error["type"] == "extra_forbidden":
        mark = document.key_marks.get(path, document.mark_for(path))
    elif error["type"].startswith("union_tag"):
        mark = document.mark_for((*path, "kind"))
    else:
        mark = document.mark_for(path)
    located = ConfigSchemaError(source, message, line=mark.line, column=mark.column, hint=hint)
    return _Problem(located, path, missing, suggested)


def _describe(
    error: ErrorDetails, where: _Where, document: Document, root: type[BaseModel] | None
) -> tuple[str, str | None, str | None]:
    """The message, the hint and (for an unknown key) the key it most likely meant."""
    kind = error["type"]
    path = where.path
    value = error.get("input")
    ctx = error.get("ctx") or {}
    name = dotted(path)
    prefix = f"{name}: " if name else ""
    field = next((part for part in reversed(path) if isinstance(part, str)), "")
    written = document.plain_texts.get(path)
    whole = _whole_file(error, where, document, root)
    if whole is not None:
        return whole
    if kind == "literal_error" and field == "absent":
        return (
            f"{name}: must be true, got {kind_of(value, written)}",
            "to read the field from the answer, give a JMESPath string instead",
            None,
        )
    if kind == "model_type" and path == ("response", "refused"):  # openai-chat's
        return (
            f"{name}: expected {{from_text: {{<language>: [<phrase>, ...]}}}}, "
            f"got {kind_of(value, written)}",
            "an openai-chat answer declares refusals itself (message.refusal, "
            "finish_reason: content_filter); phrases only add to them",
            None,
        )
    common = describe_common(error, path, written)
    if common is not None:
        return (*common, None)
    if kind == KEY_AS_TEXT:  # `context_ids: absent`, the braces of `{absent: true}` left out
        key = ctx["key"]
        return (
            f"{name}: {error['msg']}",
            f"did you mean `{field}: {ctx['form']}`? For a field really named {key}, quote it "
            f"as JMESPath does: '\"{key}\"'",
            None,
        )
    if kind == "shape":
        return f"{name}: expected {error['msg']}, got {kind_of(value, written)}", None, None
    if kind == "string_pattern_mismatch":
        shown = path[-1] if where.at_key else value
        message, hint = _PATTERNS.get(ctx.get("pattern", ""), ("{value!r} is not allowed", None))
        at = dotted(path[:-1]) if where.at_key else name
        return f"{at}: {message.format(value=shown)}", hint, None
    if kind in _BOUNDS:
        bound = _BOUNDS[kind].format(*(_number(limit) for limit in ctx.values()))
        return f"{name}: must be {bound}, got {written or repr(value)}", None, None
    if kind == "marker_invisible":
        return f"{name}: a phrase of only invisible characters could never be found", None, None
    return f"{prefix}{error['msg']}", None, None


def _whole_file(
    error: ErrorDetails, where: _Where, document: Document, root: type[BaseModel] | None
) -> tuple[str, str | None, str | None] | None:
    """`_describe`'s words for the file as a whole: not a mapping, kind, key or version.

    None for an error in one value, which `_describe` words.
    """
    kind, path, value = error["type"], where.path, error.get("input")
    field = next((part for part in reversed(path) if isinstance(part, str)), "")
    if kind == "dict_type" and not path:
        return (
            f"a target file must be a mapping of version, kind and the kind's keys, "
            f"not {kind_of(value)}",
            None,
            None,
        )
    if kind.startswith("union_tag"):
        return (*_bad_kind(where, document), None)
    if kind == "extra_forbidden":
        return _unknown_key(where, root)
    if kind == "missing" and path == ("version",):
        return f"{_MISSING} 'version'", f"write version: {TARGET_FILE_VERSION}", None
    if kind == "literal_error" and field == "version":
        written = document.plain_texts.get(path)
        return (
            f"version: must be {TARGET_FILE_VERSION}, the target file format this gauntlet "
            f"reads; got {kind_of(value, written)}",
            None,
            None,
        )
    return None


def _bad_kind(where: _Where, document: Document) -> tuple[str, str | None]:
    """A missing or unknown `kind`, at the top or in `auth`."""
    path = where.path
    tags = [tag for model in where.branches for tag in _kind_tags(model)]
    options = ", ".join(tags)
    node = _data_at(document.data, path)  # a mapping: pydantic looks for a tag in no other
    label = dotted((*path, "kind"))
    if "kind" not in node:
        where_ = f"{dotted(path)}: " if path else ""
        return f"{where_}{_MISSING} 'kind': kind must be one of {options}", None
    tag = node["kind"]
    shown = repr(tag) if isinstance(tag, str) else kind_of(tag)
    return f"{label}: must be one of {options}, not {shown}", did_you_mean(str(tag), tags)


def _unknown_key(where: _Where, root: type[BaseModel] | None) -> tuple[str, str | None, str | None]:
    path = where.path
    key = str(path[-1])
    allowed = list(dict.fromkeys(field for model in where.offered for field in model.model_fields))
    if key in allowed:  # a key of another branch of the union: `{absent: true, from_text: ...}`
        holder = where.holders[0]
        if _kind_tags(holder):  # auth: the branch is the one its `kind` names
            owners = [_tag_of(model) for model in where.offered if key in model.model_fields]
            return (
                f"{dotted(path)}: unknown key for kind {_tag_of(holder)}",
                f"'{key}' is a key of kind {' and '.join(owners)}",
                None,
            )
        chosen = next(iter(holder.model_fields))
        return f"{dotted(path)}: cannot go with '{chosen}'; give one or the other", None, None
    label = f"{dotted(path)}: unknown key"
    if len(path) == 1 and root is not None:
        label += f" for {_KIND_ARTICLES[_tag_of(root)]} target"
    suggestion = did_you_mean(key, allowed)
    if suggestion:
        return label, suggestion, suggestion.split("'")[1]
    if len(path) == 1:
        owners = [tag for tag, model in _KINDS.items() if key in model.model_fields]
        if owners:
            listed = ", ".join(owners[:-1]) + " and " if len(owners) > 1 else ""
            return label, f"'{key}' is a key of {listed}{owners[-1]} files", None
    return label, f"keys here are: {', '.join(allowed)}", None


def _data_at(data: Any, path: NodePath) -> Any:
    """The value at `path`, which pydantic's error located (so it is there)."""
    for part in path:
        data = data[part]
    return data


_KIND_ARTICLES = {
    "gauntlet": "a gauntlet",
    "openai-chat": "an openai-chat",
    "http": "an http",
    "openai-embeddings": "an openai-embeddings",
}


_PATTERNS: dict[str, tuple[str, str | None]] = {
    URL_PATTERN: ("{value!r} is not an http:// or https:// URL", None),
    ENV_NAME_PATTERN: (
        "{value!r} is not an environment variable name",
        "letters, digits and _, not starting with a digit, such as API_KEY",
    ),
    HEADER_NAME_PATTERN: (
        "{value!r} is not an HTTP header name",
        "letters, digits and !#$%&'*+.^_`|~- only; no spaces or colons",
    ),
    LANGUAGE_PATTERN: (
        "{value!r} is not a BCP 47 language tag",
        "for example en, es, es-MX, zh-Hant",
    ),
    NOT_BLANK_PATTERN: ("must not be blank", None),
}

_BOUNDS = {
    "greater_than": "above {}",
    "greater_than_equal": "at least {}",
    "less_than": "below {}",
    "less_than_equal": "at most {}",
}


def _number(limit: Any) -> Any:
    """A bound as a person writes it: `0`, not `0.0`."""
    return int(limit) if isinstance(limit, float) and limit.is_integer() else limit


# ------------------------------------------------------------------ locations through unions


def _walk(loc: NodePath, roots: tuple[type[BaseModel], ...]) -> _Where:
    """Follow pydantic's `loc` through the models, dropping the tags it puts after a union.

    pydantic names the branch a union chose (`citations.CitationsFromText.from_text`); the
    file has no such key. Which segments are tags is known from the models, not guessed from
    the data: a field whose type is a union of several branches is followed by one.
    """
    path: list[str | int] = []
    current = holders = offered = branches = roots
    choosing = False
    at_key = False
    for part in loc:
        if choosing:
            choosing = False
            current = tuple(model for model in branches if part in _tags(model))
            continue
        if part == "[key]":
            at_key = True
            continue
        holders, offered = current, branches
        path.append(part)
        owner = next((model for model in current if part in model.model_fields), None)
        if owner is None:  # a list index, or a key of a mapping field (headers, body)
            current = branches = ()
            continue
        annotation = owner.model_fields[str(part)].annotation
        current = branches = tuple(_models_in(annotation))
        choosing = _is_union(annotation)
    return _Where(tuple(path), at_key, holders, offered, branches)


def _tags(model: type[BaseModel]) -> set[str]:
    """What pydantic may call `model` in a location: its class name, or its `kind`."""
    return {model.__name__, *_kind_tags(model)}


def _kind_tags(model: type[BaseModel]) -> list[str]:
    field = model.model_fields.get("kind")
    return [str(tag) for tag in get_args(field.annotation)] if field else []


def _tag_of(model: type[BaseModel]) -> str:
    return _kind_tags(model)[0]


def _members(annotation: Any) -> Iterator[Any]:
    """The members of an annotation, through `Annotated`, unions and `None`."""
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        yield from _members(get_args(annotation)[0])
    elif origin in (typing.Union, types.UnionType):
        for member in get_args(annotation):
            yield from _members(member)
    elif annotation is not type(None):
        yield annotation


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    for member in _members(annotation):
        if isinstance(member, type) and issubclass(member, BaseModel):
            yield member


def _is_union(annotation: Any) -> bool:
    return len(list(_members(annotation))) > 1


# ------------------------------------------------------------------ rules beyond the models


class _Checks:
    """The rules a JSON Schema cannot say, on a file the models accepted."""

    def __init__(
        self,
        spec: TargetFileSpec,
        document: Document,
        source: str,
        environ: Mapping[str, str],
        base_dir: FsPath,
        wanted: Wanted,
    ) -> None:
        self.spec = spec
        self.wanted = wanted
        self.document = document
        self.source = source
        self.environ = environ
        self.base_dir = base_dir
        self.errors: list[ConfigError] = []
        self.read: dict[str, str] = {}
        """Each variable read, by name, in the order the file names them."""
        self.system_text: str | None = None

    def refuse(
        self, path: NodePath, message: str, hint: str | None = None, *, key: bool = False
    ) -> None:
        marks = self.document.key_marks if key else self.document.value_marks
        mark = marks.get(path) or self.document.mark_for(path)
        self.errors.append(
            ConfigSchemaError(
                self.source,
                f"{dotted(path)}: {message}",
                line=mark.line,
                column=mark.column,
                hint=hint,
            )
        )

    def secrets(self) -> tuple[Secret, ...]:
        """Every value read from the environment, each once, as a secret to mask."""
        return tuple(
            Secret(value, f"environment variable {name}") for name, value in self.read.items()
        )

    def run(self) -> None:
        spec = self.spec
        self.check_wanted()
        self.check_urls()
        self.check_headers()
        if isinstance(spec, OpenAIChatSpec | OpenAIEmbeddingsSpec) and spec.api_key_env:
            self.read_variable(("api_key_env",), spec.api_key_env)
        if isinstance(spec, OpenAIChatSpec):
            self.system_text = spec.system
            if spec.system_file is not None:
                self.system_text = self.read_system_file(spec.system_file)
        auth = spec.auth
        if auth is not None and auth.kind == "bearer":
            self.read_variable(("auth", "token_env"), auth.token_env)
        elif auth is not None:
            self.read_variable(("auth", "client_id_env"), auth.client_id_env)
            self.read_variable(("auth", "client_secret_env"), auth.client_secret_env)
        if isinstance(spec, HttpSpec):
            self.check_body(spec)

    def check_wanted(self) -> None:
        """Refuse an embedder's file where a target is wanted, and a target's for an embedder.

        Both are target files (one reader, one schema), so the kind is what tells them apart:
        an embeddings server given as `--target` would be asked chat questions it cannot
        answer, and a chat server given as `--embedder` would never return a vector.
        """
        embedder = isinstance(self.spec, OpenAIEmbeddingsSpec)
        if self.wanted == "target" and embedder:
            self.refuse(
                ("kind",),
                "openai-embeddings describes an embedder, not a target",
                "give it to --embedder; --target and --judge take a file of kind gauntlet, "
                "openai-chat or http",
            )
        elif self.wanted == "attacker" and not isinstance(self.spec, OpenAIChatSpec):
            self.refuse(
                ("kind",),
                f"{self.spec.kind} is not a chat model: an attacker is of kind openai-chat",
                "--attacker takes toy[:DEFECT,...] or a target file of kind openai-chat",
            )
        elif self.wanted == "embedder" and not embedder:
            self.refuse(
                ("kind",),
                f"{self.spec.kind} describes a target, not an embedder",
                "--embedder takes builtin, toy[:DEFECT,...] or a target file of kind "
                "openai-embeddings",
            )

    # ---------------------------------------------------------------- URLs

    def check_urls(self) -> None:
        """Refuse a URL that cannot be used as written, or that holds `user:password@`.

        A URL is not read from the environment: credentials in it would be kept in the file,
        sent by the HTTP library unasked and unmasked, and shown in the target's name.
        """
        spec = self.spec
        urls: list[tuple[NodePath, str, str]] = [
            (("base_url",), spec.base_url, _AUTH_HINT)
            if isinstance(spec, OpenAIChatSpec)
            else (("url",), spec.url, _AUTH_HINT)
        ]
        if spec.auth is not None and spec.auth.kind == "oauth2-client-credentials":
            hint = "the client id and secret are read from `client_id_env` and `client_secret_env`"
            urls.append((("auth", "token_url"), spec.auth.token_url, hint))
        for path, url, hint in urls:
            try:
                parts = urlsplit(url)
                _ = parts.port  # a port that is not a number from 0 to 65535 raises here
            except ValueError as exc:  # urllib's words: "Invalid IPv6 URL", "Port out of range"
                self.refuse(path, f"cannot be used as a URL: {exc}")
                continue
            if not parts.hostname:
                self.refuse(path, "has no host")
            elif "@" in parts.netloc:
                self.refuse(
                    path,
                    "holds credentials (user:password@); a target file reads every secret "
                    "from the environment",
                    hint,
                )

    # ---------------------------------------------------------------- the environment

    def read_variable(self, path: NodePath, name: str) -> str | None:
        """The value of `name`, recorded as read; or None, with the error, when it has none."""
        value = self.environ.get(name)
        if value is None:
            self.refuse(
                path,
                f"environment variable {name} is not set",
                "set it where gauntlet runs; in GitHub Actions, pass the secret with `env:`",
            )
        elif not value:
            self.refuse(
                path,
                f"environment variable {name} is set but empty",
                "in GitHub Actions, a secret that does not exist is passed as an empty value",
            )
        else:
            self.read[name] = value
            return value
        return None

    def check_headers(self) -> None:
        sets_authorization = self.spec.auth is not None or (
            isinstance(self.spec, OpenAIChatSpec | OpenAIEmbeddingsSpec)
            and self.spec.api_key_env is not None
        )
        for header, value in self.spec.headers.items():
            path: NodePath = ("headers", header)
            if sets_authorization and header.lower() == "authorization":
                owner = "auth" if self.spec.auth is not None else "api_key_env"
                self.refuse(
                    path,
                    f"`{owner}` sets this header already",
                    "remove the header, or the other",
                    key=True,
                )
            if "\r" in value or "\n" in value:
                self.refuse(path, "a header value cannot hold a line break")
            references = list(ENV_REFERENCE.finditer(value))
            if value.count("${") > len(references):
                self.refuse(
                    path,
                    "'${' starts no variable reference",
                    "write ${NAME}: letters, digits and _, not starting with a digit",
                )
            for reference in references:
                name = reference["name"]
                read = self.read_variable(path, name)
                if read is not None and ("\r" in read or "\n" in read):
                    self.refuse(
                        path,
                        f"environment variable {name} holds a line break, "
                        "which a header value cannot (its value is not shown)",
                    )

    # ---------------------------------------------------------------- system_file

    def read_system_file(self, name: str) -> str | None:
        """`system_file`'s text, or None with the error: a regular UTF-8 file beside the file.

        Only what is in the target file's directory, or below it, is read: an absolute path,
        a `..` that climbs out, or a symlink anywhere on the way is refused before anything
        is opened, so no target file can send (or `probe` print) another file's content.
        """
        file = self.base_dir / name
        problem, hint = _outside(self.base_dir, name)
        if problem is None:
            try:
                raw = read_regular_file(file, limit=MAX_SYSTEM_FILE_BYTES, what="a system prompt")
            except RefusedFileError as exc:  # not a regular file, or too large
                problem = exc.reason
            except FileNotFoundError:
                problem = "no such file"
                hint = "system_file is read relative to the directory of the target file"
            except OSError as exc:
                problem = f"cannot read: {exc.strerror}"
            except ValueError:  # a NUL in the name, which no path can hold
                problem = "cannot be a file name: it holds a NUL character"
        if problem is None and raw.startswith(b"\xef\xbb\xbf"):
            problem, hint = "starts with a byte-order mark", "save it as UTF-8 without BOM"
        if problem is None:
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                problem = f"not UTF-8: byte 0x{raw[exc.start]:02x} at byte offset {exc.start}"
                hint = "save the file as UTF-8"
        self.refuse(("system_file",), f"{file}: {problem}", hint)
        return None

    # ---------------------------------------------------------------- the request body

    def check_body(self, spec: HttpSpec) -> None:
        used: set[str] = set()
        for path, key, leaf in _body_strings(spec.body):
            if key:
                if "{{" in leaf:
                    self.refuse(
                        path,
                        "a key cannot hold a placeholder: keys are sent as written",
                        "put the placeholder in the value",
                        key=True,
                    )
                continue
            used |= self.check_leaf(path, leaf, spec)
        if Placeholder.PROMPT not in used:
            self.refuse(
                ("body",),
                "no string in the body holds {{ prompt }}, so every case would send the same "
                "request",
                'put it where the API takes the question, such as input: "{{ prompt }}"',
                key=True,
            )
        session = spec.session
        if session is not None and session.header is None and Placeholder.SESSION_ID not in used:
            self.refuse(
                ("session",),
                "the session id is read but never sent back",
                "put {{ session_id }} in the body, or name a header with `header:`",
                key=True,
            )

    def check_leaf(self, path: NodePath, leaf: str, spec: HttpSpec) -> set[str]:
        """Check one body string's placeholders, each name once; the known ones it names."""
        found = list(PLACEHOLDER.finditer(leaf))
        names = set(dict.fromkeys(match[1] for match in found))
        for name in sorted(names - set(_PLACEHOLDERS)):
            self.refuse(
                path,
                f"unknown placeholder {{{{ {name} }}}}; "
                f"the placeholders are {', '.join(_PLACEHOLDERS)}",
                did_you_mean(name, _PLACEHOLDERS),
            )
        if Placeholder.HISTORY in names and not PLACEHOLDER.fullmatch(leaf):
            self.refuse(
                path,
                "{{ history }} must be the whole string: it is a list of messages, "
                "inserted as JSON",
                'write the key\'s value as exactly "{{ history }}"',
            )
        if Placeholder.SESSION_ID in names and spec.session is None:
            self.refuse(
                path,
                "{{ session_id }} needs `session`, which says where the server's id comes from",
            )
        if leaf.count("{{") > len(found):
            self.refuse(
                path,
                "'{{' opens no placeholder",
                f"write {{{{ name }}}} with one of: {', '.join(_PLACEHOLDERS)}",
            )
        return names & set(_PLACEHOLDERS)


_AUTH_HINT = (
    "use `auth:`, or a header that reads them, such as `Authorization: Basic ${CREDENTIALS}`"
)

_BESIDE = "name a file in the target file's directory (or below it), relative to that directory"
_ITSELF = "name the file itself, so the prompt sent is the one kept beside it"


def _outside(base_dir: FsPath, name: str) -> tuple[str | None, str | None]:
    """Why `name` may reach outside `base_dir`, and a hint; (None, None) when it cannot.

    Decided on the name as written and on what is on disk, never by resolving: with no
    symlink on the way, `..` means the directory above, so counting is enough.
    """
    written = PurePath(name)
    if written.is_absolute() or written.anchor:
        return "an absolute path, which could name any file on this machine", _BESIDE
    depth = 0
    for part in written.parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 0:
            return "leaves the target file's directory", _BESIDE
    walked = base_dir
    parts = [part for part in written.parts if part != "."]
    for index, part in enumerate(parts):
        walked /= part
        try:
            linked = part != ".." and walked.is_symlink()
        except (OSError, ValueError):  # unreadable on the way: reading it says why
            return None, None
        if linked and index == len(parts) - 1:
            return "is a symlink", _ITSELF
        if linked:
            return f"goes through a symlink ({FsPath(*parts[: index + 1])})", _ITSELF
    return None, None


def _body_strings(body: Any, path: NodePath = ("body",)) -> Iterator[tuple[NodePath, bool, str]]:
    """Every key and string leaf of a body: (its path, whether it is a key, the text)."""
    if isinstance(body, dict):
        for key, value in body.items():
            yield (*path, key), True, key
            yield from _body_strings(value, (*path, key))
    elif isinstance(body, list):
        for index, value in enumerate(body):
            yield from _body_strings(value, (*path, index))
    elif isinstance(body, str):
        yield path, False, body
