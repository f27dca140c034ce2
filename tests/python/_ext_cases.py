"""The onnxruntime-extensions ops the suite (tests/python/extensions/) runs, by family: each case is one node with
its feeds and attributes, run under ONNX Runtime + extensions (the oracle) and under
onnx-light with the same library. Strings as numpy object arrays, as ORT takes them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from _ext import CONTRIB, EXTENSIONS  # noqa: F401  (re-exported for the tests)


def S(*values):
    return np.array(values, dtype=object)


@dataclass
class Case:
    id: str
    op: str
    feeds: dict
    outputs: int
    attrs: dict = field(default_factory=dict)
    domain: str = CONTRIB
    family: str = "string"
    rtol: float = 1e-6
    atol: float = 1e-6


TEXT = S("Hello World", "  onnx-light runs ORT plugins ", "", "naïve café ÜBER", "a,b,,c")

STRING = [
    Case("upper", "StringUpper", {"x": TEXT}, 1),
    Case("lower", "StringLower", {"x": TEXT}, 1),
    Case("strip", "StringStrip", {"x": TEXT}, 1),
    Case("length", "StringLength", {"x": TEXT}, 1),
    Case("concat", "StringConcat", {"x": TEXT, "y": S("!", "?", "", "x", "y")}, 1),
    Case("equal", "StringEqual", {"x": TEXT, "y": S("Hello World", "", "", "a", "a,b,,c")}, 1),
    Case(
        "regex_replace",
        "StringRegexReplace",
        {"text": TEXT, "pattern": S(r"(\w+)"), "rewrite": S(r"[\1]")},
        1,
    ),
    Case(
        "regex_replace_first",
        "StringRegexReplace",
        {"text": TEXT, "pattern": S("o"), "rewrite": S("0")},
        1,
        {"global_replace": 0},
    ),
    Case(
        "ecma_regex_replace",
        "StringECMARegexReplace",
        {"text": TEXT, "pattern": S(r"(\w)(\w*)"), "rewrite": S("$2$1")},
        1,
    ),
    Case(
        "regex_split",
        "StringRegexSplitWithOffsets",
        {"text": TEXT, "pattern": S(r"\s+"), "keep": S("")},
        4,
    ),
    Case(
        "ecma_regex_split",
        "StringECMARegexSplitWithOffsets",
        {"text": TEXT, "pattern": S(r"[,\s]"), "keep": S(",")},
        4,
    ),
    Case(
        "split",
        "StringSplit",
        {"x": TEXT, "sep": S(" "), "skip_empty": np.array([True])},
        3,
    ),
    Case(
        "split_keep_empty",
        "StringSplit",
        {"x": TEXT, "sep": S(","), "skip_empty": np.array([False])},
        3,
    ),
    Case(
        "join",
        "StringJoin",
        {
            "x": np.array([["a", "b", "c"], ["d", "", "f"]], object),
            "sep": S("-"),
            "axis": np.array([1], np.int64),
        },
        1,
    ),
    Case(
        "hash_bucket",
        "StringToHashBucket",
        {"x": TEXT, "buckets": np.array([1000], np.int64)},
        1,
    ),
    Case(
        "hash_bucket_fast",
        "StringToHashBucketFast",
        {"x": TEXT, "buckets": np.array([97], np.int64)},
        1,
    ),
    Case(
        "masked_fill",
        "MaskedFill",
        {"x": TEXT, "mask": np.array([True, False, True, True, False])},
        1,
    ),
    Case(
        "mapping",
        "StringMapping",
        {"x": S("cat", "dog", "bird", "cat")},
        1,
        {"map": "cat\tfeline\ndog\tcanine"},
    ),
    Case(
        "to_vector",
        "StringToVector",
        {"x": S("a", "b", "zzz", "a")},
        1,
        {"map": "a\t0 1 2\nb\t3 4 5", "unk": "-1 -1 -1"},
    ),
    Case(
        "vector_to_string",
        "VectorToString",
        {"x": np.array([[0, 1], [2, 3], [9, 9]], np.int64)},
        1,
        {"map": "a\t0 1\nb\t2 3", "unk": "<unk>"},
    ),
]

MATH = [
    Case(
        "inverse",
        "Inverse",
        {"x": np.array([[4.0, 7.0], [2.0, 6.0]], np.float32)},
        1,
        family="math",
        rtol=1e-5,
    ),
    Case(
        "negpos",
        "NegPos",
        {"x": np.array([-2.0, 0.0, 3.5, -0.5], np.float32)},
        2,
        family="math",
    ),
    Case(
        "segment_extraction",
        "SegmentExtraction",
        {"x": np.array([0, 2, 2, 0, 3, 3, 3, 0, 1], np.int64)},
        2,
        family="math",
    ),
    Case(
        "segment_sum",
        "SegmentSum",
        {
            "data": np.arange(12, dtype=np.float32).reshape(4, 3),
            "segment_ids": np.array([0, 0, 1, 2], np.int64),
        },
        1,
        family="math",
    ),
    Case(
        "ragged_to_sparse",
        "RaggedTensorToSparse",
        {"splits": np.array([0, 2, 2, 5], np.int64)},
        2,
        family="math",
    ),
    Case(
        "ragged_to_dense",
        "RaggedTensorToDense",
        {
            "shape": np.array([-1, -1], np.int64),
            "values": np.array([1, 2, 3, 4, 5], np.int64),
            "default": np.array([0], np.int64),
            "splits": np.array([0, 2, 2, 5], np.int64),
        },
        1,
        family="math",
    ),
    Case(
        "string_ragged_to_dense",
        "StringRaggedTensorToDense",
        {
            "shape": np.array([-1, -1], np.int64),
            "values": S("a", "b", "c", "d", "e"),
            "splits": np.array([0, 2, 2, 5], np.int64),
            "default": S("<pad>"),
        },
        1,
        family="math",
    ),
]

# (all cases: at the end of the file)


# --- tokenizers ---------------------------------------------------------------------------

BERT_VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "quick",
    "brown",
    "fox",
    "jump",
    "##s",
    "##ed",
    "over",
    "lazy",
    "dog",
    "hello",
    "world",
    "on",
    "##nx",
    "light",
    ",",
    ".",
    "!",
    "a",
    "b",
    "c",
    "run",
    "##ning",
    "plug",
    "##ins",
]


def _bytes_to_unicode():
    """GPT-2's byte-level BPE alphabet: each byte as a printable character."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
    bs += list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def _bpe_vocab(merges, end_of_word=""):
    """A byte-level vocabulary: every byte symbol (and with CLIP's "</w>" suffix), the
    merges' results, and the special tokens."""
    import json

    symbols = list(_bytes_to_unicode().values())
    vocab = {}
    for s in symbols:
        vocab.setdefault(s, len(vocab))
    if end_of_word:
        for s in symbols:
            vocab.setdefault(s + end_of_word, len(vocab))
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    for special in ("<|endoftext|>", "<|startoftext|>", "<s>", "</s>", "<pad>", "<unk>"):
        vocab.setdefault(special, len(vocab))
    text = "#version: 0.2\n" + "\n".join(f"{a} {b}" for a, b in merges) + "\n"
    return json.dumps(vocab), text


GPT2_MERGES = [("h", "e"), ("l", "l"), ("he", "ll"), ("Ġ", "w"), ("o", "r"), ("Ġw", "or")]
CLIP_MERGES = [("h", "e"), ("l", "l"), ("he", "ll"), ("o</w>", "x"), ("w", "or")]
GPT2_VOCAB, GPT2_MERGES_TEXT = _bpe_vocab(GPT2_MERGES)
CLIP_VOCAB, CLIP_MERGES_TEXT = _bpe_vocab(CLIP_MERGES, "</w>")
SENTENCES = S("hello world", "Hello, world! Hello again.", "héllo wörld 123")

TOKENIZER = [
    Case(
        "basic_tokenizer",
        "BasicTokenizer",
        {"text": S("Hello, World! Naïve café: ONNX-light runs")},
        1,
        {"do_lower_case": 1, "strip_accents": 1, "tokenize_punctuation": 1},
        family="tokenizer",
    ),
    Case(
        "bert_tokenizer",
        "BertTokenizer",
        {"text": S("The quick brown fox jumps over the lazy dog.")},
        4,
        {"vocab_file": "\n".join(BERT_VOCAB), "do_lower_case": 1},
        family="tokenizer",
    ),
    Case(
        "bert_tokenizer_pair",
        "BertTokenizer",
        {"text": S("Hello world!", "onnx light running plugins")},
        4,
        {"vocab_file": "\n".join(BERT_VOCAB), "do_lower_case": 1},
        family="tokenizer",
    ),
    Case(
        "hf_bert_tokenizer",
        "HfBertTokenizer",
        {"text": S("The lazy dog jumped", "over a brown fox")},
        4,
        {"vocab_file": "\n".join(BERT_VOCAB), "do_lower_case": 1},
        family="tokenizer",
    ),
    Case(
        "bert_tokenizer_decoder",
        "BertTokenizerDecoder",
        {
            "ids": np.array([2, 5, 6, 7, 8, 9, 10, 3], np.int64),
            "positions": np.zeros((0, 2), np.int64),
        },
        1,
        {"vocab_file": "\n".join(BERT_VOCAB), "skip_special_tokens": 1},
        family="tokenizer",
    ),
    Case(
        "gpt2_tokenizer",
        "GPT2Tokenizer",
        {"text": SENTENCES},
        2,
        {"vocab": GPT2_VOCAB, "merges": GPT2_MERGES_TEXT, "padding_length": -1},
        family="tokenizer",
    ),
    Case(
        "roberta_tokenizer",
        "RobertaTokenizer",
        {"text": SENTENCES},
        2,
        {"vocab": GPT2_VOCAB, "merges": GPT2_MERGES_TEXT, "padding_length": -1},
        family="tokenizer",
    ),
    Case(
        "clip_tokenizer",
        "CLIPTokenizer",
        {"text": S("hello world", "a fox, hello!")},
        2,
        {"vocab": CLIP_VOCAB, "merges": CLIP_MERGES_TEXT, "padding_length": -1},
        family="tokenizer",
    ),
    Case(
        "gpt2_tokenizer_extensions_domain",
        "GPT2Tokenizer",
        {"text": S("hello world")},
        2,
        {"vocab": GPT2_VOCAB, "merges": GPT2_MERGES_TEXT, "padding_length": 8},
        domain=EXTENSIONS,
        family="tokenizer",
    ),
]


# --- images and audio ---------------------------------------------------------------------


def png(pixels: np.ndarray) -> np.ndarray:
    """A PNG file (8-bit RGB, no interlace) of pixels [H, W, 3], as uint8 bytes."""
    import struct
    import zlib

    h, w, _ = pixels.shape

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\0" + pixels[y].astype(np.uint8).tobytes() for y in range(h))
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    data += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return np.frombuffer(data, np.uint8).copy()


def wav(samples: np.ndarray, rate: int = 16000) -> np.ndarray:
    """A WAV file (PCM 16-bit mono) of float samples in [-1, 1], as uint8 bytes [1, n]."""
    import struct

    pcm = (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()
    head = b"RIFF" + struct.pack("<I", 36 + len(pcm)) + b"WAVE"
    head += b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
    head += b"data" + struct.pack("<I", len(pcm))
    return np.frombuffer(head + pcm, np.uint8).copy()[None, :]


_RNG = np.random.default_rng(5)
PIXELS = _RNG.integers(0, 256, (6, 5, 3)).astype(np.uint8)
TONE = np.sin(2 * np.pi * 440 * np.arange(1600) / 16000).astype(np.float32) * 0.5

MEDIA = [
    Case("decode_png", "DecodeImage", {"image": png(PIXELS)}, 1, domain=EXTENSIONS, family="image"),
    Case(
        "encode_png",
        "EncodeImage",
        {"image": PIXELS},
        1,
        {"format": "png"},
        domain=EXTENSIONS,
        family="image",
    ),
    Case(
        "draw_boxes",
        "DrawBoundingBoxes",
        {
            "image": np.zeros((20, 24, 3), np.uint8),
            "boxes": np.array([[2, 3, 10, 12, 0.9, 1], [5, 5, 18, 15, 0.5, 2]], np.float32),
        },
        1,
        {"thickness": 2, "num_classes": 3, "mode": "XYXY"},
        domain=EXTENSIONS,
        family="image",
    ),
    Case("audio_decoder", "AudioDecoder", {"audio": wav(TONE)}, 1, family="audio", atol=1e-6),
    Case(
        "stft_norm",
        "StftNorm",
        {
            "pcm": TONE[None, :],
            "n_fft": np.array(400, np.int64),
            "hop_length": np.array(160, np.int64),
            "window": np.hanning(401)[:-1].astype(np.float32),
            "frame_length": np.array(400, np.int64),
        },
        1,
        {"onesided": 1},
        family="audio",
        rtol=1e-5,
        atol=1e-4,
    ),
]


def _varint(n: int) -> bytes:
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def _field(number: int, wire: int, payload: bytes) -> bytes:
    return _varint(number << 3 | wire) + payload


def _message(number: int, body: bytes) -> bytes:
    return _field(number, 2, _varint(len(body)) + body)


def spm_model(pieces, model_type: int = 1) -> bytes:
    """A SentencePiece ModelProto written field by field (sentencepiece_model.proto):
    pieces (piece, score, type: 1 normal, 2 unknown, 3 control), the trainer spec's
    model_type (1 unigram, 2 BPE) and an identity normalizer that adds the dummy prefix and
    escapes spaces as U+2581."""
    import struct

    body = b""
    for piece, score, kind in pieces:
        p = _field(1, 2, _varint(len(piece.encode())) + piece.encode())
        p += _field(2, 5, struct.pack("<f", score)) + _field(3, 0, _varint(kind))
        body += _message(1, p)
    body += _message(2, _field(3, 0, _varint(model_type)))
    normalizer = _field(1, 2, _varint(8) + b"identity")
    normalizer += _field(3, 0, _varint(1)) + _field(4, 0, _varint(1)) + _field(5, 0, _varint(1))
    body += _message(3, normalizer)
    return body


SPM_PIECES = [("<unk>", 0.0, 2), ("<s>", 0.0, 3), ("</s>", 0.0, 3)] + [
    (p, -float(i), 1)
    for i, p in enumerate(
        [
            "▁hello",
            "▁world",
            "▁",
            "hello",
            "world",
            "h",
            "e",
            "l",
            "o",
            "w",
            "r",
            "d",
            "▁the",
            "fox",
            "x",
            "f",
            "t",
        ],
        start=1,
    )
]
SPM_MODEL = spm_model(SPM_PIECES)


def _spm_feeds(text, add_bos=False, add_eos=False, reverse=False):
    return {
        "text": text,
        "nbest_size": np.array([0], np.int64),
        "alpha": np.array([0.0], np.float32),
        "add_bos": np.array([add_bos]),
        "add_eos": np.array([add_eos]),
        "reverse": np.array([reverse]),
        "fairseq": np.array([False]),
    }


SENTENCEPIECE = [
    Case(
        "sentencepiece_tokenizer",
        "SentencepieceTokenizer",
        _spm_feeds(S("hello world", "the fox", "hello")),
        2,
        {"model": SPM_MODEL},
        family="tokenizer",
    ),
    Case(
        "sentencepiece_tokenizer_bos_eos",
        "SentencepieceTokenizer",
        _spm_feeds(S("hello the world"), add_bos=True, add_eos=True),
        2,
        {"model": SPM_MODEL},
        family="tokenizer",
    ),
    Case(
        "sentencepiece_decoder",
        "SentencepieceDecoder",
        {"ids": np.array([3, 4, 3, 15], np.int64), "fairseq": np.array([False])},
        1,
        {"model": SPM_MODEL},
        family="tokenizer",
    ),
]

CASES = STRING + MATH + TOKENIZER + SENTENCEPIECE + MEDIA
