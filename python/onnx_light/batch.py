"""Batch inference over tables of rows, for the engines that hand a model batches: Ray Data
(``Dataset.map_batches`` with :class:`BatchPredictor`, one session per actor), Spark
(``pyspark.ml.functions.predict_batch_udf`` with :func:`make_predict_fn`, or
``DataFrame.mapInPandas`` with :meth:`BatchPredictor.map_in_pandas`) and ``multiprocessing``.

No engine is imported here: a batch is a dict of numpy arrays (Ray's ``numpy`` format), a
pandas DataFrame (Ray's ``pandas`` format, ``mapInPandas``) or the arrays Spark passes to a
predict function; pandas and pyarrow values are read through their own methods when given.

A model with a batch axis (every input's and output's first dimension symbolic, as
``['N', 4]``) runs whole batches, ``batch_size`` rows at a time; one without (a fixed
``[1, 25, 96]`` input, or outputs whose first dimension is not the rows') runs row by row,
each row given the leading axis of 1 the model declares. docs/batch_inference.md says more.
"""

from __future__ import annotations

import collections
import hashlib
import inspect
import os
import threading
from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np

from onnx_light.onnx import ModelProto
from onnx_light.runtime import RuntimeSession

__all__ = ["BatchPredictor", "clear_session_cache", "make_predict_fn", "spark_predict_udf"]

# Sessions this process made for predictors, by model and options: a predictor unpickled
# once per task (multiprocessing's Pool.map, Spark's mapInPandas) reuses its process's
# session instead of loading the model again. Sessions serve many threads at once.
_SESSION_CACHE_SIZE = 8
_sessions: collections.OrderedDict[tuple, RuntimeSession] = collections.OrderedDict()
_sessions_lock = threading.Lock()


def _model_key(model: bytes | str) -> tuple:
    if isinstance(model, str):
        st = os.stat(model)
        return ("path", model, st.st_size, st.st_mtime_ns)
    return ("bytes", len(model), hashlib.sha256(model).hexdigest())


def _cached_session(model: bytes | str, options: dict) -> RuntimeSession:
    key = (_model_key(model), repr(sorted(options.items())))
    with _sessions_lock:
        session = _sessions.get(key)
        if session is not None:
            _sessions.move_to_end(key)
            return session
    session = RuntimeSession(model, **options)
    with _sessions_lock:
        _sessions[key] = session
        while len(_sessions) > _SESSION_CACHE_SIZE:
            _sessions.popitem(last=False)
    return session


def clear_session_cache() -> int:
    """Forgets this process's predictor sessions (up to 8 are kept, the most recently used;
    a predictor still holding one keeps it alive). Returns how many were dropped."""
    with _sessions_lock:
        count = len(_sessions)
        _sessions.clear()
    return count


def _is_symbolic(dim: Any) -> bool:
    return not isinstance(dim, int)


class _Input:
    """A model input the predictor feeds: its dtype, declared shape and source columns."""

    def __init__(self, name: str, dtype: np.dtype, shape: list | None, columns: list[str]):
        self.name, self.dtype, self.shape, self.columns = name, dtype, shape, columns

    def leading_axis(self) -> bool:
        """Whether the model's input has an axis before a row's own: symbolic (a batch
        axis) or a fixed 1 (a model that takes one row at a time)."""
        return bool(self.shape) and (_is_symbolic(self.shape[0]) or self.shape[0] == 1)

    def row_shape(self) -> list | None:
        """The declared dimensions of one row."""
        if self.shape is None:
            return None
        return self.shape[1:] if self.leading_axis() else self.shape


class BatchPredictor:
    """Runs a model over batches of rows, one session per process.

    ``model``: a path, the model's bytes or a ``ModelProto``. A pickled predictor carries the
    path (every process must see that file) or the bytes, never a session: each process
    makes its own on first use, and predictors with the same model and options in one
    process share it (the process keeps its 8 most recently used predictor sessions;
    :func:`clear_session_cache` drops them).

    ``inputs``: which columns feed which model input: ``{input: column}``, or
    ``{input: [column, ...]}`` to stack scalar columns into the input's last axis (a table
    of features into an ``[N, k]`` input); ``None`` (the default) feeds each input from the
    column of its own name. ``outputs``: ``{output: column}`` to name the result columns, a
    list of output names to keep only those, ``None`` for every output under its own name.

    ``batch_size``: the most rows in one run (``None``: a whole batch in one run).
    ``intra_op_threads``: threads per run, 1 by default so that several workers on one
    machine do not oversubscribe its cores (workers x threads <= cores).
    ``batch_axis``: ``"auto"`` (the default) runs whole batches when every input's and
    output's first dimension is symbolic, else row by row; ``0`` forces whole batches,
    ``None`` row by row. ``keep_columns``: whether a table's own columns stay beside the
    results (True). ``session_options``: other :class:`onnx_light.RuntimeSession` keyword
    arguments (``graph_optimization_level``, ``custom_ops_libraries``, ...).

    Columns are converted to the input's dtype when numpy calls the cast same-kind
    (float64 to float32, int64 to int32 within range); others are a TypeError naming the
    column. Rows given flattened (Spark's array columns) are reshaped to the input's fixed
    row shape. Read-only, non-contiguous, pandas (object or Arrow-backed) and pyarrow
    columns are accepted; the caller's arrays are never written to.
    """

    def __init__(
        self,
        model: str | os.PathLike | bytes | ModelProto,
        *,
        inputs: Mapping[str, str | Sequence[str]] | Sequence[str] | None = None,
        outputs: Mapping[str, str] | Sequence[str] | None = None,
        batch_size: int | None = None,
        intra_op_threads: int = 1,
        batch_axis: str | int | None = "auto",
        keep_columns: bool = True,
        session_options: Mapping[str, Any] | None = None,
    ):
        if isinstance(model, ModelProto):
            model = model.SerializeToString()
        if isinstance(model, (bytearray, memoryview)):
            model = bytes(model)
        if isinstance(model, os.PathLike):
            model = os.fspath(model)
        if isinstance(model, str):
            model = os.path.abspath(model)
        elif not isinstance(model, bytes):
            raise TypeError(
                f"model must be a path, bytes or a ModelProto, got {type(model).__name__}"
            )
        if batch_size is not None and (
            isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1
        ):
            raise ValueError(f"batch_size must be None or an int >= 1, got {batch_size!r}")
        if batch_axis not in ("auto", 0, None) or isinstance(batch_axis, bool):
            raise ValueError(f"batch_axis must be 'auto', 0 or None, got {batch_axis!r}")
        if not isinstance(keep_columns, bool):
            raise TypeError(f"keep_columns must be a bool, got {keep_columns!r}")
        options = dict(session_options or {})
        for key, why in (
            ("model", "it is BatchPredictor's own argument"),
            ("intra_op_threads", "it is BatchPredictor's own argument"),
            ("optimized_model_path", "every worker would write the file"),
        ):
            if key in options:
                raise ValueError(f"session_options cannot set {key!r}: {why}")
        options["intra_op_threads"] = intra_op_threads
        self._model = model
        self._options = options
        self._batch_size, self._keep_columns = batch_size, keep_columns
        self._session: RuntimeSession | None = None
        self._plan(self.session, inputs, outputs, batch_axis)

    # -- pickling: the model and options travel, the session is made where it is used --

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_session"] = None  # made on first use, in the process that unpickles it
        return state

    @property
    def session(self) -> RuntimeSession:
        """This process's session for the predictor's model and options."""
        if self._session is None:
            self._session = _cached_session(self._model, self._options)
        return self._session

    def _plan(self, session: RuntimeSession, inputs: Any, outputs: Any, batch_axis: Any) -> None:
        """The input columns, output columns and batch mode, from the model's declared inputs
        and outputs (kept when pickled, so another process does not plan again)."""
        skip = session._initializer_inputs
        model_inputs = {a.name: a for a in session.get_inputs()}
        required = [a.name for a in session.get_inputs() if a.name not in skip]
        if inputs is None:
            mapping = {name: [name] for name in required}
        elif isinstance(inputs, Mapping):
            mapping = {}
            for name, cols in inputs.items():
                if isinstance(cols, str):
                    cols = [cols]
                cols = list(cols)
                if not cols or not all(isinstance(c, str) for c in cols):
                    raise TypeError(
                        f"inputs[{name!r}] must be a column name or a non-empty list of them"
                    )
                mapping[name] = cols
        elif isinstance(inputs, (str, bytes)):
            raise TypeError("inputs must be a dict or a list of input names, not one string")
        else:
            mapping = {name: [name] for name in inputs}
        for name in mapping:
            if name not in model_inputs:
                raise ValueError(
                    f"the model has no input {name!r}; its inputs are {list(model_inputs)}"
                )
        missing = [n for n in required if n not in mapping]
        if missing:
            raise ValueError(
                f"model inputs {missing} have no column: map them in inputs= (the model's "
                f"inputs are {required})"
            )
        self._inputs = []
        for name, cols in mapping.items():
            arg = model_inputs[name]
            if not arg.type.startswith("tensor("):
                raise ValueError(
                    f"input {name!r} is a {arg.type}: batch inference feeds tensor inputs only"
                )
            self._inputs.append(_Input(name, arg.dtype, arg.shape, cols))

        model_outputs = {a.name: a for a in session.get_outputs()}
        if outputs is None:
            out_map = {name: name for name in model_outputs}
        elif isinstance(outputs, Mapping):
            out_map = dict(outputs)
        elif isinstance(outputs, (str, bytes)):
            raise TypeError("outputs must be a dict or a list of output names, not one string")
        else:
            out_map = {name: name for name in outputs}
        if not out_map:
            raise ValueError("outputs selects no output")
        for name, column in out_map.items():
            if name not in model_outputs:
                raise ValueError(
                    f"the model has no output {name!r}; its outputs are {list(model_outputs)}"
                )
            if not isinstance(column, str):
                raise TypeError(f"outputs[{name!r}] must be a column name (str)")
            if not model_outputs[name].type.startswith("tensor("):
                raise ValueError(
                    f"output {name!r} is a {model_outputs[name].type}: batch inference returns "
                    "tensor outputs only; select the others with outputs=[...] (a classifier "
                    "converted with a ZipMap: convert it without one, skl2onnx's "
                    "options={'zipmap': False})"
                )
        self._outputs = out_map
        self._output_args = [model_outputs[n] for n in out_map]

        if batch_axis == "auto":
            batched = all(a.shape and _is_symbolic(a.shape[0]) for a in self._inputs) and all(
                a.shape is None or not a.shape or _is_symbolic(a.shape[0])
                for a in self._output_args
            )
            # an output of unknown shape, or of rank 0, is checked at run time
            batched = batched and all(a.shape != [] for a in self._output_args)
        else:
            batched = batch_axis == 0
        self._batched = batched

    @property
    def batched(self) -> bool:
        """True when whole batches go through the model's batch axis, False when it runs
        row by row (see ``batch_axis``)."""
        return self._batched

    # -- running --------------------------------------------------------------------

    def predict(self, feeds: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """Runs ``{model input: rows}`` (each value holding the same number of rows) and
        returns ``{output column: rows}``."""
        session = self.session
        arrays = {}
        rows = None
        for spec in self._inputs:
            if spec.name not in feeds:
                raise ValueError(f"no rows for model input {spec.name!r}")
            arr = self._rows(feeds[spec.name], spec, spec.name)
            if rows is not None and len(arr) != rows:
                raise ValueError(
                    f"input {spec.name!r} has {len(arr)} rows where another has {rows}"
                )
            rows = len(arr)
            arrays[spec.name] = arr
        return self._run(session, arrays, rows or 0)

    def _rows(self, value: Any, spec: _Input, what: str) -> np.ndarray:
        arr = _to_array(value, what)
        if arr.ndim == 0:
            raise ValueError(f"{what}: expected a column of rows, got a scalar")
        trailing = spec.row_shape()
        if trailing is not None and all(isinstance(d, int) for d in trailing):
            if list(arr.shape[1:]) != trailing:
                size = int(np.prod(trailing, dtype=np.int64))
                per_row = int(np.prod(arr.shape[1:], dtype=np.int64))
                if per_row != size:
                    raise ValueError(
                        f"{what}: each row of input {spec.name!r} must hold {trailing} "
                        f"({size} values); got rows of shape {list(arr.shape[1:])}"
                    )
                arr = arr.reshape((len(arr), *trailing))
        elif trailing is not None and arr.ndim != len(trailing) + 1:
            raise ValueError(
                f"{what}: each row of input {spec.name!r} must have {len(trailing)} "
                f"dimensions ({trailing}); got rows of shape {list(arr.shape[1:])}, which "
                "cannot be reshaped while the row's shape is symbolic (Spark: give "
                "predict_batch_udf input_tensor_shapes)"
            )
        return _cast(arr, spec.dtype, what)

    def _run(self, session: RuntimeSession, arrays: dict, rows: int) -> dict:
        names = list(self._outputs)
        if rows == 0:
            return {self._outputs[a.name]: _empty(a) for a in self._output_args}
        parts: dict[str, list] = {n: [] for n in names}
        if self._batched:
            step = self._batch_size or rows
            for begin in range(0, rows, step):
                feed = {k: v[begin : begin + step] for k, v in arrays.items()}
                n = min(step, rows - begin)
                for name, value in zip(names, session.run(names, feed)):
                    if value.ndim == 0 or len(value) != n:
                        raise RuntimeError(
                            f"output {name!r} has shape {list(value.shape)} for a batch of "
                            f"{n} rows: its first axis is not the rows'. Run this model row "
                            "by row: BatchPredictor(..., batch_axis=None)"
                        )
                    parts[name].append(value)
            joined = {n: p[0] if len(p) == 1 else np.concatenate(p) for n, p in parts.items()}
        else:
            lead = {s.name: s.leading_axis() for s in self._inputs}
            for i in range(rows):
                feed = {k: (v[i : i + 1] if lead[k] else v[i]) for k, v in arrays.items()}
                for name, value in zip(names, session.run(names, feed)):
                    parts[name].append(value)
            joined = {}
            for name, p in parts.items():
                if any(lead.values()) and all(v.ndim > 0 and len(v) == 1 for v in p):
                    joined[name] = np.concatenate(p)
                else:
                    joined[name] = np.stack(p)
        return {self._outputs[n]: joined[n] for n in names}

    def __call__(self, batch: Any) -> Any:
        """Ray Data's ``map_batches`` (and any caller with a table of rows): ``batch`` is a
        dict of column -> array (the ``numpy`` batch format) or a pandas DataFrame; returns
        the same kind with the result columns added (beside the batch's own columns, unless
        ``keep_columns=False``). Results with more than one value per row are n-d arrays in
        a dict, and 1-d arrays per row in a DataFrame."""
        is_dict = isinstance(batch, Mapping)
        if not is_dict and not _is_pandas_frame(batch):
            raise TypeError(
                "a batch must be a dict of column -> array or a pandas DataFrame (Ray Data: "
                f"batch_format='numpy' or 'pandas'), got {type(batch).__name__}"
            )
        results = self.predict({s.name: self._column(batch, s) for s in self._inputs})
        if is_dict:
            out = dict(batch) if self._keep_columns else {}
            out.update(results)
            return out
        out = batch.copy(deep=False) if self._keep_columns else batch.iloc[:, :0].copy()
        for column, value in results.items():
            out[column] = list(value.reshape(len(value), -1)) if value.ndim > 1 else value
        return out

    def _column(self, batch: Any, spec: _Input) -> Any:
        columns = []
        for name in spec.columns:
            if name not in batch:
                raise ValueError(
                    f"the batch has no column {name!r} for model input {spec.name!r}; its "
                    f"columns are {list(batch.keys())} (map columns with inputs=)"
                )
            columns.append(batch[name])
        if len(columns) == 1:
            return columns[0]
        parts = [_to_array(c, f"column {n!r}") for c, n in zip(columns, spec.columns)]
        for part, name in zip(parts, spec.columns):
            if part.ndim != 1:
                raise ValueError(
                    f"column {name!r}: only scalar columns are stacked into one input, got "
                    f"rows of shape {list(part.shape[1:])}"
                )
        return np.stack(parts, axis=-1)

    def map_in_pandas(self, batches: Iterable[Any]) -> Iterator[Any]:
        """Spark's ``DataFrame.mapInPandas``: each pandas DataFrame of the partition with the
        result columns added (the schema given to mapInPandas lists them)."""
        for frame in batches:
            yield self(frame)


def _is_pandas_frame(value: Any) -> bool:
    return type(value).__module__.startswith("pandas") and hasattr(value, "columns")


def _to_array(value: Any, what: str) -> np.ndarray:
    """A column as a numpy array of rows: numpy arrays as they are (read in place), pandas
    and pyarrow columns through their own conversions, lists of rows stacked."""
    module = type(value).__module__
    if module.startswith("pyarrow"):
        value = value.to_numpy(zero_copy_only=False)
    elif module.startswith("pandas"):
        value = value.to_numpy()
    if not isinstance(value, np.ndarray):
        value = np.asarray(value)
    if value.dtype == object:  # rows that are arrays or lists (Spark, pandas, Arrow lists)
        if len(value) == 0:
            return np.zeros((0,), np.float32)
        try:
            value = np.stack([np.asarray(v) for v in value])
        except ValueError as exc:
            raise ValueError(f"{what}: rows of different shapes cannot form a batch") from exc
        if value.dtype == object:
            raise TypeError(f"{what}: rows hold Python objects, not numbers")
    return value


def _cast(arr: np.ndarray, dtype: np.dtype, what: str) -> np.ndarray:
    if arr.dtype == dtype:
        return np.ascontiguousarray(arr)
    if not np.can_cast(arr.dtype, dtype, "same_kind"):
        raise TypeError(
            f"{what}: {arr.dtype} values cannot feed a {dtype} input (numpy calls the cast "
            "unsafe); convert the column first"
        )
    if dtype.kind in "iu" and arr.size and not np.can_cast(arr.dtype, dtype, "safe"):
        info = np.iinfo(dtype)
        low, high = arr.min(), arr.max()
        if low < info.min or high > info.max:
            raise ValueError(f"{what}: values {low}..{high} do not fit the input's {dtype}")
    return np.ascontiguousarray(arr, dtype=dtype)


def _empty(arg: Any) -> np.ndarray:
    trailing = arg.shape[1:] if arg.shape else []
    if not all(isinstance(d, int) for d in trailing):
        trailing = []
    return np.zeros((0, *trailing), dtype=arg.dtype)


class _SparkPredictFn:
    """What :func:`make_predict_fn` returns: pickled to Spark's workers, called once per
    worker to give the predict function."""

    def __init__(self, predictor: BatchPredictor, order: list[str]):
        self._predictor, self._order = predictor, order

    def __call__(self):
        predictor, order = self._predictor, self._order
        single = len(predictor._outputs) == 1

        def predict(*arrays: np.ndarray):
            if len(arrays) != len(order):
                raise ValueError(
                    f"the UDF was given {len(arrays)} columns for the model inputs {order}"
                )
            results = predictor.predict(dict(zip(order, arrays)))
            flat = {k: v.reshape(len(v), -1) if v.ndim > 2 else v for k, v in results.items()}
            return next(iter(flat.values())) if single else flat

        # Spark counts the parameters to know how many inputs the model takes
        predict.__signature__ = inspect.Signature(
            [
                inspect.Parameter(f"input_{i}", inspect.Parameter.POSITIONAL_ONLY)
                for i in range(len(order))
            ]
        )
        return predict


def make_predict_fn(
    model: str | os.PathLike | bytes | ModelProto,
    *,
    inputs: Sequence[str] | None = None,
    outputs: Mapping[str, str] | Sequence[str] | None = None,
    batch_size: int | None = None,
    intra_op_threads: int = 1,
    batch_axis: str | int | None = "auto",
    session_options: Mapping[str, Any] | None = None,
):
    """The ``make_predict_fn`` of Spark's ``pyspark.ml.functions.predict_batch_udf``.

    The UDF's columns feed the model's inputs in the order ``inputs`` names them (default:
    the model's inputs in order); scalar columns for one ``[N, k]`` input are grouped with
    ``pyspark.sql.functions.array`` (Spark's rule). The predict function returns the output
    as an array (rows of more than one dimension flattened, as Spark's ArrayType wants),
    or, with several outputs selected, a dict ``{column: array}`` for a StructType. The other arguments are
    :class:`BatchPredictor`'s; the model is checked here, on the driver."""
    names = None if inputs is None else list(inputs)
    predictor = BatchPredictor(
        model,
        inputs=names,
        outputs=outputs,
        batch_size=batch_size,
        intra_op_threads=intra_op_threads,
        batch_axis=batch_axis,
        session_options=session_options,
    )
    return _SparkPredictFn(predictor, [s.name for s in predictor._inputs])


def spark_predict_udf(
    model: str | os.PathLike | bytes | ModelProto,
    *,
    return_type: Any,
    batch_size: int = 1024,
    input_tensor_shapes: Any = None,
    **kwargs: Any,
):
    """``predict_batch_udf(make_predict_fn(model, **kwargs), return_type=...,
    batch_size=..., input_tensor_shapes=...)``, with ``input_tensor_shapes`` taken from the
    model's fixed row shapes when not given (an input whose row shape is symbolic needs it
    given). Imports PySpark, which must be installed."""
    try:
        from pyspark.ml.functions import predict_batch_udf
    except ImportError as exc:
        raise ImportError("spark_predict_udf needs PySpark: pip install pyspark") from exc
    make = make_predict_fn(model, **kwargs)
    if input_tensor_shapes is None:
        shapes = [spec.row_shape() for spec in make._predictor._inputs]
        fixed = [s if s and all(isinstance(d, int) for d in s) else None for s in shapes]
        input_tensor_shapes = fixed if any(fixed) else None
    return predict_batch_udf(
        make,
        return_type=return_type,
        batch_size=batch_size,
        input_tensor_shapes=input_tensor_shapes,
    )
