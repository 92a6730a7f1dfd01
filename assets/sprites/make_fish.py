"""Draws assets/sprites/fish.png: a 48 x 24 white fish (head at +X) with a
darker eye, antialiased by 4 x 4 supersampling. White so that a sprite's
colour tints it. Standard library only: python3 make_fish.py"""
import struct
import zlib

W, H = 48, 24


def coverage(x, y):
    """Share of the pixel (x, y) inside the body ellipse or the tail."""
    inside = 0
    for sy in range(4):
        for sx in range(4):
            px, py = x + (sx + 0.5) / 4, y + (sy + 0.5) / 4
            dx, dy = (px - 29) / 17, (py - 12) / 7.5
            body = dx * dx + dy * dy <= 1
            t = (15 - px) / 13  # tail: apex at x = 15, fins out to x = 2
            tail = 0 <= t <= 1 and abs(py - 12) <= 1.5 + t * 8 and px >= 2
            inside += body or tail
    return inside / 16


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


rows = []
for y in range(H):
    row = b"\x00"  # PNG filter: none
    for x in range(W):
        eye = (x + 0.5 - 40) ** 2 + (y + 0.5 - 9.5) ** 2 <= 2.2
        value = 70 if eye else 255
        row += bytes([value, value, value, int(round(coverage(x, y) * 255))])
    rows.append(row)
png = (
    b"\x89PNG\r\n\x1a\n"
    + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 6, 0, 0, 0))
    + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
    + chunk(b"IEND", b"")
)
with open("fish.png", "wb") as f:
    f.write(png)
