"""Plain data between the grader and a student's kernel: encode, decode, validate.

Both sides use these functions: the grader imports this module, and sends its
source to the kernel with each call (the kernel runs it in a namespace of its
own).  A value travels as JSON made of primitives (None, bool, int, float,
str) and one-key objects that say what they are:

    {"list": [...]}, {"tuple": [...]}, {"dict": [[key, value], ...]},
    {"ndarray": "<base64 .npy>"}, {"npscalar": "<base64 .npy of shape ()>"},
    {"int": "<digits>"} (beyond 64 bits), {"complex": [re, im]},
    {"ellipsis": 1}, {"rng": <PCG64 state>}, {"opaque": "<type name>"}

Arrays are ``.npy`` files read with ``allow_pickle=False`` after their header
was checked: numeric or boolean dtype only (no objects, no structured types),
at most ``MAX_ARRAY_BYTES`` and ``MAX_DIMS`` dimensions.  Anything else the
student's code returns (a generator, a class of its own) arrives as an
"opaque" value that has only its type's name.  Depth, item count and string
length are bounded, so a hostile kernel cannot make the grader build a huge or
deeply nested object.
"""

import base64
import io
import json
import math
import re

import numpy as np

MAX_DEPTH = 12
MAX_ITEMS = 200_000
MAX_STRING = 100_000
MAX_ARRAY_BYTES = 64 * 2**20
MAX_DIMS = 8
MAX_INT_DIGITS = 400
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,79}")


class WireError(ValueError):
    """A message that is not plain data of the agreed form."""


def encode(value):
    """``value`` as JSON text (raises WireError on what cannot travel as data, except 'opaque')."""
    return json.dumps(_enc(value, 0, [0]), allow_nan=True)


def decode(text, opaque=None):
    """The value that ``text`` encodes; ``opaque(name)`` builds stand-ins for opaque values."""
    if not isinstance(text, str) or len(text) > 8 * MAX_ARRAY_BYTES:
        raise WireError("not a message of bounded size")
    try:
        tree = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise WireError(f"not JSON: {type(exc).__name__}") from None
    return _dec(tree, 0, [0], opaque or _opaque_type)


def _count(counter):
    counter[0] += 1
    if counter[0] > MAX_ITEMS:
        raise WireError("too many items")


def _npy(arr):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array(arr, order="C", copy=True), allow_pickle=False)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _enc(v, depth, counter):
    _count(counter)
    if depth > MAX_DEPTH:
        raise WireError("nested too deeply")
    if v is None or isinstance(v, (bool, str)) and type(v) in (bool, str):
        if isinstance(v, str) and len(v) > MAX_STRING:
            raise WireError("string too long")
        return v
    if type(v) is int:
        return v if abs(v) < 2**63 else {"int": str(v)}
    if type(v) is float:
        return v
    if type(v) is complex:
        return {"complex": [v.real, v.imag]}
    if v is Ellipsis:
        return {"ellipsis": 1}
    if isinstance(v, np.ndarray) and type(v) is np.ndarray:
        if v.dtype.kind not in "biufc" or v.dtype.fields is not None or v.nbytes > MAX_ARRAY_BYTES:
            return {"opaque": f"ndarray[{v.dtype.kind}]"}
        return {"ndarray": _npy(v)}
    if isinstance(v, np.generic) and v.dtype.kind in "biufc":
        return {"npscalar": _npy(np.asarray(v))}
    if type(v) in (list, tuple):
        return {type(v).__name__: [_enc(x, depth + 1, counter) for x in v]}
    if isinstance(v, tuple) and _lib_namedtuple(type(v)):
        cls = type(v)
        return {"namedtuple": [f"{cls.__module__}:{cls.__qualname__}", [_enc(x, depth + 1, counter) for x in v]]}
    if type(v) is dict:
        return {"dict": [[_enc(k, depth + 1, counter), _enc(x, depth + 1, counter)] for k, x in v.items()]}
    if type(v) is np.random.Generator and type(v.bit_generator) is np.random.PCG64:
        return {"rng": v.bit_generator.state}
    name = getattr(type(v), "__name__", "object")
    return {"opaque": name if isinstance(name, str) and NAME.fullmatch(name) else "object"}


def _lib_namedtuple(cls):
    """A named tuple defined in the book's ``lib`` (lib.variational.FactorialParams, ...)."""
    module = getattr(cls, "__module__", "")
    return (isinstance(module, str) and (module == "lib" or module.startswith("lib."))
            and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple))


def _namedtuple_class(name):
    """The class ``module:qualname`` if it is a named tuple of ``lib``, else None (a plain tuple then)."""
    import importlib

    if not isinstance(name, str) or not re.fullmatch(r"lib(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*", name):
        return None
    module, qualname = name.split(":")
    try:
        cls = getattr(importlib.import_module(module), qualname)
    except (ImportError, AttributeError):
        return None
    return cls if isinstance(cls, type) and _lib_namedtuple(cls) else None


def _read_npy(text):
    if not isinstance(text, str) or len(text) > MAX_ARRAY_BYTES * 4 // 3 + 1024:
        raise WireError("array too large")
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise WireError("array not base64") from None
    buf = io.BytesIO(raw)
    try:
        version = np.lib.format.read_magic(buf)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(buf)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(buf)
        else:
            raise WireError("unknown .npy version")
    except WireError:
        raise
    except Exception as exc:  # noqa: BLE001 - any malformed header
        raise WireError(f"bad .npy header ({type(exc).__name__})") from None
    if dtype.hasobject or dtype.fields is not None or dtype.kind not in "biufc":
        raise WireError(f"array of dtype {dtype} refused: numbers or booleans only")
    if len(shape) > MAX_DIMS or any(not isinstance(n, int) or n < 0 for n in shape):
        raise WireError("bad array shape")
    size = math.prod(shape)
    if size * dtype.itemsize > MAX_ARRAY_BYTES:
        raise WireError("array too large")
    buf.seek(0)
    try:
        arr = np.lib.format.read_array(buf, allow_pickle=False)
    except Exception as exc:  # noqa: BLE001 - truncated data and the like
        raise WireError(f"bad .npy data ({type(exc).__name__})") from None
    if arr.shape != tuple(shape) or arr.dtype != dtype:
        raise WireError("array does not match its header")
    return arr.copy()  # writeable, owns its memory


def _opaque_type(name):
    """A stand-in value whose type has the student's type name and no behaviour."""
    safe = name if isinstance(name, str) and NAME.fullmatch(name) else "object"
    return type(safe.rsplit(".", 1)[-1], (), {"__repr__": lambda self: f"<{safe} object>"})()


def _dec(t, depth, counter, opaque):
    _count(counter)
    if depth > MAX_DEPTH:
        raise WireError("nested too deeply")
    if t is None or type(t) in (bool, float):
        return t
    if type(t) is int:
        if abs(t) >= 2**63:
            raise WireError("integer out of range")
        return t
    if type(t) is str:
        if len(t) > MAX_STRING:
            raise WireError("string too long")
        return t
    if type(t) is not dict or len(t) != 1:
        raise WireError("not a tagged value")
    (tag, body), = t.items()
    if tag in ("list", "tuple"):
        if type(body) is not list:
            raise WireError("bad sequence")
        items = [_dec(x, depth + 1, counter, opaque) for x in body]
        return items if tag == "list" else tuple(items)
    if tag == "namedtuple":
        if type(body) is not list or len(body) != 2 or type(body[1]) is not list:
            raise WireError("bad named tuple")
        items = [_dec(x, depth + 1, counter, opaque) for x in body[1]]
        cls = _namedtuple_class(body[0])
        if cls is not None and len(items) == len(cls._fields):
            return cls(*items)
        return tuple(items)
    if tag == "dict":
        if type(body) is not list:
            raise WireError("bad dict")
        out = {}
        for pair in body:
            if type(pair) is not list or len(pair) != 2:
                raise WireError("bad dict item")
            key = _dec(pair[0], depth + 1, counter, opaque)
            try:
                hash(key)
            except TypeError:
                raise WireError("unhashable dict key") from None
            out[key] = _dec(pair[1], depth + 1, counter, opaque)
        return out
    if tag == "ndarray":
        return _read_npy(body)
    if tag == "npscalar":
        arr = _read_npy(body)
        if arr.shape != ():
            raise WireError("numpy scalar with a shape")
        return arr[()]
    if tag == "int":
        if type(body) is not str or not re.fullmatch(r"-?\d{1,%d}" % MAX_INT_DIGITS, body):
            raise WireError("bad integer")
        return int(body)
    if tag == "complex":
        if type(body) is not list or len(body) != 2 or not all(type(x) in (int, float) for x in body):
            raise WireError("bad complex")
        return complex(body[0], body[1])
    if tag == "ellipsis":
        return Ellipsis
    if tag == "rng":
        try:
            bits = np.random.PCG64()
            bits.state = body
            return np.random.Generator(bits)
        except Exception:  # noqa: BLE001 - any malformed state
            raise WireError("bad generator state") from None
    if tag == "opaque":
        return opaque(body)
    raise WireError(f"unknown tag {str(tag)[:40]!r}")
