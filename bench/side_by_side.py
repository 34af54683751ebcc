#!/usr/bin/env python3
"""Side-by-side PNG of two bakes, labelled, with nothing but the standard library.

  side_by_side.py OUT.png TITLE LEFT_DIR LEFT_LABEL RIGHT_DIR RIGHT_LABEL [IMAGE ...]

Each IMAGE (default: preview.png lightmap.png) is read from both directories and put in one
row, left and right, under its name; the two columns are headed by their labels and the whole
by TITLE. A pair wider than 512 pixels is shrunk, both images by the same whole factor (box filter). Reads and
writes 8-bit PNGs (grey, RGB or RGBA, non-interlaced: what `mixforge bake` writes) with zlib;
the labels use a built-in 5x7 font (upper-case letters, digits, a little punctuation).
"""
import struct
import sys
import zlib

FONT = {  # 5x7, one string of 7 rows of 5 bits per character
    "A": "01110 10001 10001 11111 10001 10001 10001", "B": "11110 10001 10001 11110 10001 10001 11110",
    "C": "01110 10001 10000 10000 10000 10001 01110", "D": "11110 10001 10001 10001 10001 10001 11110",
    "E": "11111 10000 10000 11110 10000 10000 11111", "F": "11111 10000 10000 11110 10000 10000 10000",
    "G": "01110 10001 10000 10111 10001 10001 01111", "H": "10001 10001 10001 11111 10001 10001 10001",
    "I": "01110 00100 00100 00100 00100 00100 01110", "J": "00111 00010 00010 00010 00010 10010 01100",
    "K": "10001 10010 10100 11000 10100 10010 10001", "L": "10000 10000 10000 10000 10000 10000 11111",
    "M": "10001 11011 10101 10101 10001 10001 10001", "N": "10001 10001 11001 10101 10011 10001 10001",
    "O": "01110 10001 10001 10001 10001 10001 01110", "P": "11110 10001 10001 11110 10000 10000 10000",
    "Q": "01110 10001 10001 10001 10101 10010 01101", "R": "11110 10001 10001 11110 10100 10010 10001",
    "S": "01111 10000 10000 01110 00001 00001 11110", "T": "11111 00100 00100 00100 00100 00100 00100",
    "U": "10001 10001 10001 10001 10001 10001 01110", "V": "10001 10001 10001 10001 10001 01010 00100",
    "W": "10001 10001 10001 10101 10101 10101 01010", "X": "10001 10001 01010 00100 01010 10001 10001",
    "Y": "10001 10001 01010 00100 00100 00100 00100", "Z": "11111 00001 00010 00100 01000 10000 11111",
    "0": "01110 10001 10011 10101 11001 10001 01110", "1": "00100 01100 00100 00100 00100 00100 01110",
    "2": "01110 10001 00001 00010 00100 01000 11111", "3": "11111 00010 00100 00010 00001 10001 01110",
    "4": "00010 00110 01010 10010 11111 00010 00010", "5": "11111 10000 11110 00001 00001 10001 01110",
    "6": "00110 01000 10000 11110 10001 10001 01110", "7": "11111 00001 00010 00100 01000 01000 01000",
    "8": "01110 10001 10001 01110 10001 10001 01110", "9": "01110 10001 10001 01111 00001 00010 01100",
    " ": "00000 00000 00000 00000 00000 00000 00000", ".": "00000 00000 00000 00000 00000 01100 01100",
    ",": "00000 00000 00000 00000 01100 00100 01000", ":": "00000 01100 01100 00000 01100 01100 00000",
    "-": "00000 00000 00000 11111 00000 00000 00000", "/": "00001 00010 00010 00100 01000 01000 10000",
    "(": "00010 00100 01000 01000 01000 00100 00010", ")": "01000 00100 00010 00010 00010 00100 01000",
    "=": "00000 00000 11111 00000 11111 00000 00000", "_": "00000 00000 00000 00000 00000 00000 11111",
    "+": "00000 00100 00100 11111 00100 00100 00000",
    "'": "00100 00100 01000 00000 00000 00000 00000", "?": "01110 10001 00001 00010 00100 00000 00100",
}


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            if depth != 8 or interlace or colour not in (0, 2, 4, 6):
                raise SystemExit(f"{path}: only 8-bit non-interlaced grey/RGB(A) PNGs are read")
            channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
        elif kind == b"IDAT":
            idat += chunk
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    # to RGB rows
    rgb = []
    for line in rows:
        if channels == 3:
            rgb.append(bytearray(line))
        else:
            out = bytearray(width * 3)
            for x in range(width):
                px = line[x * channels:(x + 1) * channels]
                out[x * 3:x * 3 + 3] = bytes(px[:3]) if channels >= 3 else bytes([px[0]] * 3)
            rgb.append(out)
    return width, height, rgb


def shrink(img, factor):
    w, h, rows = img
    if factor == 1:
        return img
    nw, nh = w // factor, h // factor
    out = []
    n = factor * factor
    for y in range(nh):
        line = bytearray(nw * 3)
        for x in range(nw):
            for ch in range(3):
                s = 0
                for dy in range(factor):
                    r = rows[y * factor + dy]
                    for dx in range(factor):
                        s += r[(x * factor + dx) * 3 + ch]
                line[x * 3 + ch] = (s + n // 2) // n
        out.append(line)
    return nw, nh, out


class Canvas:
    def __init__(self, w, h, bg=(255, 255, 255)):
        self.w, self.h = w, h
        self.rows = [bytearray(bytes(bg) * w) for _ in range(h)]

    def paste(self, img, x0, y0):
        w, h, rows = img
        for y in range(h):
            self.rows[y0 + y][x0 * 3:(x0 + w) * 3] = rows[y]

    def text(self, s, x0, y0, scale=2, colour=(0, 0, 0)):
        for ch in s.upper():
            glyph = FONT.get(ch, FONT["?"]).split()
            for gy, bits in enumerate(glyph):
                for gx, bit in enumerate(bits):
                    if bit != "1":
                        continue
                    for dy in range(scale):
                        for dx in range(scale):
                            x, y = x0 + gx * scale + dx, y0 + gy * scale + dy
                            if 0 <= x < self.w and 0 <= y < self.h:
                                self.rows[y][x * 3:x * 3 + 3] = bytes(colour)
            x0 += 6 * scale

    def write_png(self, path):
        raw = b"".join(b"\x02" + bytes(self._up(y)) for y in range(self.h))

        def chunk(kind, body):
            return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n")
            f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)))
            f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
            f.write(chunk(b"IEND", b""))

    def _up(self, y):  # PNG filter 2 (up): compresses flat image regions well
        cur, prev = self.rows[y], self.rows[y - 1] if y else bytearray(self.w * 3)
        return bytearray((a - b) & 255 for a, b in zip(cur, prev))


def main(argv):
    if len(argv) < 7:
        raise SystemExit(__doc__)
    out, title, left, left_label, right, right_label = argv[1:7]
    names = argv[7:] or ["preview.png", "lightmap.png"]
    pad, head, max_w = 12, 22, 512
    rows = []
    for name in names:
        imgs = [read_png(f"{d}/{name}") for d in (left, right)]
        factor = max(1, -(-max(imgs[0][0], imgs[1][0]) // max_w))  # one scale for both
        pair = [shrink(img, factor) for img in imgs]
        if factor > 1:
            name += f" (shrunk {factor}x)"
        rows.append((name, pair))
    col_w = max(max(p[0][0], p[1][0]) for _, p in rows)
    width = pad + 2 * (col_w + pad)
    height = pad + 2 * head + sum(head + max(p[0][1], p[1][1]) + pad for _, p in rows)
    canvas = Canvas(width, height)
    canvas.text(title, pad, pad)
    y = pad + head
    canvas.text(left_label, pad, y)
    canvas.text(right_label, pad + col_w + pad, y)
    y += head
    for name, (a, b) in rows:
        canvas.text(name, pad, y, scale=1, colour=(80, 80, 80))
        y += head // 2
        canvas.paste(a, pad, y)
        canvas.paste(b, pad + col_w + pad, y)
        y += max(a[1], b[1]) + pad + head // 2
    canvas.rows = canvas.rows[:y]
    canvas.h = y
    canvas.write_png(out)


if __name__ == "__main__":
    main(sys.argv)
