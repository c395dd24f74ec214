"""The stream of bitgraphblas::generate::SplitMix64 in NumPy, and the random
integer weights that bitgraphblas::generate::integer_weights draws from it,
for the scripts that must draw the same numbers as the library."""
import numpy as np


def splitmix64(count, seed=0):
    """The first `count` outputs of SplitMix64(seed), as uint64."""
    i = np.arange(1, count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + i * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def integer_weights(count, max_weight=100, seed=0):
    """integer_weights' values for a pattern of `count` entries in CSR order:
    1..=max_weight, as float64."""
    return (splitmix64(count, seed) % np.uint64(max_weight) + np.uint64(1)).astype(np.float64)
