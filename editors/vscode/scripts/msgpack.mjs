// The part of MessagePack that talking to `nvim --embed` needs (neovim-screen.mjs): encoding a
// request's nil, booleans, integers, strings, arrays and maps; decoding everything Neovim sends
// (its buffer and window handles are ext types, kept as { ext, data }). No package on npm that
// restfn already has does this, and it is small.

/** The MessagePack bytes of a value. */
export function encode(value) {
  const parts = [];
  const push = (...bytes) => parts.push(Buffer.from(bytes));
  const write = (v) => {
    if (v === null || v === undefined) push(0xc0);
    else if (v === false) push(0xc2);
    else if (v === true) push(0xc3);
    else if (typeof v === 'number' && Number.isInteger(v)) {
      if (v >= 0 && v < 0x80) push(v);
      else if (v < 0 && v >= -32) push(v & 0xff);
      else {
        const b = Buffer.alloc(9);
        b[0] = 0xd3;
        b.writeBigInt64BE(BigInt(v), 1);
        parts.push(b);
      }
    } else if (typeof v === 'string') {
      const s = Buffer.from(v, 'utf8');
      const head = Buffer.alloc(5);
      head[0] = 0xdb;
      head.writeUInt32BE(s.length, 1);
      parts.push(head, s);
    } else if (Array.isArray(v)) {
      const head = Buffer.alloc(5);
      head[0] = 0xdd;
      head.writeUInt32BE(v.length, 1);
      parts.push(head);
      for (const item of v) write(item);
    } else if (typeof v === 'object') {
      const entries = Object.entries(v);
      const head = Buffer.alloc(5);
      head[0] = 0xdf;
      head.writeUInt32BE(entries.length, 1);
      parts.push(head);
      for (const [k, item] of entries) {
        write(k);
        write(item);
      }
    } else throw new Error(`msgpack: cannot encode ${typeof v}`);
  };
  write(value);
  return Buffer.concat(parts);
}

/**
 * Decodes the messages at the start of `buffer`: the values complete in it, and how many bytes
 * they took (a message cut at the end of a chunk waits for the next one).
 */
export function decodeAll(buffer) {
  const values = [];
  let used = 0;
  for (;;) {
    try {
      const [value, end] = decodeAt(buffer, used);
      values.push(value);
      used = end;
    } catch (error) {
      if (error instanceof RangeError) return { values, used };
      throw error;
    }
  }
}

function decodeAt(b, at) {
  if (at >= b.length) throw new RangeError('msgpack: end of input');
  const t = b[at];
  const str = (start, len) => {
    if (start + len > b.length) throw new RangeError('msgpack: end of input');
    return [b.toString('utf8', start, start + len), start + len];
  };
  const bin = (start, len) => {
    if (start + len > b.length) throw new RangeError('msgpack: end of input');
    return [b.subarray(start, start + len), start + len];
  };
  const array = (start, n) => {
    const out = [];
    let p = start;
    for (let i = 0; i < n; i++) {
      const [v, next] = decodeAt(b, p);
      out.push(v);
      p = next;
    }
    return [out, p];
  };
  const map = (start, n) => {
    const out = {};
    let p = start;
    for (let i = 0; i < n; i++) {
      const [k, afterKey] = decodeAt(b, p);
      const [v, next] = decodeAt(b, afterKey);
      out[k] = v;
      p = next;
    }
    return [out, p];
  };
  const ext = (start, len) => {
    if (start + 1 + len > b.length) throw new RangeError('msgpack: end of input');
    return [{ ext: b.readInt8(start), data: b.subarray(start + 1, start + 1 + len) }, start + 1 + len];
  };
  const need = (n) => {
    if (at + 1 + n > b.length) throw new RangeError('msgpack: end of input');
  };
  if (t < 0x80) return [t, at + 1];
  if (t >= 0xe0) return [t - 0x100, at + 1];
  if (t >= 0x80 && t <= 0x8f) return map(at + 1, t & 0x0f);
  if (t >= 0x90 && t <= 0x9f) return array(at + 1, t & 0x0f);
  if (t >= 0xa0 && t <= 0xbf) return str(at + 1, t & 0x1f);
  switch (t) {
    case 0xc0:
      return [null, at + 1];
    case 0xc2:
      return [false, at + 1];
    case 0xc3:
      return [true, at + 1];
    case 0xc4:
      need(1);
      return bin(at + 2, b[at + 1]);
    case 0xc5:
      need(2);
      return bin(at + 3, b.readUInt16BE(at + 1));
    case 0xc6:
      need(4);
      return bin(at + 5, b.readUInt32BE(at + 1));
    case 0xc7:
      need(1);
      return ext(at + 2, b[at + 1]);
    case 0xc8:
      need(2);
      return ext(at + 3, b.readUInt16BE(at + 1));
    case 0xc9:
      need(4);
      return ext(at + 5, b.readUInt32BE(at + 1));
    case 0xca:
      need(4);
      return [b.readFloatBE(at + 1), at + 5];
    case 0xcb:
      need(8);
      return [b.readDoubleBE(at + 1), at + 9];
    case 0xcc:
      need(1);
      return [b[at + 1], at + 2];
    case 0xcd:
      need(2);
      return [b.readUInt16BE(at + 1), at + 3];
    case 0xce:
      need(4);
      return [b.readUInt32BE(at + 1), at + 5];
    case 0xcf:
      need(8);
      return [Number(b.readBigUInt64BE(at + 1)), at + 9];
    case 0xd0:
      need(1);
      return [b.readInt8(at + 1), at + 2];
    case 0xd1:
      need(2);
      return [b.readInt16BE(at + 1), at + 3];
    case 0xd2:
      need(4);
      return [b.readInt32BE(at + 1), at + 5];
    case 0xd3:
      need(8);
      return [Number(b.readBigInt64BE(at + 1)), at + 9];
    case 0xd4:
      return ext(at + 1, 1);
    case 0xd5:
      return ext(at + 1, 2);
    case 0xd6:
      return ext(at + 1, 4);
    case 0xd7:
      return ext(at + 1, 8);
    case 0xd8:
      return ext(at + 1, 16);
    case 0xd9:
      need(1);
      return str(at + 2, b[at + 1]);
    case 0xda:
      need(2);
      return str(at + 3, b.readUInt16BE(at + 1));
    case 0xdb:
      need(4);
      return str(at + 5, b.readUInt32BE(at + 1));
    case 0xdc:
      need(2);
      return array(at + 3, b.readUInt16BE(at + 1));
    case 0xdd:
      need(4);
      return array(at + 5, b.readUInt32BE(at + 1));
    case 0xde:
      need(2);
      return map(at + 3, b.readUInt16BE(at + 1));
    case 0xdf:
      need(4);
      return map(at + 5, b.readUInt32BE(at + 1));
    default:
      throw new Error(`msgpack: unknown type byte 0x${t.toString(16)}`);
  }
}
