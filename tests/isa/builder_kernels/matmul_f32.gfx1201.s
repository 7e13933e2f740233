	s_load_b256 s[4:11], s[0:1], 0x0
	s_load_b32 s12, s[0:1], 0x20
	s_mov_b32 s14, ttmp9
	s_and_b32 s15, 0xffff, ttmp7
	v_and_b32 v1, 0x3ff, v0
	v_bfe_u32 v2, v0, 10, 10
	s_lshl_b32 s18, s14, 4
	s_lshl_b32 s17, s15, 4
	v_add_nc_u32 v12, s18, v1
	v_add_nc_u32 v11, s17, v2
	v_lshlrev_b32 v6, 6, v2
	v_lshlrev_b32 v7, 2, v1
	v_add_nc_u32 v5, v6, v7
	v_mov_b32 v8, 0
	s_wait_kmcnt 0x0
	v_mul_lo_u32 v3, v11, s12
	v_add_nc_u32 v3, v3, v1
	v_lshlrev_b32 v3, 2, v3
	v_mul_lo_u32 v4, v2, s11
	v_add_nc_u32 v4, v4, v12
	v_lshlrev_b32 v4, 2, v4
	s_lshl_b32 s16, s11, 6
	s_lshr_b32 s13, s12, 4
	s_cmp_eq_u32 s13, 0
	s_cbranch_scc1 store
k_loop:
	global_load_b32 v9, v3, s[4:5]
	global_load_b32 v10, v4, s[6:7]
	v_add_nc_u32 v3, 64, v3
	v_add_nc_u32 v4, s16, v4
	s_wait_loadcnt 0x0
	ds_store_b32 v5, v9
	ds_store_b32 v5, v10 offset:1024
	s_wait_dscnt 0x0
	s_barrier_signal -1
	s_barrier_wait 0xffff
	ds_load_b128 v[16:19], v6
	ds_load_b128 v[20:23], v6 offset:16
	ds_load_b128 v[24:27], v6 offset:32
	ds_load_b128 v[28:31], v6 offset:48
	ds_load_b32 v32, v7 offset:1024
	ds_load_b32 v33, v7 offset:1088
	ds_load_b32 v34, v7 offset:1152
	ds_load_b32 v35, v7 offset:1216
	ds_load_b32 v36, v7 offset:1280
	ds_load_b32 v37, v7 offset:1344
	ds_load_b32 v38, v7 offset:1408
	ds_load_b32 v39, v7 offset:1472
	ds_load_b32 v40, v7 offset:1536
	ds_load_b32 v41, v7 offset:1600
	ds_load_b32 v42, v7 offset:1664
	ds_load_b32 v43, v7 offset:1728
	ds_load_b32 v44, v7 offset:1792
	ds_load_b32 v45, v7 offset:1856
	ds_load_b32 v46, v7 offset:1920
	ds_load_b32 v47, v7 offset:1984
	s_wait_dscnt 0x0
	v_fmac_f32 v8, v16, v32
	v_fmac_f32 v8, v17, v33
	v_fmac_f32 v8, v18, v34
	v_fmac_f32 v8, v19, v35
	v_fmac_f32 v8, v20, v36
	v_fmac_f32 v8, v21, v37
	v_fmac_f32 v8, v22, v38
	v_fmac_f32 v8, v23, v39
	v_fmac_f32 v8, v24, v40
	v_fmac_f32 v8, v25, v41
	v_fmac_f32 v8, v26, v42
	v_fmac_f32 v8, v27, v43
	v_fmac_f32 v8, v28, v44
	v_fmac_f32 v8, v29, v45
	v_fmac_f32 v8, v30, v46
	v_fmac_f32 v8, v31, v47
	s_barrier_signal -1
	s_barrier_wait 0xffff
	s_add_co_i32 s13, s13, -1
	s_cmp_lg_u32 s13, 0
	s_cbranch_scc1 k_loop
store:
	v_mul_lo_u32 v3, v11, s11
	v_add_nc_u32 v3, v3, v12
	v_lshlrev_b32 v3, 2, v3
	global_store_b32 v3, v8, s[8:9]
	s_endpgm
