// Kernels for the RDNA wave-interpreter tests (emu/tests/rdna.rs) and the PTX interpreter's
// (tests/nv_corpus.rs): integer and float math at every width, LDS with barriers, atomics,
// divergent loops, private arrays, 2-D grids. Built by tests/fixtures/rdna/build.sh and
// tests/fixtures/ptx/build-corpus.sh; no library: clang builtins only, the work-item functions
// from the target's header.

#if defined(__NVPTX__)
#include "nvptx.h"
#elif defined(__AMDGCN__)
#include "amdgcn.h"
#endif

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

kernel void matmul(global const float *a, global const float *b, global float *c, int n) {
    int col = get_global_id(0), row = get_global_id(1);
    if (row >= n || col >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}

#define TILE 8
kernel void matmul_tiled(global const float *a, global const float *b, global float *c, int n) {
    local float ta[TILE][TILE], tb[TILE][TILE];
    int lx = get_local_id(0), ly = get_local_id(1);
    int col = get_group_id(0) * TILE + lx, row = get_group_id(1) * TILE + ly;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        ta[ly][lx] = a[row * n + t + lx];
        tb[ly][lx] = b[(t + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++) acc += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}

kernel void int_ops(global int *out, global const int *a, global const int *b) {
    int i = get_global_id(0);
    int x = a[i], y = b[i];
    global int *o = out + i * 16;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = y != 0 ? x / y : 0;
    o[4] = y != 0 ? x % y : 0;
    o[5] = (uint)y != 0 ? (int)((uint)x / (uint)y) : 0;
    o[6] = (uint)y != 0 ? (int)((uint)x % (uint)y) : 0;
    o[7] = x << (y & 31);
    o[8] = x >> (y & 31);
    o[9] = (int)((uint)x >> (y & 31));
    o[10] = (x < y ? x : y) ^ (x > y ? x : y);
    o[11] = __builtin_popcount(x) + (y ? __builtin_clz(y) : 32) * 64;
    o[12] = (int)(((long)x * (long)y) >> 32);
    o[13] = (int)(((ulong)(uint)x * (ulong)(uint)y) >> 32);
    o[14] = (x < 0 ? -x : x) & ~y;
    o[15] = (int)(((uint)x << (y & 31)) | ((uint)x >> ((32 - (y & 31)) & 31)));
}

kernel void long_ops(global long *out, global const long *a, global const long *b) {
    int i = get_global_id(0);
    long x = a[i], y = b[i];
    global long *o = out + i * 10;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = y != 0 ? x / y : 0;
    o[4] = y != 0 ? x % y : 0;
    o[5] = (ulong)y != 0 ? (long)((ulong)x / (ulong)y) : 0;
    o[6] = x << (y & 63);
    o[7] = x >> (y & 63);
    o[8] = (long)((ulong)x >> (y & 63));
    o[9] = (x < y ? x : y) ^ __builtin_popcountl(x) ^ (y ? __builtin_clzl(y) : 64);
}

kernel void float_ops(global float *out, global const float *a, global const float *b) {
    int i = get_global_id(0);
    float x = a[i], y = b[i];
    global float *o = out + i * 12;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;
    o[4] = __builtin_fmaf(x, y, 1.5f);
    o[5] = __builtin_fminf(x, y);
    o[6] = __builtin_fmaxf(x, y);
    o[7] = __builtin_sqrtf(__builtin_fabsf(x));
    o[8] = __builtin_floorf(x) + __builtin_ceilf(y);
    o[9] = (float)(int)x + (float)(uint)__builtin_fabsf(y);
    o[10] = x < y ? x : -y;
    o[11] = __builtin_truncf(x) * __builtin_rintf(y);
}

kernel void double_ops(global double *out, global const double *a, global const double *b) {
    int i = get_global_id(0);
    double x = a[i], y = b[i];
    global double *o = out + i * 10;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;
    o[4] = __builtin_fma(x, y, 0.25);
    o[5] = __builtin_fmin(x, y);
    o[6] = __builtin_sqrt(__builtin_fabs(x));
    o[7] = (double)(long)x + (double)(int)y;
    o[8] = x < y ? (double)(float)x : __builtin_floor(y);
    o[9] = (double)((float)x * (float)y);
}

kernel void half_ops(global half *out, global const half *a, global const half *b) {
    int i = get_global_id(0);
    half x = a[i], y = b[i];
    global half *o = out + i * 6;
    o[0] = x + y;
    o[1] = x * y;
    o[2] = x - y;
    o[3] = __builtin_fmaf16(x, y, (half)0.5);
    o[4] = x < y ? x : y;
    o[5] = (half)((float)x / (float)y);
}

kernel void reduce_atomic(global const int *in, global int *sum, global uint *maxv) {
    local int partial[64];
    int l = get_local_id(0), g = get_global_id(0);
    partial[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s) partial[l] += partial[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) __atomic_fetch_add(sum, partial[0], __ATOMIC_RELAXED);
    __atomic_fetch_max(maxv, (uint)in[g], __ATOMIC_RELAXED);
}

kernel void collatz(global const uint *in, global uint *steps) {
    int i = get_global_id(0);
    uint x = in[i], n = 0;
    while (x > 1) {
        x = (x & 1) ? 3 * x + 1 : x / 2;
        n++;
    }
    steps[i] = n;
}

kernel void private_array(global const int *in, global int *out, int k) {
    int i = get_global_id(0);
    int buf[32];
    for (int j = 0; j < 32; j++) buf[j] = in[i] * j + k;
    int idx = (in[i] + k) & 31;
    out[i] = buf[idx] + buf[(idx * 7) & 31];
}

kernel void histogram(global const uint *in, global uint *bins, int nbins) {
    local uint lb[16];
    int l = get_local_id(0);
    if (l < 16) lb[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __atomic_fetch_add(&lb[in[get_global_id(0)] % 16], 1u, __ATOMIC_RELAXED);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < nbins) __atomic_fetch_add(&bins[l], lb[l], __ATOMIC_RELAXED);
}

kernel void transpose2d(global const float *in, global float *out, int w, int h) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x < w && y < h) out[x * h + y] = in[y * w + x];
}

kernel void bytes_shorts(global const uchar *a, global const short *b, global int *out, global uchar *ob, global short *os) {
    int i = get_global_id(0);
    out[i] = a[i] * (int)b[i] + (char)a[i];
    ob[i] = a[i] + 3;
    os[i] = b[i] * 3 - (short)a[i];
}

kernel void oob_store(global int *p, int index) {
    p[index] = 42;
}

kernel void half2_ops(global half2 *out, global const half2 *a, global const half2 *b) {
    int i = get_global_id(0);
    half2 x = a[i], y = b[i];
    out[3 * i] = x + y;
    out[3 * i + 1] = x * y;
    out[3 * i + 2] = x * y + x;
}

kernel void atomics(global int *counters, global float *fsum, global uint *cas, global const int *in) {
    int i = get_global_id(0);
    int v = in[i];
    __atomic_fetch_sub(&counters[0], v, __ATOMIC_RELAXED);
    __atomic_fetch_min(&counters[1], v, __ATOMIC_RELAXED);
    __atomic_fetch_or(&counters[2], 1 << (v & 31), __ATOMIC_RELAXED);
    __atomic_fetch_xor(&counters[3], v, __ATOMIC_RELAXED);
    int old = __atomic_exchange_n(&counters[4], v, __ATOMIC_RELAXED);
    (void)old;
    __atomic_fetch_add(fsum, (float)(v & 15), __ATOMIC_RELAXED);
    uint expected = __atomic_load_n(cas, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(cas, &expected, expected + 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

kernel void scan_lds(global const int *in, global int *out) {
    local int buf[128];
    int l = get_local_id(0), g = get_global_id(0);
    buf[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = 1; off < 128; off <<= 1) {
        int t = l >= off ? buf[l - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        buf[l] += t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[g] = buf[l];
}

#if defined(__AMDGCN__)
// Cross-lane operations: DPP row shift and quad permute, ds_bpermute, readfirstlane.
kernel void cross_lane(global const int *in, global int *out) {
    int i = get_global_id(0);
    int v = in[i];
    global int *o = out + 4 * i;
    o[0] = __builtin_amdgcn_update_dpp(-1, v, 0x111, 0xf, 0xf, false);  // row_shr:1, old -1
    o[1] = __builtin_amdgcn_mov_dpp(v, 0x1b, 0xf, 0xf, true);           // quad_perm:[3,2,1,0]
    o[2] = __builtin_amdgcn_ds_bpermute(((int)get_local_id(0) ^ 1) * 4, v);
    o[3] = __builtin_amdgcn_readfirstlane(v);
}
#elif defined(__NVPTX__)
// The same lane movements with warp shuffles (32-lane warps): shfl.up within 16-lane segments
// (c = (32 - 16) << 8) for the row shift, which leaves a segment's first lane its own value
// where DPP writes `old`; shfl.bfly for the quad reversal and the neighbour swap; shfl.idx for
// lane 0.
kernel void cross_lane(global const int *in, global int *out) {
    int i = get_global_id(0);
    int v = in[i];
    global int *o = out + 4 * i;
    int up = __nvvm_shfl_sync_up_i32(0xffffffff, v, 1, 16 << 8);
    o[0] = (bg_lane_id() & 15) == 0 ? -1 : up;
    o[1] = __nvvm_shfl_sync_bfly_i32(0xffffffff, v, 3, 0x1f);
    o[2] = __nvvm_shfl_sync_bfly_i32(0xffffffff, v, 1, 0x1f);
    o[3] = __nvvm_shfl_sync_idx_i32(0xffffffff, v, 0, 0x1f);
}
#endif
