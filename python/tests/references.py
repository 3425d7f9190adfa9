"""References the GPU tests and the fuzz run (fuzz.py) share: NumPy, float64 or exact."""
import numpy as np


def gamma(k, u):
    """γ(k) = k·u / (1 − k·u): the factor of an error bound of k roundings of unit u."""
    return k * u / (1 - k * u)


def conv_reference(img, weights, divisor, border):
    """The SPEC's arithmetic in NumPy: correlation, s/divisor rounded half away from zero, clamped."""
    h, w, _ = img.shape
    padded = img.astype(np.int64)
    for axis, side in ((0, h), (1, w)):  # a side of one pixel has nothing to mirror: it replicates
        mode = {"replicate": "edge", "zero": "constant", "mirror": "reflect" if side > 1 else "edge"}[border]
        widths = [(0, 0)] * 3
        widths[axis] = (1, 1)
        padded = np.pad(padded, widths, mode=mode)
    s = np.zeros((h, w, 3), np.int64)
    for dy in range(3):
        for dx in range(3):
            s += weights[3 * dy + dx] * padded[dy:dy + h, dx:dx + w]
    q = np.abs(s) * 2 + abs(divisor)
    q //= 2 * abs(divisor)
    q = np.sign(s) * np.sign(divisor) * q
    return np.clip(q, 0, 255).astype(np.uint8)
