// Buffer-resource accesses and loads to LDS as clang emits them for gfx942/gfx950
// (emu/tests/cdna_buffer.rs; built by tests/fixtures/cdna/build.sh). gfx9 V# word3 0x24000:
// DFMT 32, NFMT UINT.

// out[i] = in[i] + the u16 at byte 2i + 2 past `in` + 4 (SGPR offset 4), both through a raw
// buffer of n_bytes: out-of-range parts read 0.
__kernel void buffer_copy(__global uint *in, __global uint *out, uint n_bytes) {
    __amdgpu_buffer_rsrc_t rin = __builtin_amdgcn_make_buffer_rsrc(in, 0, n_bytes, 0x24000);
    __amdgpu_buffer_rsrc_t rout = __builtin_amdgcn_make_buffer_rsrc(out, 0, 0x7fffffff, 0x24000);
    uint i = get_global_id(0);
    uint x = __builtin_amdgcn_raw_buffer_load_b32(rin, i * 4, 0, 0);
    ushort h = __builtin_amdgcn_raw_buffer_load_b16(rin, i * 2 + 2, 4, 0);
    __builtin_amdgcn_raw_buffer_store_b32(x + h, rout, i * 4, 0, 0);
}

// One workgroup of 64: LDS words 0..63 from in[0..63] by a buffer load to LDS, words 64..127
// from in[64..127] by a global load to LDS whose immediate offset (16) moves both addresses
// (LLVM: "applied to both global and LDS address"), gfx950: 16 bytes a lane, words 128..383
// from in[128..383]; out[l] = tile[63 - l], out[64 + l] = 3 × tile[64 + l], out[128 + 4l + k] =
// tile[128 + 4l + k] + 1 (gfx950).
__kernel void buffer_to_lds(__global uint *in, __global uint *out) {
    __local uint tile[384];
    __amdgpu_buffer_rsrc_t rin = __builtin_amdgcn_make_buffer_rsrc(in, 0, 0x7fffffff, 0x24000);
    uint l = get_local_id(0);
    __builtin_amdgcn_raw_ptr_buffer_load_lds(rin, (__local void *)tile, 4, l * 4, 0, 0, 0);
    __builtin_amdgcn_global_load_lds(in + 60 + l, (__local void *)(tile + 60), 4, 16, 0);
#ifdef __gfx950__
    __builtin_amdgcn_raw_ptr_buffer_load_lds(rin, (__local void *)(tile + 128), 16, l * 16 + 512, 0, 0, 0);
#endif
    __builtin_amdgcn_s_waitcnt(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[l] = tile[63 - l];
    out[64 + l] = tile[64 + l] * 3;
#ifdef __gfx950__
    for (uint k = 0; k < 4; k++)
        out[128 + 4 * l + k] = tile[128 + 4 * l + k] + 1;
#endif
}
