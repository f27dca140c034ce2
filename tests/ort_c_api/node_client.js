// A Node.js program written for ONNX Runtime (npm onnxruntime-node 1.29.0), used as a test of
// libonnxruntime.so.1 on onnx-light: the test runs it with LD_LIBRARY_PATH at onnx-light's
// library and at none (the addon then loads the real ORT beside it) and compares what it
// prints (tests/python/ort_c_api/test_node_client.py).
//
//   NODE_PATH=<onnxruntime-node's node_modules> node node_client.js MODEL_DIR
//
// One fact per line: names, types, shapes, values (full precision) and which calls fail.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const dir = process.argv[2];
const show = (label, t) =>
  console.log(`value ${label} type=${t.type} dims=[${t.dims.join(',')}] ${Array.from(t.data).join(' ')}`);

async function expect(label, body) {
  try {
    await body();
    console.log(`${label} ok`);
  } catch (e) {
    // Messages the runtime writes differ between runtimes; the binding's own are kept.
    const own = /^(input '|output '|Non tensor|Unsupported|.* is missing)/.test(e.message);
    console.log(`${label} error${own ? ': ' + e.message.split('\n')[0] : ''}`);
  }
}

function metadata(label, list) {
  for (const m of list) {
    console.log(`${label} ${m.name} tensor=${m.isTensor}` +
                (m.isTensor ? ` type=${m.type} shape=${JSON.stringify(m.shape)}` : ''));
  }
}

async function dense() {
  const options = {intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all',
                   executionMode: 'sequential'};
  const file = path.join(dir, 'dense.onnx');
  const fromFile = await ort.InferenceSession.create(file, options);
  const fromBytes = await ort.InferenceSession.create(new Uint8Array(fs.readFileSync(file)), options);
  console.log(`dense inputs=${fromFile.inputNames} outputs=${fromFile.outputNames}`);
  metadata('input', fromFile.inputMetadata);
  metadata('output', fromFile.outputMetadata);
  const x = new ort.Tensor('float32', Float32Array.from({length: 12}, (_, i) => 0.25 * i - 1), [3, 4]);
  show('dense_file', (await fromFile.run({x})).y);
  show('dense_bytes', (await fromBytes.run({x})).y);
  const y = new ort.Tensor('float32', new Float32Array(15).fill(-7), [3, 5]);
  const got = await fromFile.run({x}, {y}, {tag: 'tagged', logSeverityLevel: 2});
  console.log(`preallocated_is_fetch ${got.y === y}`);
  show('dense_preallocated', y);
  await expect('missing_input', () => fromFile.run({}));
  await expect('unknown_input', () => fromFile.run({x, nope: x}));
  await expect('wrong_type', () => fromFile.run({x: new ort.Tensor('float64', new Float64Array(12), [3, 4])}));
  await expect('wrong_rank', () => fromFile.run({x: new ort.Tensor('float32', new Float32Array(12), [12])}));
  await expect('unknown_output', () => fromFile.run({x}, ['nope']));
  await expect('terminated', () => fromFile.run({x}, {}, {terminate: true}));
  show('dense_after_errors', (await fromFile.run({x})).y);
  await fromFile.release();
  await fromBytes.release();
}

async function strings() {
  const s = await ort.InferenceSession.create(path.join(dir, 'strings.onnx'));
  metadata('input', s.inputMetadata);
  metadata('output', s.outputMetadata);
  const text = new ort.Tensor('string', ['Hello', 'wOrLd', ''], [3]);
  show('strings', (await s.run({text})).picked);
  await s.release();
}

async function nonTensors() {
  const z = await ort.InferenceSession.create(path.join(dir, 'zipmap.onnx'));
  metadata('input', z.inputMetadata);
  metadata('output', z.outputMetadata);
  const p = new ort.Tensor('float32', Float32Array.from([0.1, 0.2, 0.7, 0.5, 0.25, 0.25]), [2, 3]);
  await expect('zipmap_run', () => z.run({probabilities: p}));
  const q = await ort.InferenceSession.create(path.join(dir, 'sequence.onnx'));
  metadata('output', q.outputMetadata);
  await expect('sequence_run',
               () => q.run({x: new ort.Tensor('float32', Float32Array.from([1, 2, 3, 4, 5, 6]), [3, 2])}));
}

async function refused() {
  await expect('missing_file', () => ort.InferenceSession.create(path.join(dir, 'no_such.onnx')));
  await expect('junk_bytes', () => ort.InferenceSession.create(new TextEncoder().encode('not a model')));
  await expect('unknown_op', () => ort.InferenceSession.create(path.join(dir, 'unknown_op.onnx')));
}

(async () => {
  console.log(`version ${ort.env.versions.node || ort.env.versions.common}`);
  // Which libonnxruntime.so.1 the addon loaded (not compared: the test checks it).
  const maps = fs.readFileSync('/proc/self/maps', 'utf8').split('\n');
  const lib = maps.find((l) => l.includes('libonnxruntime.so'));
  console.log(`library ${lib ? fs.realpathSync(lib.slice(lib.indexOf('/'))) : 'none'}`);
  await dense();
  await strings();
  await nonTensors();
  await refused();
  console.log('done');
})().catch((e) => {
  console.log(`FAILED ${e.stack}`);
  process.exit(1);
});
