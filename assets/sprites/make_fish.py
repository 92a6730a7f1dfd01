"""Draws assets/sprites/fish.png: a strip of FRAMES pictures of a 48 x 24
white fish (head at +X) with a darker eye, its tail beating through one
stroke from frame to frame: the rear of the body bends as a wave running
towards the tail, widest at the tail's tip. Antialiased by 4 x 4
supersampling. White so that a sprite's colour tints it; the aquarium picks
a frame by each fish's own tail phase. Standard library only:
python3 make_fish.py"""
import math
import struct
import zlib

W, H, FRAMES = 48, 24, 8
# Where the body bends from (the middle of the body) and how far the tail's
# tip swings to each side, in pixels.
BEND_FROM, SWING = 29.0, 4.0


def straight(px, py):
    """Whether the point lies in the unbent fish: body ellipse or tail."""
    dx, dy = (px - 29) / 17, (py - 12) / 7.5
    if dx * dx + dy * dy <= 1:
        return True
    t = (15 - px) / 13  # tail: apex at x = 15, fins out to x = 2
    return 0 <= t <= 1 and abs(py - 12) <= 1.5 + t * 6.5 and px >= 2


def sideways(px, phase):
    """How far the spine at x is pushed sideways in this frame."""
    behind = max(0.0, (BEND_FROM - px) / (BEND_FROM - 2))
    # A wave travelling tailwards: the tip lags the middle of the body.
    return SWING * behind * behind * math.sin(phase - 1.2 * behind)


def coverage(x, y, phase):
    inside = 0
    for sy in range(4):
        for sx in range(4):
            px, py = x + (sx + 0.5) / 4, y + (sy + 0.5) / 4
            inside += straight(px, py - sideways(px, phase))
    return inside / 16


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


rows = []
for y in range(H):
    row = b"\x00"  # PNG filter: none
    for frame in range(FRAMES):
        phase = 2 * math.pi * frame / FRAMES
        for x in range(W):
            eye = (x + 0.5 - 40) ** 2 + (y + 0.5 - 9.5) ** 2 <= 2.2
            value = 70 if eye else 255
            row += bytes([value, value, value, int(round(coverage(x, y, phase) * 255))])
    rows.append(row)
png = (
    b"\x89PNG\r\n\x1a\n"
    + chunk(b"IHDR", struct.pack(">IIBBBBB", W * FRAMES, H, 8, 6, 0, 0, 0))
    + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
    + chunk(b"IEND", b"")
)
with open("fish.png", "wb") as f:
    f.write(png)
