	s_load_b128 s[4:7], s[0:1], 0x0
	s_load_b64 s[8:9], s[0:1], 0x10
	s_load_b32 s10, s[0:1], 0x18
	v_and_b32 v1, 0x3ff, v0
	s_lshl_b32 s11, s15, 8
	v_add_nc_u32 v1, s11, v1
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32 vcc_lo, s10, v1
	s_and_saveexec_b32 s12, vcc_lo
	s_cbranch_execz end
	v_lshlrev_b32 v1, 2, v1
	global_load_b32 v2, v1, s[4:5]
	global_load_b32 v3, v1, s[6:7]
	s_waitcnt vmcnt(0)
	v_add_f32 v2, v2, v3
	global_store_b32 v1, v2, s[8:9]
end:
	s_endpgm
