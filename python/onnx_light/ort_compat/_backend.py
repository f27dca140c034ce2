"""``onnxruntime.backend``: ONNX's backend API (``prepare``, ``run``, ``is_compatible``,
``supports_device``) over the drop-in's InferenceSession, as ORT implements it: the same
accepted models (a path, bytes, a ModelProto of onnx or onnx_light, a session, a prepared
rep), the same allowed session and run options and errors for the blocked ones, inputs as
a list or a single array. Differences: onnx's ``Backend``/``BackendRep`` base classes are
not the bases (onnx is never imported by onnx-light); ``onnx.checker`` is not run on a
ModelProto and every opset onnx-light has kernels for is accepted (ORT skips unreleased
ones in its test runs)."""

from __future__ import annotations

from typing import Any

_ALLOWED_SESSION_OPTIONS = frozenset(
    {
        "enable_cpu_mem_arena",
        "enable_mem_pattern",
        "enable_mem_reuse",
        "execution_mode",
        "execution_order",
        "graph_optimization_level",
        "inter_op_num_threads",
        "intra_op_num_threads",
        "log_severity_level",
        "log_verbosity_level",
        "logid",
        "use_deterministic_compute",
        "use_per_session_threads",
    }
)
_ALLOWED_RUN_OPTIONS = frozenset(
    {"log_severity_level", "log_verbosity_level", "logid", "only_execute_path_to_fetches"}
)


def _apply(options: Any, kwargs: dict, allowed: frozenset, what: str) -> None:
    """Sets the allowed attributes; refuses known ones that are not allowed (ORT's words);
    ignores unknown keys, as ORT."""
    for key, value in kwargs.items():
        if key in allowed:
            setattr(options, key, value)
        elif hasattr(options, key):
            raise RuntimeError(
                f"{what} attribute '{key}' is not permitted via the backend API. "
                f"Allowed attributes: {', '.join(sorted(allowed))}"
            )


class OnnxRuntimeBackendRep:
    """A prepared model: ``run(inputs)`` with a list (one array per input, in order) or a
    single array for a one-input model; returns the list of outputs."""

    def __init__(self, session: Any) -> None:
        self._session = session

    def run(self, inputs: Any, **kwargs: Any) -> list:
        from onnx_light.ort_compat import RunOptions

        options = RunOptions()
        _apply(options, kwargs, _ALLOWED_RUN_OPTIONS, "RunOptions")
        args = self._session.get_inputs()
        if isinstance(inputs, list):
            feeds = {arg.name: inputs[i] for i, arg in enumerate(args)}
        else:
            if len(args) != 1:
                raise RuntimeError(f"Model expect {len(args)} inputs")
            feeds = {args[0].name: inputs}
        return self._session.run(None, feeds, options)


class OnnxRuntimeBackend:
    """ONNX's backend API on onnx-light (classmethods, as onnx's Backend)."""

    @classmethod
    def is_compatible(cls, model: Any, device: str | None = None, **kwargs: Any) -> bool:
        return cls.supports_device(device)

    @classmethod
    def is_opset_supported(cls, model: Any) -> tuple[bool, str]:
        return True, ""

    @classmethod
    def supports_device(cls, device: str | None) -> bool:
        from onnx_light.ort_compat import get_device

        if device == "CUDA":
            device = "GPU"
        current = get_device()
        return device is not None and (
            "-" + device in current or device + "-" in current or device == current
        )

    @classmethod
    def prepare(cls, model: Any, device: str | None = None, **kwargs: Any) -> OnnxRuntimeBackendRep:
        from onnx_light.ort_compat import InferenceSession, SessionOptions, get_device

        if isinstance(model, OnnxRuntimeBackendRep):
            return model
        if isinstance(model, InferenceSession):
            return OnnxRuntimeBackendRep(model)
        if not isinstance(model, (str, bytes)):
            if not hasattr(model, "SerializeToString"):
                raise TypeError(
                    "model must be a path, bytes, a ModelProto, an InferenceSession or a "
                    f"prepared rep, got {type(model).__name__}"
                )
            model = model.SerializeToString()  # onnx's ModelProto or onnx_light's
        options = SessionOptions()
        _apply(options, kwargs, _ALLOWED_SESSION_OPTIONS, "SessionOptions")
        session = InferenceSession(model, sess_options=options)
        if device is not None and not cls.supports_device(device):
            raise RuntimeError(f"Incompatible device expected '{device}', got '{get_device()}'")
        return OnnxRuntimeBackendRep(session)

    @classmethod
    def run_model(cls, model: Any, inputs: Any, device: str | None = None, **kwargs: Any) -> list:
        return cls.prepare(model, device, **kwargs).run(inputs, **kwargs)

    @classmethod
    def run_node(cls, node: Any, inputs: Any, device: str | None = None, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "It is much more efficient to run a whole model than every node independently."
        )


is_compatible = OnnxRuntimeBackend.is_compatible
prepare = OnnxRuntimeBackend.prepare
run = OnnxRuntimeBackend.run_model
supports_device = OnnxRuntimeBackend.supports_device
