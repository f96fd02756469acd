"""``put_row``: copy a short row of counts into a slice of another array as one SIMD operation.

The observation kernel copies about a hundred short rows (8 to 22 counts of int8, int32 or
int64 state) into a float32 vector per call, and the vector env copies a 513-byte mask per step.
Written as a loop, none of these vectorize: numba tells LLVM nothing about whether the two arrays
overlap, so every element is a scalar load, convert (``vcvtsi2ss``) and store, and those scalar
converts were about half of an observation's cost. ``put_row`` emits the whole row as one vector
load, one conversion and one store, which is exact for these values (counts far below 2**24).

Only for rows whose length is a compile-time constant (a module-level int such as ``NUM_GOODS``)
and whose source is C-contiguous (a record field or a row of one); the destination offset is
checked against both arrays at run time (an ``IndexError``, also without ``NUMBA_BOUNDSCHECK``).
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic


@intrinsic
def put_row(typingctx, out, o, src, count):
    """``out[o:o + count] = src[:count]`` (numba only). ``count`` must be a literal int; ``src``
    a C-contiguous 1-d integer array; ``out`` a C-contiguous 1-d array of floats (the values are
    converted) or of integers as wide as ``src``'s (the bits are copied)."""
    if not isinstance(count, types.IntegerLiteral) or count.literal_value <= 0:
        raise TypingError(f"put_row: count must be a positive literal int, got {count}")
    for name, arr in (("out", out), ("src", src)):
        if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"):
            raise TypingError(f"put_row: {name} must be a C-contiguous 1-d array, got {arr}")
    if not isinstance(src.dtype, types.Integer):
        raise TypingError(f"put_row: src must hold integers, got {src.dtype}")
    if not (isinstance(out.dtype, types.Float) or (isinstance(out.dtype, types.Integer)
                                                   and out.dtype.bitwidth == src.dtype.bitwidth)):
        raise TypingError(f"put_row: cannot copy {src.dtype} into {out.dtype}")
    if not out.mutable:
        raise TypingError("put_row: out is read-only")
    width = count.literal_value
    sig = types.void(out, types.intp, src, count)

    def codegen(context, builder, signature, args):
        out_ty, _, src_ty, _ = signature.args
        out_arr = context.make_array(out_ty)(context, builder, args[0])
        src_arr = context.make_array(src_ty)(context, builder, args[2])
        offset = args[1]
        intp = context.get_value_type(types.intp)
        zero, n = ir.Constant(intp, 0), ir.Constant(intp, width)
        out_len = builder.extract_value(out_arr.shape, 0)
        src_len = builder.extract_value(src_arr.shape, 0)
        bad = builder.or_(builder.icmp_signed("<", offset, zero),
                          builder.or_(builder.icmp_signed(">", builder.add(offset, n), out_len),
                                      builder.icmp_signed("<", src_len, n)))
        with cgutils.if_unlikely(builder, bad):
            context.call_conv.return_user_exc(builder, IndexError,
                                              ("put_row: row out of bounds",))
        in_vec = ir.VectorType(context.get_data_type(src_ty.dtype), width)
        out_vec = ir.VectorType(context.get_data_type(out_ty.dtype), width)
        value = builder.load(builder.bitcast(src_arr.data, in_vec.as_pointer()), align=1)
        if isinstance(out_ty.dtype, types.Float):
            convert = builder.sitofp if src_ty.dtype.signed else builder.uitofp
            value = convert(value, out_vec)
        target = builder.gep(out_arr.data, [offset])
        builder.store(value, builder.bitcast(target, out_vec.as_pointer()), align=1)
        return context.get_dummy_value()

    return sig, codegen
