lvs --reportformat json --units b --nosuffix -o lv_name,lv_path,lv_size,lv_tags,pool_lv,lv_attr,vg_extent_size -S lv_name=nothing vgcap
