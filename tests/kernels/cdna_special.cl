// Rarely emitted VALU operations as clang-22 builds them (emu/tests/cdna/special_clang.rs).

// v_trig_preop_f64 through its builtin, in the large-argument reduction of sin/cos(double):
// lane i writes, for x = x[i], the three 53-bit segments of 2/pi the instruction picks for x,
// then x times each as an exact pair (product, fma residual).
kernel void trig_reduce(global const double *x, global double *out) {
    uint i = get_global_id(0);
    double v = x[i];
    // From exponent 1968 on the segments come 2^128 larger (so the last does not underflow):
    // the products take x 2^128 smaller.
    double vs = (__builtin_bit_cast(ulong, v) >> 52 & 0x7ff) >= 1968 ? v * 0x1p-128 : v;
    for (int k = 0; k < 3; k++) {
        double a = __builtin_amdgcn_trig_preop(v, k);
        double h = vs * a;
        out[9 * i + k] = a;
        out[9 * i + 3 + 2 * k] = h;
        out[9 * i + 4 + 2 * k] = __builtin_fma(vs, a, -h);
    }
}

static int sat(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

// Two i32 shifted right by a third, each saturated to an unsigned byte and packed: gfx950
// selects v_ashr_pk_u8_i32 for it (LLVM's pattern), gfx942 a shift/med3/perm sequence.
kernel void ashr_pack(global const int *a, global ushort *out) {
    uint i = get_global_id(0);
    int s = a[3 * i + 2];
    int x = a[3 * i] >> s, y = a[3 * i + 1] >> s;
    out[i] = (ushort)((ushort)(uchar)sat(x, 0, 255) | ((ushort)sat(y, 0, 255) << 8));
}
