"""A saved agent's archive directory is checked before any array is decompressed.

Measured with tracemalloc (numpy reports its buffers to it): refusing a file that carries a 64 MB array
must not allocate anything near 64 MB.
"""

import io
import tracemalloc
import zipfile

import numpy as np
import pytest

from newmarket_env import make_rules
from newmarket_env.agents.saved import read_saved, save_policy
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.layout import FLAT_SIZE

BIG = 16 * 2**20  # float32 numbers: 64 MB uncompressed, a few kB compressed (zeros)


@pytest.fixture
def arrays(tmp_path):
    path = tmp_path / "agent.npz"
    layers = [(np.ones((8, FLAT_SIZE)), np.zeros(8)), (np.ones((NUM_ACTIONS, 8)), np.zeros(NUM_ACTIONS))]
    save_policy(path, layers, make_rules("newmarket"), "newmarket", "relu")
    with np.load(path) as data:
        return {key: data[key] for key in data.files}


def _peak_bytes_while_refused(path, words):
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=words):
            read_saved(path)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_an_extra_array_is_refused_from_the_directory(tmp_path, arrays):
    path = tmp_path / "extra.npz"
    np.savez_compressed(path, **arrays, payload=np.zeros(BIG, dtype=np.float32))
    peak = _peak_bytes_while_refused(path, r"holds entries \['payload.npy'\] besides the layers")
    assert peak < 8 * 2**20


def test_a_layer_larger_than_its_stated_shape_is_refused_from_the_directory(tmp_path, arrays):
    path = tmp_path / "oversized.npz"
    arrays["layer0.weight"] = np.zeros(BIG, dtype=np.float32)
    np.savez_compressed(path, **arrays)
    peak = _peak_bytes_while_refused(path, r"entry 'layer0.weight.npy' is \d+ bytes, more than 'layers'")
    assert peak < 8 * 2**20


def test_a_valid_file_still_loads(tmp_path, arrays):
    path = tmp_path / "fine.npz"
    np.savez_compressed(path, **arrays)
    metadata, layers = read_saved(path)
    assert metadata["layers"] == [FLAT_SIZE, 8, NUM_ACTIONS] and layers[0][0].shape == (8, FLAT_SIZE)


def _metadata_of_size(arrays, size: int) -> np.ndarray:
    """The metadata JSON padded with spaces (the same JSON) so that its ``.npy`` entry is ``size`` bytes."""
    text = arrays["metadata"].astype(np.uint8).tobytes()
    header = io.BytesIO()
    np.save(header, np.zeros(size, dtype=np.uint8))  # the header's length (padded to 64) does not vary at this size
    header_bytes = len(header.getvalue()) - size
    return np.frombuffer(text + b" " * (size - header_bytes - len(text)), dtype=np.uint8)


def test_metadata_of_exactly_the_limit_loads_and_one_byte_more_is_refused(tmp_path, arrays):
    limit = 1 << 20  # MAX_METADATA_BYTES: 1 MiB, as its comment and the error message say
    at_limit, over = dict(arrays), dict(arrays)
    at_limit["metadata"] = _metadata_of_size(arrays, limit)
    over["metadata"] = _metadata_of_size(arrays, limit + 1)
    np.savez_compressed(tmp_path / "at.npz", **at_limit)
    np.savez_compressed(tmp_path / "over.npz", **over)
    with zipfile.ZipFile(tmp_path / "at.npz") as archive:
        assert archive.getinfo("metadata.npy").file_size == limit
    metadata, _ = read_saved(tmp_path / "at.npz")
    assert metadata["layers"] == [FLAT_SIZE, 8, NUM_ACTIONS]
    with pytest.raises(ValueError, match=r"it has no 'metadata' entry of at most 1048576 bytes"):
        read_saved(tmp_path / "over.npz")
