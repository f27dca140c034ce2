"""ONNX Runtime's exception classes (``onnxruntime.capi.onnxruntime_pybind11_state``) and the
translation of onnx-light's errors into them.

ORT raises its own classes (``InvalidArgument``, ``Fail``, ``NoSuchFile``, ...), each a direct
``Exception`` subclass; onnx-light raises Python's built-ins (``TypeError``, ``ValueError``,
``FileNotFoundError``, ``RuntimeError``). An error leaving the ORT-compatible API is re-raised
as a class that subclasses both: ORT's class for the error, and the built-in onnx-light raised.
So ``except InvalidArgument`` (code written for ORT) and ``except ValueError`` (code written
for onnx-light) both keep catching it. The message is onnx-light's, unchanged."""

from __future__ import annotations

from types import TracebackType

_MODULE = "onnx_light.ort_compat"


def _ort_class(name: str, doc: str) -> type:
    return type(name, (Exception,), {"__module__": _MODULE, "__doc__": doc})


Fail = _ort_class("Fail", "ORT's FAIL: a kernel failed, or a run was terminated or timed out.")
InvalidArgument = _ort_class(
    "InvalidArgument", "ORT's INVALID_ARGUMENT: a feed, an output name or an option is wrong."
)
NoSuchFile = _ort_class("NoSuchFile", "ORT's NO_SUCHFILE: the model file does not exist.")
NoModel = _ort_class("NoModel", "ORT's NO_MODEL (never raised by onnx-light).")
EngineError = _ort_class("EngineError", "ORT's ENGINE_ERROR (never raised by onnx-light).")
RuntimeException = _ort_class(
    "RuntimeException", "ORT's RUNTIME_EXCEPTION: an internal error of the runtime."
)
InvalidProtobuf = _ort_class(
    "InvalidProtobuf", "ORT's INVALID_PROTOBUF: the model's bytes are not a valid ModelProto."
)
ModelLoaded = _ort_class("ModelLoaded", "ORT's MODEL_LOADED (never raised by onnx-light).")
NotImplemented = _ort_class(  # noqa: A001 - ORT's name, shadowing the built-in constant here
    "NotImplemented", "ORT's NOT_IMPLEMENTED: the model needs an op or type this build lacks."
)
InvalidGraph = _ort_class("InvalidGraph", "ORT's INVALID_GRAPH: the model's graph is invalid.")
EPFail = _ort_class("EPFail", "ORT's EP_FAIL (never raised by onnx-light).")
ModelLoadCanceled = _ort_class(
    "ModelLoadCanceled", "ORT's MODEL_LOAD_CANCELED (never raised by onnx-light)."
)
ModelRequiresCompilation = _ort_class(
    "ModelRequiresCompilation", "ORT's MODEL_REQUIRES_COMPILATION (never raised by onnx-light)."
)
NotFound = _ort_class("NotFound", "ORT's NOT_FOUND (never raised by onnx-light).")
DeviceReset = _ort_class("DeviceReset", "ORT's DEVICE_RESET (never raised by onnx-light).")

ORT_EXCEPTIONS = (
    Fail,
    InvalidArgument,
    NoSuchFile,
    NoModel,
    EngineError,
    RuntimeException,
    InvalidProtobuf,
    ModelLoaded,
    NotImplemented,
    InvalidGraph,
    EPFail,
    ModelLoadCanceled,
    ModelRequiresCompilation,
    NotFound,
    DeviceReset,
)

_COMBINED: dict[tuple[type, type], type] = {}


def _combined(ort_cls: type, builtin: type) -> type:
    """The class named as ORT's that subclasses both ``ort_cls`` and ``builtin``."""
    key = (ort_cls, builtin)
    cls = _COMBINED.get(key)
    if cls is None:
        cls = _COMBINED[key] = type(
            ort_cls.__name__,
            (ort_cls, builtin),
            {"__module__": _MODULE, "__doc__": f"{ort_cls.__doc__} Also a {builtin.__name__}."},
        )
    return cls


def _classify(exc: Exception, phase: str) -> type | None:
    """ORT's class for an onnx-light error raised while loading (``phase`` "load") or running
    ("run") a model, as ORT 1.30 classifies the same failure."""
    message = str(exc)
    if isinstance(exc, FileNotFoundError):
        return NoSuchFile
    if isinstance(exc, OSError):
        return Fail
    if isinstance(exc, RuntimeError):
        if message.startswith("NOT_IMPLEMENTED"):
            return NotImplemented
        if message.startswith("INTERNAL"):
            return RuntimeException
        return Fail  # CANCELLED, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION
    if isinstance(exc, (TypeError, ValueError)):
        if phase == "run" and message.startswith("node '"):
            # A kernel's failure ("node 'n' (Reshape): ..."): ORT's "Non-zero status code
            # returned while running Reshape node" is a FAIL.
            return Fail
        if phase == "load" and isinstance(exc, ValueError):
            # The wire-format decoder names the message it was reading ("ModelProto: ...",
            # "ModelProto.graph...: ..."); anything else is a graph that does not check.
            return InvalidProtobuf if message.startswith("ModelProto") else InvalidGraph
        return InvalidArgument
    return None


def translate(exc: BaseException, phase: str) -> BaseException:
    """``exc`` as an instance of ORT's class for it that is also of ``exc``'s own class; the
    same object when it needs none (already ORT's, or not an error onnx-light raises)."""
    if not isinstance(exc, Exception) or isinstance(exc, ORT_EXCEPTIONS):
        return exc
    ort_cls = _classify(exc, phase)
    if ort_cls is None:
        return exc
    try:
        return _combined(ort_cls, type(exc))(*exc.args)
    except TypeError:  # a class that cannot be combined or rebuilt from its args
        return exc


def unsupported(feature: str, why: str) -> Exception:
    """The error for an ORT feature onnx-light does not have: ORT's ``NotImplemented`` that is
    also a RuntimeError, naming the feature and why."""
    return _combined(NotImplemented, RuntimeError)(
        f"{feature} is not supported by onnx-light: {why} (docs/ort_drop_in.md)"
    )


class Translating:
    """``with Translating("run"): ...`` re-raises onnx-light's errors as ORT's classes."""

    __slots__ = ("phase",)

    def __init__(self, phase: str) -> None:
        self.phase = phase

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool:
        if exc is None:
            return False
        new = translate(exc, self.phase)
        if new is exc:
            return False
        raise new.with_traceback(tb) from None


LOADING = Translating("load")
RUNNING = Translating("run")
