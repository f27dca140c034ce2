"""``onnx_light.RuntimeSession``: run an ONNX model from Python, in the style of
``onnxruntime.InferenceSession`` (numpy in and out, bfloat16 through ml_dtypes)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from onnx_light import _core
from onnx_light.onnx import ModelProto, _mapping


@dataclass(frozen=True)
class NodeArg:
    """A graph input or output: name, ``tensor(<type>)`` (or ``seq(tensor(<type>))`` for a
    sequence, fed and returned as a list of arrays; ``optional(tensor(<type>))`` for an
    optional, fed and returned as an array or None; ``map(<key>,tensor(<type>))`` for a
    map, fed and returned as a dict; ``seq(map(...))`` for a sequence of maps, a list of
    dicts) string, shape (ints for fixed dimensions, str for symbolic ones, None for
    unknown; None for an unknown rank, a sequence or a map) and the numpy dtype (a
    sequence's element dtype, a map's value dtype)."""

    name: str
    type: str
    shape: list[int | str | None] | None
    dtype: np.dtype


@dataclass(frozen=True)
class ModelMetadata:
    """The model's metadata, with the attribute names of ONNX Runtime's ``ModelMetadata``
    (``InferenceSession.get_modelmeta()``): ``custom_metadata_map`` holds the model's
    ``metadata_props`` (apps keep class names and character lists there)."""

    producer_name: str
    graph_name: str
    domain: str
    description: str
    graph_description: str
    version: int
    custom_metadata_map: dict[str, str]


@dataclass(frozen=True)
class OpTypeTime:
    """One row of :meth:`RuntimeSession.profile_summary`: an op type's summed node time in
    milliseconds, its share of all node time (0..1) and how many times it ran."""

    op_type: str
    total_ms: float
    share: float
    calls: int


_TYPE_NAMES = {
    1: "float",
    2: "uint8",
    3: "int8",
    4: "uint16",
    5: "int16",
    6: "int32",
    7: "int64",
    8: "string",
    9: "bool",
    10: "float16",
    11: "double",
    12: "uint32",
    13: "uint64",
    14: "complex64",
    15: "complex128",
    16: "bfloat16",
}


def _type_name(code: int) -> str:
    return f"tensor({_TYPE_NAMES.get(code, str(code))})"


# (kind, element type code, key type code) -> (type string, numpy dtype), filled as
# sessions ask. Kinds: 0 tensor, 1 sequence, 2 optional, 3 map, 4 sequence of maps.
_ARG_TYPES: dict[tuple[int, int, int], tuple[str, np.dtype]] = {}


def _arg_type(kind: int, code: int, key: int) -> tuple[str, np.dtype]:
    found = _ARG_TYPES.get((kind, code, key))
    if found is None:
        name = _type_name(code)
        if kind == 1:
            name = f"seq({name})"
        elif kind == 2:
            name = f"optional({name})"
        elif kind in (3, 4):
            # ONNX Runtime's spelling: map(int64,tensor(float)), seq(map(...)).
            name = f"map({_TYPE_NAMES.get(key, '?') if key else '?'},{name})"
            if kind == 4:
                name = f"seq({name})"
        found = _ARG_TYPES[(kind, code, key)] = (name, _mapping.TENSOR_TYPE_MAP[code].np_dtype)
    return found


def _node_args(rows) -> list[NodeArg]:
    return [
        NodeArg(name, *_with_shape(_arg_type(kind, code, key), shape))
        for name, code, shape, kind, key in rows
    ]


def _with_shape(kind: tuple[str, np.dtype], shape):
    return kind[0], shape, kind[1]


_LEVELS = {"none": 0, "basic": 1, "extended": 2, "all": 99}


def _optimization_level(level: Any) -> int:
    if isinstance(level, str):
        if level not in _LEVELS:
            raise ValueError(
                f"graph_optimization_level must be one of {', '.join(_LEVELS)}, got {level!r}"
            )
        return _LEVELS[level]
    if isinstance(level, bool) or not hasattr(level, "__index__"):
        raise TypeError(f"graph_optimization_level must be a str or int, got {level!r}")
    value = level.__index__()
    if value not in _LEVELS.values():
        raise ValueError(f"graph_optimization_level must be 0, 1, 2 or 99, got {value}")
    return value


class RunOptions:
    """Controls for runs, with ONNX Runtime's names (its ``RunOptions``). Setting
    ``terminate = True``, from any thread, stops the runs given these options at their next
    node with a RuntimeError starting ``CANCELLED``; terminated options stop every run they
    are given until ``terminate = False`` (or :meth:`reset`). ``timeout`` (seconds, None for
    no limit; onnx-light's own) stops a run that takes longer with one starting
    ``DEADLINE_EXCEEDED``. Both are checked before every node and every Loop or Scan
    iteration. ORT's logging fields (``log_severity_level``, ``log_verbosity_level``,
    ``logid``) are kept and have no effect: onnx-light writes no log; so are ORT's run config
    entries (:meth:`add_run_config_entry`), none of which changes a CPU run here. Any other
    attribute is an AttributeError, so a misspelt option is not silently ignored."""

    __slots__ = (
        "_options",
        "_config",
        "log_severity_level",
        "log_verbosity_level",
        "logid",
        "only_execute_path_to_fetches",
    )

    def __init__(self, timeout: float | None = None):
        self._options = _core.RunOptions()
        self._config: dict[str, str] = {}
        # ORT's flag, always true here: a run computes only what its outputs need
        self.only_execute_path_to_fetches = False
        self.timeout = timeout
        self.log_severity_level = -1
        self.log_verbosity_level = 0
        self.logid = ""

    def __reduce__(self):
        raise TypeError(
            "cannot pickle onnx_light RunOptions: they cancel runs in the process that made "
            "them; make new RunOptions where the runs happen (in the worker) and pass them to "
            "run() there"
        )

    @property
    def terminate(self) -> bool:
        """ORT's flag: True once the options are terminated."""
        return self._options.terminated

    @terminate.setter
    def terminate(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"terminate must be a bool, got {value!r}")
        if value:
            self._options.terminate()
        else:
            self._options.reset()

    def add_run_config_entry(self, config_key: str, config_value: str) -> None:
        """ORT's run config entry: kept, returned by :meth:`get_run_config_entry`, without
        effect (ORT's keys tune GPU graphs, arena shrinking and other providers)."""
        if not isinstance(config_key, str) or not isinstance(config_value, str):
            raise TypeError(
                "add_run_config_entry(): config_key and config_value must be str, got "
                f"{type(config_key).__name__} and {type(config_value).__name__}"
            )
        self._config[config_key] = config_value

    def get_run_config_entry(self, config_key: str) -> str:
        if config_key not in self._config:
            raise RuntimeError(f"RunOptions does not have configuration with key: {config_key}")
        return self._config[config_key]

    def add_active_adapter(self, adapter: Any) -> None:
        """ORT's LoRA adapters: not supported (a RuntimeError naming the feature)."""
        raise RuntimeError(
            "RunOptions.add_active_adapter (LoRA adapters) is not supported by onnx-light: "
            "merge the adapter into the model's weights instead"
        )

    def reset(self) -> None:
        """The same as ``terminate = False``: the options serve runs again."""
        self._options.reset()

    @property
    def terminated(self) -> bool:
        return self._options.terminated

    @property
    def timeout(self) -> float | None:
        ns = self._options.timeout_ns
        return ns / 1e9 if ns > 0 else None

    @timeout.setter
    def timeout(self, seconds: float | None) -> None:
        if seconds is None:
            self._options.timeout_ns = 0
            return
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise TypeError(f"timeout must be a number of seconds or None, got {seconds!r}")
        if not seconds > 0 or seconds > 9e9:  # NaN fails the first test
            raise ValueError(f"timeout must be in (0, 9e9] seconds or None, got {seconds!r}")
        self._options.timeout_ns = max(1, int(seconds * 1e9))


class RuntimeSession:
    """Runs a model given as a ModelProto (onnx_light.onnx), serialized bytes or a path."""

    def __init__(
        self,
        model: ModelProto | bytes | str | os.PathLike,
        intra_op_threads: int = 1,
        constant_folding: bool = True,
        graph_optimization_level: str | int = "all",
        optimized_model_path: str | os.PathLike | None = None,
        enable_profiling: bool = False,
        enable_mem_pattern: bool = True,
        disabled_passes: Iterable[str] = (),
        memory_budget: int = 0,
        custom_ops_libraries: Iterable[str | os.PathLike] = (),
    ):
        """``graph_optimization_level``: "none", "basic", "extended" or "all" (the
        default), or ONNX Runtime's numbers 0, 1, 2 and 99 (its GraphOptimizationLevel
        values work too). ``optimized_model_path``: write the optimized graph there as an
        .onnx file (it loads back like any model). ``enable_profiling``: time every node
        of every run (see :meth:`end_profiling` and :meth:`profile_summary`).
        ``enable_mem_pattern``: once a run repeats the previous run's input shapes, place
        the intermediate tensors in one arena planned by lifetime (ONNX Runtime's option
        of the same name; on by default). ``disabled_passes``: names of graph passes not
        to run (ONNX Runtime's ``disabled_optimizers``; docs/runtime.md lists them); a
        name that is no pass is a ValueError. ``memory_budget``: the most bytes the
        tensors a run's nodes make may hold at once (0, the default: no budget); a run
        that would go past it fails with a RuntimeError starting ``RESOURCE_EXHAUSTED``
        before allocating. ``custom_ops_libraries``: paths of ONNX Runtime custom-op
        libraries (onnxruntime-extensions' among them) whose ops join the built-in ones
        for this session, in the extensions profile
        (docs/custom_ops_ort_called_by_light.md); each path is resolved to an absolute one
        before it is loaded."""
        if (
            not isinstance(intra_op_threads, int)
            or isinstance(intra_op_threads, bool)
            or intra_op_threads < 0
        ):
            raise ValueError(
                "intra_op_threads must be 0 (one per physical core) or a positive int, got "
                f"{intra_op_threads!r}"
            )
        if not isinstance(constant_folding, bool):
            raise TypeError(f"constant_folding must be a bool, got {constant_folding!r}")
        if not isinstance(enable_profiling, bool):
            raise TypeError(f"enable_profiling must be a bool, got {enable_profiling!r}")
        if not isinstance(enable_mem_pattern, bool):
            raise TypeError(f"enable_mem_pattern must be a bool, got {enable_mem_pattern!r}")
        level = _optimization_level(graph_optimization_level)
        if isinstance(disabled_passes, (str, bytes)):
            raise TypeError("disabled_passes must be an iterable of pass names, not one string")
        if isinstance(memory_budget, bool) or not isinstance(memory_budget, int):
            raise TypeError(f"memory_budget must be an int of bytes, got {memory_budget!r}")
        if not 0 <= memory_budget < 2**64:
            raise ValueError(f"memory_budget must be in [0, 2**64) bytes, got {memory_budget}")
        disabled = list(disabled_passes)
        if not all(isinstance(n, str) for n in disabled):
            raise TypeError(f"disabled_passes must hold str pass names, got {disabled!r}")
        if optimized_model_path is None:
            path = ""
        elif isinstance(optimized_model_path, (str, os.PathLike)):
            path = os.fspath(optimized_model_path)
        else:
            raise TypeError(
                f"optimized_model_path must be a path, got {type(optimized_model_path).__name__}"
            )
        if isinstance(custom_ops_libraries, (str, bytes, os.PathLike)):
            raise TypeError("custom_ops_libraries must be an iterable of paths, not one path")
        libraries = []
        for library in custom_ops_libraries:
            if not isinstance(library, (str, os.PathLike)):
                raise TypeError(
                    f"custom_ops_libraries must hold paths, got {type(library).__name__}"
                )
            if not os.fspath(library):
                raise ValueError("a custom-op library path is empty")
            libraries.append(os.path.realpath(os.fspath(library)))
        args = (
            intra_op_threads,
            constant_folding,
            level,
            path,
            enable_profiling,
            enable_mem_pattern,
            disabled,
            memory_budget,
            libraries,
        )
        # What a pickled copy is made from (see __reduce__): the model as given (a path made
        # absolute, bytes kept by reference, a ModelProto serialized when pickled) and the
        # options as passed, less optimized_model_path (the copy does not write it again).
        self._options = dict(
            intra_op_threads=intra_op_threads,
            constant_folding=constant_folding,
            graph_optimization_level=graph_optimization_level,
            enable_profiling=enable_profiling,
            enable_mem_pattern=enable_mem_pattern,
            disabled_passes=disabled,
            memory_budget=memory_budget,
            custom_ops_libraries=libraries,
        )
        if isinstance(model, ModelProto):
            self._model = model
            self._session = _core.RuntimeSession.from_model(model, *args)
        elif isinstance(model, (bytes, bytearray, memoryview)):
            self._model = bytes(model)
            self._session = _core.RuntimeSession.from_bytes(self._model, *args)
        elif isinstance(model, (str, os.PathLike)):
            self._model = os.path.abspath(os.fspath(model))
            self._session = _core.RuntimeSession.from_file(os.fspath(model), *args)
        else:
            raise TypeError(
                "model must be an onnx_light.onnx.ModelProto, bytes or a path, got "
                f"{type(model).__name__}"
            )
        self._inputs = _node_args(self._session.inputs())
        # Inputs that also have an initializer (a feed may replace it, or be left out).
        self._initializer_inputs = frozenset(self._session.initializer_inputs())
        self._outputs = _node_args(self._session.outputs())
        self._session.set_dtypes([a.dtype for a in self._inputs], [a.dtype for a in self._outputs])

    def __reduce__(self):
        """Pickling (multiprocessing, Spark, Ray): the copy is a new session made from the
        same model and options in the process that unpickles it. A session made from a path
        carries the absolute path (the other process must see that file; make the session
        from the model's bytes to carry the model itself); one made from bytes carries them;
        one made from a ModelProto carries its serialization at pickling time. Run state
        (profiling records, memory plans) does not travel; ``optimized_model_path`` is not
        written again."""
        model = self._model
        if isinstance(model, ModelProto):
            model = _serialize_for_pickle(model)
        return (_restore_session, (model, self._options))

    def get_modelmeta(self) -> ModelMetadata:
        """The model's metadata (producer, graph name, domain, doc strings, version and
        ``metadata_props`` as ``custom_metadata_map``), as ONNX Runtime's method of the same
        name returns it."""
        return ModelMetadata(*self._session.model_metadata())

    @property
    def folded_nodes(self) -> int:
        """How many nodes constant folding computed at creation (0 with it off)."""
        return self._session.folded_nodes()

    @property
    def removed_nodes(self) -> int:
        """How many nodes the graph passes removed (Identity/Dropout, dead nodes)."""
        return self._session.removed_nodes()

    @property
    def planned_nodes(self) -> int:
        """How many nodes a run may execute (after folding and the passes)."""
        return self._session.planned_nodes()

    def memory_pattern_stats(self) -> dict:
        """The memory plans of the session's idle run frames (``enable_mem_pattern``):
        ``planned_frames`` (how many have one), ``arena_bytes`` (the largest arena) and
        ``placed_values`` (the values placed in it). A frame gets its plan on the second
        run in a row with the same input shapes."""
        return self._session.memory_pattern_stats()

    def end_profiling(self, path: str | os.PathLike | None = None) -> str:
        """Writes the node timings recorded so far as a Chrome trace (the JSON format
        ONNX Runtime's profiler writes; open it in https://ui.perfetto.dev) and starts
        recording afresh. ``path`` defaults to ``onnx_light_profile_<date>_<time>.json``
        in the working directory. Returns the path written. RuntimeError when the session
        was created without ``enable_profiling=True``; OSError when the file cannot be
        written."""
        if path is None:
            import datetime

            stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H-%M-%S-%f")
            path = f"onnx_light_profile_{stamp}.json"
        elif not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
        path = os.fspath(path)
        self._session.write_profile(path)
        return path

    def profile_summary(self) -> list[OpTypeTime]:
        """Node time recorded so far, summed by op type, largest first."""
        return [OpTypeTime(*row) for row in self._session.profile_summary()]

    def get_inputs(self) -> list[NodeArg]:
        return list(self._inputs)

    def get_outputs(self) -> list[NodeArg]:
        return list(self._outputs)

    def run(
        self,
        output_names: Sequence[str] | None,
        input_feed: dict[str, Any],
        run_options: RunOptions | None = None,
    ) -> list[np.ndarray]:
        """Runs the model. ``output_names`` None or empty means all outputs.

        Inputs are numpy arrays of exactly the declared dtype (no conversion); contiguous
        ones are read in place. Outputs are new arrays. A map input is a dict (its keys and
        values converted to the declared types), a sequence of maps a list of dicts; map
        outputs come back the same way, as ONNX Runtime returns them (a ZipMap's: a list of
        ``{label: probability}`` dicts). Raises TypeError for a wrong dtype or
        a non-array, and ValueError for a wrong shape, a missing or unknown input, or an
        unknown output; each message names the input or output. ``run_options``
        (:class:`RunOptions`): cancellation from another thread and a timeout.
        """
        if not isinstance(input_feed, dict):
            raise TypeError("input_feed must be a dict of name -> numpy array")
        if run_options is not None and not isinstance(run_options, RunOptions):
            raise TypeError(
                f"run_options must be an onnx_light.RunOptions, got {type(run_options).__name__}"
            )
        options = run_options._options if run_options is not None else None
        return self._session.run(list(output_names or []), input_feed, options)


def _serialize_for_pickle(model: ModelProto) -> bytes:
    """A ModelProto's bytes for a pickled session; its tensors must all be in it."""
    for tensor in model.graph.initializer:
        if tensor.data_location == 1:  # TensorProto.EXTERNAL
            raise TypeError(
                "cannot pickle a RuntimeSession made from a ModelProto whose tensors are in "
                f"external files ({tensor.name!r} is): make the session from the model's path "
                "(the copy then reads the same files), or load the model with "
                "load_external_data=True"
            )
    return model.SerializeToString()


def _restore_session(model: bytes | str, options: dict) -> "RuntimeSession":
    """Unpickles a RuntimeSession (see RuntimeSession.__reduce__)."""
    if isinstance(model, str) and not os.path.exists(model):
        raise FileNotFoundError(
            f"a pickled RuntimeSession names its model by path, {model!r}, and this process "
            "cannot see that file: give every process the file at that path, or make the "
            "session from the model's bytes (RuntimeSession(open(path, 'rb').read())) so the "
            "pickle carries the model"
        )
    return RuntimeSession(model, **options)
