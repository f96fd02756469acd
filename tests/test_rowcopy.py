"""``put_row``: the SIMD row copy of the observation kernel equals a slice assignment, and
refuses what it cannot do safely (out-of-bounds rows, run-time counts, strided arrays)."""

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from borders_sim._compile.rowcopy import put_row

WIDTH = 14  # a module-level int: numba types it as a literal, as NUM_GOODS in the kernels


@njit
def _put(out, o, src):
    put_row(out, o, src, WIDTH)


@pytest.mark.parametrize("src_dtype", [np.int8, np.uint8, np.int32, np.int64])
@pytest.mark.parametrize("out_dtype", [np.float32, np.float64])
def test_converts_like_a_slice_assignment(src_dtype, out_dtype):
    info = np.iinfo(src_dtype)
    rng = np.random.default_rng(0)
    src = rng.integers(max(info.min, -1000), min(info.max, 1000), size=WIDTH + 3,
                       endpoint=True).astype(src_dtype)
    for offset in (0, 1, 5, 30 - WIDTH):
        out = np.full(30, -7, dtype=out_dtype)
        expected = out.copy()
        expected[offset:offset + WIDTH] = src[:WIDTH]
        _put(out, offset, src)
        assert np.array_equal(out, expected)


@pytest.mark.parametrize("dtypes", [(np.uint8, np.uint8), (np.uint8, np.int8),
                                    (np.int32, np.int32)])
def test_copies_same_width_integers_bit_for_bit(dtypes):
    src_dtype, out_dtype = dtypes
    src = (np.arange(WIDTH) * 37 % 251).astype(src_dtype)
    out = np.zeros(WIDTH + 4, dtype=out_dtype)
    _put(out, 2, src)
    assert np.array_equal(out[2:2 + WIDTH].view(src_dtype), src)
    assert not out[:2].any() and not out[2 + WIDTH:].any()


def test_copies_rows_of_records_and_2d_fields():
    dtype = np.dtype([("a", np.int32, (3, WIDTH)), ("b", np.int8, (WIDTH,))])
    rec = np.zeros(2, dtype=dtype)
    rec[1]["a"] = np.arange(3 * WIDTH).reshape(3, WIDTH)
    rec[1]["b"] = -np.arange(WIDTH)

    @njit
    def copy(recs, out):
        s = recs[1]
        put_row(out, 0, s.a[2], WIDTH)
        put_row(out, WIDTH, s.b, WIDTH)

    out = np.zeros(2 * WIDTH, np.float32)
    copy(rec, out)
    assert np.array_equal(out[:WIDTH], rec[1]["a"][2])
    assert np.array_equal(out[WIDTH:], rec[1]["b"])


@pytest.mark.parametrize("offset, out_size, src_size", [(-1, 30, WIDTH), (17, 30, WIDTH),
                                                        (0, WIDTH - 1, WIDTH),
                                                        (0, 30, WIDTH - 1)])
def test_out_of_bounds_rows_raise_and_write_nothing(offset, out_size, src_size):
    out = np.zeros(out_size, np.float32)
    with pytest.raises(IndexError, match="put_row"):
        _put(out, offset, np.ones(src_size, np.int32))
    assert not out.any()


def test_refuses_run_time_counts_strided_arrays_and_float_sources():
    @njit
    def dynamic(out, src, count):
        put_row(out, 0, src, count)

    @njit
    def strided(out, src):
        put_row(out, 0, src[::2], WIDTH)

    @njit
    def floats(out, src):
        put_row(out, 0, src, WIDTH)

    @njit
    def narrowing(out, src):
        put_row(out, 0, src, WIDTH)

    out = np.zeros(40, np.float32)
    with pytest.raises(TypingError, match="literal"):
        dynamic(out, np.ones(WIDTH, np.int32), WIDTH)
    with pytest.raises(TypingError, match="C-contiguous"):
        strided(out, np.ones(2 * WIDTH, np.int32))
    with pytest.raises(TypingError, match="integers"):
        floats(out, np.ones(WIDTH, np.float32))
    with pytest.raises(TypingError, match="cannot copy"):
        narrowing(np.zeros(40, np.int8), np.ones(WIDTH, np.int32))
