// tensor-io.mjs - ONNX TensorProto (.pb) and NumPy (.npy) files as
// onnxruntime-node tensors, for ort-bench.mjs and test/utils/ort-run.mjs.
import { readFileSync, writeFileSync } from 'node:fs';

// --- Minimal ONNX TensorProto reader: dims (1), data_type (2), float_data (4),
// --- int32_data (5), int64_data (7), name (8), raw_data (9). Enough for the
// --- test_data_set_N/input_N.pb files of the shared models.
function readVarint(buf, at) {
  let value = 0n, shift = 0n, byte;
  do {
    byte = buf[at.pos++];
    value |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
  } while (byte & 0x80);
  return value;
}

export function parseTensorProto(buf) {
  const t = { dims: [], dataType: 0, raw: null, floats: [], ints: [] };
  const at = { pos: 0 };
  while (at.pos < buf.length) {
    const key = Number(readVarint(buf, at));
    const field = key >> 3, wire = key & 7;
    if (wire === 0) {                       // varint
      const v = readVarint(buf, at);
      if (field === 1) t.dims.push(Number(BigInt.asIntN(64, v)));
      else if (field === 2) t.dataType = Number(v);
      else if (field === 5 || field === 7) t.ints.push(BigInt.asIntN(64, v));
    } else if (wire === 2) {                // length-delimited
      const len = Number(readVarint(buf, at));
      const bytes = buf.subarray(at.pos, at.pos + len);
      at.pos += len;
      if (field === 9) t.raw = bytes;
      else if (field === 8) t.name = bytes.toString('utf8');
      else if (field === 1 || field === 5 || field === 7) {   // packed varints
        const sub = { pos: 0 };
        while (sub.pos < bytes.length) {
          const v = BigInt.asIntN(64, readVarint(bytes, sub));
          if (field === 1) t.dims.push(Number(v)); else t.ints.push(v);
        }
      } else if (field === 4) {             // packed floats
        const copy = Uint8Array.from(bytes);
        t.floats.push(...new Float32Array(copy.buffer));
      }
    } else if (wire === 5) {                // fixed32 (unpacked float_data)
      if (field === 4) t.floats.push(buf.readFloatLE(at.pos));
      at.pos += 4;
    } else if (wire === 1) {
      at.pos += 8;
    } else {
      throw new Error(`unsupported protobuf wire type ${wire}`);
    }
  }
  return t;
}

// ONNX data_type -> [ORT tensor type, typed array constructor].
export const TYPES = {
  1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array],
  4: ['uint16', Uint16Array], 5: ['int16', Int16Array],
  6: ['int32', Int32Array], 7: ['int64', BigInt64Array], 9: ['bool', Uint8Array],
  10: ['float16', Uint16Array], 11: ['float64', Float64Array],
  12: ['uint32', Uint32Array], 13: ['uint64', BigUint64Array],
};

export function tensorFromPb(ort, file) {
  const t = parseTensorProto(readFileSync(file));
  const entry = TYPES[t.dataType];
  if (!entry) throw new Error(`${file}: ONNX data_type ${t.dataType} not supported`);
  const [type, Ctor] = entry;
  let data;
  if (t.raw) data = new Ctor(Uint8Array.from(t.raw).buffer);   // copy: aligned
  else if (type === 'float32') data = Float32Array.from(t.floats);
  else if (type === 'int64') data = BigInt64Array.from(t.ints);
  else data = Ctor.from(t.ints.map(Number));
  return new ort.Tensor(type, data, t.dims);
}

// NumPy dtype descr -> [ORT tensor type, typed array constructor].
const NPY_TYPES = {
  '<f4': ['float32', Float32Array], '|u1': ['uint8', Uint8Array],
  '|i1': ['int8', Int8Array], '<i4': ['int32', Int32Array],
  '<i8': ['int64', BigInt64Array], '<f8': ['float64', Float64Array],
};

// A .npy file (format 1.x/2.x, C order, little endian) as { type, data, dims }.
export function readNpy(file) {
  const buf = readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*True/.test(header);
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? '')
    .split(',').map((d) => d.trim()).filter((d) => d).map(Number);
  const entry = NPY_TYPES[descr];
  if (!entry || fortran) throw new Error(`${file}: unsupported .npy (${descr}${fortran ? ', Fortran order' : ''})`);
  const [type, Ctor] = entry;
  const bytes = Uint8Array.from(buf.subarray(start + headerLen));   // copy: aligned
  return { type, data: new Ctor(bytes.buffer, 0, bytes.length / Ctor.BYTES_PER_ELEMENT), dims: shape };
}

// Writes a float32 array as a .npy file.
export function writeNpyF32(file, data, dims) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims.join(', ')}${dims.length === 1 ? ',' : ''}), }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1; head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

// --- Minimal ONNX TensorProto writer: dims (1), data_type (2), name (8) and
// --- raw_data (9), the fields strata-run's .pb reader needs.
function varint(value) {
  const out = [];
  let v = BigInt.asUintN(64, BigInt(value));
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return out;
}

// An onnxruntime-node tensor as TensorProto bytes named `name`.
export function tensorToPb(tensor, name) {
  const dataType = Number(Object.keys(TYPES).find((k) => TYPES[k][0] === tensor.type));
  if (!dataType) throw new Error(`tensor type ${tensor.type} cannot be written`);
  const parts = [];
  for (const d of tensor.dims) parts.push(Buffer.from([0x08, ...varint(d)]));
  parts.push(Buffer.from([0x10, ...varint(dataType)]));
  const nameBytes = Buffer.from(name, 'utf8');
  parts.push(Buffer.from([0x42, ...varint(nameBytes.length)]), nameBytes);
  const d = tensor.data;
  const raw = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  parts.push(Buffer.from([0x4a, ...varint(raw.length)]), raw);
  return Buffer.concat(parts);
}
