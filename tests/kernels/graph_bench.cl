// `bench compile`'s clang side: the fixed set of graphs (src/bench_compile.rs) written in OpenCL C
// with the same decomposition as the graph compiler's schedule, kernel for kernel (one lane per
// element; a workgroup of 64 lanes per reduced element, a strided loop, then a tree through LDS; a
// matmul tiled through LDS), so the executed wave instructions compare the code generators. The hardware ops are the ones
// ours emits (v_exp_f32, v_sqrt_f32, v_rcp_f32), not libm's correctly rounded expansions.
// Shapes: x and y are [64, 100], b is [100, 32].

#define ROWS 64
#define COLS 100
#define N (ROWS * COLS)
#define BN 32
#define LANES 64
#define LOG2E 1.4426950408889634f

static inline uint lane(void) { return get_local_id(0); }

// The workgroup's partial results `acc` combined in a tree through `part` (LDS) with `op`;
// every lane reads the result from part[0]. A macro: the LDS array stays the kernel's own.
#define WG_REDUCE(part, acc, op)                                      \
    do {                                                              \
        part[lane()] = (acc);                                         \
        barrier(CLK_LOCAL_MEM_FENCE);                                 \
        for (uint s_ = LANES / 2; s_ > 0; s_ >>= 1) {                 \
            if (lane() < s_) part[lane()] = op(part[lane()], part[lane() + s_]); \
            barrier(CLK_LOCAL_MEM_FENCE);                             \
        }                                                             \
    } while (0)
#define ADD(a, b) ((a) + (b))
#define MAX(a, b) __builtin_fmaxf(a, b)

// max(sqrt(exp2(x*y + x)), y)
kernel void elementwise(global const float *x, global const float *y, global float *out) {
    uint i = get_group_id(0) * LANES + lane();
    if (i < N) out[i] = __builtin_fmaxf(__builtin_amdgcn_sqrtf(__builtin_amdgcn_exp2f(x[i] * y[i] + x[i])), y[i]);
}

// sqrt(sum(x*x over axis 1))
kernel void row_norm(global const float *x, global float *out) {
    local float part[LANES];
    uint r = get_group_id(0);
    float acc = 0.0f;
    for (uint j = lane(); j < COLS; j += LANES) acc += x[r * COLS + j] * x[r * COLS + j];
    WG_REDUCE(part, acc, ADD);
    if (lane() == 0) out[r] = __builtin_amdgcn_sqrtf(part[0]);
}

// max(x over axis 0)
kernel void column_max(global const float *x, global float *out) {
    local float part[LANES];
    uint c = get_group_id(0);
    float acc = -__builtin_inff();
    for (uint j = lane(); j < ROWS; j += LANES) acc = __builtin_fmaxf(acc, x[j * COLS + c]);
    WG_REDUCE(part, acc, MAX);
    if (lane() == 0) out[c] = part[0];
}

// softmax over axis 1 in the schedule's three kernels: the row max, the row sum of e^(x - max),
// then e^(x - max) / sum per element.
kernel void softmax_max(global const float *x, global float *m) {
    local float part[LANES];
    uint r = get_group_id(0);
    float acc = -__builtin_inff();
    for (uint j = lane(); j < COLS; j += LANES) acc = __builtin_fmaxf(acc, x[r * COLS + j]);
    WG_REDUCE(part, acc, MAX);
    if (lane() == 0) m[r] = part[0];
}

kernel void softmax_sum(global const float *x, global const float *m, global float *s) {
    local float part[LANES];
    uint r = get_group_id(0);
    float acc = 0.0f;
    for (uint j = lane(); j < COLS; j += LANES) acc += __builtin_amdgcn_exp2f((x[r * COLS + j] - m[r]) * LOG2E);
    WG_REDUCE(part, acc, ADD);
    if (lane() == 0) s[r] = part[0];
}

kernel void softmax_div(global const float *x, global const float *m, global const float *s, global float *out) {
    uint i = get_group_id(0) * LANES + lane();
    if (i < N) {
        uint r = i / COLS;
        out[i] = __builtin_amdgcn_exp2f((x[i] - m[r]) * LOG2E) * __builtin_amdgcn_rcpf(s[r]);
    }
}

// [64, 100] x [100, 32] tiled as the graph compiler tiles a matmul: a workgroup of 64 lanes per
// 32x32 tile of C; per step of 16 along k both tiles staged k-major in LDS (lane l writes element
// l + 64 j of each: row or column l % 32, k = l / 32 + 2 j; rows clamped into the matrix, k past
// the end read as 0); lane l accumulates the 4x4 block at rows 4 (l / 8), columns 4 (l % 8).
#define TM 32
#define TN 32
#define TK 16

static inline uint umin(uint a, uint b) { return a < b ? a : b; }

kernel void matmul(global const float *a, global const float *b, global float *out) {
    local float as[TK * TM];
    local float bs[TK * TN];
    uint l = lane(), g = get_group_id(0), tiles_n = (BN + TN - 1) / TN;
    uint m0 = g / tiles_n * TM, n0 = g % tiles_n * TN;
    uint sm = umin(m0 + l % TM, ROWS - 1), sn = umin(n0 + l % TN, BN - 1), sk = l / TM;
    uint ti = l / (TN / 4), tj = l % (TN / 4);
    float acc[4][4] = {{0.0f}};
    for (uint k0 = 0; k0 < COLS; k0 += TK) {
        for (uint j = 0; j < TK * TM / LANES; j++) {
            uint k = k0 + sk + 2 * j, kc = umin(k, COLS - 1);
            as[l + LANES * j] = k < COLS ? a[sm * COLS + kc] : 0.0f;
            bs[l + LANES * j] = k < COLS ? b[kc * BN + sn] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint kk = 0; kk < TK; kk++) {
            float4 x = *(local float4 *)&as[kk * TM + 4 * ti];
            float4 y = *(local float4 *)&bs[kk * TN + 4 * tj];
            float xs[4] = {x.x, x.y, x.z, x.w}, ys[4] = {y.x, y.y, y.z, y.w};
            for (uint i = 0; i < 4; i++)
                for (uint j = 0; j < 4; j++) acc[i][j] = __builtin_fmaf(xs[i], ys[j], acc[i][j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint i = 0; i < 4; i++)
        for (uint j = 0; j < 4; j++) {
            uint m = m0 + 4 * ti + i, n = n0 + 4 * tj + j;
            if (m < ROWS && n < BN) out[m * BN + n] = acc[i][j];
        }
}
