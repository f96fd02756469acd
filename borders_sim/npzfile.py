""".npz files read with bounds and written atomically: policy files
(:mod:`borders_sim.policies.network`) and demonstration shards (:mod:`borders_sim.agents.demos`).

:class:`NpzFile` reads an ``.npz`` archive without ``np.load``: only a regular file is opened (a
named pipe, a device or a directory is refused before it could block), every array's ``.npy``
header is read and checked before any array data is inflated (the caller checks it against the
layout the file must have), an array holds only the data really in the file (a header claiming
gigabytes costs nothing), pickled objects are never loaded, and every problem is one
:class:`BadFileError` (a ``ValueError``) naming the file. :func:`write_whole` writes any file
whole or not at all, :func:`write_npz` an ``.npz`` file so.
"""

from __future__ import annotations

import io
import json
import math
import os
import stat
import struct
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import numpy as np
from numpy.lib import format as npy_format

from .checks import ArgumentTypeError, shown

_MAX_HEADER = 10_000  # the longest .npy header read (numpy's own limit)
_HEADER_LENGTH = {(1, 0): "<H", (2, 0): "<I"}  # the .npy versions read: their length field
#: Deflate's largest compression ratio: an array of more bytes than this many times its
#: compressed size cannot be in the file.
_DEFLATE_RATIO = 1032
_CHUNK = 1 << 20  # bytes inflated at a time
_PATH_SHOWN = 160  # characters of a path shown in a message
_NOT_FILES = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
              (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
              (stat.S_ISSOCK, "a socket"))
#: What a damaged archive raises from zipfile, zlib, struct, the OS and numpy's header parser.
_DAMAGED = (OSError, EOFError, ValueError, RuntimeError, zipfile.BadZipFile, zlib.error,
            struct.error, OverflowError)


class BadFileError(ValueError):
    """A file refused by a reader of this module: one line naming the file and the problem."""


def shown_path(path: str | os.PathLike) -> str:
    """``path`` as a message shows it: quoted, on one line, a very long one cut in the middle
    (its end, the file's name, kept)."""
    text = repr(os.fspath(path))
    if len(text) > _PATH_SHOWN:
        text = text[:40] + "..." + text[-(_PATH_SHOWN - 43):]
    return text


def refusal(what: str, path: str | os.PathLike, problem: str) -> ValueError:
    """The error refusing the ``what`` (e.g. ``"policy file"``) at ``path``: one line naming the
    file and the ``problem``."""
    return BadFileError(f"cannot read the {what} {shown_path(path)}: {problem}")


def as_path(value: Any, name: str) -> Path:
    """``value`` as the path of a file: a non-empty ``str`` or ``os.PathLike`` of one (an empty
    path would name the current directory)."""
    try:
        text = os.fspath(value)
    except TypeError:
        text = None
    what = (f"{name} must be a path (a non-empty str or os.PathLike), got {shown(value)} "
            f"({type(value).__name__})")
    if not isinstance(text, str):
        raise ArgumentTypeError(what)
    if not text:
        raise ValueError(what)
    return Path(text)


def _why(err: BaseException) -> str:
    """An error's text on one short line (an OSError's ``strerror``)."""
    text = " ".join(str(getattr(err, "strerror", None) or err or type(err).__name__).split())
    return text if len(text) <= 200 else text[:197] + "..."


class NpyHeader(NamedTuple):
    """The ``.npy`` header of an array of an :class:`NpzFile`."""

    shape: tuple[int, ...]
    fortran: bool
    dtype: np.dtype
    offset: int  # bytes of the member before the array's data

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


class NpzFile:
    """An ``.npz`` file open for reading with bounds (module docstring), as a context manager.

    ``names`` are its arrays, ``members`` all its zip members; :meth:`header` reads and checks
    an array's header, :meth:`array` its data, :meth:`text` and :meth:`json` a 0-d string
    array; :meth:`refuse` is the ``ValueError`` naming the file and a problem. Every error is
    such a ``ValueError``.

    Args:
        path: the file; only a regular file is opened.
        what: what the file is, for the messages (``"policy file"``).
    """

    def __init__(self, path: str | os.PathLike, what: str) -> None:
        self.path, self.what = Path(path), what
        self._headers: dict[str, NpyHeader] = {}
        self._file = self._open_regular()
        try:
            with self._reading("it cannot be read"):
                magic = self._file.read(6)
                self._file.seek(0)
            if magic == b"\x93NUMPY":
                raise self.refuse("it is a single .npy array, not an .npz archive of arrays")
            with self._reading("it is not an .npz archive"):
                self._zip = zipfile.ZipFile(self._file)
        except BaseException:
            self._file.close()
            raise
        self.members = self._zip.namelist()
        self.names = frozenset(m[:-4] for m in self.members if m.endswith(".npy"))

    def __enter__(self) -> NpzFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._zip.close()
        self._file.close()

    def refuse(self, problem: str) -> ValueError:
        """The error refusing this file for ``problem`` (:func:`refusal`)."""
        return refusal(self.what, self.path, problem)

    def header(self, name: str) -> NpyHeader:
        """The header of array ``name``, checked: no Python objects, no negative sizes, as many
        bytes as the archive says and no more than its compressed data can hold."""
        if name not in self._headers:
            self._headers[name] = self._read_header(name)
        return self._headers[name]

    def array(self, name: str) -> np.ndarray:
        """Array ``name`` of the dtype and shape of its header, built from the data really in
        the file (a header claiming more is refused once that data runs out)."""
        header = self.header(name)
        with self._reading(f"array {name!r} is damaged"), self._zip.open(name + ".npy") as f:
            f.read(header.offset)
            data = bytearray()
            while len(data) < header.nbytes:
                chunk = f.read(min(_CHUNK, header.nbytes - len(data)))
                if not chunk:
                    raise self.refuse(f"array {name!r} is truncated: {len(data):,} of "
                                      f"{header.nbytes:,} bytes")
                data += chunk
            if f.read(1):  # (reading to the end checks the member's CRC too)
                raise self.refuse(f"array {name!r} holds more data than its header says")
            flat = np.frombuffer(data, dtype=header.dtype)
        if header.fortran:
            return flat.reshape(header.shape[::-1]).T
        return flat.reshape(header.shape)

    def text(self, name: str, max_chars: int) -> str:
        """The string of array ``name``, a 0-d unicode array of at most ``max_chars``."""
        header = self.header(name)
        if header.shape != () or header.dtype.kind != "U" or \
                header.dtype.itemsize > 4 * max_chars:
            raise self.refuse(f"array {name!r} is {header.dtype} of shape {header.shape}, not "
                              f"a text of at most {max_chars:,} characters")
        with self._reading(f"array {name!r} is not a text"):
            return str(self.array(name)[()])

    def json(self, name: str, max_chars: int) -> dict[str, Any]:
        """The JSON object of array ``name`` (:meth:`text`)."""
        text = self.text(name, max_chars)
        try:
            value = json.loads(text)
        except (ValueError, RecursionError) as err:
            raise self.refuse(f"its {name} is not JSON ({_why(err)})") from None
        if not isinstance(value, dict):
            raise self.refuse(f"its {name} is not a JSON object")
        return value

    def _open_regular(self) -> BinaryIO:
        """The file opened for reading if it is a regular one: checked before opening (opening
        a named pipe would block) and on the open file (it may have been replaced between)."""
        with self._reading("it cannot be opened"):
            self._check_regular(os.stat(self.path).st_mode)
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        file = os.fdopen(fd, "rb")
        try:
            self._check_regular(os.fstat(fd).st_mode)
        except BaseException:
            file.close()
            raise
        return file

    def _check_regular(self, mode: int) -> None:
        for test, kind in _NOT_FILES:
            if test(mode):
                raise self.refuse(f"it is {kind}, not a file")
        if not stat.S_ISREG(mode):
            raise self.refuse("it is not a regular file")

    def _read_header(self, name: str) -> NpyHeader:
        if name not in self.names:
            raise self.refuse(f"it has no array {name!r}")
        info = self._zip.getinfo(name + ".npy")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise self.refuse(f"array {name!r} is compressed by zip method "
                              f"{info.compress_type}, not deflate")
        with self._reading(f"the header of array {name!r} is damaged"), \
                self._zip.open(info) as f:
            version = npy_format.read_magic(f)
            if version not in _HEADER_LENGTH:
                raise self.refuse(f"array {name!r} has an .npy header of version {version}")
            size = f.read(struct.calcsize(_HEADER_LENGTH[version]))
            length = struct.unpack(_HEADER_LENGTH[version], size)[0]
            if length > _MAX_HEADER:
                raise self.refuse(f"array {name!r} has a header of {length:,} bytes")
            read = (npy_format.read_array_header_1_0 if version == (1, 0)
                    else npy_format.read_array_header_2_0)
            text = io.BytesIO(size + f.read(length))
        try:
            with warnings.catch_warnings():  # (ast warns of odd escapes in a damaged header)
                warnings.simplefilter("ignore")
                shape, fortran, dtype = read(text)
        except Exception as err:  # noqa: BLE001 - numpy parses the header's text with ast and
            # tokenize, and damaged text makes them raise nearly anything
            raise self.refuse(f"the header of array {name!r} is damaged ({_why(err)})") from None
        header = NpyHeader(shape, fortran, dtype, npy_format.MAGIC_LEN + len(size) + length)
        if dtype.hasobject:
            raise self.refuse(f"array {name!r} holds Python objects (a pickle), which are "
                              "never loaded")
        if dtype.itemsize == 0 or min(shape, default=0) < 0:
            raise self.refuse(f"array {name!r} has the impossible dtype {dtype} or shape "
                              f"{shape}")
        self._check_size(name, header, info)
        return header

    def _check_size(self, name: str, header: NpyHeader, info: zipfile.ZipInfo) -> None:
        """The data a header claims is what the archive says the member holds, and no more
        than its compressed bytes can inflate to."""
        if header.offset + header.nbytes != info.file_size:
            raise self.refuse(f"array {name!r} claims {header.nbytes:,} bytes of data, the "
                              f"archive {info.file_size - header.offset:,}")
        ratio = _DEFLATE_RATIO if info.compress_type == zipfile.ZIP_DEFLATED else 1
        if info.file_size > ratio * info.compress_size:
            raise self.refuse(f"array {name!r} claims {info.file_size:,} bytes from "
                              f"{info.compress_size:,} compressed bytes, more than they hold")

    @contextmanager
    def _reading(self, problem: str) -> Iterator[None]:
        """Turn the errors of reading a damaged file into :meth:`refuse` for ``problem`` (and
        the error's own words)."""
        try:
            yield
        except BadFileError:
            raise
        except _DAMAGED as err:
            raise self.refuse(f"{problem} ({_why(err)})") from None


def write_whole(path: str | os.PathLike, write: Callable[[BinaryIO], object],
                sync: bool = True) -> Path:
    """Write ``path`` by ``write(file)`` into ``PATH.part``, flushed (and with ``sync`` forced
    to disk), then renamed over ``path``: a reader finds the old file or the whole new one,
    never a part, and a failed write (an exception, Ctrl-C) removes the part and leaves
    ``path`` as it was. Every file the package writes for later reading goes through here.
    Returns the path."""
    path = Path(path)
    part = path.with_name(path.name + ".part")
    try:
        with open(part, "wb") as f:
            write(f)
            f.flush()
            if sync:
                os.fsync(f.fileno())
        os.replace(part, path)
    except BaseException:
        with suppress(OSError):
            part.unlink(missing_ok=True)
        raise
    return path


def write_npz(path: str | os.PathLike, **arrays: np.ndarray) -> Path:
    """Write ``arrays`` as a compressed ``.npz`` file at ``path``, whole or not at all
    (:func:`write_whole`; ``np.savez`` would add ".npz" to a name without it); returns the
    path."""
    return write_whole(path, lambda f: np.savez_compressed(f, **arrays))
