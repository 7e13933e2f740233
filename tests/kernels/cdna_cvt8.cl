// The FP8/BF8 and gfx950 scaled conversions and transposing LDS reads through their clang
// builtins (emu/tests/cdna/cvt_clang.rs): the builtins' byte/word arguments are what clang says
// they are, independent of the interpreter's decoding of the op_sel/SDWA fields clang emits.

typedef float v2f __attribute__((ext_vector_type(2)));
typedef short v2s __attribute__((ext_vector_type(2)));
typedef int v2i __attribute__((ext_vector_type(2)));
typedef int v3i __attribute__((ext_vector_type(3)));
typedef short v4s __attribute__((ext_vector_type(4)));

// Lane i packs x[4i..4i+4] into FP8 (both words of out[2i]) and BF8 (the high word of
// out[2i+1], the low word kept).
kernel void fp8_pack(global const float *x, global uint *out) {
    uint i = get_global_id(0);
    int r = __builtin_amdgcn_cvt_pk_fp8_f32(x[4 * i], x[4 * i + 1], 0x5a5a5a5a, false);
    r = __builtin_amdgcn_cvt_pk_fp8_f32(x[4 * i + 2], x[4 * i + 3], r, true);
    out[2 * i] = r;
    out[2 * i + 1] = __builtin_amdgcn_cvt_pk_bf8_f32(x[4 * i], x[4 * i + 1], 0x5a5a5a5a, true);
}

// Lane i unpacks w = x[i]: the four FP8 bytes, BF8 word 1, FP8 word 0.
kernel void fp8_unpack(global const uint *x, global float *out) {
    uint i = get_global_id(0);
    int w = x[i];
    out[8 * i] = __builtin_amdgcn_cvt_f32_fp8(w, 0);
    out[8 * i + 1] = __builtin_amdgcn_cvt_f32_fp8(w, 1);
    out[8 * i + 2] = __builtin_amdgcn_cvt_f32_fp8(w, 2);
    out[8 * i + 3] = __builtin_amdgcn_cvt_f32_fp8(w, 3);
    v2f p = __builtin_amdgcn_cvt_pk_f32_bf8(w, true);
    v2f q = __builtin_amdgcn_cvt_pk_f32_fp8(w, false);
    out[8 * i + 4] = p.x;
    out[8 * i + 5] = p.y;
    out[8 * i + 6] = q.x;
    out[8 * i + 7] = q.y;
}

// Lane i: x[i] with random dword r[i] into byte 2 (the rest 0x5a).
kernel void fp8_sr(global const float *x, global const uint *r, global uint *out) {
    uint i = get_global_id(0);
    out[i] = __builtin_amdgcn_cvt_sr_fp8_f32(x[i], r[i], 0x5a5a5a5a, 2);
}

#ifdef __gfx950__
// Lane i: x[4i..4i+4] divided by s[i] into FP8 word 1 and FP4 byte 2.
kernel void scale_pack(global const float *x, global const float *s, global uint *out) {
    uint i = get_global_id(0);
    v2s old = {0x1234, 0x5678};
    v2s r = __builtin_amdgcn_cvt_scalef32_pk_fp8_f32(old, x[4 * i], x[4 * i + 1], s[i], true);
    out[2 * i] = as_uint(r);
    out[2 * i + 1] = __builtin_amdgcn_cvt_scalef32_pk_fp4_f32(0x5a5a5a5a, x[4 * i + 2], x[4 * i + 3], s[i], 2);
}

// Lane i: byte 3 of x[i] as FP8 times s[i]; byte 1 as two FP4.
kernel void scale_unpack(global const uint *x, global const float *s, global float *out) {
    uint i = get_global_id(0);
    out[3 * i] = __builtin_amdgcn_cvt_scalef32_f32_fp8(x[i], s[i], 3);
    v2f p = __builtin_amdgcn_cvt_scalef32_pk_f32_fp4(x[i], s[i], 1);
    out[3 * i + 1] = p.x;
    out[3 * i + 2] = p.y;
}

// One wave: the 64 × 8 bytes of x into LDS; lane i reads 8 bytes at 8i transposed.
kernel void tr8(global const v2i *x, global v2i *out) {
    local v2i tile[64];
    uint i = get_local_id(0);
    tile[i] = x[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = __builtin_amdgcn_ds_read_tr8_b64_v2i32(&tile[i]);
}

kernel void tr16(global const v2i *x, global v4s *out) {
    local v2i tile[64];
    uint i = get_local_id(0);
    tile[i] = x[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = __builtin_amdgcn_ds_read_tr16_b64_v4i16((local v4s *)&tile[i]);
}
#endif
