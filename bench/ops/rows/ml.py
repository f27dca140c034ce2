"""ai.onnx.ml ops (kernels/ml/), the transforms and models skl2onnx writes, on 10,000 rows of
50 features (the trees, SVMs and whole converted models are in bench/classical_ml_vs_ort.py).
Attributes are random but fixed (seed 0)."""

import numpy as np
from cases import In, MapIn, OpCase

from onnx_light.onnx import helper

ML = "ai.onnx.ml"
N, C = 10000, 50
RNG = np.random.default_rng(0)
X = In((N, C))
W = RNG.normal(size=(4, C)).round(3).tolist()


def tree(depth: int, seed: int) -> dict:
    """One complete tree of `depth` levels on random features, as TreeEnsembleRegressor's
    attributes (node ids in breadth-first order)."""
    rng = np.random.default_rng(seed)
    branches = 2**depth - 1
    total = 2 * branches + 1
    return dict(
        nodes_treeids=[0] * total,
        nodes_nodeids=list(range(total)),
        nodes_featureids=[int(f) for f in rng.integers(0, C, total)],
        nodes_values=[float(v) for v in rng.normal(size=total)],
        nodes_modes=["BRANCH_LEQ"] * branches + ["LEAF"] * (total - branches),
        nodes_truenodeids=[2 * i + 1 if i < branches else 0 for i in range(total)],
        nodes_falsenodeids=[2 * i + 2 if i < branches else 0 for i in range(total)],
        target_treeids=[0] * (total - branches),
        target_nodeids=list(range(branches, total)),
        target_ids=[0] * (total - branches),
        target_weights=[float(v) for v in rng.normal(size=total - branches)],
        n_targets=1,
    )


ROWS = [
    OpCase(
        "Scaler [10000,50]",
        "Scaler",
        [X],
        {"scale": [2.0] * C, "offset": [0.5] * C},
        domain=ML,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "Normalizer L2 [10000,50]",
        "Normalizer",
        [X],
        {"norm": "L2"},
        domain=ML,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "Binarizer [10000,50]",
        "Binarizer",
        [X],
        {"threshold": 0.1},
        domain=ML,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "Imputer [10000,50]",
        "Imputer",
        [X],
        {"imputed_value_floats": [0.0] * C, "replaced_value_float": 0.5},
        domain=ML,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "ArrayFeatureExtractor 10 of 50",
        "ArrayFeatureExtractor",
        [X, In((10,), np.int64, const=True, values=np.arange(0, 50, 5))],
        domain=ML,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "OneHotEncoder int64 [10000] x 16",
        "OneHotEncoder",
        [In((N,), np.int64, lo=0, hi=16)],
        {"cats_int64s": list(range(16))},
        domain=ML,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "LabelEncoder int64 -> float [10000]",
        "LabelEncoder",
        [In((N,), np.int64, lo=0, hi=64)],
        {"keys_int64s": list(range(64)), "values_floats": [float(i) / 2 for i in range(64)]},
        domain=ML,
        opset=2,
        out_types=[1],
    ),
    OpCase(
        "LinearRegressor 4 targets [10000,50]",
        "LinearRegressor",
        [X],
        {"coefficients": sum(W, []), "intercepts": [0.1] * 4, "targets": 4},
        domain=ML,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "LinearClassifier softmax 4 classes [10000,50]",
        "LinearClassifier",
        [X],
        {
            "coefficients": sum(W, []),
            "intercepts": [0.1] * 4,
            "classlabels_ints": [0, 1, 2, 3],
            "post_transform": "SOFTMAX",
        },
        domain=ML,
        opset=1,
        outputs=2,
        out_types=[7, 1],
    ),
    OpCase(
        "FeatureVectorizer 2 inputs [10000,50]+[10000,20]",
        "FeatureVectorizer",
        [X, In((N, 20))],
        {"inputdimensions": [C, 20]},
        domain=ML,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "SVMRegressor linear [10000,50]",
        "SVMRegressor",
        [X],
        {"coefficients": W[0], "rho": [0.5], "kernel_params": [0.1, 0.0, 3.0]},
        domain=ML,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "TreeEnsembleRegressor 1 tree depth 10 [10000,50]",
        "TreeEnsembleRegressor",
        [X],
        tree(10, 1),
        domain=ML,
        opset=3,
        out_types=[1],
    ),
    OpCase(
        "ZipMap [10000,3] -> 10000 dicts",
        "ZipMap",
        [In((N, 3))],
        {"classlabels_int64s": [0, 1, 2]},
        domain=ML,
        opset=1,
        out_protos=[
            helper.make_sequence_type_proto(
                helper.make_map_type_proto(7, helper.make_tensor_type_proto(1, None))
            )
        ],
    ),
    OpCase(
        "DictVectorizer 1000 of 2000 words",
        "DictVectorizer",
        [MapIn({f"w{i}": float(i % 7) for i in range(0, 2000, 2)}, 8, 1)],
        {"string_vocabulary": [f"w{i}" for i in range(2000)]},
        domain=ML,
        opset=1,
        out_types=[1],
    ),
    OpCase(
        "CastMap DENSE 1000 int64 -> float",
        "CastMap",
        [MapIn({int(k): float(k) / 3 for k in RNG.permutation(1000)}, 7, 1)],
        {"cast_to": "TO_FLOAT"},
        domain=ML,
        opset=1,
        out_types=[1],
    ),
]


def tree_v5(depth: int, seed: int) -> dict:
    """The same complete tree as tree(), in TreeEnsemble's (ai.onnx.ml opset 5) layout:
    splits and modes as tensors, leaves apart from the branch nodes."""
    t = tree(depth, seed)
    branches = 2**depth - 1
    child = [c for c in range(1, 2 * branches + 1)]
    leaf = [c >= branches for c in child]
    index = [c - branches if c >= branches else c for c in child]
    return dict(
        n_targets=1,
        aggregate_function=1,  # SUM
        tree_roots=[0],
        nodes_featureids=t["nodes_featureids"][:branches],
        nodes_splits=helper.make_tensor("s", 1, [branches], t["nodes_values"][:branches]),
        nodes_modes=helper.make_tensor("m", 2, [branches], [0] * branches),  # BRANCH_LEQ
        nodes_truenodeids=index[0::2],
        nodes_trueleafs=[int(x) for x in leaf[0::2]],
        nodes_falsenodeids=index[1::2],
        nodes_falseleafs=[int(x) for x in leaf[1::2]],
        leaf_targetids=[0] * (branches + 1),
        leaf_weights=helper.make_tensor("w", 1, [branches + 1], t["target_weights"]),
    )


def classifier_tree(depth: int, seed: int) -> dict:
    """tree() as TreeEnsembleClassifier's attributes: each leaf votes for one of 3 classes."""
    t = tree(depth, seed)
    leaves = t["target_nodeids"]
    return dict(
        **{k: v for k, v in t.items() if k.startswith("nodes_")},
        class_treeids=[0] * len(leaves),
        class_nodeids=leaves,
        class_ids=[i % 3 for i in range(len(leaves))],
        class_weights=[abs(w) for w in t["target_weights"]],
        classlabels_int64s=[0, 1, 2],
    )


SV = RNG.normal(size=(60, C)).round(3)
ROWS += [
    OpCase(
        "TreeEnsemble (opset 5) 1 tree depth 10 [10000,50]",
        "TreeEnsemble",
        [X],
        tree_v5(10, 1),
        domain=ML,
        opset=5,
        out_types=[1],
    ),
    OpCase(
        "TreeEnsembleClassifier 1 tree depth 10, 3 classes [10000,50]",
        "TreeEnsembleClassifier",
        [X],
        classifier_tree(10, 2),
        domain=ML,
        opset=3,
        outputs=2,
        out_types=[7, 1],
    ),
    OpCase(
        "SVMClassifier RBF 3 classes, 60 vectors [10000,50]",
        "SVMClassifier",
        [X],
        {
            "classlabels_ints": [0, 1, 2],
            "coefficients": RNG.normal(size=2 * 60).round(3).tolist(),
            "kernel_params": [0.02, 0.0, 3.0],
            "kernel_type": "RBF",
            "rho": [0.1, -0.2, 0.3],
            "support_vectors": SV.ravel().tolist(),
            "vectors_per_class": [20, 20, 20],
        },
        domain=ML,
        opset=1,
        outputs=2,
        out_types=[7, 1],
    ),
    OpCase(
        "CategoryMapper 10000 strings of 1000 -> int64",
        "CategoryMapper",
        [In((N,), np.str_, values=np.array([f"cat{i % 1200}" for i in range(N)]))],
        {
            "cats_strings": [f"cat{i}" for i in range(1000)],
            "cats_int64s": list(range(1000)),
            "default_int64": -1,
        },
        domain=ML,
        opset=1,
        out_types=[7],
    ),
]
