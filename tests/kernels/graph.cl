// Kernels of the graph property tests (runtime::graph::random, tests/graph_kernels.rs). `mix` is
// not commutative: two launches on the same words in the other order give other words, so a
// graph that misses a dependency shows it in its output.

kernel void mix(global uint *dst, global const uint *src, uint n, uint k) {
    uint i = get_global_id(0);
    if (i < n) dst[i] = dst[i] * 3u + src[i] + k;
}
