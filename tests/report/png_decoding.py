"""Just enough PNG decoding (8-bit RGB or RGBA, not interlaced) to inspect screenshots."""

from __future__ import annotations

import struct
import zlib

CHANNELS = {2: 3, 6: 4}


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and each row's unfiltered bytes."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, chunks, header = 8, [], None
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, depth, color_type, _, _, interlace = header
    assert depth == 8 and color_type in CHANNELS and interlace == 0, header
    stride = CHANNELS[color_type]
    raw = zlib.decompress(b"".join(chunks))
    return width, height, _unfilter(raw, width * stride, height, stride), stride


def _unfilter(raw: bytes, row_bytes: int, height: int, stride: int) -> list[bytes]:
    rows: list[bytes] = []
    previous = bytearray(row_bytes)
    for index in range(height):
        start = index * (row_bytes + 1)
        kind, row = raw[start], bytearray(raw[start + 1 : start + 1 + row_bytes])
        for i in range(row_bytes):
            left = row[i - stride] if i >= stride else 0
            up = previous[i]
            upper_left = previous[i - stride] if i >= stride else 0
            row[i] = (row[i] + _predict(kind, left, up, upper_left)) & 0xFF
        rows.append(bytes(row))
        previous = row
    return rows


def _predict(kind: int, left: int, up: int, upper_left: int) -> int:
    if kind == 0:
        return 0
    if kind == 1:
        return left
    if kind == 2:
        return up
    if kind == 3:
        return (left + up) // 2
    guess = left + up - upper_left
    distances = (abs(guess - left), abs(guess - up), abs(guess - upper_left))
    return (left, up, upper_left)[distances.index(min(distances))]


def pixels(rows: list[bytes], stride: int) -> list[tuple[int, int, int]]:
    return [tuple(row[i : i + 3]) for row in rows for i in range(0, len(row), stride)]
