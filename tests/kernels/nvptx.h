// The OpenCL work-item library of tests/kernels/amdgcn.h for NVPTX: without libclc, OpenCL's
// get_global_id, barrier ... would stay `.extern .func` calls, so they are spelled with clang's
// NVPTX built-ins and the PTX holds what a CUDA compile would (%ctaid, %tid, %ntid, %nctaid,
// bar.sync). The types match amdgcn.h (uint), so both targets compile the same C.
#pragma once

static inline uint bg_group_id(uint d) {
    return d == 0 ? __nvvm_read_ptx_sreg_ctaid_x() : d == 1 ? __nvvm_read_ptx_sreg_ctaid_y() : __nvvm_read_ptx_sreg_ctaid_z();
}
static inline uint bg_local_id(uint d) {
    return d == 0 ? __nvvm_read_ptx_sreg_tid_x() : d == 1 ? __nvvm_read_ptx_sreg_tid_y() : __nvvm_read_ptx_sreg_tid_z();
}
static inline uint bg_group_size(uint d) {
    return d == 0 ? __nvvm_read_ptx_sreg_ntid_x() : d == 1 ? __nvvm_read_ptx_sreg_ntid_y() : __nvvm_read_ptx_sreg_ntid_z();
}
static inline uint bg_num_groups(uint d) {
    return d == 0 ? __nvvm_read_ptx_sreg_nctaid_x() : d == 1 ? __nvvm_read_ptx_sreg_nctaid_y() : __nvvm_read_ptx_sreg_nctaid_z();
}
static inline uint bg_lane_id(void) {
    return __nvvm_read_ptx_sreg_laneid();
}

#define get_group_id(d) bg_group_id(d)
#define get_local_id(d) bg_local_id(d)
#define get_local_size(d) bg_group_size(d)
#define get_num_groups(d) bg_num_groups(d)
#define get_global_id(d) (bg_group_id(d) * bg_group_size(d) + bg_local_id(d))
#define get_global_size(d) (bg_num_groups(d) * bg_group_size(d))
// bar.sync 0 (CUDA's __syncthreads): a CTA-wide barrier that also orders the CTA's shared and
// global memory accesses, which is what barrier(CLK_LOCAL_MEM_FENCE) asks for.
#define barrier(flags) __nvvm_barrier_sync(0)
