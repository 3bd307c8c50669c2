"""Reading the JSON files we write back in as checked records: every field named in its error.

``read_json_object`` reads a file that must hold one JSON object; ``record`` builds a
dataclass from one of its objects, checking that each field is present (or has a
default), that no unknown field is there and that each value has its annotated type
(``int``, ``float``, ``str``, ``bool``, ``list[...]``, ``dict[...]``, ``X | None``,
``Any``). Errors are :class:`engines.base.VoiceError` (or the subclass passed in)
naming the file and the field, e.g. ``clips[3].text``.
"""

from __future__ import annotations

import json
import types
import typing
from dataclasses import MISSING, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from engines.base import VoiceError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")


def read_json_object(path: Path, error: type[VoiceError] = VoiceError) -> dict[str, Any]:
    """The JSON object in ``path``.

    Raises:
        VoiceError (or ``error``): missing or unreadable file, invalid JSON (line and column), not an object.
    """
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise error(path, "file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(path, f"cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise error(path, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(raw, dict):
        raise error(path, "expected a JSON object at the top level")
    return raw


def record(cls: type[T], data: Any, path: Path, where: str, error: type[VoiceError] = VoiceError) -> T:
    """``cls(**data)`` for a dataclass ``cls``, with every field checked against its annotation.

    Args:
        where: the object's place in the file, for errors (``settings``, ``clips[3]``).

    Raises:
        VoiceError (or ``error``): ``data`` is not an object, a required field is missing,
            a field is unknown, or a value has the wrong type.
    """
    if not isinstance(data, dict):
        raise error(path, f"must be an object, got {type(data).__name__}", where)
    hints = typing.get_type_hints(cls)
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise error(path, f"unknown field (known: {', '.join(known)})", f"{where}.{unknown[0]}")
    for name, spec in known.items():
        if name not in data:
            if spec.default is MISSING and spec.default_factory is MISSING:
                raise error(path, "missing", f"{where}.{name}")
        elif not matches(data[name], hints[name]):
            raise error(path, f"must be {_describe(hints[name])}, got {data[name]!r}", f"{where}.{name}")
    return cls(**data)


def matches(value: Any, hint: Any) -> bool:
    """Whether a JSON value fits a type annotation (ints count as floats; bools are not numbers)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if hint is type(None):
        return value is None
    if origin in (typing.Union, types.UnionType):
        return any(matches(value, a) for a in args)
    if origin is list:
        return isinstance(value, list) and all(matches(v, args[0]) for v in value) if args else isinstance(value, list)
    if origin is dict:
        return isinstance(value, dict) and (not args or all(matches(v, args[1]) for v in value.values()))
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


_NAMES = {int: ("an integer", "integers"), float: ("a number", "numbers"), str: ("a string", "strings")}


def _describe(hint: Any) -> str:
    """``int | None`` -> ``an integer or null``; ``list[float]`` -> ``a list of numbers``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(a) for a in args)
    if origin is list:
        return "a list" + (f" of {_NAMES.get(args[0], ('', 'values'))[1]}" if args else "")
    if origin is dict:
        return "an object"
    if hint is bool:
        return "true or false"
    if hint is type(None):
        return "null"
    return _NAMES.get(hint, (getattr(hint, "__name__", str(hint)),))[0]
