"""The lit tests' one reader and writer of .npy files and ONNX TensorProto
(.pb) files, in plain Python (no numpy), for test inputs written by hand and
for printing outputs. lit puts this folder on PYTHONPATH, so a script in a
test imports it as `import npy`; `python npy.py print FILE` prints a file's
values.
"""

import struct
import sys


def write_npy(path, shape, values):
    """Writes float32 `values` (a flat list) as a C-order .npy of `shape`."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join("%d, " % d for d in shape) if len(shape) == 1 else
        ", ".join(map(str, shape)))
    header += " " * ((64 - (11 + len(header)) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode())
        f.write(struct.pack("<%df" % len(values), *values))


def read_npy(path):
    """The float32 values of a version-1 .npy file, as a flat list."""
    data = open(path, "rb").read()
    offset = 10 + struct.unpack("<H", data[8:10])[0]
    n = (len(data) - offset) // 4
    return list(struct.unpack("<%df" % n, data[offset:offset + 4 * n]))


def read_tensor_proto(path):
    """(dims, values) of a float ONNX TensorProto stored in raw_data."""
    data = open(path, "rb").read()

    def varint(i):
        value = shift = 0
        while True:
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value, i

    dims, raw, i = [], None, 0
    while i < len(data):
        tag, i = varint(i)
        field, wire = tag >> 3, tag & 7
        if wire == 0:
            value, i = varint(i)
            if field == 1:
                dims.append(value)
        elif wire == 2:
            length, i = varint(i)
            if field == 1:  # packed dims
                j = i
                while j < i + length:
                    value, j = varint(j)
                    dims.append(value)
            elif field == 9:
                raw = data[i:i + length]
            i += length
        elif wire == 5:
            i += 4
        else:
            i += 8
    if raw is None:
        raise ValueError("%s: no raw_data" % path)
    return dims, list(struct.unpack("<%df" % (len(raw) // 4), raw))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "print":
        sys.exit("usage: npy.py print FILE.npy")
    print(" ".join(repr(v) for v in read_npy(sys.argv[2])))
