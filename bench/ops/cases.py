"""A row of the per-op benchmark: one node (op, domain, opset, attributes) with its inputs
(shapes and element types; constants become initializers, as a model's weights are), built
into a model both runtimes load from the same bytes."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from onnx_light.onnx import helper, numpy_helper

# numpy dtype -> ONNX element type
ELEM = {
    np.float32: 1,
    np.uint8: 2,
    np.int8: 3,
    np.uint16: 4,
    np.int16: 5,
    np.int32: 6,
    np.int64: 7,
    np.str_: 8,
    np.bool_: 9,
    np.float16: 10,
    np.float64: 11,
    np.uint32: 12,
    np.uint64: 13,
}


@dataclass
class In:
    """An input: `shape` and `dtype`; `const` makes it an initializer (a weight); `values`
    fixes its data (else random, from the row's seed: floats in [-1, 1), integers in
    [lo, hi))."""

    shape: tuple
    dtype: type = np.float32
    const: bool = False
    values: np.ndarray | None = None
    lo: int = -8
    hi: int = 8


@dataclass
class MapIn:
    """A map input (ai.onnx.ml's DictVectorizer, CastMap): fed as the dict `values`, declared
    map(key_type, tensor(value_type)) with ONNX element type codes."""

    values: dict
    key_type: int
    value_type: int


@dataclass
class SeqIn:
    """A sequence input (SequenceAt, ConcatFromSequence...): fed as the list of arrays
    `values`, declared sequence(tensor(elem)) of the arrays' element type."""

    values: list


@dataclass
class OptIn:
    """An optional input (OptionalHasElement, OptionalGetElement): fed as the array `value`,
    declared optional(tensor(elem))."""

    value: np.ndarray


@dataclass
class OpCase:
    name: str
    op: str
    inputs: list  # of In; None for an absent optional input
    attrs: dict = field(default_factory=dict)
    domain: str = ""
    opset: int = 17
    outputs: int = 1
    # Output element types when ONNX's shape inference cannot tell (ops of other domains).
    out_types: list | None = None
    # The largest difference allowed between the two runtimes' outputs (a sanity check that
    # both ran the same thing, not a conformance test).
    tol: float = 1e-3
    # Output types as TypeProtos where an output is not a tensor (ZipMap's sequence of maps).
    out_protos: list | None = None
    # Values of the graph that are not the node's inputs: the outer scope a subgraph (If,
    # Loop, Scan) reads, named scope0, scope1...
    scope: list = field(default_factory=list)

    def data(self, seed: int = 0) -> list:
        rng = np.random.default_rng(seed)
        out = []
        for x in self.inputs:
            if x is None:  # an absent optional input
                out.append(None)
            elif isinstance(x, MapIn):
                out.append(x.values)
            elif isinstance(x, SeqIn):
                out.append([np.asarray(v) for v in x.values])
            elif isinstance(x, OptIn):
                out.append(np.asarray(x.value))
            elif x.values is not None:
                out.append(np.asarray(x.values, x.dtype))
            elif np.issubdtype(x.dtype, np.floating):
                out.append(rng.uniform(-1, 1, x.shape).astype(x.dtype))
            elif x.dtype is np.bool_:
                out.append(rng.integers(0, 2, x.shape).astype(bool))
            else:
                out.append(rng.integers(x.lo, x.hi, x.shape).astype(x.dtype))
        return out

    def model(self, seed: int = 0) -> tuple[bytes, dict]:
        """The model's bytes and the feeds of its non-constant inputs."""
        names = [f"in{i}" if x is not None else "" for i, x in enumerate(self.inputs)]
        values = self.data(seed)
        graph_inputs, inits, feeds = [], [], {}
        scope_names = [f"scope{i}" for i in range(len(self.scope))]
        scope_values = OpCase("", "", self.scope).data(seed + 1)
        for name, x, v in zip(names + scope_names, self.inputs + self.scope, values + scope_values):
            if x is None:
                continue
            if isinstance(x, MapIn):
                map_type = helper.make_map_type_proto(
                    x.key_type, helper.make_tensor_type_proto(x.value_type, None)
                )
                graph_inputs.append(helper.make_value_info(name, map_type))
                feeds[name] = v
            elif isinstance(x, (SeqIn, OptIn)):
                first = v[0] if isinstance(x, SeqIn) else v
                tensor = helper.make_tensor_type_proto(ELEM[first.dtype.type], None)
                wrap = (
                    helper.make_sequence_type_proto
                    if isinstance(x, SeqIn)
                    else helper.make_optional_type_proto
                )
                graph_inputs.append(helper.make_value_info(name, wrap(tensor)))
                feeds[name] = v
            elif x.const:
                inits.append(numpy_helper.from_array(v, name))
            else:
                graph_inputs.append(helper.make_tensor_value_info(name, ELEM[x.dtype], x.shape))
                feeds[name] = v
        outs = [f"out{i}" for i in range(self.outputs)]
        node = helper.make_node(self.op, names, outs, domain=self.domain, **self.attrs)
        imports = [helper.make_opsetid("", self.opset if not self.domain else 17)]
        if self.domain:
            imports.append(helper.make_opsetid(self.domain, self.opset))
        types = (
            self.out_types
            or self.out_protos
            or output_types(
                helper.make_model(
                    helper.make_graph([node], self.name, graph_inputs, [], inits),
                    opset_imports=imports,
                ),
                outs,
            )
        )
        if self.out_protos:
            declared = [helper.make_value_info(o, t) for o, t in zip(outs, self.out_protos)]
        else:
            declared = [helper.make_tensor_value_info(o, t, None) for o, t in zip(outs, types)]
        graph = helper.make_graph([node], self.name, graph_inputs, declared, inits)
        model = helper.make_model(graph, opset_imports=imports)
        return model.SerializeToString(), feeds


def output_types(model, outs: list) -> list:
    """The element types ONNX's shape inference gives `outs` (the onnx package: a model
    maker of the benchmarks, like onnxruntime their baseline)."""
    import onnx

    inferred = onnx.shape_inference.infer_shapes(onnx.load_from_string(model.SerializeToString()))
    known = {vi.name: vi.type.tensor_type.elem_type for vi in inferred.graph.value_info}
    missing = [o for o in outs if not known.get(o)]
    if missing:
        raise ValueError(f"shape inference cannot type {missing}: give the row out_types")
    return [known[o] for o in outs]
