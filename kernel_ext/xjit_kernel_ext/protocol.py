"""The ``xjit/2`` comm protocol: message construction helpers and validation.

The schema lives in ``docs/comm-protocol.schema.json`` (this package ships it
as ``comm-protocol.schema.json``, a symlink in the source tree that setuptools
copies into wheels). Validation dispatches on the message's ``type`` first so
errors name the field that is wrong instead of "matches none of 10 schemas",
and each direction only admits its own message types: a panel can never make
the kernel accept, say, a ``state`` message.
"""
from __future__ import annotations

import functools
import json
import math
from importlib import resources
from typing import Any

import fastjsonschema
import jsonschema

PROTOCOL = "xjit/2"
TARGET = "xjit"

KERNEL_TYPES = ("hello", "state", "batch", "function", "findings", "debug", "breakpoint",
                "error")
FRONTEND_TYPES = ("request_state", "run_debug", "select_function")


class ProtocolError(ValueError):
    """A message that does not conform to ``xjit/2``."""


@functools.lru_cache(maxsize=None)
def schema() -> dict:
    text = resources.files(__package__).joinpath("comm-protocol.schema.json").read_text("utf-8")
    return json.loads(text)


def _sub_schema(msg_type: str) -> dict:
    return {"$ref": f"#/definitions/{msg_type}", "definitions": schema()["definitions"]}


@functools.lru_cache(maxsize=None)
def _validator(msg_type: str) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(_sub_schema(msg_type))


@functools.lru_cache(maxsize=None)
def _fast_validator(msg_type: str):
    """The same schema compiled to Python code (fastjsonschema): a 10,000-
    equation ``function`` reply validates in milliseconds instead of
    seconds. ``jsonschema`` only runs to explain a rejection."""
    return fastjsonschema.compile(_sub_schema(msg_type), use_default=False)


def _validate(msg: Any, allowed: tuple[str, ...], direction: str) -> dict:
    if not isinstance(msg, dict):
        raise ProtocolError(f"{direction} message is {type(msg).__name__}, not an object")
    msg_type = msg.get("type")
    if msg_type not in allowed:
        raise ProtocolError(f"{direction} message has unknown type {msg_type!r}")
    try:
        _fast_validator(msg_type)(msg)
        return msg
    except fastjsonschema.JsonSchemaValueException as fast:
        err = jsonschema.exceptions.best_match(_validator(msg_type).iter_errors(msg))
        if err is None:  # the two validators disagree: reject, with the fast one's reason
            raise ProtocolError(f"invalid {msg_type!r} message: {fast.message}") from None
        where = "/".join(str(p) for p in err.absolute_path) or "<message>"
        raise ProtocolError(f"invalid {msg_type!r} message at {where}: {err.message}") from None


def validate_outgoing(msg: Any) -> dict:
    """Raise ProtocolError unless ``msg`` is a valid kernel -> panel message."""
    return _validate(msg, KERNEL_TYPES, "outgoing")


def validate_incoming(msg: Any) -> dict:
    """Raise ProtocolError unless ``msg`` is a valid panel -> kernel request."""
    return _validate(msg, FRONTEND_TYPES, "incoming")


def message(msg_type: str, **fields) -> dict:
    return {"protocol": PROTOCOL, "type": msg_type, **fields}


def jsonable(value: Any) -> Any:
    """Plain JSON data: numpy scalars become Python numbers, non-finite floats
    become None (JSON has no NaN), tuples become lists, unknown objects strings."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        try:
            return jsonable(value.item())
        except (TypeError, ValueError):
            pass
    return str(value)
