"""The core of onnxruntime-genai's Python API over onnx-light.

A folder written by ONNX Runtime GenAI's model builder (``python -m
onnxruntime_genai.models.builder -i HF_FOLDER -o OUT -p int4 -e cpu``: ``model.onnx`` and its
``.onnx.data``, ``genai_config.json``, the tokenizer files) generates text with the same
calls as with ``onnxruntime_genai``::

    import onnx_light.genai as og

    model = og.Model("folder")
    tokenizer = og.Tokenizer(model)
    params = og.GeneratorParams(model)
    params.set_search_options(max_length=64, do_sample=False)
    generator = og.Generator(model, params)
    generator.append_tokens(tokenizer.encode("Hello"))
    stream = tokenizer.create_stream()
    while not generator.is_done():
        generator.generate_next_token()
        print(stream.decode(generator.get_next_tokens()[0]), end="")

What runs: the decoder of ``genai_config.json`` (``model.decoder``: its file, input and
output names, heads, layers) through :class:`onnx_light.RuntimeSession`; greedy search and
sampling (temperature, top-k, top-p, a seed), the repetition penalty and ``min_length``, as
onnxruntime-genai applies them; each step's present caches fed back as the next step's past
(the arrays themselves, no copy). The tokenizer is Hugging Face's ``tokenizers`` package over
the folder's ``tokenizer.json`` (an optional dependency, imported only by :class:`Tokenizer`).
Not here (a clear error instead): beam search (``num_beams`` > 1), encoder-decoder and
multimodal models (``model.encoder``, ``vision``, ``speech``), batches of prompts of
different lengths, and execution providers (everything runs on the CPU). docs/genai.md.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from .runtime import RuntimeSession

__all__ = ["Config", "Model", "Tokenizer", "TokenizerStream", "GeneratorParams", "Generator"]

_SEARCH_DEFAULTS = {
    "max_length": None,  # the config's search.max_length, else the context length
    "min_length": 0,
    "do_sample": False,
    "top_k": 50,
    "top_p": 1.0,
    "temperature": 1.0,
    "repetition_penalty": 1.0,
    "num_beams": 1,
    "num_return_sequences": 1,
    "batch_size": 1,
    "random_seed": -1,
    "past_present_share_buffer": False,
    "early_stopping": True,
    "length_penalty": 1.0,
    "diversity_penalty": 0.0,
    "no_repeat_ngram_size": 0,
}
_FLOAT_OPTIONS = {"top_p", "temperature", "repetition_penalty", "length_penalty"}
_BOOL_OPTIONS = {"do_sample", "past_present_share_buffer", "early_stopping"}


class Config:
    """``genai_config.json`` of a model folder (``onnxruntime_genai.Config``)."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(os.fspath(folder))
        path = self.folder / "genai_config.json"
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found: a model folder holds genai_config.json")
        try:
            self.data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not valid JSON: {exc}") from exc
        model = self.data.get("model")
        if not isinstance(model, dict) or not isinstance(model.get("decoder"), dict):
            raise ValueError(f"{path} has no model.decoder section")
        for part in ("encoder", "vision", "speech", "embedding"):
            if part in model:
                raise NotImplementedError(
                    f"{path}: model.{part} (encoder-decoder or multimodal models) is not "
                    "supported by onnx_light.genai; decoder-only models are"
                )
        self.model = model
        self.decoder = model["decoder"]
        self.search = dict(self.data.get("search", {}))

    def clear_providers(self) -> None:
        """Accepted for onnxruntime_genai compatibility: onnx-light always runs on the CPU."""

    def append_provider(self, name: str) -> None:
        if name.lower() not in ("cpu", "cpuexecutionprovider"):
            raise ValueError(f"provider {name!r} is not available: onnx-light runs on the CPU")


def _eos_ids(model: dict) -> list[int]:
    eos = model.get("eos_token_id", [])
    return [int(e) for e in (eos if isinstance(eos, list) else [eos])]


class Model:
    """A decoder-only model folder (``onnxruntime_genai.Model``): ``Model(folder)`` or
    ``Model(Config(folder))``. ``intra_op_threads`` (onnx-light's): threads per run
    (default 1; 0 is one per physical core); the config's ``session_options`` value
    ``intra_op_num_threads`` is used when given there."""

    def __init__(self, config: Config | str | os.PathLike, intra_op_threads: int | None = None):
        self.config = config if isinstance(config, Config) else Config(config)
        dec = self.config.decoder
        self.type = str(self.config.model.get("type", ""))
        self.device_type = "cpu"
        self.vocab_size = int(self.config.model.get("vocab_size", 0))
        self.context_length = int(self.config.model.get("context_length", 0)) or None
        self.eos_token_ids = _eos_ids(self.config.model)
        self.pad_token_id = self.config.model.get("pad_token_id")
        self.num_layers = int(dec.get("num_hidden_layers", 0))
        self.kv_heads = int(dec.get("num_key_value_heads", dec.get("num_attention_heads", 0)))
        self.head_size = int(dec.get("head_size", 0))
        if intra_op_threads is None:
            so = dec.get("session_options", {})
            intra_op_threads = int(so.get("intra_op_num_threads", 1) or 1)
        path = self.config.folder / dec.get("filename", "model.onnx")
        if not path.is_file():
            raise FileNotFoundError(f"the decoder {path} named by genai_config.json is missing")
        self.session = RuntimeSession(str(path), intra_op_threads=intra_op_threads)
        self._names(dec)

    def _names(self, dec: dict) -> None:
        ins, outs = dec.get("inputs", {}), dec.get("outputs", {})
        declared = {a.name: a for a in self.session.get_inputs()}
        self.input_ids = ins.get("input_ids", "input_ids")
        self.attention_mask = ins.get("attention_mask", "attention_mask")
        self.position_ids = ins.get("position_ids", "position_ids")
        self.logits = outs.get("logits", "logits")
        pk, pv = ins.get("past_key_names", ""), ins.get("past_value_names", "")
        ok, ov = outs.get("present_key_names", ""), outs.get("present_value_names", "")
        self.past = [(pk % i, pv % i) for i in range(self.num_layers)] if pk else []
        self.present = [(ok % i, ov % i) for i in range(self.num_layers)] if ok else []
        self.run_outputs = [self.logits] + [n for pair in self.present for n in pair]
        if self.input_ids not in declared:
            raise ValueError(f"the decoder has no input {self.input_ids!r} (genai_config.json)")
        for name, _ in self.past:
            if name not in declared:
                raise ValueError(f"the decoder has no input {name!r} (genai_config.json)")
        self.has_mask = self.attention_mask in declared
        self.has_positions = self.position_ids in declared
        self.ids_dtype = declared[self.input_ids].dtype
        self.past_dtype = declared[self.past[0][0]].dtype if self.past else np.float32
        # Sliding-window layers (Gemma 2/3's local attention: GroupQueryAttention with
        # sliding_window_cache) keep window-sized caches from the first step on.
        sw = dec.get("sliding_window") or {}
        self.window_layers = {int(i) for i in sw.get("layers", [])}
        self.window_capacity = int(sw.get("window_size", 0)) + int(sw.get("cache_slack", 0))
        if self.window_layers and self.window_capacity < 1:
            raise ValueError("genai_config.json: sliding_window has layers but no window_size")


class TokenizerStream:
    """Text as tokens come, one token at a time (``tokenizer.create_stream()``)."""

    def __init__(self, tokenizer: "Tokenizer"):
        self._tokenizer = tokenizer
        self._tokens: list[int] = []
        self._text = ""

    def decode(self, token: int) -> str:
        """The text this token adds (empty while it ends inside a multi-byte character)."""
        self._tokens.append(int(token))
        text = self._tokenizer.decode(self._tokens)
        if text.endswith("\ufffd"):  # an incomplete UTF-8 sequence: wait for the rest
            return ""
        if not text.startswith(self._text):  # the tokenizer re-spelled the tail
            common = os.path.commonprefix([text, self._text])
            self._text = text
            return text[len(common) :]
        piece, self._text = text[len(self._text) :], text
        return piece


class Tokenizer:
    """The model folder's ``tokenizer.json`` (``onnxruntime_genai.Tokenizer``), through
    Hugging Face's ``tokenizers`` package."""

    def __init__(self, model: Model):
        try:
            import tokenizers
        except ImportError as exc:
            raise ImportError(
                "onnx_light.genai.Tokenizer needs Hugging Face's tokenizers package: "
                "pip install tokenizers"
            ) from exc
        path = model.config.folder / "tokenizer.json"
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found: the model folder has no tokenizer.json")
        self._tok = tokenizers.Tokenizer.from_file(str(path))

    def encode(self, text: str) -> np.ndarray:
        if not isinstance(text, str):
            raise TypeError(f"encode takes a str, got {type(text).__name__}")
        return np.asarray(self._tok.encode(text).ids, dtype=np.int32)

    def encode_batch(self, texts: Sequence[str]) -> np.ndarray:
        rows = [self.encode(t) for t in texts]
        if len({len(r) for r in rows}) > 1:
            raise ValueError("encode_batch: the texts encode to different lengths (no padding)")
        return np.stack(rows)

    def decode(self, tokens: Iterable[int]) -> str:
        return self._tok.decode([int(t) for t in np.asarray(tokens).reshape(-1)])

    def decode_batch(self, rows: Iterable[Iterable[int]]) -> list[str]:
        return [self.decode(r) for r in rows]

    def create_stream(self) -> TokenizerStream:
        return TokenizerStream(self)

    def to_token_id(self, text: str) -> int:
        tid = self._tok.token_to_id(text)
        if tid is None:
            raise ValueError(f"{text!r} is not a token of this tokenizer")
        return int(tid)


class GeneratorParams:
    """Search options (``onnxruntime_genai.GeneratorParams``): the config's ``search``
    section, then :meth:`set_search_options`."""

    def __init__(self, model: Model):
        if not isinstance(model, Model):
            raise TypeError(f"GeneratorParams takes an onnx_light.genai.Model, got {model!r}")
        self.model = model
        self.search = dict(_SEARCH_DEFAULTS)
        for key, value in model.config.search.items():
            if key in self.search:
                self.search[key] = value
        if self.search["max_length"] is None:
            self.search["max_length"] = model.context_length or 2048

    def set_search_options(self, **options: Any) -> None:
        """Sets search options by name; a bad value raises and changes none of them."""
        s = dict(self.search)
        for key, value in options.items():
            if key not in _SEARCH_DEFAULTS:
                raise ValueError(
                    f"unknown search option {key!r}; known: {', '.join(sorted(_SEARCH_DEFAULTS))}"
                )
            if key in _BOOL_OPTIONS:
                value = bool(value)
            elif key in _FLOAT_OPTIONS:
                value = float(value)
            else:
                if isinstance(value, bool) or int(value) != value:
                    raise TypeError(f"search option {key} must be an int, got {value!r}")
                value = int(value)
            s[key] = value
        if s["num_beams"] != 1 or s["num_return_sequences"] != 1:
            raise NotImplementedError(
                "beam search (num_beams > 1) is not supported; greedy and sampling are"
            )
        if s["max_length"] < 1 or s["top_k"] < 0 or not 0.0 < s["top_p"] <= 1.0:
            raise ValueError("max_length must be >= 1, top_k >= 0 and top_p in (0, 1]")
        if s["temperature"] <= 0.0 or s["repetition_penalty"] <= 0.0:
            raise ValueError("temperature and repetition_penalty must be > 0")
        self.search = s


class Generator:
    """Token-by-token generation (``onnxruntime_genai.Generator``)."""

    def __init__(self, model: Model, params: GeneratorParams):
        if not isinstance(params, GeneratorParams):
            raise TypeError(f"Generator takes onnx_light.genai.GeneratorParams, got {params!r}")
        self.model, self.search = model, dict(params.search)
        self._batch = int(self.search["batch_size"])
        self._seq = np.zeros((self._batch, 0), np.int64)
        self._past: list[tuple[np.ndarray, np.ndarray]] = []
        self._logits: np.ndarray | None = None  # [batch, vocab] of the last position
        self._pending: np.ndarray | None = None  # tokens chosen but not yet run
        self._done = np.zeros(self._batch, bool)
        seed = int(self.search["random_seed"])
        self._rng = np.random.default_rng(None if seed < 0 else seed)
        self._new = np.zeros(self._batch, np.int64)
        self._mask = np.ones((self._batch, 64), np.int64)
        self._eos = set(model.eos_token_ids)

    # -- the model ---------------------------------------------------------------------
    def _empty_past(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Empty caches; a sliding-window layer's are window-sized (zeros) from the start."""
        m = self.model
        caches = []
        for layer in range(len(m.past)):
            rows = m.window_capacity if layer in m.window_layers else 0
            shape = (self._batch, m.kv_heads, rows, m.head_size)
            caches.append((np.zeros(shape, m.past_dtype), np.zeros(shape, m.past_dtype)))
        return caches

    def _run(self, tokens: np.ndarray) -> None:
        """Runs the decoder on `tokens` [batch, S] after the sequence so far."""
        m = self.model
        past_len = self._seq.shape[1]
        if not self._past:
            self._past = self._empty_past()
        total = past_len + tokens.shape[1]
        feeds = {m.input_ids: np.ascontiguousarray(tokens, dtype=m.ids_dtype)}
        if m.has_mask:
            if self._mask.shape[1] < total:  # grown in steps: one array, views of it
                self._mask = np.ones((self._batch, max(total, 2 * self._mask.shape[1])), np.int64)
            feeds[m.attention_mask] = self._mask[:, :total]
        if m.has_positions:
            pos = np.arange(past_len, total, dtype=np.int64)
            feeds[m.position_ids] = np.broadcast_to(pos, tokens.shape).copy()
        for (kn, vn), (k, v) in zip(m.past, self._past):
            feeds[kn], feeds[vn] = k, v
        out = m.session.run(m.run_outputs, feeds)
        logits = out[0]
        self._logits = np.asarray(logits[:, -1, :] if logits.ndim == 3 else logits, np.float32)
        self._past = [(out[1 + 2 * i], out[2 + 2 * i]) for i in range(len(m.present))]
        self._seq = np.concatenate([self._seq, tokens.astype(np.int64)], axis=1)

    # -- the API -------------------------------------------------------------------------
    def append_tokens(self, tokens: Any) -> None:
        """Runs the model on these tokens ([S] or [batch, S]) after the sequence so far."""
        arr = np.asarray(tokens)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"tokens must be integers, got {arr.dtype}")
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.shape[0] != self._batch or arr.shape[1] == 0:
            raise ValueError(
                f"tokens must be [{self._batch}, S] with S >= 1 (batch_size {self._batch}), "
                f"got shape {tuple(np.asarray(tokens).shape)}"
            )
        if self._pending is not None:  # the last chosen token first
            self._run(self._pending)
            self._pending = None
        if self._seq.shape[1] + arr.shape[1] > self.search["max_length"]:
            raise ValueError(
                f"{self._seq.shape[1] + arr.shape[1]} tokens exceed max_length "
                f"{self.search['max_length']}"
            )
        self._run(arr)
        self._done[:] = self._seq.shape[1] >= self.search["max_length"]

    def is_done(self) -> bool:
        return bool(self._done.all())

    def get_logits(self) -> np.ndarray:
        """The logits [batch, vocab] the next token is chosen from."""
        if self._pending is not None:
            self._run(self._pending)
            self._pending = None
        if self._logits is None:
            raise RuntimeError("no logits yet: append_tokens first")
        return self._logits.copy()

    def generate_next_token(self) -> None:
        if self._logits is None and self._pending is None:
            raise RuntimeError("generate_next_token before any tokens: append_tokens first")
        if self.is_done():
            raise RuntimeError("generation is done (end of sequence or max_length)")
        if self._pending is not None:
            self._run(self._pending)
        chosen = self._choose(self._processed_logits())
        chosen = np.where(self._done, self._pad(), chosen)
        self._new = chosen
        self._pending = chosen[:, None]
        length = self._seq.shape[1] + 1
        at_end = length >= self.search["max_length"]
        for b in range(self._batch):
            self._done[b] |= at_end or int(chosen[b]) in self._eos

    def get_next_tokens(self) -> np.ndarray:
        return self._new.astype(np.int32)

    def get_sequence(self, index: int) -> np.ndarray:
        if not 0 <= index < self._batch:
            raise IndexError(f"sequence {index} of a batch of {self._batch}")
        seq = (
            self._seq
            if self._pending is None
            else np.concatenate([self._seq, self._pending], axis=1)
        )
        return seq[index].astype(np.int32)

    # -- search ----------------------------------------------------------------------------
    def _pad(self) -> int:
        pad = self.model.pad_token_id
        if pad is None and self.model.eos_token_ids:
            pad = self.model.eos_token_ids[0]
        return int(pad or 0)

    def _processed_logits(self) -> np.ndarray:
        s = self.search
        seq = self._seq
        if s["repetition_penalty"] == 1.0 and seq.shape[1] + 1 >= s["min_length"]:
            return self._logits  # (read only from here on)
        logits = self._logits.copy()
        if s["repetition_penalty"] != 1.0:  # every token seen so far, once (the prompt too)
            for b in range(self._batch):
                ids = np.unique(seq[b])
                ids = ids[(ids >= 0) & (ids < logits.shape[1])]
                v = logits[b, ids]
                logits[b, ids] = np.where(
                    v < 0, v * s["repetition_penalty"], v / s["repetition_penalty"]
                )
        if seq.shape[1] + 1 < s["min_length"] and self.model.eos_token_ids:
            logits[:, self.model.eos_token_ids] = -np.inf
        return logits

    def _choose(self, logits: np.ndarray) -> np.ndarray:
        s = self.search
        if not s["do_sample"] or s["top_k"] == 1:
            return np.argmax(logits, axis=1).astype(np.int64)
        out = np.empty(logits.shape[0], np.int64)
        for b in range(logits.shape[0]):
            x = logits[b].astype(np.float64) / s["temperature"]
            order = np.argsort(-x, kind="stable")
            if s["top_k"] > 0:
                order = order[: s["top_k"]]
            p = np.exp(x[order] - x[order[0]])
            p /= p.sum()
            if s["top_p"] < 1.0:  # the smallest head of the sorted tokens reaching top_p
                keep = int(np.searchsorted(np.cumsum(p), s["top_p"]) + 1)
                order, p = order[:keep], p[:keep] / p[:keep].sum()
            out[b] = order[self._rng.choice(len(order), p=p)]
        return out
