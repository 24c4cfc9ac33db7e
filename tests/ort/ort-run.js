#!/usr/bin/env node
// ort-run.js: runs an ONNX model on ONNX Runtime (onnxruntime-node, CPU execution
// provider, graph optimizations disabled so that every node runs as written, in fp32),
// the oracle the tests hold pruner-tui's graph reference to for whole networks.
//
//   node tests/ort/ort-run.js MODEL.onnx DIR
//   node tests/ort/ort-run.js --version     which onnxruntime-node it finds (77: none)
//
// reads DIR/input_0.pb, input_1.pb, ... (serialized TensorProto, ONNX's test_data_set
// layout: the graph's inputs in order, initializers excluded) and writes each output of
// the graph, in order, to DIR/ort/output_N.pb (dims, data_type, name, raw_data), with
// the inputs copied beside them: a test_data_set that `pruner-tui run MODEL --test-data
// DIR/ort` reads. The few TensorProto fields it needs are read and written here by hand:
// the oracle depends on nothing but onnxruntime-node, which it finds in the node_modules
// folder named by PTUI_NODE_MODULES, else through NODE_PATH or the node_modules folders
// above this script.
//
// Exit status: 0 written, 1 a bad .pb file or ONNX Runtime refused the model or failed,
// 2 bad usage, 77 onnxruntime-node is not installed (the tests' SKIP).
'use strict';

const fs = require('fs');
const path = require('path');

const PROG = 'ort-run';

class PbError extends Error {}

function fail(msg, status = 1) {
  process.stderr.write(`${PROG}: ${msg}\n`);
  process.exit(status);
}

// ---- the element types: ONNX data_type, ORT's name, the typed array, the TensorProto
// field that holds the values when raw_data does not, and how raw bytes read and write
// (little-endian, as ONNX stores raw_data) ----
const TYPES = {
  1: {name: 'float', ort: 'float32', Array: Float32Array, field: 4, size: 4,
      get: (b, o) => b.readFloatLE(o), put: (b, o, v) => b.writeFloatLE(v, o)},
  2: {name: 'uint8', ort: 'uint8', Array: Uint8Array, field: 5, size: 1,
      get: (b, o) => b.readUInt8(o), put: (b, o, v) => b.writeUInt8(v, o)},
  6: {name: 'int32', ort: 'int32', Array: Int32Array, field: 5, size: 4,
      get: (b, o) => b.readInt32LE(o), put: (b, o, v) => b.writeInt32LE(v, o)},
  7: {name: 'int64', ort: 'int64', Array: BigInt64Array, field: 7, size: 8,
      get: (b, o) => b.readBigInt64LE(o), put: (b, o, v) => b.writeBigInt64LE(v, o)},
  9: {name: 'bool', ort: 'bool', Array: Uint8Array, field: 5, size: 1,
      get: (b, o) => (b.readUInt8(o) ? 1 : 0), put: (b, o, v) => b.writeUInt8(v ? 1 : 0, o)},
  11: {name: 'double', ort: 'float64', Array: Float64Array, field: 10, size: 8,
       get: (b, o) => b.readDoubleLE(o), put: (b, o, v) => b.writeDoubleLE(v, o)},
};
const BY_ORT = Object.fromEntries(Object.entries(TYPES).map(([code, t]) => [t.ort, Number(code)]));
// the rest of TensorProto.DataType, for the message that refuses them
const OTHER_TYPES = {0: 'undefined', 3: 'int8', 4: 'uint16', 5: 'int16', 8: 'string',
                     10: 'float16', 12: 'uint32', 13: 'uint64', 14: 'complex64',
                     15: 'complex128', 16: 'bfloat16'};

// ---- protobuf reading: a cursor over a buffer ----
class Reader {
  constructor(buf, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  done() { return this.pos >= this.end; }

  // a varint as a BigInt (up to 10 bytes, the two's complement of a negative int64)
  varint() {
    let v = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) throw new PbError(`truncated varint at byte ${this.pos}`);
      const byte = this.buf[this.pos++];
      v |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return BigInt.asUintN(64, v);
    }
    throw new PbError(`varint longer than 10 bytes at byte ${this.pos}`);
  }

  bytes(n) {
    if (n > this.end - this.pos)
      throw new PbError(`a field of ${n} bytes at byte ${this.pos} runs past the end (${this.end})`);
    const start = this.pos;
    this.pos += n;
    return [start, this.pos];
  }

  // the next field: {num, wire, value} where value is a BigInt (varint), the [start, end)
  // of its bytes (length-delimited, 32- and 64-bit)
  field() {
    const at = this.pos;
    const key = this.varint();
    const num = Number(key >> 3n), wire = Number(key & 7n);
    if (num === 0) throw new PbError(`field number 0 at byte ${at}`);
    switch (wire) {
      case 0: return {num, wire, value: this.varint()};
      case 1: return {num, wire, value: this.bytes(8)};
      case 2: return {num, wire, value: this.bytes(Number(this.varint()))};
      case 5: return {num, wire, value: this.bytes(4)};
      default:
        throw new PbError(`field ${num} at byte ${at} has wire type ${wire}, which TensorProto does not use`);
    }
  }
}

// The values of a repeated scalar field, packed (wire type 2) or one per field: varints
// as BigInts, fixed-size ones read by `get` at their offset.
function repeated(r, f, fixed, get) {
  if (f.wire === 2) {
    const [start, end] = f.value;
    const out = [];
    if (fixed) {
      if ((end - start) % fixed)
        throw new PbError(`packed field ${f.num} holds ${end - start} bytes, not a multiple of ${fixed}`);
      for (let o = start; o < end; o += fixed) out.push(get(r.buf, o));
    } else {
      const sub = new Reader(r.buf, start, end);
      while (!sub.done()) out.push(sub.varint());
    }
    return out;
  }
  const want = fixed === 0 ? 0 : fixed === 4 ? 5 : 1;
  if (f.wire !== want) throw new PbError(`field ${f.num} has wire type ${f.wire}`);
  return [fixed ? get(r.buf, f.value[0]) : f.value];
}

// A TensorProto's bytes -> {name, type (data_type), dims, data (the ORT typed array)}.
function parseTensor(buf) {
  const r = new Reader(buf);
  const t = {name: '', type: 0, dims: [], raw: null, values: {4: [], 5: [], 7: [], 10: []}};
  let sawValues = false;
  while (!r.done()) {
    const f = r.field();
    switch (f.num) {
      case 1: t.dims.push(...repeated(r, f, 0).map((v) => BigInt.asIntN(64, v))); break;
      case 2:
        if (f.wire !== 0) throw new PbError(`data_type has wire type ${f.wire}`);
        t.type = Number(BigInt.asIntN(32, f.value));
        break;
      case 3: throw new PbError('segmented tensors (field segment) are not supported');
      case 4: t.values[4].push(...repeated(r, f, 4, (b, o) => b.readFloatLE(o))); sawValues = true; break;
      case 5: t.values[5].push(...repeated(r, f, 0)); sawValues = true; break;
      case 6: throw new PbError('string_data: string tensors are not supported');
      case 7: t.values[7].push(...repeated(r, f, 0)); sawValues = true; break;
      case 8:
        if (f.wire !== 2) throw new PbError(`name has wire type ${f.wire}`);
        t.name = buf.toString('utf8', f.value[0], f.value[1]);
        break;
      case 9:
        if (f.wire !== 2) throw new PbError(`raw_data has wire type ${f.wire}`);
        t.raw = buf.subarray(f.value[0], f.value[1]);
        break;
      case 10: t.values[10].push(...repeated(r, f, 8, (b, o) => b.readDoubleLE(o))); sawValues = true; break;
      case 11: throw new PbError('uint64_data: uint32 and uint64 tensors are not supported');
      case 13: throw new PbError('external_data: tensors stored outside the file are not supported');
      case 14:
        if (f.value !== 0n)
          throw new PbError('data_location EXTERNAL: tensors stored outside the file are not supported');
        break;
      default: break;  // doc_string and fields newer than this reader: not data
    }
  }
  const type = TYPES[t.type];
  if (!type) {
    const known = OTHER_TYPES[t.type] !== undefined ? ` (${OTHER_TYPES[t.type]})` : '';
    throw new PbError(`data_type ${t.type}${known} is not supported (float, double, int64, int32, bool, uint8 are)`);
  }
  for (const d of t.dims) if (d < 0n) throw new PbError(`negative dimension ${d}`);
  const count = t.dims.reduce((a, d) => a * Number(d), 1);
  const shape = t.dims.length ? t.dims.join('x') : 'scalar';
  const data = new type.Array(count);
  if (t.raw !== null) {
    if (sawValues) throw new PbError(`both raw_data and a typed data field`);
    if (t.raw.length !== count * type.size) {
      throw new PbError(`raw_data holds ${t.raw.length} bytes; ${shape} ${type.name} needs ` +
                        `${count * type.size}`);
    }
    for (let i = 0; i < count; i++) data[i] = type.get(t.raw, i * type.size);
  } else {
    for (const [num, vals] of Object.entries(t.values)) {
      if (vals.length && Number(num) !== type.field) {
        throw new PbError(`a ${type.name} tensor with values in field ${num} ` +
                          `(they belong in field ${type.field} or raw_data)`);
      }
    }
    const vals = t.values[type.field];
    if (vals.length !== count) throw new PbError(`${vals.length} values; ${shape} needs ${count}`);
    for (let i = 0; i < count; i++) {
      const v = vals[i];
      if (type.field === 7) data[i] = BigInt.asIntN(64, v);
      else if (type.field === 5) data[i] = type.ort === 'bool' ? (v ? 1 : 0) : Number(BigInt.asIntN(32, v));
      else data[i] = v;
    }
  }
  return {name: t.name, type: t.type, dims: t.dims.map(Number), data};
}

// ---- protobuf writing ----
function varintBytes(v) {
  let x = BigInt.asUintN(64, BigInt(v));
  const out = [];
  do {
    let byte = Number(x & 0x7fn);
    x >>= 7n;
    if (x) byte |= 0x80;
    out.push(byte);
  } while (x);
  return Buffer.from(out);
}

const key = (num, wire) => varintBytes((num << 3) | wire);

// {name, type, dims, data} -> a TensorProto: dims (one field each, as proto2 writes
// them), data_type, name, raw_data
function serializeTensor(t) {
  const type = TYPES[t.type];
  const parts = [];
  for (const d of t.dims) parts.push(key(1, 0), varintBytes(d));
  parts.push(key(2, 0), varintBytes(t.type));
  const name = Buffer.from(t.name, 'utf8');
  parts.push(key(8, 2), varintBytes(name.length), name);
  const raw = Buffer.alloc(t.data.length * type.size);
  for (let i = 0; i < t.data.length; i++) type.put(raw, i * type.size, t.data[i]);
  parts.push(key(9, 2), varintBytes(raw.length), raw);
  return Buffer.concat(parts);
}

// ---- onnxruntime-node ----
function loadOrt() {
  const dir = process.env.PTUI_NODE_MODULES;
  const where = dir ? path.resolve(dir, 'onnxruntime-node') : 'onnxruntime-node';
  let resolved;
  try {
    resolved = require.resolve(where);
  } catch (e) {
    const how = dir ? `not in PTUI_NODE_MODULES=${dir}`
                    : 'not found through NODE_PATH or a node_modules folder; set PTUI_NODE_MODULES';
    fail(`onnxruntime-node is not installed (${how}); install it with: ` +
         'npm install --ignore-scripts --no-save onnxruntime-node@1.20.1 (./quickstart --dev does)', 77);
  }
  try {
    return require(resolved);
  } catch (e) {
    fail(`onnxruntime-node (${resolved}) does not load: ${e.message}`);
  }
}

async function main(argv) {
  if (argv.length === 1 && (argv[0] === '-h' || argv[0] === '--help')) {
    process.stdout.write('usage: node ort-run.js MODEL.onnx DIR | --version\n' +
                         'Runs MODEL on ONNX Runtime with DIR/input_N.pb; writes DIR/ort/output_N.pb.\n');
    return;
  }
  if (argv.length === 1 && argv[0] === '--version') {
    const ort = loadOrt();
    process.stdout.write(`onnxruntime-node ${ort.env.versions.node || '?'}, ` +
                         `Node.js ${process.versions.node}\n`);
    return;
  }
  if (argv.length !== 2) fail('usage: node ort-run.js MODEL.onnx DIR', 2);
  const [model, dir] = argv;
  if (!fs.existsSync(model)) fail(`${model}: no such file`);
  const ort = loadOrt();

  let session;
  try {
    session = await ort.InferenceSession.create(model, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'disabled',
      logSeverityLevel: 3,
    });
  } catch (e) {
    fail(`${model}: ONNX Runtime refuses the model: ${e.message}`);
  }

  const feeds = {}, files = [];
  session.inputNames.forEach((name, i) => {
    const file = path.join(dir, `input_${i}.pb`);
    files.push(file);
    let buf;
    try {
      buf = fs.readFileSync(file);
    } catch (e) {
      const why = e.code === 'ENOENT' ? 'no such file' : e.message;
      fail(`${file}: ${why} (input ${i} of ${session.inputNames.length}, '${name}')`);
    }
    let t;
    try {
      t = parseTensor(buf);
    } catch (e) {
      if (e instanceof PbError) fail(`${file}: not a valid TensorProto: ${e.message}`);
      throw e;
    }
    feeds[name] = new ort.Tensor(TYPES[t.type].ort, t.data, t.dims);
  });
  const extra = path.join(dir, `input_${session.inputNames.length}.pb`);
  if (fs.existsSync(extra)) fail(`${extra}: the model has only ${session.inputNames.length} inputs`);

  let results;
  try {
    results = await session.run(feeds);
  } catch (e) {
    fail(`${model}: ONNX Runtime failed: ${e.message}`);
  }

  const out = path.join(dir, 'ort');
  fs.mkdirSync(out, {recursive: true});
  for (const file of files) fs.copyFileSync(file, path.join(out, path.basename(file)));
  session.outputNames.forEach((name, i) => {
    const v = results[name];
    const code = BY_ORT[v.type];
    if (code === undefined) fail(`output ${i} ('${name}') is ${v.type}, which this script does not write`);
    const file = path.join(out, `output_${i}.pb`);
    fs.writeFileSync(file, serializeTensor({name, type: code, dims: v.dims, data: v.data}));
  });
}

main(process.argv.slice(2)).catch((e) => fail(e.stack || String(e)));
