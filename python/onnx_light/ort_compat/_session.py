"""ONNX Runtime's session API -- ``InferenceSession``, ``SessionOptions``, its enums and
module functions -- with its names, signatures and behaviour, over
:class:`onnx_light.RuntimeSession` (docs/ort_drop_in.md lists every name)."""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import os
import threading
import time
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from onnx_light import onnx as _onnx
from onnx_light.onnx import ModelProto
from onnx_light.ort_compat._errors import LOADING, RUNNING
from onnx_light.ort_compat._errors import NotImplemented as OrtNotImplemented
from onnx_light.ort_compat._errors import unsupported
from onnx_light.ort_compat._ortvalue import IOBinding, OrtValue, _value_of
from onnx_light.runtime import ModelMetadata, NodeArg, RunOptions, RuntimeSession

CPU_PROVIDER = "CPUExecutionProvider"
# The ONNX Runtime release whose Python API this module follows (and the one the tests
# compare with): what ``onnxruntime.__version__`` and ``get_version_string()`` say, so that
# programs gating features on ORT's version take the paths written for it.
ORT_API_VERSION = "1.30.0"


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


class ExecutionOrder(enum.IntEnum):
    """ONNX Runtime's node orders. onnx-light runs nodes in its planned topological order;
    every value is accepted and runs that way."""

    DEFAULT = 0
    PRIORITY_BASED = 1
    MEMORY_EFFICIENT = 2


# Session config entries (``add_session_config_entry``) that change what onnx-light does:
# key -> {value: effect}. Other keys (and other values of these) are stored and returned.
_HONOURED_SESSION_ENTRIES = {
    "session.disable_quant_qdq": "1: QDQ groups stay float ops (the qdq_to_integer pass is off)",
    "session.disable_prepacking": (
        "1: MatMul and Gemm weights are not pre-packed or transposed "
        "(prepack_matmul_weights, transpose_gemm_weights)"
    ),
    "session.load_model_format": "ONNX; ORT (the flatbuffer format) is refused",
    "session.save_model_format": "ONNX; ORT is refused",
}


class SessionOptions:
    """The options ONNX Runtime users set, with its names and defaults.

    Used: ``intra_op_num_threads`` (0: one per physical core), ``graph_optimization_level``,
    ``enable_profiling``, ``profile_file_prefix``, ``optimized_model_filepath``,
    ``enable_mem_pattern``, free-dimension overrides, the session config entries in
    ``_HONOURED_SESSION_ENTRIES``. Accepted and without effect here (onnx-light runs one
    graph on one thread pool and logs nothing): ``inter_op_num_threads``, ``execution_mode``,
    ``execution_order``, ``log_severity_level``, ``log_verbosity_level``, ``logid``,
    ``enable_cpu_mem_arena``, ``use_deterministic_compute`` (onnx-light's kernels give the
    same result on every run). Setting any other attribute is an AttributeError, so a
    misspelt option is not lost.
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
        "execution_order": ExecutionOrder.DEFAULT,
        "use_deterministic_compute": False,
        "enable_mem_reuse": True,
        "use_per_session_threads": True,
        "log_severity_level": -1,
        "log_verbosity_level": 0,
        "logid": "",
    }

    def __init__(self) -> None:
        for name, value in self._FIELDS.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_custom_ops_libraries", [])
        object.__setattr__(self, "_config", {})
        object.__setattr__(self, "_providers", [])
        object.__setattr__(self, "_dim_overrides", {})  # ("name" | "denotation", key) -> int
        object.__setattr__(self, "_initializers", {})  # add_initializer: name -> OrtValue

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

    def add_session_config_entry(self, config_key: str, config_value: str) -> None:
        """ORT's session config entry. The keys in ``_HONOURED_SESSION_ENTRIES`` change what
        onnx-light does; every entry is kept and :meth:`get_session_config_entry` returns it."""
        if not isinstance(config_key, str) or not isinstance(config_value, str):
            raise TypeError(
                "add_session_config_entry(): config_key and config_value must be str, got "
                f"{type(config_key).__name__} and {type(config_value).__name__}"
            )
        self._config[config_key] = config_value

    def get_session_config_entry(self, config_key: str) -> str:
        if config_key not in self._config:
            raise RuntimeError(f"SessionOptions does not have configuration with key: {config_key}")
        return self._config[config_key]

    def add_provider(self, provider_name: str, provider_options: dict[str, str]) -> None:
        """ORT's: a provider for sessions made with these options; one other than the CPU
        one warns and is skipped, as in the ``providers`` argument."""
        _check_providers([provider_name])
        self._providers.append(provider_name)

    def has_providers(self) -> bool:
        return bool(self._providers)

    def add_initializer(self, name: str, ortvalue: Any) -> None:
        """ORT's: the OrtValue replaces the model's initializer of that name in the sessions
        made with these options (a name the model has no initializer for changes nothing,
        as in ORT). The value is read when the session is made."""
        from onnx_light.ort_compat._ortvalue import OrtValue

        if not isinstance(ortvalue, OrtValue):
            raise RuntimeError("The provided Python object must be an OrtValue")
        self._initializers[str(name)] = ortvalue

    def add_external_initializers(self, names: Any, ortvalues: Any) -> None:
        raise unsupported(
            "SessionOptions.add_external_initializers",
            "external data is read from the files the model names (onnx_light.onnx.load_model)",
        )

    def add_external_initializers_from_files_in_memory(self, *args: Any) -> None:
        raise unsupported(
            "SessionOptions.add_external_initializers_from_files_in_memory",
            "external data is read from the files the model names",
        )

    def set_load_cancellation_flag(self, value: bool) -> None:
        raise unsupported(
            "SessionOptions.set_load_cancellation_flag", "loading cannot be cancelled"
        )

    def add_provider_for_devices(self, *args: Any) -> None:
        raise unsupported(
            "SessionOptions.add_provider_for_devices", "there are no plugin EP devices"
        )

    def set_provider_selection_policy(self, *args: Any) -> None:
        raise unsupported(
            "SessionOptions.set_provider_selection_policy", "the CPU is the only provider"
        )

    def set_provider_selection_policy_delegate(self, *args: Any) -> None:
        raise unsupported(
            "SessionOptions.set_provider_selection_policy_delegate", "the CPU is the only provider"
        )

    def add_free_dimension_override_by_name(self, dim_name: str, dim_value: int) -> None:
        """Fixes the symbolic dimension ``dim_name`` of the graph's inputs to ``dim_value``:
        the session's inputs report it, and a feed of another size is an InvalidArgument."""
        self._add_dim_override("name", dim_name, dim_value)

    def add_free_dimension_override_by_denotation(
        self, dim_denotation: str, dim_value: int
    ) -> None:
        """As :meth:`add_free_dimension_override_by_name`, for the dimensions whose
        ``denotation`` is ``dim_denotation`` (``DATA_BATCH``, say)."""
        self._add_dim_override("denotation", dim_denotation, dim_value)

    def _add_dim_override(self, kind: str, key: str, value: int) -> None:
        if not isinstance(key, str) or not key:
            raise TypeError(f"the dimension's {kind} must be a non-empty str, got {key!r}")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise TypeError(f"dim_value must be an int >= 0, got {value!r}")
        self._dim_overrides[(kind, key)] = value

    def _copy(self) -> "SessionOptions":
        copy = SessionOptions()
        for name in self._FIELDS:
            object.__setattr__(copy, name, getattr(self, name))
        object.__setattr__(copy, "_custom_ops_libraries", list(self._custom_ops_libraries))
        object.__setattr__(copy, "_config", dict(self._config))
        object.__setattr__(copy, "_providers", list(self._providers))
        object.__setattr__(copy, "_dim_overrides", dict(self._dim_overrides))
        object.__setattr__(copy, "_initializers", dict(self._initializers))
        return copy

    def _disabled_passes(self) -> list[str]:
        """The graph passes the honoured config entries turn off."""
        passes = []
        if self._config.get("session.disable_quant_qdq") == "1":
            passes.append("qdq_to_integer")
        if self._config.get("session.disable_prepacking") == "1":
            passes += ["transpose_gemm_weights", "prepack_matmul_weights"]
        for key in ("session.load_model_format", "session.save_model_format"):
            value = self._config.get(key, "ONNX")
            if value.upper() != "ONNX":
                raise OrtNotImplemented(
                    f"{key} = {value!r}: onnx-light reads and writes the ONNX format only, not "
                    "ORT's flatbuffer (.ort) format"
                )
        return passes

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._FIELDS:
            raise AttributeError(
                f"SessionOptions has no option {name!r}; the options are: "
                + ", ".join(sorted(self._FIELDS))
            )
        if name == "execution_order":
            if isinstance(value, bool) or not isinstance(value, int) or value not in (0, 1, 2):
                raise TypeError(f"execution_order must be an ExecutionOrder, got {value!r}")
            value = ExecutionOrder(value)
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


def set_default_logger_verbosity(verbosity: int) -> None:
    """ORT's verbose-log level. No effect: onnx-light writes no log."""
    if isinstance(verbosity, bool) or not isinstance(verbosity, int):
        raise TypeError(f"verbosity must be an int, got {verbosity!r}")


def set_seed(seed: int) -> None:
    """ORT's seed for its random ops. onnx-light's RandomNormal/RandomUniform(Like) and
    Multinomial take their ``seed`` attribute or draw from the OS; this has no effect."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {seed!r}")


def disable_telemetry_events() -> None:
    """ORT's switch for its telemetry. onnx-light sends none: nothing to disable."""


def enable_telemetry_events() -> None:
    """ORT's switch for its telemetry. onnx-light sends none, and this does not start any."""


def get_version_string() -> str:
    """The ONNX Runtime version whose Python API this drop-in follows (``ORT_API_VERSION``):
    programs compare it to choose code paths. ``onnx_light.__version__`` is onnx-light's."""
    return ORT_API_VERSION


def get_build_info() -> str:
    """ORT's ``get_build_info()``: one line naming this build (onnx-light and its version)."""
    from onnx_light import __version__

    # "ORT Build Info: " first, as ORT's (programs look for it).
    return (
        f"ORT Build Info: onnx-light {__version__} (ONNX Runtime {ORT_API_VERSION} Python API), "
        f"build type=Release, execution providers: {CPU_PROVIDER}"
    )


def get_all_providers() -> list[str]:
    """The providers this build knows: the CPU one only."""
    return [CPU_PROVIDER]


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


# set_global_thread_pool_sizes: (intra, inter) once per process, as ORT's global pools.
_GLOBAL_POOLS: list[tuple[int, int]] = []


def set_global_thread_pool_sizes(
    intra_op_num_threads: int = 0, inter_op_num_threads: int = 0
) -> None:
    """ORT's: the sizes of the process's global thread pools, which sessions with
    ``use_per_session_threads = False`` use; settable once (ORT's Fail after). onnx-light
    gives such a session a pool of its own of that intra-op size."""
    from onnx_light.ort_compat._errors import Fail

    if _GLOBAL_POOLS:
        raise Fail("Global thread pools have already been created, cannot replace them")
    if intra_op_num_threads < 0 or inter_op_num_threads < 0:
        raise ValueError("thread counts must not be negative")
    _GLOBAL_POOLS.append((int(intra_op_num_threads), int(inter_op_num_threads)))


def _intra_threads(so: "SessionOptions") -> int:
    """The intra-op thread count of a session made with `so`: its own, or the global
    pools' when it does not use per-session threads (ORT's RuntimeError without them)."""
    if so.use_per_session_threads:
        return so.intra_op_num_threads
    return _GLOBAL_POOLS[0][0]  # (InferenceSession checked that there are global pools)


def check_and_normalize_provider_args(
    providers: Sequence[Any] | None,
    provider_options: Sequence[dict] | None,
    available_provider_names: Sequence[str],
) -> tuple[list[str], list[dict[str, str]]]:
    """ORT's helper (``onnxruntime.capi.onnxruntime_inference_collection``): providers as
    names or (name, options) tuples, or names with a parallel ``provider_options``, to
    (names, options dicts with string keys and values); ORT's warnings for an unavailable
    or a repeated provider (the first one kept) and its ValueErrors for malformed
    arguments."""
    if providers is None:
        return [], []
    chosen: dict[str, dict[str, str]] = {}

    def add(name: str, options: dict) -> None:
        if name not in available_provider_names:
            warnings.warn(
                f"Specified provider '{name}' is not in available provider names."
                f"Available providers: '{', '.join(available_provider_names)}'"
            )
        if name in chosen:
            warnings.warn(f"Duplicate provider '{name}' encountered, ignoring.")
            return
        chosen[name] = {str(k): str(v) for k, v in options.items()}

    if not isinstance(providers, collections.abc.Sequence):
        raise ValueError("'providers' should be a sequence.")
    if provider_options is not None:
        if not isinstance(provider_options, collections.abc.Sequence):
            raise ValueError("'provider_options' should be a sequence.")
        if len(providers) != len(provider_options):
            raise ValueError(
                "'providers' and 'provider_options' should be the same length if both are given."
            )
        if not all(isinstance(p, str) for p in providers):
            raise ValueError(
                "Only string values for 'providers' are supported if 'provider_options' is given."
            )
        if not all(isinstance(o, dict) for o in provider_options):
            raise ValueError("'provider_options' values must be dicts.")
        for name, options in zip(providers, provider_options):
            add(name, options)
    else:
        for p in providers:
            if isinstance(p, str):
                add(p, {})
            elif (
                isinstance(p, tuple)
                and len(p) == 2
                and isinstance(p[0], str)
                and isinstance(p[1], dict)
            ):
                add(p[0], p[1])
            else:
                raise ValueError(
                    "'providers' values must be either strings or (string, dict) tuples."
                )
    return list(chosen), list(chosen.values())


def _as_orts(arg: NodeArg) -> NodeArg:
    """A NodeArg as ORT shows it: a map's or a sequence's shape is [] (onnx-light's own
    NodeArg says None: no shape)."""
    if arg.shape is None and arg.type.startswith(("map(", "seq(")):
        return dataclasses.replace(arg, shape=[])
    return arg


class InferenceSession:
    """``onnxruntime.InferenceSession(path_or_bytes, sess_options=None, providers=None)``.

    A provider other than ``CPUExecutionProvider`` in ``providers`` warns (ORT's
    UserWarning and wording) and is skipped, as ONNX Runtime does with a provider it does
    not have; ``provider_options`` are accepted and ignored. Errors are ORT's exception
    classes, each also the built-in onnx-light raises (``_errors``)."""

    def __init__(
        self,
        path_or_bytes: str | os.PathLike | bytes | ModelProto,
        sess_options: SessionOptions | None = None,
        providers: Sequence[Any] | None = None,
        provider_options: Sequence[dict] | None = None,
        **kwargs: Any,
    ) -> None:
        if (
            isinstance(sess_options, SessionOptions)
            and not sess_options.use_per_session_threads
            and not _GLOBAL_POOLS
        ):  # ORT's plain RuntimeError and words
            raise RuntimeError(
                "When the session is not configured to use per session threadpools, the env must "
                "be created with the the CreateEnvWithGlobalThreadPools API."
            )
        with LOADING:
            disabled_optimizers = kwargs.pop("disabled_optimizers", None)
            kwargs.pop("read_config_from_model", None)  # ORT's: config in the model; none here
            if kwargs:
                raise TypeError(f"unexpected arguments: {', '.join(sorted(kwargs))}")
            if disabled_optimizers:
                raise unsupported(
                    "InferenceSession(disabled_optimizers=...)",
                    "it names ORT's optimizers; onnx-light's passes have other names: use "
                    "onnx_light.RuntimeSession(disabled_passes=[...]) (docs/runtime.md)",
                )
            _check_providers(providers)
            if sess_options is not None and not isinstance(sess_options, SessionOptions):
                raise TypeError(
                    "sess_options must be an onnx_light.ort_compat.SessionOptions, got "
                    f"{type(sess_options).__name__}"
                )
            so = (sess_options or SessionOptions())._copy()
            self._sess_options = so
            # As ORT's attributes (Optimum reads _model_path to find the model's folder).
            is_path = isinstance(path_or_bytes, (str, os.PathLike))
            self._model_path = os.fspath(path_or_bytes) if is_path else None
            self._model_bytes = bytes(path_or_bytes) if isinstance(path_or_bytes, bytes) else None
            model = path_or_bytes
            if so._dim_overrides or so._initializers:
                model = _edited(path_or_bytes, so._dim_overrides, so._initializers)
            self._session = RuntimeSession(
                model,
                intra_op_threads=_intra_threads(so),
                graph_optimization_level=int(so.graph_optimization_level),
                optimized_model_path=so.optimized_model_filepath or None,
                enable_profiling=bool(so.enable_profiling),
                enable_mem_pattern=bool(so.enable_mem_pattern),
                disabled_passes=so._disabled_passes(),
                custom_ops_libraries=list(so._custom_ops_libraries),
            )
        self._profiling_start_ns = time.time_ns() if so.enable_profiling else 0
        # Tensor inputs' dtypes, for Python lists fed in their place (run()).
        self._tensor_dtypes = {
            a.name: a.dtype for a in self._session.get_inputs() if a.type.startswith("tensor(")
        }
        # The inputs every run must feed (_validate_input), in ORT's order: once, not per run.
        self._required_inputs = [
            a.name for a in self.get_inputs() if not a.type.startswith("optional")
        ]

    def _feeds(self, input_feed: Any) -> Any:
        """ORT's conversions of feeds: an OrtValue gives its array; a Python list for a tensor
        input becomes an array of the input's declared element type (magika feeds a list).
        numpy arrays must have the declared dtype; tuples and bare scalars are errors."""
        if not isinstance(input_feed, dict):
            return input_feed  # the runtime's TypeError
        feeds = {}
        for name, value in input_feed.items():
            value = _value_of(value)
            dtype = self._tensor_dtypes.get(name)
            if dtype is not None and isinstance(value, list):
                value = np.asarray(value, dtype=dtype)
            feeds[name] = value
        return feeds

    def _run_values(
        self, output_names: Sequence[str] | None, feeds: Any, run_options: RunOptions | None
    ) -> list[Any]:
        with RUNNING:
            if run_options is not None and not isinstance(run_options, RunOptions):
                raise TypeError(
                    "run_options must be an onnx_light.ort_compat.RunOptions, got "
                    f"{type(run_options).__name__}"
                )
            return self._session.run(output_names, self._feeds(feeds), run_options)

    def run_with_ortvaluevector(
        self,
        run_options: RunOptions | None,
        feed_names: Sequence[str],
        feeds: Any,
        fetch_names: Sequence[str],
        fetches: Any,
        fetch_devices: Sequence[Any],
    ) -> None:
        """ORT's: OrtValueVector feeds in, the outputs appended to the OrtValueVector
        ``fetches`` (on the CPU, whatever ``fetch_devices`` says: it is the only device)."""
        if len(feed_names) != len(feeds):
            raise ValueError("feed_names and feeds must have the same length")
        outputs = self.run_with_ort_values(
            list(fetch_names), dict(zip(feed_names, list(feeds))), run_options
        )
        for value in outputs:
            fetches.push_back(value)

    def _validate_input(self, feed_names: list[str]) -> None:
        """ORT's check of a feed, with ORT's ValueError and words: every input that is not
        optional is fed (programs match on the message)."""
        missing = [name for name in self._required_inputs if name not in feed_names]
        if missing:
            raise ValueError(
                f"Required inputs ({missing}) are missing from input feed ({feed_names})."
            )

    def run(
        self,
        output_names: Sequence[str] | None,
        input_feed: dict[str, Any],
        run_options: RunOptions | None = None,
    ) -> list[Any]:
        """Runs the model: numpy arrays (or OrtValues, or Python lists converted to the
        input's type) in, numpy arrays out."""
        if isinstance(input_feed, dict):
            self._validate_input(list(input_feed.keys()))
        return self._run_values(output_names, input_feed, run_options)

    def run_with_ort_values(
        self,
        output_names: Sequence[str] | None,
        input_dict_ortvalue: dict[str, OrtValue],
        run_options: RunOptions | None = None,
    ) -> list[OrtValue]:
        """As ORT's: OrtValues in (read in place), OrtValues out (the runtime's arrays, not
        copied). bfloat16 goes through here as in ORT."""
        with RUNNING:
            if not isinstance(input_dict_ortvalue, dict):
                raise TypeError("input_dict_ortvalue must be a dict of name -> OrtValue")
            self._validate_input(list(input_dict_ortvalue.keys()))
            for name, value in input_dict_ortvalue.items():
                if not isinstance(value, OrtValue):
                    raise TypeError(
                        f"input '{name}': run_with_ort_values takes OrtValues, got "
                        f"{type(value).__name__} (use OrtValue.ortvalue_from_numpy)"
                    )
        results = self._run_values(output_names, input_dict_ortvalue, run_options)
        return [OrtValue._wrap(r) for r in results]

    def io_binding(self) -> IOBinding:
        """A new :class:`IOBinding` for :meth:`run_with_iobinding`."""
        return IOBinding(self)

    def run_with_iobinding(
        self, iobinding: IOBinding, run_options: RunOptions | None = None
    ) -> None:
        """Runs with the binding's inputs; its outputs then hold the results."""
        if not isinstance(iobinding, IOBinding) or iobinding._session is not self:
            raise TypeError("iobinding must come from this session's io_binding()")
        iobinding._run(run_options)

    def run_async(
        self,
        output_names: Sequence[str] | None,
        input_feed: dict[str, Any],
        callback: Callable[[list[Any], Any, str], None],
        user_data: Any,
        run_options: RunOptions | None = None,
    ) -> None:
        """ORT's: runs on another thread and calls ``callback(outputs, user_data, error)``:
        the outputs as numpy arrays and ``""``, or ``[]`` and the error's message (ORT's
        convention; the callback runs on that thread). Returns at once."""
        if not callable(callback):
            raise TypeError(f"callback must be callable, got {type(callback).__name__}")

        def work() -> None:
            try:
                outputs, error = self._run_values(output_names, input_feed, run_options), ""
            except Exception as exc:  # reported to the callback, as ORT does
                outputs, error = [], str(exc)
            callback(outputs, user_data, error)

        threading.Thread(target=work, name="onnx_light.run_async", daemon=True).start()

    def get_input_memory_infos(self) -> list:
        """Where each input's data must be: CPU memory for every input (ORT's CPU EP)."""
        from onnx_light.ort_compat._capi_types import cpu_memory_info

        return [cpu_memory_info() for _ in self._session.get_inputs()]

    def get_output_memory_infos(self) -> list:
        """Where each output is made: CPU memory."""
        from onnx_light.ort_compat._capi_types import cpu_memory_info

        return [cpu_memory_info() for _ in self._session.get_outputs()]

    def get_inputs(self) -> list[NodeArg]:
        """The inputs a run must feed, as ORT lists them: an input that also has an
        initializer is left out (see :meth:`get_overridable_initializers`)."""
        skip = self._session._initializer_inputs
        return [_as_orts(a) for a in self._session.get_inputs() if a.name not in skip]

    def get_outputs(self) -> list[NodeArg]:
        return [_as_orts(a) for a in self._session.get_outputs()]

    def get_overridable_initializers(self) -> list[NodeArg]:
        """ORT's: the inputs that also have an initializer; a feed may replace one."""
        keep = self._session._initializer_inputs
        return [_as_orts(a) for a in self._session.get_inputs() if a.name in keep]

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

    def get_tuning_results(self) -> list:
        """ORT's kernel tuning results (ROCm/CUDA tunable ops): none on the CPU, as ORT's."""
        return []

    def set_tuning_results(self, results: list, error_on_invalid: bool = False) -> None:
        if results:
            raise unsupported(
                "InferenceSession.set_tuning_results", "onnx-light has no tunable ops"
            )

    def get_input_epdevices(self) -> list:
        raise unsupported("InferenceSession.get_input_epdevices", "there are no EP devices")

    def get_provider_graph_assignment_info(self) -> list:
        raise unsupported(
            "InferenceSession.get_provider_graph_assignment_info", "every node runs on the CPU"
        )

    def release_captured_graph(self, *args: Any) -> None:
        raise unsupported("InferenceSession.release_captured_graph", "there is no graph capture")

    def set_ep_dynamic_options(self, *args: Any) -> None:
        raise unsupported("InferenceSession.set_ep_dynamic_options", "the CPU is the only provider")

    def create_ortvalue_from_shape_and_type(self, *args: Any) -> None:
        raise unsupported(
            "InferenceSession.create_ortvalue_from_shape_and_type",
            "use OrtValue.ortvalue_from_shape_and_type",
        )

    def disable_fallback(self) -> None:
        """ORT's switch for falling back to the CPU provider: the CPU is the only one here."""

    def enable_fallback(self) -> None:
        """ORT's switch for falling back to the CPU provider: the CPU is the only one here."""

    def get_profiling_start_time_ns(self) -> int:
        """When profiling started (ns since the epoch), 0 when the session does not profile,
        as ORT's."""
        return self._profiling_start_ns

    def end_profiling(self) -> str:
        """Writes the profile (Chrome trace JSON) as ``<profile_file_prefix><time>.json``
        in the current folder, as ONNX Runtime does, and returns its path."""
        import datetime

        stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
        prefix = self._sess_options.profile_file_prefix
        with RUNNING:
            path = self._session.end_profiling(f"{prefix}{stamp}.json")
        self._profiling_start_ns = time.time_ns()
        return path


def _edited(model: Any, overrides: dict[tuple[str, str], int], initializers: dict) -> ModelProto:
    """The model as the options say: free dimensions fixed (_override_dims), initializers
    replaced by the OrtValues of SessionOptions.add_initializer (names the model has no
    initializer for are left alone, as ORT leaves them)."""
    from onnx_light.onnx import numpy_helper

    model = _override_dims(model, overrides)
    for tensor in model.graph.initializer:
        if tensor.name in initializers:
            tensor.CopyFrom(numpy_helper.from_array(initializers[tensor.name].numpy(), tensor.name))
    return model


def _override_dims(model: Any, overrides: dict[tuple[str, str], int]) -> ModelProto:
    """The model with its inputs' symbolic dimensions fixed as ``overrides`` says
    (SessionOptions.add_free_dimension_override_by_name / _by_denotation)."""
    if isinstance(model, ModelProto):
        model = ModelProto.FromString(model.SerializeToString())
    elif isinstance(model, (bytes, bytearray, memoryview)):
        model = _onnx.load_model_from_string(bytes(model))
    elif isinstance(model, (str, os.PathLike)):
        model = _onnx.load_model(os.fspath(model))
    else:
        raise TypeError(f"model must be a ModelProto, bytes or a path, got {type(model).__name__}")
    for value_info in model.graph.input:
        if not value_info.type.HasField("tensor_type"):
            continue
        for dim in value_info.type.tensor_type.shape.dim:
            value = overrides.get(("name", dim.dim_param)) if dim.dim_param else None
            if value is None and dim.denotation:
                value = overrides.get(("denotation", dim.denotation))
            if value is not None and not dim.HasField("dim_value"):
                dim.dim_value = value
    return model
