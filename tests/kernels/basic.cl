// Small kernels that exercise the code-object loader: several kernels per object, buffer and
// scalar arguments of every width, 2-D grids, LDS and a barrier.

kernel void vector_add(global const float *a, global const float *b, global float *c, uint n) {
    uint i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}

kernel void saxpy(global float *y, global const float *x, float alpha, ulong n) {
    size_t i = get_global_id(0);
    if (i < n) y[i] = alpha * x[i] + y[i];
}

kernel void fill2d(global int *out, int width, int value) {
    int x = get_global_id(0), y = get_global_id(1);
    out[y * width + x] = value + x - y;
}

kernel void block_reverse(global int *data) {
    local int tile[64];
    uint l = get_local_id(0), g = get_group_id(0) * get_local_size(0);
    tile[l] = data[g + l];
    barrier(CLK_LOCAL_MEM_FENCE);
    data[g + l] = tile[get_local_size(0) - 1 - l];
}

kernel void scalars(global double *out, char c, short s, int i, long l, float f, double d) {
    out[0] = c + s + i + l + f + d;
}
