// A minimal OpenCL work-item library for kernels compiled with -nogpulib (no ROCm device
// libraries): ids come from the amdgcn builtins, sizes from the code-object-v5 implicit
// arguments (hidden_block_count_* at 0, hidden_group_size_* at 12, hidden_remainder_* at 18),
// which the runtime fills as the metadata describes.
#pragma once

static inline uint bg_group_id(uint d) {
    return d == 0 ? __builtin_amdgcn_workgroup_id_x() : d == 1 ? __builtin_amdgcn_workgroup_id_y() : __builtin_amdgcn_workgroup_id_z();
}
static inline uint bg_local_id(uint d) {
    return d == 0 ? __builtin_amdgcn_workitem_id_x() : d == 1 ? __builtin_amdgcn_workitem_id_y() : __builtin_amdgcn_workitem_id_z();
}
static inline uint bg_group_size(uint d) {
    return ((__constant ushort *)__builtin_amdgcn_implicitarg_ptr())[6 + d];
}
static inline uint bg_num_groups(uint d) {
    return ((__constant uint *)__builtin_amdgcn_implicitarg_ptr())[d];
}

#define get_group_id(d) bg_group_id(d)
#define get_local_id(d) bg_local_id(d)
#define get_local_size(d) bg_group_size(d)
#define get_num_groups(d) bg_num_groups(d)
#define get_global_id(d) (bg_group_id(d) * bg_group_size(d) + bg_local_id(d))
#define get_global_size(d) (bg_num_groups(d) * bg_group_size(d))
#define barrier(flags)                                          \
    do {                                                        \
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");  \
        __builtin_amdgcn_s_barrier();                           \
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");  \
    } while (0)
