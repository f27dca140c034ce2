"""A drop-in for code written for ``onnxruntime``: ``InferenceSession``, ``SessionOptions``,
``GraphOptimizationLevel``, ``get_available_providers`` and ``get_device`` with ONNX
Runtime's names and signatures, over :class:`onnx_light.RuntimeSession`. A program that does
``import onnxruntime as ort`` runs on onnx-light by changing that line to
``import onnx_light as ort`` (docs/runtime.md lists what is and is not covered)."""

from __future__ import annotations

import enum
import os
import warnings
from typing import Any, Sequence

import numpy as np

from onnx_light.onnx import ModelProto
from onnx_light.runtime import ModelMetadata, NodeArg, RunOptions, RuntimeSession

CPU_PROVIDER = "CPUExecutionProvider"


class GraphOptimizationLevel(enum.IntEnum):
    """ONNX Runtime's levels, with its values (0, 1, 2, 99)."""

    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_ALL = 99


class ExecutionMode(enum.IntEnum):
    """ONNX Runtime's execution modes. onnx-light runs a graph's nodes in order on one
    thread pool (ORT_SEQUENTIAL); ORT_PARALLEL is accepted and runs the same way."""

    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


class SessionOptions:
    """The options ONNX Runtime users set, with its names and defaults.

    Used: ``intra_op_num_threads`` (0: one per physical core), ``graph_optimization_level``,
    ``enable_profiling``, ``profile_file_prefix``, ``optimized_model_filepath``,
    ``enable_mem_pattern``. Accepted and without effect here (onnx-light runs one graph
    on one thread pool and logs nothing): ``inter_op_num_threads``, ``execution_mode``,
    ``log_severity_level``, ``log_verbosity_level``, ``logid``, ``enable_cpu_mem_arena``.
    Setting any other attribute is an AttributeError, so a misspelt option is not lost.
    """

    _FIELDS = {
        "intra_op_num_threads": 0,
        "inter_op_num_threads": 0,
        "graph_optimization_level": GraphOptimizationLevel.ORT_ENABLE_ALL,
        "enable_profiling": False,
        "profile_file_prefix": "onnxruntime_profile_",
        "optimized_model_filepath": "",
        "enable_mem_pattern": True,
        "enable_cpu_mem_arena": True,
        "execution_mode": ExecutionMode.ORT_SEQUENTIAL,
        "log_severity_level": -1,
        "log_verbosity_level": 0,
        "logid": "",
    }

    def __init__(self) -> None:
        for name, value in self._FIELDS.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_custom_ops_libraries", [])

    def register_custom_ops_library(self, library_path: str | os.PathLike) -> None:
        """ORT's ``SessionOptions.register_custom_ops_library``: the library's custom ops
        (onnxruntime-extensions' CPU ops among them) run in the sessions made with these
        options, in the extensions profile (docs/custom_ops_ort_called_by_light.md). The
        library is loaded by each session and stays loaded while the session lives."""
        if not isinstance(library_path, (str, os.PathLike)):
            raise TypeError(f"library_path must be a path, got {type(library_path).__name__}")
        if not os.fspath(library_path):
            raise ValueError("library_path is empty")
        self._custom_ops_libraries.append(os.fspath(library_path))

    def _copy(self) -> "SessionOptions":
        copy = SessionOptions()
        for name in self._FIELDS:
            object.__setattr__(copy, name, getattr(self, name))
        object.__setattr__(copy, "_custom_ops_libraries", list(self._custom_ops_libraries))
        return copy

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._FIELDS:
            raise AttributeError(
                f"SessionOptions has no option {name!r}; the options are: "
                + ", ".join(sorted(self._FIELDS))
            )
        if name == "execution_mode":
            if isinstance(value, bool) or not isinstance(value, int) or value not in (0, 1):
                raise TypeError(
                    f"execution_mode must be an ExecutionMode (ORT_SEQUENTIAL or ORT_PARALLEL), "
                    f"got {value!r}"
                )
            value = ExecutionMode(value)
        object.__setattr__(self, name, value)


def set_default_logger_severity(severity: int) -> None:
    """ORT's global logging level (0 verbose .. 4 fatal), checked as ORT checks it. It has
    no effect: onnx-light writes no log."""
    if isinstance(severity, bool) or not isinstance(severity, int) or not 0 <= severity <= 4:
        raise RuntimeError(
            "Invalid logging severity. 0:Verbose, 1:Info, 2:Warning, 3:Error, 4:Fatal "
            f"(got {severity!r})"
        )


def disable_telemetry_events() -> None:
    """ORT's switch for its telemetry. onnx-light sends none: nothing to disable."""


def enable_telemetry_events() -> None:
    """ORT's switch for its telemetry. onnx-light sends none, and this does not start any."""


def get_version_string() -> str:
    """ORT's ``get_version_string()``: here onnx-light's own version."""
    from onnx_light import __version__

    return __version__


def get_build_info() -> str:
    """ORT's ``get_build_info()``: one line naming this build."""
    return (
        f"onnx-light build info: version={get_version_string()}, "
        f"execution providers={CPU_PROVIDER}"
    )


def get_available_providers() -> list[str]:
    """The execution providers: the CPU one only."""
    return [CPU_PROVIDER]


def get_device() -> str:
    """``onnxruntime.get_device()``: the device this build runs on, ``"CPU"``."""
    return "CPU"


def _check_providers(providers: Sequence[Any] | None) -> None:
    """ONNX Runtime's rule: a provider that is not available (a GPU one, say) gets a
    UserWarning with ORT's wording and is skipped; the session runs on the CPU. Names must
    be strings, or (name, options) pairs."""
    if providers is None:
        return
    if isinstance(providers, (str, bytes)):
        raise TypeError("providers must be a list of provider names, not one string")
    for p in providers:
        name = p[0] if isinstance(p, tuple) and len(p) == 2 else p
        if not isinstance(name, str):
            raise TypeError(
                f"each provider must be a name or a (name, options) pair, got {type(p).__name__}"
            )
        if name != CPU_PROVIDER:
            warnings.warn(
                f"Specified provider '{name}' is not in available provider names."
                f"Available providers: '{CPU_PROVIDER}'",
                stacklevel=3,
            )


class InferenceSession:
    """``onnxruntime.InferenceSession(path_or_bytes, sess_options=None, providers=None)``.

    A provider other than ``CPUExecutionProvider`` in ``providers`` warns (ORT's
    UserWarning and wording) and is skipped, as ONNX Runtime does with a provider it does
    not have; ``provider_options`` are accepted and ignored."""

    def __init__(
        self,
        path_or_bytes: str | os.PathLike | bytes | ModelProto,
        sess_options: SessionOptions | None = None,
        providers: Sequence[Any] | None = None,
        provider_options: Sequence[dict] | None = None,
        **kwargs: Any,
    ) -> None:
        if kwargs:
            raise TypeError(f"unexpected arguments: {', '.join(sorted(kwargs))}")
        _check_providers(providers)
        if sess_options is not None and not isinstance(sess_options, SessionOptions):
            raise TypeError(
                "sess_options must be an onnx_light.SessionOptions, got "
                f"{type(sess_options).__name__}"
            )
        so = sess_options or SessionOptions()
        self._sess_options = so._copy()
        self._session = RuntimeSession(
            path_or_bytes,
            intra_op_threads=so.intra_op_num_threads,
            graph_optimization_level=int(so.graph_optimization_level),
            optimized_model_path=so.optimized_model_filepath or None,
            enable_profiling=bool(so.enable_profiling),
            enable_mem_pattern=bool(so.enable_mem_pattern),
            custom_ops_libraries=list(so._custom_ops_libraries),
        )
        # Tensor inputs' dtypes, for Python lists fed in their place (run()).
        self._tensor_dtypes = {
            a.name: a.dtype for a in self._session.get_inputs() if a.type.startswith("tensor(")
        }

    def run(
        self,
        output_names: Sequence[str] | None,
        input_feed: dict[str, Any],
        run_options: RunOptions | None = None,
    ) -> list[Any]:
        """As ORT's: a tensor input fed a Python list instead of a numpy array is converted
        to the input's declared element type (magika feeds a list); numpy arrays must have
        the declared dtype, and tuples or bare scalars are errors, as in ORT."""
        if isinstance(input_feed, dict):
            converted = None
            for name, value in input_feed.items():
                dtype = self._tensor_dtypes.get(name)
                if dtype is not None and isinstance(value, list):
                    if converted is None:
                        converted = dict(input_feed)
                    converted[name] = np.asarray(value, dtype=dtype)
            if converted is not None:
                input_feed = converted
        return self._session.run(output_names, input_feed, run_options)

    def get_inputs(self) -> list[NodeArg]:
        return self._session.get_inputs()

    def get_outputs(self) -> list[NodeArg]:
        return self._session.get_outputs()

    def get_modelmeta(self) -> ModelMetadata:
        """ORT's ``get_modelmeta()``: ``custom_metadata_map``, ``description``, ``domain``,
        ``graph_description``, ``graph_name``, ``producer_name``, ``version``."""
        return self._session.get_modelmeta()

    def get_providers(self) -> list[str]:
        return [CPU_PROVIDER]

    def get_provider_options(self) -> dict[str, dict[str, str]]:
        """ORT's: each provider in use with its options; the CPU one, with none."""
        return {CPU_PROVIDER: {}}

    def get_session_options(self) -> SessionOptions:
        """ORT's: a copy of the options the session was made with."""
        return self._sess_options._copy()

    def set_providers(
        self,
        providers: Sequence[Any] | None = None,
        provider_options: Sequence[dict] | None = None,
    ) -> None:
        """ORT's: the same rules as the constructor's ``providers`` (an unavailable one
        warns and is skipped); the session keeps running on the CPU."""
        _check_providers(providers)

    def end_profiling(self) -> str:
        """Writes the profile (Chrome trace JSON) as ``<profile_file_prefix><time>.json``
        in the current folder, as ONNX Runtime does, and returns its path."""
        import datetime

        stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
        prefix = self._sess_options.profile_file_prefix
        return self._session.end_profiling(f"{prefix}{stamp}.json")
